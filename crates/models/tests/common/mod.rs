//! Real files for the converter and fetch tests: a small but complete CTranslate2 whisper
//! `model.bin` written byte by byte the way CTranslate2 writes one, the two whisper assets, the
//! `openai-whisper` sdist and wheels that carry them — and an independent reader of the ggml
//! file whisper.cpp loads, so the tests check the converter's output without using its code.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

pub const F16: u8 = 4;
pub const I8: u8 = 1;
pub const I16: u8 = 2;

#[derive(Clone)]
pub struct Var {
    pub name: String,
    pub shape: Vec<u32>,
    pub dtype: u8,
    pub data: Vec<u8>,
}

/// The dimensions of a synthetic whisper.
#[derive(Clone, Copy)]
pub struct Dims {
    pub d: u32,
    pub n_mels: u32,
    pub audio_ctx: u32,
    pub text_ctx: u32,
    pub vocab: u32,
    pub enc_layers: u32,
    pub dec_layers: u32,
    pub heads: u32,
}

pub const SMALL: Dims =
    Dims { d: 8, n_mels: 4, audio_ctx: 6, text_ctx: 5, vocab: 16, enc_layers: 2, dec_layers: 2, heads: 2 };

#[derive(Clone)]
pub struct Ct2File {
    pub version: u32,
    pub spec: String,
    pub revision: u32,
    pub vars: Vec<Var>,
    pub aliases: Vec<(String, String)>,
}

/// Distinct, finite float16 bit patterns (no inf/NaN), different for every tensor.
fn halves(seed: u32, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * 2);
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let bits = ((x >> 8) % 0x7800) as u16 | if x & 1 == 1 { 0x8000 } else { 0 };
        out.extend_from_slice(&bits.to_le_bytes());
    }
    out
}

impl Ct2File {
    /// A complete float16 whisper with every variable CTranslate2 writes for one.
    pub fn whisper(dims: Dims) -> Ct2File {
        let Dims { d, n_mels, audio_ctx, text_ctx, vocab, enc_layers, dec_layers, heads } = dims;
        let mut f = Ct2File {
            version: 6,
            spec: "WhisperSpec".into(),
            revision: 3,
            vars: vec![],
            aliases: vec![("decoder/projection/weight".into(), "decoder/embeddings/weight".into())],
        };
        let mut seed = 0;
        let mut t = |f: &mut Ct2File, name: &str, shape: &[u32]| {
            seed += 1;
            let n: u32 = shape.iter().product();
            f.vars.push(Var { name: name.into(), shape: shape.to_vec(), dtype: F16, data: halves(seed, n as usize) });
        };
        t(&mut f, "encoder/conv1/weight", &[d, n_mels, 3]);
        t(&mut f, "encoder/conv1/bias", &[d]);
        t(&mut f, "encoder/conv2/weight", &[d, d, 3]);
        t(&mut f, "encoder/conv2/bias", &[d]);
        t(&mut f, "encoder/position_encodings/encodings", &[audio_ctx, d]);
        t(&mut f, "encoder/layer_norm/gamma", &[d]);
        t(&mut f, "encoder/layer_norm/beta", &[d]);
        t(&mut f, "decoder/embeddings/weight", &[vocab, d]);
        t(&mut f, "decoder/position_encodings/encodings", &[text_ctx, d]);
        t(&mut f, "decoder/layer_norm/gamma", &[d]);
        t(&mut f, "decoder/layer_norm/beta", &[d]);
        let layers = [("encoder", enc_layers, false), ("decoder", dec_layers, true)];
        for (side, n, cross) in layers {
            for i in 0..n {
                let p = format!("{side}/layer_{i}");
                for ln in ["self_attention/layer_norm", "ffn/layer_norm"] {
                    t(&mut f, &format!("{p}/{ln}/gamma"), &[d]);
                    t(&mut f, &format!("{p}/{ln}/beta"), &[d]);
                }
                t(&mut f, &format!("{p}/self_attention/linear_0/weight"), &[3 * d, d]);
                t(&mut f, &format!("{p}/self_attention/linear_0/bias"), &[3 * d]);
                f.zero_rows(&format!("{p}/self_attention/linear_0/bias"), d, 2 * d);
                t(&mut f, &format!("{p}/self_attention/linear_1/weight"), &[d, d]);
                t(&mut f, &format!("{p}/self_attention/linear_1/bias"), &[d]);
                t(&mut f, &format!("{p}/ffn/linear_0/weight"), &[4 * d, d]);
                t(&mut f, &format!("{p}/ffn/linear_0/bias"), &[4 * d]);
                t(&mut f, &format!("{p}/ffn/linear_1/weight"), &[d, 4 * d]);
                t(&mut f, &format!("{p}/ffn/linear_1/bias"), &[d]);
                if cross {
                    t(&mut f, &format!("{p}/attention/layer_norm/gamma"), &[d]);
                    t(&mut f, &format!("{p}/attention/layer_norm/beta"), &[d]);
                    t(&mut f, &format!("{p}/attention/linear_0/weight"), &[d, d]);
                    t(&mut f, &format!("{p}/attention/linear_0/bias"), &[d]);
                    t(&mut f, &format!("{p}/attention/linear_1/weight"), &[2 * d, d]);
                    t(&mut f, &format!("{p}/attention/linear_1/bias"), &[2 * d]);
                    f.zero_rows(&format!("{p}/attention/linear_1/bias"), 0, d);
                    t(&mut f, &format!("{p}/attention/linear_2/weight"), &[d, d]);
                    t(&mut f, &format!("{p}/attention/linear_2/bias"), &[d]);
                }
            }
        }
        let heads = heads as i16;
        f.scalar("encoder/num_heads", I16, &heads.to_le_bytes());
        f.scalar("decoder/num_heads", I16, &heads.to_le_bytes());
        f.scalar("decoder/activation", I8, &[3]);
        f.scalar("decoder/alibi", I8, &[0]);
        f.scalar("decoder/pre_norm", I8, &[1]);
        f.scalar("decoder/scale_embeddings", I8, &[0]);
        f.scalar("decoder/start_from_zero_embedding", I8, &[0]);
        f.scalar("decoder/alignment_heads", I16, &1i16.to_le_bytes());
        f.scalar("decoder/alignment_layer", I16, &(-1i16).to_le_bytes());
        f
    }

