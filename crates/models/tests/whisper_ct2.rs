//! The CTranslate2 → whisper.cpp converter on small but complete synthetic models written
//! byte by byte as CTranslate2 writes them: the output is read back with an independent reader
//! (tests/common) and compared with the input, tensor by tensor; and every kind of bad input
//! is refused with an error that names what is wrong.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Ct2File, Dims, GPT2_TOKENS, SMALL, read_ggml};
use smart_models::whisper_ct2::{
    Assets, Converted, Ct2Error, Ct2Whisper, Tokenizer, convert, f16_to_f32, tensor_names,
};
use std::path::Path;

struct Run {
    _dir: tempfile::TempDir,
    model: std::path::PathBuf,
    assets: std::path::PathBuf,
    out: std::path::PathBuf,
}

fn setup(f: &Ct2File, n_mels: usize) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.bin");
    f.write(&model);
    let assets = common::assets_dir(dir.path(), n_mels);
    let out = dir.path().join("ggml.bin");
    Run { model, assets, out, _dir: dir }
}

fn run(f: &Ct2File, tokenizer: Tokenizer) -> Result<(Converted, Vec<u8>), Ct2Error> {
    let r = setup(f, SMALL.n_mels as usize);
    let assets = Assets::load(&r.assets, tokenizer)?;
    let model = Ct2Whisper::open(&r.model)?;
    let done = convert(&model, &assets, &r.out, &mut |_, _| {})?;
    Ok((done, std::fs::read(&r.out).unwrap()))
}

/// PyTorch's state-dict order for whisper, written out by hand.
fn expected_names(enc: u32, dec: u32) -> Vec<String> {
    let mut v: Vec<String> = [
        "encoder.positional_embedding",
        "encoder.conv1.weight",
        "encoder.conv1.bias",
        "encoder.conv2.weight",
        "encoder.conv2.bias",
    ]
    .map(String::from)
    .to_vec();
    let attn = |v: &mut Vec<String>, p: &str| {
        for s in ["query.weight", "query.bias", "key.weight", "value.weight", "value.bias", "out.weight", "out.bias"] {
            v.push(format!("{p}.{s}"));
        }
        v.push(format!("{p}_ln.weight"));
        v.push(format!("{p}_ln.bias"));
    };
    let mlp = |v: &mut Vec<String>, p: &str| {
        for s in ["mlp.0.weight", "mlp.0.bias", "mlp.2.weight", "mlp.2.bias", "mlp_ln.weight", "mlp_ln.bias"] {
            v.push(format!("{p}.{s}"));
        }
    };
    for i in 0..enc {
        attn(&mut v, &format!("encoder.blocks.{i}.attn"));
        mlp(&mut v, &format!("encoder.blocks.{i}"));
    }
    v.push("encoder.ln_post.weight".into());
    v.push("encoder.ln_post.bias".into());
    v.push("decoder.positional_embedding".into());
    v.push("decoder.token_embedding.weight".into());
    for i in 0..dec {
        attn(&mut v, &format!("decoder.blocks.{i}.attn"));
        attn(&mut v, &format!("decoder.blocks.{i}.cross_attn"));
        mlp(&mut v, &format!("decoder.blocks.{i}"));
    }
    v.push("decoder.ln.weight".into());
    v.push("decoder.ln.bias".into());
    v
}

fn widened(halves: &[u8]) -> Vec<u8> {
    halves.chunks(2).flat_map(|h| f16_to_f32(u16::from_le_bytes([h[0], h[1]])).to_le_bytes()).collect()
}

