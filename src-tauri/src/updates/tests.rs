//! Updates against a local release feed: a real HTTP server on 127.0.0.1 serving a feed and a
//! package signed the way `tauri signer sign` signs them (minisign, the version in the trusted
//! comment), read by the real updater plugin in a display-less app. Installing is not exercised:
//! it would replace the test binary; `install` re-verifies with the same check `download` does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use base64::Engine as _;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tauri::test::{MockRuntime, mock_builder};

/// The version the display-less app runs as (Tauri's mock context).
const CURRENT: &str = "0.1.0";

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// A release key as `tauri signer generate` makes one; the public half as the config holds it.
struct ReleaseKey(minisign::KeyPair);

impl ReleaseKey {
    fn new() -> ReleaseKey {
        ReleaseKey(minisign::KeyPair::generate_unencrypted_keypair().unwrap())
    }

    fn public(&self) -> String {
        b64(&self.0.pk.to_box().unwrap().to_string())
    }

    /// The feed's `signature` for `package`, with `version` in the signed comment as the Tauri
    /// CLI writes it (none for a CLI from before it did).
    fn sign(&self, package: &[u8], version: Option<&str>) -> String {
        let mut trusted = "timestamp:1790000000\tfile:smart-package".to_string();
        if let Some(v) = version {
            trusted.push_str(&format!("\tversion:{v}"));
        }
        let sig =
            minisign::sign(None, &self.0.sk, package, Some(&trusted), Some("signature from tauri secret key")).unwrap();
        b64(&sig.to_string())
    }
}

/// A release feed on 127.0.0.1: its URL, and how many requests reached it.
struct Feed {
    url: String,
    requests: Arc<AtomicUsize>,
}

/// Serves what `files` makes of the server's base URL, by path (anything else is a 404), for
/// `answers` requests; then it is down for maintenance (503). It keeps its port: a feed that
/// closed it could find another test's feed there.
fn serve_for(answers: usize, files: impl FnOnce(&str) -> BTreeMap<String, Vec<u8>>) -> Feed {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let files = files(&base);
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let answered = counted.fetch_add(1, Ordering::SeqCst);
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&head);
            let path = head.split_whitespace().nth(1).unwrap_or("/");
            let (status, body) = match files.get(path) {
                _ if answered >= answers => ("503 Service Unavailable", Vec::new()),
                Some(b) => ("200 OK", b.clone()),
                None => ("404 Not Found", Vec::new()),
            };
            let _ = write!(stream, "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            let _ = stream.write_all(&body);
        }
    });
    Feed { url: format!("{base}/latest.json"), requests }
}

fn serve(files: impl FnOnce(&str) -> BTreeMap<String, Vec<u8>>) -> Feed {
    serve_for(usize::MAX, files)
}

/// A feed announcing `version`, whose package for this platform is `served` (signed as
/// `signature`).
fn feed(version: &str, signature: String, served: Vec<u8>) -> Feed {
    feed_for(usize::MAX, version, signature, served)
}

fn feed_for(answers: usize, version: &str, signature: String, served: Vec<u8>) -> Feed {
    serve_for(answers, |base| {
        let target = tauri_plugin_updater::target().unwrap();
        let latest = json!({
            "version": version,
            "notes": "Faster answers.",
            "pub_date": "2026-11-20T10:00:00Z",
            "platforms": { target: { "url": format!("{base}/smart-package"), "signature": signature } },
        });
        BTreeMap::from([
            ("/latest.json".to_string(), serde_json::to_vec(&latest).unwrap()),
            ("/smart-package".to_string(), served),
        ])
    })
}

fn committed_config() -> Value {
    crate::tests::committed_plugins()["updater"].clone()
}

/// The app with the committed updater settings, changed by `edit` (a feed, a test key).
fn app(edit: impl FnOnce(&mut Value)) -> tauri::App<MockRuntime> {
    let mut ctx = crate::tests::context();
    let updater = ctx.config_mut().plugins.0.get_mut("updater").unwrap();
    edit(updater);
    let app = crate::setup(mock_builder(), Err("no data dir in this test".into()), |_| ()).build(ctx).unwrap();
    app.state::<UpdateHost>().direct.store(true, std::sync::atomic::Ordering::SeqCst);
    app
}

/// The app reading `feed` over plain http (only a test may: the committed config refuses it)
/// and trusting `key`.
fn app_on(feed: &Feed, key: &ReleaseKey) -> tauri::App<MockRuntime> {
    app_trusting(feed, &key.public())
}

