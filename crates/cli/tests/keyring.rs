//! The device key in a real OS keyring: the Secret Service (gnome-keyring) on a private D-Bus
//! session, as a Linux desktop has. init stores the key there (no key file is written), every
//! later command finds it again, and `doctor` reports the keyring rather than the fallback.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use std::process::Command;

#[test]
fn the_device_key_lives_in_the_secret_service_when_there_is_one() {
    for tool in ["dbus-run-session", "dbus-send", "gnome-keyring-daemon"] {
        assert!(
            Command::new("sh").args(["-c", &format!("command -v {tool}")]).output().unwrap().status.success(),
            "{tool} is missing: scripts/setup.sh installs it (dbus-x11, gnome-keyring)"
        );
    }
    let s = Smart::new();
    let (smart, data, root) = (bin(), s.data.display().to_string(), s.root.display().to_string());
    // The unlocked daemon must own the Secret Service's name before SMART asks for it. (What
    // broke, once, on a loaded CI machine: init came first, D-Bus started a second daemon for
    // the name, that one had no password, the collection was locked, and init failed.)
    let owned = "dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                 org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'";
    let script = format!(
        "echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 90
         n=0; until {owned}; do n=$((n+1)); [ $n -gt 100 ] && exit 94; sleep 0.1; done
         {smart} --data-dir {data} init --root {root} --key-store keyring || exit 91
         {smart} --data-dir {data} --json call fs.scan --args '{{\"path\": \"{root}\"}}' || exit 92
         {smart} --data-dir {data} doctor || exit 93"
    );
    let out = Command::new("dbus-run-session")
        .args(["--", "sh", "-c", &script])
        .env_remove("SMART_KEY_STORE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "exit {:?}\n{stdout}\n{}", out.status.code(), String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Keyring store"), "{stdout}");
    assert!(stdout.contains("\"outcome\":\"committed\""), "{stdout}");
    assert!(stdout.contains("key store   OS keyring"), "{stdout}");
    assert!(!s.data.join("device.key").exists(), "no key file when the keyring holds the key");
    // Outside that session the keyring is gone: the key cannot be found, and SMART says so
    // instead of making a new one.
    let out = s.run(&["call", "fs.scan", "--args", "{\"path\": \".\"}"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("device key"), "{}", String::from_utf8_lossy(&out.stderr));
}
