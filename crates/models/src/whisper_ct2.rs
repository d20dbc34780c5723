//! Whisper weights from CTranslate2 (faster-whisper) to whisper.cpp's ggml file.
//!
//! whisper.cpp loads one file format, the one its `models/convert-pt-to-ggml.py` writes, and no
//! package registry this project can reach ships such a file. Registries do ship the same
//! weights as CTranslate2 float16 `model.bin` files, and OpenAI's `openai-whisper` sdist ships
//! the two things a ggml file carries besides weights: the mel filter bank and the token list.
//! So this module rewrites one into the other, byte for byte the way the python script would
//! have written it had it been given these weights: same header, same tensor names and order,
//! same rule for which tensors stay float16 and which become float32.
//!
//! Being exact and deterministic is the point. The output is identified by a sha256 pinned in
//! the catalog, like every model file, so the conversion must produce the same bytes on every
//! machine: no timestamps, no hash-map order, no float arithmetic beyond the exact widening of
//! float16 to float32.
//!
//! Being strict is the other point. CTranslate2 fuses whisper's query/key/value projections
//! into one matrix and gives the key a bias of zero (whisper's key has none). Splitting them is
//! lossless only if that bias really is zero, so a file where it is not is refused rather than
//! silently changed. Likewise every variable must be one whisper.cpp has a place for, with the
//! shape the model's dimensions imply; anything else — an unknown variable, a missing one, a
//! wrong shape, int8 weights, another spec, a truncated file — is an error naming it, because
//! whisper.cpp would either refuse the result or, worse, load something subtly different.
//!
//! Memory: the CTranslate2 file is indexed, not loaded; each tensor is read, converted and
//! written in turn, so the peak is about the largest tensor (the token embedding).

use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

const CT2_BINARY_VERSION: u32 = 6;
const WHISPER_SPEC: &str = "WhisperSpec";
const WHISPER_SPEC_REVISION: u32 = 3;
const GGML_MAGIC: i32 = 0x6767_6d6c;
/// whisper.cpp treats a model as multilingual from this many tokens on.
const MULTILINGUAL_VOCAB: u64 = 51865;
/// CTranslate2's data type ids.
const DT_FLOAT16: u8 = 4;
/// The most an asset inside the sdist may be; the real ones are under 1 MB.
const ASSET_LIMIT: u64 = 64 << 20;

/// Which of whisper's token lists a model uses.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Tokenizer {
    /// `gpt2.tiktoken`, for the English-only `.en` models.
    Gpt2,
    /// `multilingual.tiktoken`.
    Multilingual,
}

impl Tokenizer {
    pub fn file_name(self) -> &'static str {
        match self {
            Tokenizer::Gpt2 => "gpt2.tiktoken",
            Tokenizer::Multilingual => "multilingual.tiktoken",
        }
    }
}

#[derive(Debug, Error)]
pub enum Ct2Error {
    #[error("cannot read {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: String, source: std::io::Error },
    #[error("{path} is not a CTranslate2 model this converter understands: {detail}")]
    Format { path: String, detail: String },
    #[error(
        "{path} is a CTranslate2 {spec} (revision {revision}); only {WHISPER_SPEC} revision {WHISPER_SPEC_REVISION} (faster-whisper) models can be converted"
    )]
    Spec { path: String, spec: String, revision: u32 },
    #[error(
        "{path} is truncated: {what} at byte {at} needs {need} bytes, but the file ends at byte {len} (an incomplete download or copy)"
    )]
    Truncated { path: String, what: String, at: u64, need: u64, len: u64 },
    #[error("{path}: variable {name} is missing (expected shape {expected})")]
    Missing { path: String, name: String, expected: String },
    #[error("{path}: variable {name} has shape {actual}, expected {expected}")]
    Shape { path: String, name: String, actual: String, expected: String },
    #[error(
        "{path}: variable {name} is {dtype}; only float16 models can be converted (CTranslate2's `--quantization float16`)"
    )]
    DType { path: String, name: String, dtype: String },
    #[error(
        "{path}: unexpected variable {name} {shape}: whisper.cpp has no place for it, so this is not a plain whisper model"
    )]
    Unexpected { path: String, name: String, shape: String },
    #[error("{path}: {name} is {actual}, but a whisper model has {expected}")]
    Flag { path: String, name: String, actual: i64, expected: i64 },
    #[error(
        "{path}: the key bias in {name} (rows {from}..{to}) is not zero at row {row}; whisper has no key bias, so this model cannot be written in whisper.cpp's format without changing it"
    )]
    KeyBias { path: String, name: String, from: u64, to: u64, row: u64 },
    #[error("{path}: {detail}")]
    Vocabulary { path: String, detail: String },
    #[error("whisper assets {path}: {detail}")]
    Assets { path: String, detail: String },
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

fn shape_text(shape: &[u64]) -> String {
    format!("[{}]", shape.iter().map(u64::to_string).collect::<Vec<_>>().join(", "))
}

/// whisper.cpp's hyperparameters, in the order its file header lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hparams {
    pub n_vocab: u64,
    pub n_audio_ctx: u64,
    pub n_audio_state: u64,
    pub n_audio_head: u64,
    pub n_audio_layer: u64,
    pub n_text_ctx: u64,
    pub n_text_state: u64,
    pub n_text_head: u64,
    pub n_text_layer: u64,
    pub n_mels: u64,
}