fn app_trusting(feed: &Feed, pubkey: &str) -> tauri::App<MockRuntime> {
    app(|u| {
        u["endpoints"] = json!([feed.url]);
        u["pubkey"] = json!(pubkey);
        u["dangerousInsecureTransportProtocol"] = json!(true);
    })
}

/// A file of `src-tauri/fixtures/updates/` (see its README).
fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri/fixtures/updates").join(name))
        .unwrap()
}

fn check_now(app: &tauri::App<MockRuntime>) -> Result<UpdateCheck, UpdateError> {
    tauri::async_runtime::block_on(check(app.handle()))
}

/// Downloads the update the last check found, as the person shown `version` asks for it.
fn download_now(app: &tauri::App<MockRuntime>, version: &str) -> Result<Vec<u8>, UpdateError> {
    let mut seen = Vec::new();
    let r = tauri::async_runtime::block_on(download(app.handle(), version, |p| seen.push(p)));
    if let Ok((_, bytes)) = &r {
        let last = seen.last().unwrap();
        assert_eq!(last.done, bytes.len() as u64, "progress reaches the whole package");
        assert_eq!(last.total, Some(bytes.len() as u64));
    }
    r.map(|(_, bytes)| bytes)
}

fn package() -> Vec<u8> {
    (0..200_000u32).flat_map(|i| (i.wrapping_mul(2_654_435_761)).to_le_bytes()).collect()
}

#[test]
fn the_committed_configuration_checks_nothing_until_a_release_sets_a_feed() {
    let committed = committed_config();
    assert_eq!(committed["endpoints"], json!([]), "the committed config must name no feed");
    assert_eq!(committed["requireSignedVersion"], json!(true));
    assert!(committed.get("dangerousInsecureTransportProtocol").is_none());
    // The public key is a minisign public key, as `tauri signer generate` writes it.
    let pubkey = base64::engine::general_purpose::STANDARD.decode(committed["pubkey"].as_str().unwrap()).unwrap();
    minisign::PublicKeyBox::from_string(std::str::from_utf8(&pubkey).unwrap()).unwrap().into_public_key().unwrap();

    let app = app(|_| ());
    assert_eq!(check_now(&app), Ok(UpdateCheck::Off { current: CURRENT.into() }));
    assert_eq!(download_now(&app, "0.2.0"), Err(UpdateError::NothingChecked));
}

#[test]
fn a_newer_release_signed_by_the_release_key_is_found_and_downloaded_byte_for_byte() {
    let key = ReleaseKey::new();
    let feed = feed("0.2.0", key.sign(&package(), Some("0.2.0")), package());
    let app = app_on(&feed, &key);
    assert_eq!(
        check_now(&app),
        Ok(UpdateCheck::Available {
            current: CURRENT.into(),
            version: "0.2.0".into(),
            notes: Some("Faster answers.".into()),
            date: Some("2026-11-20".into()),
        })
    );
    assert_eq!(download_now(&app, "0.2.0").unwrap(), package());
    assert_eq!(feed.requests.load(Ordering::SeqCst), 2, "the feed, then the package");
}

#[test]
fn a_package_signed_by_the_tauri_cli_is_accepted_and_bound_to_the_version_it_was_signed_for() {
    let package = fixture("smart-0.2.0-package.txt");
    let signature = String::from_utf8(fixture("smart-0.2.0-package.txt.sig")).unwrap();
    let pubkey = String::from_utf8(fixture("release-key.pub")).unwrap();

    let app = app_trusting(&feed("0.2.0", signature.trim().to_string(), package.clone()), pubkey.trim());
    assert!(matches!(check_now(&app), Ok(UpdateCheck::Available { .. })));
    assert_eq!(download_now(&app, "0.2.0").unwrap(), package);

    let app = app_trusting(&feed("0.3.0", signature.trim().to_string(), package), pubkey.trim());
    assert!(matches!(check_now(&app), Ok(UpdateCheck::Available { .. })));
    assert_eq!(
        download_now(&app, "0.3.0"),
        Err(UpdateError::VersionMismatch { signed: "0.2.0".into(), announced: "0.3.0".into() })
    );
}