#[test]
fn a_synthetic_whisper_becomes_the_ggml_file_whisper_cpp_reads() {
    let f = Ct2File::whisper(SMALL);
    let (done, bytes) = run(&f, Tokenizer::Gpt2).unwrap();
    assert_eq!(done.bytes, bytes.len() as u64);
    let g = read_ggml(&bytes);
    let Dims { d, n_mels, audio_ctx, text_ctx, vocab, enc_layers, dec_layers, heads } = SMALL;
    let hp = [vocab, audio_ctx, d, heads, enc_layers, text_ctx, d, heads, dec_layers, n_mels, 1].map(|v| v as i32);
    assert_eq!(g.hparams, hp, "n_vocab, audio ctx/state/head/layer, text ctx/state/head/layer, n_mels, ftype f16");
    assert_eq!((g.n_mel, g.n_fft), (4, 201));
    assert_eq!(g.mel, common::mel_values(4));
    assert_eq!(g.tokens, GPT2_TOKENS.iter().map(|t| t.to_vec()).collect::<Vec<_>>(), "tokens in rank order");

    let names: Vec<&str> = g.tensors.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, expected_names(enc_layers, dec_layers));
    assert_eq!(tensor_names(&Ct2Whisper::open(&setup(&f, 4).model).unwrap()).unwrap(), expected_names(2, 2));
    assert!(!names.iter().any(|n| n.contains("key.bias")), "whisper has no key bias");

    // The dtype rule, and dims stored in reverse.
    for t in &g.tensors {
        let f32_by_name = matches!(
            t.name.as_str(),
            "encoder.conv1.bias"
                | "encoder.conv2.bias"
                | "encoder.positional_embedding"
                | "decoder.positional_embedding"
        );
        let want = if t.dims.len() < 2 || f32_by_name { 0 } else { 1 };
        assert_eq!(t.ftype, want, "{}", t.name);
    }
    assert_eq!(g.tensor("encoder.conv1.weight").dims, [3, n_mels as i32, d as i32]);
    assert_eq!(g.tensor("encoder.conv1.bias").dims, [1, d as i32], "conv biases become [n, 1]");
    assert_eq!(g.tensor("encoder.positional_embedding").dims, [d as i32, audio_ctx as i32]);
    assert_eq!(g.tensor("decoder.token_embedding.weight").dims, [d as i32, vocab as i32]);
    assert_eq!(g.tensor("encoder.blocks.1.mlp.0.weight").dims, [d as i32, 4 * d as i32]);
    assert_eq!(g.tensor("decoder.ln.bias").dims, [d as i32]);

    // Data: float16 copied, float32 widened exactly, fused projections split by rows.
    let conv2 = &f.get("encoder/conv2/weight").data;
    assert_eq!(&g.tensor("encoder.conv2.weight").data, conv2);
    assert_eq!(g.tensor("encoder.conv1.bias").data, widened(&f.get("encoder/conv1/bias").data));
    assert_eq!(
        g.tensor("decoder.positional_embedding").data,
        widened(&f.get("decoder/position_encodings/encodings").data)
    );
    let qkv = "encoder/layer_1/self_attention/linear_0";
    let a = "encoder.blocks.1.attn";
    assert_eq!(g.tensor(&format!("{a}.query.weight")).data, f.rows(&format!("{qkv}/weight"), 0, d));
    assert_eq!(g.tensor(&format!("{a}.key.weight")).data, f.rows(&format!("{qkv}/weight"), d, 2 * d));
    assert_eq!(g.tensor(&format!("{a}.value.weight")).data, f.rows(&format!("{qkv}/weight"), 2 * d, 3 * d));
    assert_eq!(g.tensor(&format!("{a}.query.bias")).data, widened(&f.rows(&format!("{qkv}/bias"), 0, d)));
    assert_eq!(g.tensor(&format!("{a}.value.bias")).data, widened(&f.rows(&format!("{qkv}/bias"), 2 * d, 3 * d)));
    assert_eq!(g.tensor(&format!("{a}.out.weight")).data, f.get("encoder/layer_1/self_attention/linear_1/weight").data);
    assert_eq!(
        g.tensor(&format!("{a}_ln.weight")).data,
        widened(&f.get("encoder/layer_1/self_attention/layer_norm/gamma").data)
    );
    assert_eq!(
        g.tensor(&format!("{a}_ln.bias")).data,
        widened(&f.get("encoder/layer_1/self_attention/layer_norm/beta").data)
    );
    assert_eq!(g.tensor("encoder.blocks.0.mlp.2.weight").data, f.get("encoder/layer_0/ffn/linear_1/weight").data);
    assert_eq!(g.tensor("encoder.ln_post.weight").data, widened(&f.get("encoder/layer_norm/gamma").data));

    let c = "decoder.blocks.0.cross_attn";
    let kv = "decoder/layer_0/attention/linear_1";
    assert_eq!(g.tensor(&format!("{c}.query.weight")).data, f.get("decoder/layer_0/attention/linear_0/weight").data);
    assert_eq!(g.tensor(&format!("{c}.key.weight")).data, f.rows(&format!("{kv}/weight"), 0, d));
    assert_eq!(g.tensor(&format!("{c}.value.weight")).data, f.rows(&format!("{kv}/weight"), d, 2 * d));
    assert_eq!(g.tensor(&format!("{c}.value.bias")).data, widened(&f.rows(&format!("{kv}/bias"), d, 2 * d)));
    assert_eq!(
        g.tensor(&format!("{c}.out.bias")).data,
        widened(&f.get("decoder/layer_0/attention/linear_2/bias").data)
    );
    assert_eq!(
        g.tensor(&format!("{c}_ln.bias")).data,
        widened(&f.get("decoder/layer_0/attention/layer_norm/beta").data)
    );
    assert_eq!(g.tensor("decoder.token_embedding.weight").data, f.get("decoder/embeddings/weight").data);
}