impl Hparams {
    pub fn multilingual(&self) -> bool {
        self.n_vocab >= MULTILINGUAL_VOCAB
    }

    fn fields(&self) -> [u64; 10] {
        [
            self.n_vocab,
            self.n_audio_ctx,
            self.n_audio_state,
            self.n_audio_head,
            self.n_audio_layer,
            self.n_text_ctx,
            self.n_text_state,
            self.n_text_head,
            self.n_text_layer,
            self.n_mels,
        ]
    }
}

/// What a conversion wrote.
#[derive(Clone, Debug)]
pub struct Converted {
    pub hparams: Hparams,
    pub tensors: usize,
    pub bytes: u64,
}

// ------------------------------------------------------------------------------------------
// Reading the CTranslate2 file.

#[derive(Clone, Debug)]
struct Var {
    shape: Vec<u64>,
    dtype: u8,
    /// Where the data starts in the file.
    offset: u64,
    /// A rank-0 integer's value.
    scalar: Option<i64>,
}

/// The index of a CTranslate2 whisper `model.bin`: every variable's name, shape, type and
/// where its bytes are. Opening reads the headers and skips the data.
#[derive(Debug)]
pub struct Ct2Whisper {
    path: PathBuf,
    vars: BTreeMap<String, Var>,
    aliases: BTreeMap<String, String>,
}

fn dtype_name(id: u8) -> String {
    match id {
        0 => "float32".into(),
        1 => "int8".into(),
        2 => "int16".into(),
        3 => "int32".into(),
        4 => "float16".into(),
        5 => "bfloat16".into(),
        n => format!("data type {n}"),
    }
}

fn dtype_size(id: u8) -> Option<u64> {
    match id {
        1 => Some(1),
        2 | 4 | 5 => Some(2),
        0 | 3 => Some(4),
        _ => None,
    }
}

/// Reads the file front to back, keeping track of where it is so a short file is reported as
/// truncated (with the offset) rather than as a generic read error.
struct Reader {
    inner: BufReader<File>,
    pos: u64,
    len: u64,
    path: PathBuf,
}

impl Reader {
    fn check(&self, need: u64, what: &str) -> Result<(), Ct2Error> {
        if self.pos.checked_add(need).is_none_or(|end| end > self.len) {
            return Err(Ct2Error::Truncated {
                path: shown(&self.path),
                what: what.into(),
                at: self.pos,
                need,
                len: self.len,
            });
        }
        Ok(())
    }

    fn bytes(&mut self, n: u64, what: &str) -> Result<Vec<u8>, Ct2Error> {
        self.check(n, what)?;
        let mut buf = vec![0u8; usize::try_from(n).unwrap_or(usize::MAX)];
        self.inner.read_exact(&mut buf).map_err(|source| Ct2Error::Io { path: shown(&self.path), source })?;
        self.pos += n;
        Ok(buf)
    }

    fn skip(&mut self, n: u64, what: &str) -> Result<(), Ct2Error> {
        self.check(n, what)?;
        let step = i64::try_from(n).map_err(|_| self.format(format!("{what} is impossibly large ({n} bytes)")))?;
        self.inner.seek_relative(step).map_err(|source| Ct2Error::Io { path: shown(&self.path), source })?;
        self.pos += n;
        Ok(())
    }