#[test]
fn only_the_update_the_person_was_shown_is_downloaded_and_one_install_runs_at_a_time() {
    let key = ReleaseKey::new();
    let feed = feed("0.2.0", key.sign(&package(), Some("0.2.0")), package());
    let app = app_on(&feed, &key);
    assert!(matches!(check_now(&app), Ok(UpdateCheck::Available { .. })));
    assert_eq!(
        download_now(&app, "0.3.0"),
        Err(UpdateError::NotTheOneShown { found: "0.2.0".into(), asked: "0.3.0".into() })
    );
    assert_eq!(feed.requests.load(Ordering::SeqCst), 1, "nothing downloaded");

    let host = app.state::<UpdateHost>();
    let first = host.begin_install().unwrap();
    assert_eq!(host.begin_install().err(), Some(UpdateError::Busy));
    drop(first);
    assert!(host.begin_install().is_ok(), "a failed install does not block the next");
}

#[test]
fn a_package_changed_after_it_was_signed_is_refused() {
    let key = ReleaseKey::new();
    let mut changed = package();
    changed[123_456] ^= 1;
    let app = app_on(&feed("0.2.0", key.sign(&package(), Some("0.2.0")), changed), &key);
    assert!(matches!(check_now(&app), Ok(UpdateCheck::Available { .. })));
    let refused = download_now(&app, "0.2.0");
    assert!(matches!(refused, Err(UpdateError::Signature(_))), "{refused:?}");
}

#[test]
fn a_package_signed_by_another_key_is_refused() {
    let (key, stranger) = (ReleaseKey::new(), ReleaseKey::new());
    let app = app_on(&feed("0.2.0", stranger.sign(&package(), Some("0.2.0")), package()), &key);
    assert!(matches!(check_now(&app), Ok(UpdateCheck::Available { .. })));
    let refused = download_now(&app, "0.2.0");
    assert!(matches!(refused, Err(UpdateError::Signature(_))), "{refused:?}");
}

#[test]
fn a_feed_passing_an_old_genuine_release_off_as_new_is_refused() {
    let key = ReleaseKey::new();
    let app = app_on(&feed("0.3.0", key.sign(&package(), Some("0.2.0")), package()), &key);
    assert!(matches!(check_now(&app), Ok(UpdateCheck::Available { .. })));
    assert_eq!(
        download_now(&app, "0.3.0"),
        Err(UpdateError::VersionMismatch { signed: "0.2.0".into(), announced: "0.3.0".into() })
    );
}

#[test]
fn a_package_whose_signature_names_no_version_is_refused() {
    let key = ReleaseKey::new();
    let app = app_on(&feed("0.2.0", key.sign(&package(), None), package()), &key);
    assert!(matches!(check_now(&app), Ok(UpdateCheck::Available { .. })));
    let refused = download_now(&app, "0.2.0");
    assert!(matches!(refused, Err(UpdateError::Signature(_))), "{refused:?}");
}

#[test]
fn the_running_version_on_the_feed_is_up_to_date_and_leaves_nothing_to_install() {
    let key = ReleaseKey::new();
    let feed = feed(CURRENT, key.sign(&package(), Some(CURRENT)), package());
    let app = app_on(&feed, &key);
    assert_eq!(check_now(&app), Ok(UpdateCheck::UpToDate { current: CURRENT.into() }));
    assert_eq!(download_now(&app, "0.2.0"), Err(UpdateError::NothingChecked));
    assert_eq!(feed.requests.load(Ordering::SeqCst), 1, "the package is not fetched");
}

#[test]
fn a_check_that_fails_forgets_the_update_an_earlier_check_found() {
    let key = ReleaseKey::new();
    // The feed answers the first check, then goes away.
    let feed = feed_for(1, "0.2.0", key.sign(&package(), Some("0.2.0")), package());
    let app = app_on(&feed, &key);
    assert!(matches!(check_now(&app), Ok(UpdateCheck::Available { .. })));
    let refused = check_now(&app);
    assert!(matches!(&refused, Err(UpdateError::Feed(_))), "{refused:?}");
    assert!(refused.unwrap_err().to_string().starts_with("the release feed could not be read"));
    // What the failed check could not confirm is not installed on the earlier check's word.
    assert_eq!(download_now(&app, "0.2.0"), Err(UpdateError::NothingChecked));
}

#[test]
fn a_feed_that_is_not_a_release_is_a_clear_error() {
    let key = ReleaseKey::new();
    let feed = serve(|_| BTreeMap::from([("/latest.json".to_string(), b"<html>maintenance</html>".to_vec())]));
    let refused = check_now(&app_on(&feed, &key));
    assert!(matches!(refused, Err(UpdateError::Feed(_))), "{refused:?}");
}
