//! The HTTP downloader against a real server on 127.0.0.1: progress, resume after a truncated
//! transfer, a server that ignores ranges, a wrong file, a missing one. The server is ours
//! because the behaviours under test (closing mid-body, ignoring `Range`) are the point.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use sha2::{Digest, Sha256};
use smart_models::catalog::{Catalog, Layout, Model, Source};
use smart_models::{FetchError, ModelStatus, Models, SourceKind, StoreError, fetch};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

#[derive(Clone, Copy)]
enum Mode {
    /// Honours `Range`, sends everything.
    Good,
    /// Declares the full length, sends `n` bytes, closes.
    CutAfter(usize),
    /// Ignores `Range`: always 200 with the whole body.
    NoRanges,
    NotFound,
}

struct Server {
    url: String,
    /// The `Range` header of each request, or "" for none.
    ranges: Arc<Mutex<Vec<String>>>,
}

fn serve(body: Vec<u8>, mode: Mode) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/model.gguf", listener.local_addr().unwrap());
    let ranges = Arc::new(Mutex::new(vec![]));
    let seen = ranges.clone();
    std::thread::spawn(move || {
        // Bounded: a test makes at most a few requests.
        for stream in listener.incoming().take(8) {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut range = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("range:") {
                    range = v.trim().to_string();
                }
            }
            seen.lock().unwrap().push(range.clone());
            let start = range
                .strip_prefix("bytes=")
                .and_then(|r| r.trim_end_matches('-').parse::<usize>().ok())
                .filter(|_| matches!(mode, Mode::Good | Mode::CutAfter(_)));
            let _ = match (mode, start) {
                (Mode::NotFound, _) => {
                    stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                }
                (Mode::CutAfter(n), None) => {
                    let head =
                        format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                    stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(&body[..n]))
                }
                (_, Some(s)) => {
                    let head = format!(
                        "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {s}-{}/{}\r\nConnection: close\r\n\r\n",
                        body.len() - s,
                        body.len() - 1,
                        body.len()
                    );
                    stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(&body[s..]))
                }
                (_, None) => {
                    let head =
                        format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                    stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(&body))
                }
            };
        }
    });
    Server { url, ranges }
}

/// Deterministic, incompressible-looking bytes.
fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn setup(real: &[u8], url: &str) -> (tempfile::TempDir, Models, Model) {
    let dir = tempfile::tempdir().unwrap();
    let m = Model {
        name: "test-model".into(),
        file: "test.gguf".into(),
        purpose: "proposer".into(),
        format: "gguf".into(),
        bytes: real.len() as u64,
        sha256: hex::encode(Sha256::digest(real)),
        licence: "test".into(),
        description: "test".into(),
        default: true,
        layout: Layout::File,
        sources: vec![Source::Http { url: url.to_string(), bytes: None, sha256: None }],
    };
    let models = Models::new(dir.path().join("models"), Catalog { models: vec![m.clone()] });
    (dir, models, m)
}

const SIZE: usize = 3 << 20;

#[test]
fn a_download_reports_progress_and_lands_verified() {
    let real = bytes(SIZE, 1);
    let server = serve(real.clone(), Mode::Good);
    let (_dir, models, m) = setup(&real, &server.url);
    let mut seen = vec![];
    let path = fetch(&models, &m, Some(SourceKind::Http), &mut |p| seen.push((p.done, p.total))).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), real);
    assert!(!models.part_path(&m).exists());
    assert_eq!(models.status(&m), ModelStatus::Verified);
    let downloads: Vec<u64> = seen.iter().filter(|(_, t)| *t == SIZE as u64).map(|(d, _)| *d).collect();
    assert!(downloads.len() >= 3, "progress was reported {} times", downloads.len());
    assert!(downloads.windows(2).all(|w| w[0] <= w[1]), "progress went backwards");
    assert!(downloads.contains(&(SIZE as u64)));
}