#[test]
fn conversion_is_deterministic_and_the_sdist_gives_the_same_assets_as_a_folder() {
    let f = Ct2File::whisper(SMALL);
    let (_, first) = run(&f, Tokenizer::Gpt2).unwrap();
    let (_, second) = run(&f, Tokenizer::Gpt2).unwrap();
    assert_eq!(first, second);

    let r = setup(&f, 4);
    let tgz = r.out.with_file_name("openai_whisper-20250625.tar.gz");
    common::sdist(&tgz, 4);
    let from_sdist = Assets::load(&tgz, Tokenizer::Gpt2).unwrap();
    convert(&Ct2Whisper::open(&r.model).unwrap(), &from_sdist, &r.out, &mut |_, _| {}).unwrap();
    assert_eq!(std::fs::read(&r.out).unwrap(), first);
    for folder in [r.assets.clone(), r.assets.join("whisper"), r.assets.join("whisper/assets")] {
        assert_eq!(Assets::load(&folder, Tokenizer::Gpt2).unwrap().tokens, from_sdist.tokens, "{}", folder.display());
    }
    assert!(Assets::load(&r.model, Tokenizer::Gpt2).is_err(), "model.bin is not an sdist");
}

#[test]
fn progress_runs_up_to_the_total() {
    let f = Ct2File::whisper(SMALL);
    let r = setup(&f, 4);
    let mut seen = vec![];
    let done = convert(
        &Ct2Whisper::open(&r.model).unwrap(),
        &Assets::load(&r.assets, Tokenizer::Gpt2).unwrap(),
        &r.out,
        &mut |d, t| seen.push((d, t)),
    )
    .unwrap();
    assert!(seen.len() > 10);
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 == w[1].1));
    assert_eq!(seen.last().copied(), Some((done.bytes, done.bytes)));
}

#[test]
fn a_nonzero_key_bias_is_refused_and_nothing_is_written() {
    for (name, row) in
        [("encoder/layer_1/self_attention/linear_0/bias", 8 + 3), ("decoder/layer_0/attention/linear_1/bias", 5)]
    {
        let mut f = Ct2File::whisper(SMALL);
        f.get_mut(name).data[row * 2 + 1] = 0x3c; // 1.0
        let r = setup(&f, 4);
        let err = convert(
            &Ct2Whisper::open(&r.model).unwrap(),
            &Assets::load(&r.assets, Tokenizer::Gpt2).unwrap(),
            &r.out,
            &mut |_, _| {},
        )
        .unwrap_err();
        match &err {
            Ct2Error::KeyBias { name: n, row: got, .. } => assert_eq!((n.as_str(), *got), (name, row as u64)),
            other => panic!("expected a key-bias refusal, got {other}"),
        }
        assert!(err.to_string().contains("whisper has no key bias"), "{err}");
        assert!(!r.out.exists(), "a refused model must not leave an output");
    }
    // Negative zero is zero.
    let mut f = Ct2File::whisper(SMALL);
    f.get_mut("encoder/layer_0/self_attention/linear_0/bias").data[8 * 2 + 1] = 0x80;
    run(&f, Tokenizer::Gpt2).unwrap();
}

#[test]
fn a_truncated_file_is_refused_wherever_it_ends() {
    let f = Ct2File::whisper(SMALL);
    let full = f.bytes();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.bin");
    let cuts = [0, 3, 5, 20, 40, full.len() / 3, full.len() / 2, full.len() - 70, full.len() - 1];
    for cut in cuts {
        std::fs::write(&path, &full[..cut]).unwrap();
        let err = Ct2Whisper::open(&path).unwrap_err();
        assert!(matches!(err, Ct2Error::Truncated { .. }), "cut at {cut}: {err}");
        assert!(err.to_string().contains("truncated"), "{err}");
    }
    let mut longer = full.clone();
    longer.extend_from_slice(b"junk");
    std::fs::write(&path, &longer).unwrap();
    let err = Ct2Whisper::open(&path).unwrap_err();
    assert!(err.to_string().contains("4 unexpected bytes"), "{err}");
    std::fs::write(&path, &full).unwrap();
    Ct2Whisper::open(&path).unwrap();
}

fn open_err(f: &Ct2File) -> Ct2Error {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.bin");
    f.write(&path);
    match Ct2Whisper::open(&path).and_then(|m| m.hparams()) {
        Ok(hp) => panic!("accepted: {hp:?}"),
        Err(e) => e,
    }
}

#[test]
fn another_spec_revision_or_format_version_is_refused() {
    let mut f = Ct2File::whisper(SMALL);
    f.spec = "TransformerSpec".into();
    let err = open_err(&f);
    assert!(matches!(err, Ct2Error::Spec { .. }) && err.to_string().contains("TransformerSpec"), "{err}");
    let mut f = Ct2File::whisper(SMALL);
    f.revision = 2;
    assert!(matches!(open_err(&f), Ct2Error::Spec { revision: 2, .. }));
    let mut f = Ct2File::whisper(SMALL);
    f.version = 5;
    let err = open_err(&f);
    assert!(err.to_string().contains("binary version 5"), "{err}");
}