    fn u8(&mut self, what: &str) -> Result<u8, Ct2Error> {
        Ok(self.bytes(1, what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, Ct2Error> {
        let b = self.bytes(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, what: &str) -> Result<u32, Ct2Error> {
        let b = self.bytes(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// CTranslate2's strings: a u16 length that counts a trailing NUL, then the bytes.
    fn string(&mut self, what: &str) -> Result<String, Ct2Error> {
        let n = self.u16(what)?;
        let bytes = self.bytes(u64::from(n), what)?;
        match bytes.split_last() {
            Some((0, text)) => String::from_utf8(text.to_vec())
                .map_err(|_| self.format(format!("{what} at byte {} is not UTF-8", self.pos))),
            _ => Err(self.format(format!("{what} ending at byte {} is not a NUL-terminated string", self.pos))),
        }
    }

    fn format(&self, detail: String) -> Ct2Error {
        Ct2Error::Format { path: shown(&self.path), detail }
    }
}

impl Ct2Whisper {
    /// Indexes `model.bin`, refusing anything but a complete CTranslate2 version-6 whisper file.
    pub fn open(path: &Path) -> Result<Ct2Whisper, Ct2Error> {
        let file = File::open(path).map_err(|source| Ct2Error::Io { path: shown(path), source })?;
        let len = file.metadata().map_err(|source| Ct2Error::Io { path: shown(path), source })?.len();
        let mut r = Reader { inner: BufReader::new(file), pos: 0, len, path: path.to_path_buf() };
        let version = r.u32("the binary version")?;
        if version != CT2_BINARY_VERSION {
            return Err(r.format(format!(
                "binary version {version}; this converter reads version {CT2_BINARY_VERSION} (CTranslate2 3.x and 4.x)"
            )));
        }
        let spec = r.string("the spec name")?;
        let revision = r.u32("the spec revision")?;
        if spec != WHISPER_SPEC || revision != WHISPER_SPEC_REVISION {
            return Err(Ct2Error::Spec { path: shown(path), spec, revision });
        }
        let count = r.u32("the variable count")?;
        let mut vars = BTreeMap::new();
        for i in 0..count {
            let name = r.string(&format!("the name of variable {i}"))?;
            let rank = r.u8(&format!("the rank of {name}"))?;
            if rank > 4 {
                return Err(r.format(format!("{name} has rank {rank}; whisper's tensors have at most 3 dimensions")));
            }
            let mut shape = vec![];
            for _ in 0..rank {
                shape.push(u64::from(r.u32(&format!("the shape of {name}"))?));
            }
            let dtype = r.u8(&format!("the data type of {name}"))?;
            let nbytes = u64::from(r.u32(&format!("the size of {name}"))?);
            let Some(size) = dtype_size(dtype) else {
                return Err(r.format(format!("{name} has an unknown data type id {dtype}")));
            };
            let elements = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
            if elements.and_then(|e| e.checked_mul(size)) != Some(nbytes) {
                return Err(r.format(format!(
                    "{name} declares {nbytes} bytes, but {} of {} are {} bytes",
                    shape_text(&shape),
                    dtype_name(dtype),
                    elements.and_then(|e| e.checked_mul(size)).map_or("too many".into(), |b| b.to_string())
                )));
            }
            let offset = r.pos;
            let scalar = if rank == 0 && matches!(dtype, 1..=3) {
                let b = r.bytes(nbytes, &format!("the value of {name}"))?;
                Some(match b.as_slice() {
                    [x] => i64::from(*x as i8),
                    [a, b] => i64::from(i16::from_le_bytes([*a, *b])),
                    [a, b, c, d] => i64::from(i32::from_le_bytes([*a, *b, *c, *d])),
                    _ => return Err(r.format(format!("{name} has {nbytes} bytes for one integer"))),
                })
            } else {
                r.skip(nbytes, &format!("the data of {name}"))?;
                None
            };
            if vars.insert(name.clone(), Var { shape, dtype, offset, scalar }).is_some() {
                return Err(r.format(format!("variable {name} appears twice")));
            }
        }
        let alias_count = r.u32("the alias count")?;
        let mut aliases = BTreeMap::new();
        for i in 0..alias_count {
            let alias = r.string(&format!("alias {i}"))?;
            let target = r.string(&format!("the target of alias {alias}"))?;
            aliases.insert(alias, target);
        }
        if r.pos != r.len {
            return Err(r.format(format!("{} unexpected bytes after the last alias", r.len - r.pos)));
        }
        Ok(Ct2Whisper { path: path.to_path_buf(), vars, aliases })
    }

    /// whisper's dimensions, read from the tensors' shapes (and the head counts CTranslate2
    /// stores as scalars).
    pub fn hparams(&self) -> Result<Hparams, Ct2Error> {
        Ok(self.plan()?.0)
    }

    fn shape_of(&self, name: &str, rank: usize, expected: &str) -> Result<&[u64], Ct2Error> {
        let var = self.vars.get(name).ok_or_else(|| Ct2Error::Missing {
            path: shown(&self.path),
            name: name.into(),
            expected: expected.into(),
        })?;
        if var.shape.len() != rank {
            return Err(Ct2Error::Shape {
                path: shown(&self.path),
                name: name.into(),
                actual: shape_text(&var.shape),
                expected: expected.into(),
            });
        }
        Ok(&var.shape)
    }

    fn layers(&self, side: &str) -> u64 {
        let prefix = format!("{side}/layer_");
        self.vars
            .keys()
            .filter_map(|k| k.strip_prefix(&prefix)?.split('/').next()?.parse::<u64>().ok())
            .max()
            .map_or(0, |n| n + 1)
    }

    fn heads(&self, side: &str, width: u64) -> Result<u64, Ct2Error> {
        let name = format!("{side}/num_heads");
        let heads = match self.vars.get(&name).and_then(|v| v.scalar) {
            Some(h) => u64::try_from(h).ok().filter(|h| *h > 0),
            None if width.is_multiple_of(64) => Some(width / 64),
            None => None,
        };
        match heads {
            Some(h) if width.is_multiple_of(h) => Ok(h),
            _ => Err(Ct2Error::Format {
                path: shown(&self.path),
                detail: format!("cannot tell the {side}'s attention heads: no usable {name} for width {width}"),
            }),
        }
    }

    /// The dimensions, and every ggml tensor to write, in the order the python converter writes
    /// them (PyTorch's state-dict order). Checks every variable of the file against it.
    fn plan(&self) -> Result<(Hparams, Plan), Ct2Error> {
        let conv1 = self.shape_of("encoder/conv1/weight", 3, "[n_audio_state, n_mels, 3]")?;
        let (d, n_mels) = (conv1[0], conv1[1]);
        let pos = self.shape_of("encoder/position_encodings/encodings", 2, &format!("[n_audio_ctx, {d}]"))?;
        let n_audio_ctx = pos[0];
        let emb = self.shape_of("decoder/embeddings/weight", 2, &format!("[n_vocab, {d}]"))?;
        let n_vocab = emb[0];
        let text_pos = self.shape_of("decoder/position_encodings/encodings", 2, &format!("[n_text_ctx, {d}]"))?;
        let n_text_ctx = text_pos[0];
        let hp = Hparams {
            n_vocab,
            n_audio_ctx,
            n_audio_state: d,
            n_audio_head: self.heads("encoder", d)?,
            n_audio_layer: self.layers("encoder"),
            n_text_ctx,
            n_text_state: d,
            n_text_head: self.heads("decoder", d)?,
            n_text_layer: self.layers("decoder"),
            n_mels,
        };
        if hp.fields().iter().any(|&v| v == 0 || i32::try_from(v).is_err()) {
            return Err(Ct2Error::Format { path: shown(&self.path), detail: format!("implausible dimensions {hp:?}") });
        }

        let mut p = Plan::default();
        p.tensor("encoder.positional_embedding", "encoder/position_encodings/encodings", &[n_audio_ctx, d]);
        for conv in ["conv1", "conv2"] {
            let inputs = if conv == "conv1" { n_mels } else { d };
            p.tensor(&format!("encoder.{conv}.weight"), &format!("encoder/{conv}/weight"), &[d, inputs, 3]);
            // The python converter reshapes conv biases from [n] to [n, 1].
            p.expect(&format!("encoder/{conv}/bias"), &[d]);
            p.out(&format!("encoder.{conv}.bias"), &format!("encoder/{conv}/bias"), None, &[d, 1]);
        }
        for i in 0..hp.n_audio_layer {
            let (src, dst) = (format!("encoder/layer_{i}"), format!("encoder.blocks.{i}"));
            p.self_attention(&format!("{src}/self_attention"), &format!("{dst}.attn"), d);
            p.layer_norm(&format!("{src}/self_attention/layer_norm"), &format!("{dst}.attn_ln"), d);
            p.mlp(&src, &dst, d);
        }
        p.layer_norm("encoder/layer_norm", "encoder.ln_post", d);
        p.tensor("decoder.positional_embedding", "decoder/position_encodings/encodings", &[n_text_ctx, d]);
        p.tensor("decoder.token_embedding.weight", "decoder/embeddings/weight", &[n_vocab, d]);
        for i in 0..hp.n_text_layer {
            let (src, dst) = (format!("decoder/layer_{i}"), format!("decoder.blocks.{i}"));
            p.self_attention(&format!("{src}/self_attention"), &format!("{dst}.attn"), d);
            p.layer_norm(&format!("{src}/self_attention/layer_norm"), &format!("{dst}.attn_ln"), d);
            p.cross_attention(&format!("{src}/attention"), &format!("{dst}.cross_attn"), d);
            p.layer_norm(&format!("{src}/attention/layer_norm"), &format!("{dst}.cross_attn_ln"), d);
            p.mlp(&src, &dst, d);
        }
        p.layer_norm("decoder/layer_norm", "decoder.ln", d);
        self.check(&p)?;
        Ok((hp, p))
    }

    /// Every expected tensor present as float16 with its shape; nothing else but the known
    /// flags with whisper's values; the output projection tied to the token embedding.
    fn check(&self, p: &Plan) -> Result<(), Ct2Error> {
        let path = shown(&self.path);
        for (name, shape) in &p.expected {
            let Some(var) = self.vars.get(name) else {
                return Err(Ct2Error::Missing { path, name: name.clone(), expected: shape_text(shape) });
            };
            if &var.shape != shape {
                return Err(Ct2Error::Shape {
                    path,
                    name: name.clone(),
                    actual: shape_text(&var.shape),
                    expected: shape_text(shape),
                });
            }
            if var.dtype != DT_FLOAT16 {
                return Err(Ct2Error::DType { path, name: name.clone(), dtype: dtype_name(var.dtype) });
            }
        }
        for (name, var) in &self.vars {
            if p.expected.contains_key(name) {
                continue;
            }
            let flag = FLAGS.iter().find(|(n, _)| n == name);
            match (flag, var.scalar) {
                (Some((_, None)), Some(_)) => {}
                (Some((_, Some(expected))), Some(actual)) if *expected == actual => {}
                (Some((_, Some(expected))), Some(actual)) => {
                    return Err(Ct2Error::Flag { path, name: name.clone(), actual, expected: *expected });
                }
                _ => return Err(Ct2Error::Unexpected { path, name: name.clone(), shape: shape_text(&var.shape) }),
            }
        }
        let tied = self.aliases.len() == 1
            && self.aliases.get("decoder/projection/weight").map(String::as_str) == Some("decoder/embeddings/weight");
        if !tied {
            return Err(Ct2Error::Format {
                path,
                detail: format!(
                    "the aliases are {:?}; a whisper model has exactly one, decoder/projection/weight -> decoder/embeddings/weight (whisper.cpp ties the output projection to the token embedding)",
                    self.aliases
                ),
            });
        }
        Ok(())
    }

    /// Reads `rows` (of the first dimension) of a float16 variable.
    fn read(&self, file: &mut File, name: &str, rows: Option<(u64, u64)>, buf: &mut Vec<u8>) -> Result<(), Ct2Error> {
        let var = self.vars.get(name).ok_or_else(|| Ct2Error::Missing {
            path: shown(&self.path),
            name: name.into(),
            expected: "(planned)".into(),
        })?;
        let row_bytes = var.shape.iter().skip(1).product::<u64>() * 2;
        let (from, to) = rows.unwrap_or((0, var.shape.first().copied().unwrap_or(1)));
        let len = usize::try_from((to - from) * row_bytes).map_err(|_| Ct2Error::Format {
            path: shown(&self.path),
            detail: format!("{name} is too large for this machine"),
        })?;
        buf.resize(len, 0);
        let io = |source| Ct2Error::Io { path: shown(&self.path), source };
        file.seek(SeekFrom::Start(var.offset + from * row_bytes)).map_err(io)?;
        file.read_exact(buf).map_err(io)?;
        Ok(())
    }
}

/// Rank-0 variables CTranslate2 stores beside whisper's tensors, and the value whisper needs
/// (`None`: any value; the head counts are read, the alignment hints are not used).
const FLAGS: &[(&str, Option<i64>)] = &[
    ("encoder/num_heads", None),
    ("decoder/num_heads", None),
    ("decoder/alignment_heads", None),
    ("decoder/alignment_layer", None),
    ("decoder/activation", Some(3)), // GELU
    ("decoder/pre_norm", Some(1)),
    ("decoder/alibi", Some(0)),
    ("decoder/scale_embeddings", Some(0)),
    ("decoder/start_from_zero_embedding", Some(0)),
];

/// One ggml tensor to write: its name, its source (a row range of a CTranslate2 variable) and
/// its PyTorch shape.
#[derive(Clone, Debug)]
struct Out {
    name: String,
    src: String,
    rows: Option<(u64, u64)>,
    shape: Vec<u64>,
}

impl Out {
    /// The python converter's rule: float16 unless 1-dimensional or one of four named tensors.
    fn is_f32(&self) -> bool {
        self.shape.len() < 2
            || matches!(
                self.name.as_str(),
                "encoder.conv1.bias"
                    | "encoder.conv2.bias"
                    | "encoder.positional_embedding"
                    | "decoder.positional_embedding"
            )
    }

    fn bytes(&self) -> u64 {
        let elements: u64 = self.shape.iter().product();
        let data = elements * if self.is_f32() { 4 } else { 2 };
        12 + 4 * self.shape.len() as u64 + self.name.len() as u64 + data
    }
}

#[derive(Default)]
struct Plan {
    expected: BTreeMap<String, Vec<u64>>,
    outs: Vec<Out>,
    /// (variable, rows) that must be zero: the key bias CTranslate2 adds to fused projections.
    zero: Vec<(String, u64, u64)>,
}

impl Plan {
    fn expect(&mut self, src: &str, shape: &[u64]) {
        self.expected.insert(src.into(), shape.to_vec());
    }

    fn out(&mut self, name: &str, src: &str, rows: Option<(u64, u64)>, shape: &[u64]) {
        self.outs.push(Out { name: name.into(), src: src.into(), rows, shape: shape.to_vec() });
    }

    /// A tensor copied whole.
    fn tensor(&mut self, name: &str, src: &str, shape: &[u64]) {
        self.expect(src, shape);
        self.out(name, src, None, shape);
    }

    fn linear(&mut self, src: &str, dst: &str, outputs: u64, inputs: u64) {
        self.tensor(&format!("{dst}.weight"), &format!("{src}/weight"), &[outputs, inputs]);
        self.tensor(&format!("{dst}.bias"), &format!("{src}/bias"), &[outputs]);
    }

    fn layer_norm(&mut self, src: &str, dst: &str, d: u64) {
        self.tensor(&format!("{dst}.weight"), &format!("{src}/gamma"), &[d]);
        self.tensor(&format!("{dst}.bias"), &format!("{src}/beta"), &[d]);
    }

    /// `linear_0` is q, k, v fused as [3d, d]; `linear_1` is the output projection.
    fn self_attention(&mut self, src: &str, dst: &str, d: u64) {
        let (w, b) = (format!("{src}/linear_0/weight"), format!("{src}/linear_0/bias"));
        self.expect(&w, &[3 * d, d]);
        self.expect(&b, &[3 * d]);
        self.out(&format!("{dst}.query.weight"), &w, Some((0, d)), &[d, d]);
        self.out(&format!("{dst}.query.bias"), &b, Some((0, d)), &[d]);
        self.out(&format!("{dst}.key.weight"), &w, Some((d, 2 * d)), &[d, d]);
        self.zero.push((b.clone(), d, 2 * d));
        self.out(&format!("{dst}.value.weight"), &w, Some((2 * d, 3 * d)), &[d, d]);
        self.out(&format!("{dst}.value.bias"), &b, Some((2 * d, 3 * d)), &[d]);
        self.linear(&format!("{src}/linear_1"), &format!("{dst}.out"), d, d);
    }

    /// `linear_0` is q; `linear_1` is k, v fused as [2d, d]; `linear_2` is the output.
    fn cross_attention(&mut self, src: &str, dst: &str, d: u64) {
        self.linear(&format!("{src}/linear_0"), &format!("{dst}.query"), d, d);
        let (w, b) = (format!("{src}/linear_1/weight"), format!("{src}/linear_1/bias"));
        self.expect(&w, &[2 * d, d]);
        self.expect(&b, &[2 * d]);
        self.out(&format!("{dst}.key.weight"), &w, Some((0, d)), &[d, d]);
        self.zero.push((b.clone(), 0, d));
        self.out(&format!("{dst}.value.weight"), &w, Some((d, 2 * d)), &[d, d]);
        self.out(&format!("{dst}.value.bias"), &b, Some((d, 2 * d)), &[d]);
        self.linear(&format!("{src}/linear_2"), &format!("{dst}.out"), d, d);
    }

    fn mlp(&mut self, src: &str, dst: &str, d: u64) {
        self.linear(&format!("{src}/ffn/linear_0"), &format!("{dst}.mlp.0"), 4 * d, d);
        self.linear(&format!("{src}/ffn/linear_1"), &format!("{dst}.mlp.2"), d, 4 * d);
        self.layer_norm(&format!("{src}/ffn/layer_norm"), &format!("{dst}.mlp_ln"), d);
    }
}

// ------------------------------------------------------------------------------------------
// The assets: mel filters and the token list.

/// The mel filter bank and one token list, from the `openai-whisper` sdist or a folder.
#[derive(Clone, Debug)]
pub struct Assets {
    origin: String,
    pub tokenizer: Tokenizer,
    /// Token bytes in rank order.
    pub tokens: Vec<Vec<u8>>,
    mel_npz: Vec<u8>,
}

impl Assets {
    /// Reads `whisper/assets/mel_filters.npz` and the tokenizer's `.tiktoken` from `path`: the
    /// `openai-whisper` sdist (`.tar.gz`), the unpacked sdist, its `whisper/assets` folder, or
    /// any folder holding the two files.
    pub fn load(path: &Path, tokenizer: Tokenizer) -> Result<Assets, Ct2Error> {
        let origin = shown(path);
        let aerr = |detail: String| Ct2Error::Assets { path: origin.clone(), detail };
        let (npz, tiktoken) = if path.is_dir() {
            let mut candidates = vec![path.to_path_buf(), path.join("assets"), path.join("whisper/assets")];
            if let Ok(entries) = std::fs::read_dir(path) {
                let mut children: Vec<PathBuf> =
                    entries.filter_map(Result::ok).map(|e| e.path().join("whisper/assets")).collect();
                children.sort();
                candidates.extend(children);
            }
            let dir = candidates.into_iter().find(|d| d.join("mel_filters.npz").is_file()).ok_or_else(|| {
                aerr("has no mel_filters.npz (looked in it, assets/, whisper/assets/ and */whisper/assets/)".into())
            })?;
            let read = |name: &str| {
                let p = dir.join(name);
                std::fs::read(&p).map_err(|e| aerr(format!("cannot read {}: {e}", p.display())))
            };
            (read("mel_filters.npz")?, read(tokenizer.file_name())?)
        } else {
            read_sdist(path, tokenizer).map_err(aerr)?
        };
        let tokens = parse_tiktoken(&tiktoken).map_err(|e| aerr(format!("{}: {e}", tokenizer.file_name())))?;
        Ok(Assets { origin, tokenizer, tokens, mel_npz: npz })
    }

    /// The `n_mels` × n_fft filter bank as little-endian f32 bytes.
    fn mel_filters(&self, n_mels: u64) -> Result<(u64, u64, Vec<u8>), Ct2Error> {
        let aerr = |detail: String| Ct2Error::Assets { path: self.origin.clone(), detail };
        let key = format!("mel_{n_mels}.npy");
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&self.mel_npz))
            .map_err(|e| aerr(format!("mel_filters.npz is not a readable npz: {e}")))?;
        let mut entry = zip
            .by_name(&key)
            .map_err(|_| aerr(format!("mel_filters.npz has no {key}: no filter bank for a {n_mels}-mel model")))?;
        let mut npy = vec![];
        entry.read_to_end(&mut npy).map_err(|e| aerr(format!("cannot read {key}: {e}")))?;
        let (rows, cols, data) = parse_npy_f32_2d(&npy).map_err(|e| aerr(format!("{key}: {e}")))?;
        if rows != n_mels {
            return Err(aerr(format!("{key} has {rows} rows, expected {n_mels}")));
        }
        Ok((rows, cols, data.to_vec()))
    }
}

fn read_sdist(path: &Path, tokenizer: Tokenizer) -> Result<(Vec<u8>, Vec<u8>), String> {
    let file = File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(BufReader::new(file)));
    let (mut npz, mut tiktoken) = (None, None);
    let entries = archive.entries().map_err(|e| format!("not a readable .tar.gz: {e}"))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| format!("not a readable .tar.gz: {e}"))?;
        let name = entry.path().map_err(|e| format!("bad entry name: {e}"))?.to_string_lossy().into_owned();
        let parts: Vec<&str> = name.split('/').filter(|s| !s.is_empty()).collect();
        let slot = match parts.as_slice() {
            [.., "whisper", "assets", "mel_filters.npz"] => &mut npz,
            [.., "whisper", "assets", f] if *f == tokenizer.file_name() => &mut tiktoken,
            _ => continue,
        };
        if entry.header().size().unwrap_or(u64::MAX) > ASSET_LIMIT {
            return Err(format!("{name} is larger than {ASSET_LIMIT} bytes"));
        }
        let mut bytes = vec![];
        entry.read_to_end(&mut bytes).map_err(|e| format!("cannot read {name}: {e}"))?;
        if slot.replace(bytes).is_some() {
            return Err(format!("holds two copies of {name}"));
        }
    }
    match (npz, tiktoken) {
        (Some(n), Some(t)) => Ok((n, t)),
        (None, _) => Err("has no whisper/assets/mel_filters.npz: not the openai-whisper sdist".into()),
        (_, None) => Err(format!("has no whisper/assets/{}: not the openai-whisper sdist", tokenizer.file_name())),
    }
}

/// `base64 rank` per line, ranks 0, 1, 2, … in order (whisper.cpp takes the position as the id).
fn parse_tiktoken(text: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let mut tokens = vec![];
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let line = std::str::from_utf8(line).map_err(|_| format!("line {} is not text", i + 1))?;
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [b64, rank] = fields.as_slice() else {
            return Err(format!("line {} is not `base64 rank`", i + 1));
        };
        if rank.parse::<usize>().ok() != Some(tokens.len()) {
            return Err(format!(
                "line {} has rank {rank}, expected {} (ranks must be 0, 1, 2, … in order)",
                i + 1,
                tokens.len()
            ));
        }
        tokens.push(base64_decode(b64).ok_or_else(|| format!("line {} is not base64", i + 1))?);
    }
    if tokens.is_empty() {
        return Err("no tokens".into());
    }
    Ok(tokens)
}