    pub fn scalar(&mut self, name: &str, dtype: u8, bytes: &[u8]) {
        self.remove(name);
        self.vars.push(Var { name: name.into(), shape: vec![], dtype, data: bytes.to_vec() });
    }

    pub fn remove(&mut self, name: &str) {
        self.vars.retain(|v| v.name != name);
    }

    pub fn get(&self, name: &str) -> &Var {
        self.vars.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no {name}"))
    }

    pub fn get_mut(&mut self, name: &str) -> &mut Var {
        self.vars.iter_mut().find(|v| v.name == name).unwrap_or_else(|| panic!("no {name}"))
    }

    /// Rows `from..to` of a float16 variable, as bytes.
    pub fn rows(&self, name: &str, from: u32, to: u32) -> Vec<u8> {
        let v = self.get(name);
        let row: u32 = v.shape.iter().skip(1).product::<u32>() * 2;
        v.data[(from * row) as usize..(to * row) as usize].to_vec()
    }

    pub fn zero_rows(&mut self, name: &str, from: u32, to: u32) {
        let v = self.get_mut(name);
        let row: u32 = v.shape.iter().skip(1).product::<u32>() * 2;
        for b in &mut v.data[(from * row) as usize..(to * row) as usize] {
            *b = 0;
        }
    }

    /// The file as CTranslate2 writes it: version, spec, revision, variables sorted by name
    /// (u16 length-with-NUL names, u8 rank, u32 dims, u8 type, u32 size, data), aliases.
    pub fn bytes(&self) -> Vec<u8> {
        fn string(out: &mut Vec<u8>, s: &str) {
            out.extend_from_slice(&((s.len() + 1) as u16).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
            out.push(0);
        }
        let mut out = vec![];
        out.extend_from_slice(&self.version.to_le_bytes());
        string(&mut out, &self.spec);
        out.extend_from_slice(&self.revision.to_le_bytes());
        let mut vars = self.vars.clone();
        vars.sort_by(|a, b| a.name.cmp(&b.name));
        out.extend_from_slice(&(vars.len() as u32).to_le_bytes());
        for v in &vars {
            string(&mut out, &v.name);
            out.push(v.shape.len() as u8);
            for dim in &v.shape {
                out.extend_from_slice(&dim.to_le_bytes());
            }
            out.push(v.dtype);
            out.extend_from_slice(&(v.data.len() as u32).to_le_bytes());
            out.extend_from_slice(&v.data);
        }
        out.extend_from_slice(&(self.aliases.len() as u32).to_le_bytes());
        for (a, t) in &self.aliases {
            string(&mut out, a);
            string(&mut out, t);
        }
        out
    }

    pub fn write(&self, path: &Path) {
        std::fs::write(path, self.bytes()).unwrap();
    }
}

/// A 2-D float32 `.npy`, as numpy writes one (version 1.0, header padded to 64 bytes).
pub fn npy(rows: usize, cols: usize, values: &[f32]) -> Vec<u8> {
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

pub fn mel_values(n_mels: usize) -> Vec<f32> {
    (0..n_mels * 201).map(|i| i as f32 / 1000.0).collect()
}

pub fn npz(n_mels: usize) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(vec![]));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file(format!("mel_{n_mels}.npy"), opts).unwrap();
    zip.write_all(&npy(n_mels, 201, &mel_values(n_mels))).unwrap();
    zip.start_file("mel_128.npy", opts).unwrap();
    zip.write_all(&npy(128, 201, &mel_values(128))).unwrap();
    zip.finish().unwrap().into_inner()
}