#[test]
fn a_truncated_transfer_keeps_its_part_and_the_next_fetch_resumes_with_a_range() {
    let real = bytes(SIZE, 2);
    let cut = serve(real.clone(), Mode::CutAfter(SIZE / 3));
    let (_dir, models, m) = setup(&real, &cut.url);
    let err = fetch(&models, &m, None, &mut |_| {}).unwrap_err();
    assert!(matches!(err, FetchError::Interrupted { .. }), "{err}");
    assert!(err.to_string().contains("resume"), "{err}");
    assert!(!models.path(&m).exists(), "an incomplete file took the real name");
    let have = std::fs::metadata(models.part_path(&m)).unwrap().len();
    assert!(have > 0 && have < SIZE as u64, "{have}");
    assert_eq!(models.status(&m), ModelStatus::Partial(have));

    // The same model from a working server: only the rest is asked for.
    let good = serve(real.clone(), Mode::Good);
    let mut m2 = m.clone();
    m2.sources = vec![Source::Http { url: good.url.clone(), bytes: None, sha256: None }];
    let models = Models::new(models.dir(), Catalog { models: vec![m2.clone()] });
    let path = fetch(&models, &m2, None, &mut |_| {}).unwrap();
    assert_eq!(good.ranges.lock().unwrap().as_slice(), [format!("bytes={have}-")]);
    assert_eq!(std::fs::read(path).unwrap(), real);
}

#[test]
fn a_server_that_ignores_ranges_still_gives_the_right_file() {
    let real = bytes(SIZE, 3);
    let server = serve(real.clone(), Mode::NoRanges);
    let (_dir, models, m) = setup(&real, &server.url);
    std::fs::create_dir_all(models.dir()).unwrap();
    std::fs::write(models.part_path(&m), &real[..1000]).unwrap();
    let path = fetch(&models, &m, None, &mut |_| {}).unwrap();
    assert_eq!(server.ranges.lock().unwrap().as_slice(), ["bytes=1000-".to_string()]);
    assert_eq!(std::fs::read(path).unwrap(), real);
}

#[test]
fn a_file_with_the_wrong_checksum_is_refused_and_nothing_is_left() {
    let real = bytes(SIZE, 4);
    let impostor = bytes(SIZE, 5);
    let server = serve(impostor, Mode::Good);
    let (_dir, models, m) = setup(&real, &server.url);
    let err = fetch(&models, &m, None, &mut |_| {}).unwrap_err();
    match &err {
        FetchError::Store(StoreError::Mismatch { expected, actual, .. }) => {
            assert_eq!(expected, &m.sha256);
            assert_ne!(actual, expected);
        }
        other => panic!("expected a checksum mismatch, got {other}"),
    }
    assert!(err.to_string().contains("will not be used"), "{err}");
    assert!(!models.path(&m).exists() && !models.part_path(&m).exists());
}

#[test]
fn a_corrupt_file_already_in_place_is_replaced_not_used() {
    let real = bytes(SIZE, 6);
    let server = serve(real.clone(), Mode::Good);
    let (_dir, models, m) = setup(&real, &server.url);
    std::fs::create_dir_all(models.dir()).unwrap();
    let mut bad = real.clone();
    bad[SIZE / 2] ^= 0xff;
    std::fs::write(models.path(&m), &bad).unwrap();
    assert!(matches!(models.verified_path(&m), Err(StoreError::Mismatch { .. })));
    let path = fetch(&models, &m, None, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(path).unwrap(), real);
}

#[test]
fn a_missing_file_on_the_server_is_a_clear_error() {
    let real = bytes(1000, 7);
    let server = serve(real.clone(), Mode::NotFound);
    let (_dir, models, m) = setup(&real, &server.url);
    let err = fetch(&models, &m, None, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("HTTP 404"), "{err}");
    assert!(!models.path(&m).exists());
    let err = fetch(&models, &m, Some(SourceKind::Pip), &mut |_| {}).unwrap_err();
    assert!(matches!(err, FetchError::NoSource { .. }), "{err}");
}