/// Standard base64, padding optional — as lenient as Python's `b64decode`, which the python
/// converter uses, about padding: `multilingual.tiktoken` has a line `=` for the empty token.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let digits = text.trim_end_matches('=').as_bytes();
    if digits.len() % 4 == 1 || text.len() - digits.len() > 2 {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut acc = 0u32;
        for &c in chunk {
            acc = (acc << 6) | value(c)?;
        }
        acc <<= 6 * (4 - chunk.len() as u32);
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// A 2-D little-endian float32 C-order `.npy`: its shape and data.
fn parse_npy_f32_2d(npy: &[u8]) -> Result<(u64, u64, &[u8]), String> {
    let bad = || "not a .npy array".to_string();
    if npy.get(..6) != Some(b"\x93NUMPY".as_slice()) {
        return Err(bad());
    }
    let (header_len, start) = match npy.get(6) {
        Some(1) => (usize::from(u16::from_le_bytes([npy[8], npy[9]])), 10),
        Some(2 | 3) if npy.len() >= 12 => (u32::from_le_bytes([npy[8], npy[9], npy[10], npy[11]]) as usize, 12),
        _ => return Err(bad()),
    };
    let header = npy.get(start..start + header_len).ok_or_else(bad)?;
    let header = std::str::from_utf8(header).map_err(|_| bad())?;
    let compact: String = header.chars().filter(|c| !c.is_whitespace()).collect();
    if !compact.contains("'descr':'<f4'") {
        return Err(format!("is not little-endian float32 ({header})"));
    }
    if !compact.contains("'fortran_order':False") {
        return Err(format!("is not in C order ({header})"));
    }
    let shape = compact
        .split("'shape':(")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| format!("has no shape ({header})"))?;
    let dims: Vec<u64> =
        shape.split(',').filter(|s| !s.is_empty()).map(str::parse).collect::<Result<_, _>>().map_err(|_| bad())?;
    let [rows, cols] = dims.as_slice() else {
        return Err(format!("has shape ({shape}), expected 2 dimensions"));
    };
    let data = &npy[start + header_len..];
    if data.len() as u64 != rows * cols * 4 {
        return Err(format!("holds {} bytes of data for shape ({rows}, {cols})", data.len()));
    }
    Ok((*rows, *cols, data))
}