/// Token lists in tiktoken's format; the multilingual one ends with `=` (an empty token), as
/// the real one does.
pub const GPT2_TOKENS: &[&[u8]] = &[b"!", b"\"", b" the", b" gazed", "场".as_bytes()];
pub const GPT2_TIKTOKEN: &str = "IQ== 0\nIg== 1\nIHRoZQ== 2\nIGdhemVk 3\n5Zy6 4";
pub const MULTI_TIKTOKEN: &str = "IQ== 0\nIg== 1\n= 2\n";

/// The assets as a folder laid out like the unpacked sdist.
pub fn assets_dir(root: &Path, n_mels: usize) -> PathBuf {
    let dir = root.join("openai_whisper-20250625/whisper/assets");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mel_filters.npz"), npz(n_mels)).unwrap();
    std::fs::write(dir.join("gpt2.tiktoken"), GPT2_TIKTOKEN).unwrap();
    std::fs::write(dir.join("multilingual.tiktoken"), MULTI_TIKTOKEN).unwrap();
    root.join("openai_whisper-20250625")
}

/// The assets as the `openai-whisper` sdist (`.tar.gz`).
pub fn sdist(path: &Path, n_mels: usize) {
    let gz = flate2::write::GzEncoder::new(std::fs::File::create(path).unwrap(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    let mut add = |name: &str, data: &[u8]| {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, format!("openai_whisper-20250625/{name}"), data).unwrap();
    };
    add("setup.py", b"# not used\n");
    add("whisper/assets/mel_filters.npz", &npz(n_mels));
    add("whisper/assets/gpt2.tiktoken", GPT2_TIKTOKEN.as_bytes());
    add("whisper/assets/multilingual.tiktoken", MULTI_TIKTOKEN.as_bytes());
    tar.into_inner().unwrap().finish().unwrap();
}

/// A wheel (a zip) holding `files`.
pub fn wheel(path: &Path, files: &[(&str, &[u8])]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in files {
        if name.ends_with('/') {
            zip.add_directory(*name, opts).unwrap();
        } else {
            zip.start_file(*name, opts).unwrap();
            zip.write_all(data).unwrap();
        }
    }
    zip.finish().unwrap();
}

// ------------------------------------------------------------------------------------------
// Reading whisper.cpp's ggml file, independently of the converter.

#[derive(Debug)]
pub struct GgmlTensor {
    pub name: String,
    /// As stored: reversed from PyTorch's order.
    pub dims: Vec<i32>,
    pub ftype: i32,
    pub data: Vec<u8>,
}

#[derive(Debug)]
pub struct Ggml {
    pub hparams: [i32; 11],
    pub n_mel: i32,
    pub n_fft: i32,
    pub mel: Vec<f32>,
    pub tokens: Vec<Vec<u8>>,
    pub tensors: Vec<GgmlTensor>,
}

impl Ggml {
    pub fn tensor(&self, name: &str) -> &GgmlTensor {
        self.tensors.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tensor {name}"))
    }
}

fn i32_at(bytes: &[u8], pos: &mut usize) -> i32 {
    let v = i32::from_le_bytes(bytes[*pos..*pos + 4].try_into().unwrap());
    *pos += 4;
    v
}

pub fn read_ggml(bytes: &[u8]) -> Ggml {
    let mut pos = 0usize;
    let p = &mut pos;
    assert_eq!(i32_at(bytes, p), 0x6767_6d6c, "magic");
    let mut hparams = [0i32; 11];
    for h in &mut hparams {
        *h = i32_at(bytes, p);
    }
    let n_mel = i32_at(bytes, p);
    let n_fft = i32_at(bytes, p);
    let mel = (0..n_mel * n_fft).map(|_| f32::from_bits(i32_at(bytes, p) as u32)).collect();
    let n_tokens = i32_at(bytes, p);
    let mut tokens = vec![];
    for _ in 0..n_tokens {
        let len = i32_at(bytes, p) as usize;
        tokens.push(bytes[*p..*p + len].to_vec());
        *p += len;
    }
    let mut tensors = vec![];
    while *p < bytes.len() {
        let n_dims = i32_at(bytes, p);
        let name_len = i32_at(bytes, p) as usize;
        let ftype = i32_at(bytes, p);
        let dims: Vec<i32> = (0..n_dims).map(|_| i32_at(bytes, p)).collect();
        let name = String::from_utf8(bytes[*p..*p + name_len].to_vec()).unwrap();
        *p += name_len;
        let size = dims.iter().map(|d| *d as usize).product::<usize>() * if ftype == 0 { 4 } else { 2 };
        tensors.push(GgmlTensor { name, dims, ftype, data: bytes[*p..*p + size].to_vec() });
        *p += size;
    }
    assert_eq!(*p, bytes.len(), "trailing bytes");
    Ggml { hparams, n_mel, n_fft, mel, tokens, tensors }
}