#[test]
fn a_missing_misshapen_quantized_or_foreign_variable_is_named() {
    let mut f = Ct2File::whisper(SMALL);
    f.remove("decoder/layer_1/ffn/linear_1/bias");
    let err = open_err(&f);
    assert!(matches!(err, Ct2Error::Missing { .. }), "{err}");
    assert!(err.to_string().contains("decoder/layer_1/ffn/linear_1/bias") && err.to_string().contains("[8]"), "{err}");

    let mut f = Ct2File::whisper(SMALL);
    let v = f.get_mut("encoder/layer_0/self_attention/linear_0/weight");
    v.shape = vec![16, 12];
    let err = open_err(&f);
    assert!(matches!(err, Ct2Error::Shape { .. }), "{err}");
    assert!(err.to_string().contains("[16, 12], expected [24, 8]"), "{err}");

    let mut f = Ct2File::whisper(SMALL);
    let v = f.get_mut("decoder/layer_0/self_attention/linear_1/weight");
    v.dtype = common::I8;
    v.data.truncate(v.data.len() / 2);
    let err = open_err(&f);
    assert!(matches!(err, Ct2Error::DType { .. }) && err.to_string().contains("int8"), "{err}");

    let mut f = Ct2File::whisper(SMALL);
    f.vars.push(common::Var {
        name: "encoder/extra/weight".into(),
        shape: vec![2],
        dtype: common::F16,
        data: vec![0; 4],
    });
    let err = open_err(&f);
    assert!(matches!(err, Ct2Error::Unexpected { .. }) && err.to_string().contains("encoder/extra/weight"), "{err}");

    let mut f = Ct2File::whisper(SMALL);
    f.scalar("decoder/pre_norm", common::I8, &[0]);
    assert!(matches!(open_err(&f), Ct2Error::Flag { actual: 0, expected: 1, .. }));

    let mut f = Ct2File::whisper(SMALL);
    f.aliases.clear();
    assert!(open_err(&f).to_string().contains("decoder/projection/weight"));

    let mut f = Ct2File::whisper(SMALL);
    f.remove("encoder/num_heads");
    assert!(open_err(&f).to_string().contains("attention heads"), "width 8 gives no d/64 fallback");

    // A declared size that disagrees with the shape.
    let mut f = Ct2File::whisper(SMALL);
    f.get_mut("encoder/conv1/bias").data.push(0);
    assert!(matches!(open_err(&f), Ct2Error::Format { .. }));
}

#[test]
fn the_token_list_must_be_the_models() {
    // 51865 tokens: whisper.cpp's multilingual threshold.
    let big = Dims { vocab: 51865, ..SMALL };
    let f = Ct2File::whisper(big);
    let err = run(&f, Tokenizer::Gpt2).unwrap_err();
    assert!(matches!(err, Ct2Error::Vocabulary { .. }), "{err}");
    assert!(err.to_string().contains("multilingual") && err.to_string().contains("--multilingual"), "{err}");
    let (_, bytes) = run(&f, Tokenizer::Multilingual).unwrap();
    let g = read_ggml(&bytes);
    assert_eq!(g.tokens, vec![b"!".to_vec(), b"\"".to_vec(), vec![]], "the `=` line is the empty token");

    let err = run(&Ct2File::whisper(SMALL), Tokenizer::Multilingual).unwrap_err();
    assert!(err.to_string().contains("English-only"), "{err}");

    let tiny_vocab = Dims { vocab: 3, ..SMALL };
    let err = run(&Ct2File::whisper(tiny_vocab), Tokenizer::Gpt2).unwrap_err();
    assert!(err.to_string().contains("more than the model's 3"), "{err}");
}

#[test]
fn assets_without_the_models_mel_bank_are_refused() {
    let f = Ct2File::whisper(Dims { n_mels: 80, ..SMALL });
    let r = setup(&f, 4); // the npz has mel_4 and mel_128 only
    let err = convert(
        &Ct2Whisper::open(&r.model).unwrap(),
        &Assets::load(&r.assets, Tokenizer::Gpt2).unwrap(),
        &r.out,
        &mut |_, _| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("no mel_80.npy"), "{err}");
    let empty = tempfile::tempdir().unwrap();
    let err = Assets::load(empty.path(), Tokenizer::Gpt2).unwrap_err();
    assert!(err.to_string().contains("mel_filters.npz"), "{err}");
    assert!(Assets::load(Path::new("/nonexistent/whisper.tar.gz"), Tokenizer::Gpt2).is_err());
}