// ------------------------------------------------------------------------------------------
// Writing the ggml file.

/// IEEE half to single precision, exactly (numpy's `astype(float32)`, NaN payloads included).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: shift the leading one into the implicit bit.
            let mut e = 127 - 15 + 1;
            let mut m = man;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | (e << 23) | ((m & 0x3ff) << 13)
        }
        (0x1f, _) => sign | 0x7f80_0000 | (man << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

/// Counts what goes through, for progress and for the size check.
struct Counting<W: Write> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn i32_of(v: u64) -> [u8; 4] {
    // Every value written was checked to fit when the plan was made.
    i32::try_from(v).unwrap_or(i32::MAX).to_le_bytes()
}

/// Converts `model` into a whisper.cpp ggml file at `out` (created or truncated), reporting
/// (bytes written, bytes in all) to `progress`. Nothing is written unless the whole model
/// checked out; a failure part-way leaves a partial `out` for the caller to delete.
pub fn convert(
    model: &Ct2Whisper,
    assets: &Assets,
    out: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Converted, Ct2Error> {
    let path = shown(&model.path);
    let (hp, plan) = model.plan()?;
    if hp.multilingual() != (assets.tokenizer == Tokenizer::Multilingual) {
        let (is, hint) = if hp.multilingual() {
            ("multilingual", "multilingual.tiktoken (--multilingual)")
        } else {
            ("English-only", "gpt2.tiktoken (no --multilingual)")
        };
        return Err(Ct2Error::Vocabulary {
            path,
            detail: format!(
                "the model has {} tokens, so it is {is}, but the {} token list was given; it needs {hint}",
                hp.n_vocab,
                assets.tokenizer.file_name()
            ),
        });
    }
    if assets.tokens.len() as u64 > hp.n_vocab {
        return Err(Ct2Error::Vocabulary {
            path,
            detail: format!("the token list has {} tokens, more than the model's {}", assets.tokens.len(), hp.n_vocab),
        });
    }
    let (n_mel, n_fft, filters) = assets.mel_filters(hp.n_mels)?;

    // Refuse before writing anything: the key biases must be exactly zero (either sign).
    let mut file = File::open(&model.path).map_err(|source| Ct2Error::Io { path: path.clone(), source })?;
    let mut buf = vec![];
    for (name, from, to) in &plan.zero {
        model.read(&mut file, name, Some((*from, *to)), &mut buf)?;
        if let Some(i) = buf.chunks_exact(2).position(|h| u16::from_le_bytes([h[0], h[1]]) & 0x7fff != 0) {
            return Err(Ct2Error::KeyBias { path, name: name.clone(), from: *from, to: *to, row: *from + i as u64 });
        }
    }

    let header = 4 + 4 * 11 + 8 + filters.len() as u64;
    let vocab = 4 + assets.tokens.iter().map(|t| 4 + t.len() as u64).sum::<u64>();
    let total = header + vocab + plan.outs.iter().map(Out::bytes).sum::<u64>();

    let werr = |source| Ct2Error::Write { path: shown(out), source };
    let created = File::create(out).map_err(werr)?;
    let mut w = Counting { inner: BufWriter::with_capacity(1 << 20, created), written: 0 };
    w.write_all(&GGML_MAGIC.to_le_bytes()).map_err(werr)?;
    for v in hp.fields() {
        w.write_all(&i32_of(v)).map_err(werr)?;
    }
    w.write_all(&1i32.to_le_bytes()).map_err(werr)?; // ftype: float16
    w.write_all(&i32_of(n_mel)).map_err(werr)?;
    w.write_all(&i32_of(n_fft)).map_err(werr)?;
    w.write_all(&filters).map_err(werr)?;
    w.write_all(&i32_of(assets.tokens.len() as u64)).map_err(werr)?;
    for token in &assets.tokens {
        w.write_all(&i32_of(token.len() as u64)).map_err(werr)?;
        w.write_all(token).map_err(werr)?;
    }
    progress(w.written, total);
    let mut wide = vec![];
    for t in &plan.outs {
        model.read(&mut file, &t.src, t.rows, &mut buf)?;
        let f32 = t.is_f32();
        w.write_all(&i32_of(t.shape.len() as u64)).map_err(werr)?;
        w.write_all(&i32_of(t.name.len() as u64)).map_err(werr)?;
        w.write_all(&i32_of(u64::from(!f32))).map_err(werr)?;
        for dim in t.shape.iter().rev() {
            w.write_all(&i32_of(*dim)).map_err(werr)?;
        }
        w.write_all(t.name.as_bytes()).map_err(werr)?;
        if f32 {
            wide.clear();
            for h in buf.chunks_exact(2) {
                wide.extend_from_slice(&f16_to_f32(u16::from_le_bytes([h[0], h[1]])).to_le_bytes());
            }
            w.write_all(&wide).map_err(werr)?;
        } else {
            w.write_all(&buf).map_err(werr)?;
        }
        progress(w.written, total);
    }
    let written = w.written;
    let file = w.inner.into_inner().map_err(|e| werr(e.into_error()))?;
    file.sync_all().map_err(werr)?;
    Ok(Converted { hparams: hp, tensors: plan.outs.len(), bytes: written })
}

/// The names of the tensors a conversion of `model` would write, in order (for tests and for
/// `import-ct2`'s report).
pub fn tensor_names(model: &Ct2Whisper) -> Result<Vec<String>, Ct2Error> {
    let (_, plan) = model.plan()?;
    let names: Vec<String> = plan.outs.into_iter().map(|o| o.name).collect();
    debug_assert_eq!(names.iter().collect::<BTreeSet<_>>().len(), names.len());
    Ok(names)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// The definition, in f64: (-1)^s · 2^(e-15) · (1 + m/1024), subnormals 2^-14 · m/1024.
    fn reference(h: u16) -> f64 {
        let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let e = i32::from((h >> 10) & 0x1f);
        let m = f64::from(h & 0x3ff);
        match e {
            0 => s * 2f64.powi(-14) * m / 1024.0,
            31 if m == 0.0 => s * f64::INFINITY,
            31 => f64::NAN,
            _ => s * 2f64.powi(e - 15) * (1.0 + m / 1024.0),
        }
    }

    #[test]
    fn every_half_widens_exactly() {
        for h in 0..=u16::MAX {
            let got = f16_to_f32(h);
            let want = reference(h);
            if want.is_nan() {
                assert!(got.is_nan(), "{h:#06x}");
                assert_eq!(got.to_bits() & 0x007f_ffff, u32::from(h & 0x3ff) << 13, "NaN payload of {h:#06x}");
            } else {
                assert_eq!(f64::from(got), want, "{h:#06x}");
                assert_eq!(got.is_sign_negative(), h & 0x8000 != 0, "sign of {h:#06x}");
            }
        }
    }

    #[test]
    fn base64_is_as_lenient_as_python_about_padding_only() {
        assert_eq!(base64_decode("IQ==").unwrap(), b"!");
        assert_eq!(base64_decode("IQ").unwrap(), b"!");
        assert_eq!(base64_decode("IGdhemVk").unwrap(), b" gazed");
        assert_eq!(base64_decode("5Zy6").unwrap(), "场".as_bytes());
        assert_eq!(base64_decode("=").unwrap(), b"");
        assert!(base64_decode("I").is_none());
        assert!(base64_decode("I*==").is_none());
        assert!(base64_decode("IQ===").is_none());
    }

    #[test]
    fn tiktoken_ranks_must_run_in_order() {
        assert_eq!(parse_tiktoken(b"IQ== 0\nIg== 1\n= 2\n").unwrap(), vec![b"!".to_vec(), b"\"".to_vec(), vec![]]);
        assert!(parse_tiktoken(b"IQ== 0\nIg== 2\n").unwrap_err().contains("rank 2"));
        assert!(parse_tiktoken(b"IQ== 0 x\n").is_err());
        assert!(parse_tiktoken(b"").is_err());
    }
}
