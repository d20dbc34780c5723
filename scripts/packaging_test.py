"""What the packages need on each system, checked from any system.

A bundle built on a Mac or Windows machine cannot be run here, but what decides whether it works
is in files this repository holds: the macOS Info.plist (without a microphone usage description
macOS denies the microphone to the app and to every worker it starts), the entitlements (the
hardened runtime denies audio input without one), the WebView2 install mode (an installer that
must download WebView2 fails offline), and signing settings and the update feed, which must
come from the environment, never from a committed file.

    python3 scripts/packaging_test.py
"""

import base64
import json
import os
import plistlib
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def bundle_conf():
    with open(os.path.join(ROOT, "tauri.bundle.conf.json"), encoding="utf-8") as f:
        return json.load(f)


def plist(rel):
    with open(os.path.join(ROOT, rel), "rb") as f:
        return plistlib.load(f)


def strings(value):
    """Every string in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def node(script, payload):
    """Runs the ES module `script` with `payload` as JSON in process.argv[1], from the repo root."""
    return subprocess.run(
        ["node", "--input-type=module", "-e", script, json.dumps(payload)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )


def config_from(module, function, env):
    """A scripts/ module's --config answer for `env`: (exit code, JSON or error text)."""
    script = (
        f"import {{ {function} }} from './scripts/{module}';"
        f"try {{ console.log(JSON.stringify({function}(JSON.parse(process.argv[1])))); }}"
        "catch (e) { console.error(e.message); process.exit(2); }"
    )
    r = node(script, env)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else r.stderr)


def signing(env):
    """scripts/signing.mjs's answer for `env`."""
    return config_from("signing.mjs", "windowsSigningConfig", env)


def updates(env):
    """scripts/updates.mjs's answer for `env`."""
    return config_from("updates.mjs", "updaterConfig", env)


class MacOS(unittest.TestCase):
    def test_the_microphone_usage_description_is_merged_into_the_bundle(self):
        mac = bundle_conf()["bundle"]["macOS"]
        info = plist(mac["infoPlist"])
        self.assertGreater(len(info.get("NSMicrophoneUsageDescription", "").strip()), 20, info)

    def test_the_hardened_runtime_is_given_audio_input_and_nothing_broader(self):
        mac = bundle_conf()["bundle"]["macOS"]
        self.assertTrue(mac.get("hardenedRuntime", True))
        ent = plist(mac["entitlements"])
        self.assertIs(ent.get("com.apple.security.device.audio-input"), True, ent)
        broad = [k for k in ent if k.startswith("com.apple.security.cs.")]
        self.assertEqual(broad, [], "code-signing exceptions widen what a tampered library may do")

    def test_no_signing_identity_is_committed(self):
        conf = bundle_conf()["bundle"]
        self.assertNotIn("signingIdentity", conf.get("macOS", {}))
        self.assertNotIn("certificateThumbprint", conf.get("windows", {}))
        with open(os.path.join(ROOT, "tauri.conf.json"), encoding="utf-8") as f:
            main = json.load(f)["bundle"]
        self.assertNotIn("signingIdentity", main.get("macOS", {}))
        self.assertNotIn("certificateThumbprint", main.get("windows", {}))


class Windows(unittest.TestCase):
    def test_the_installer_carries_webview2_for_machines_offline(self):
        mode = bundle_conf()["bundle"]["windows"]["webviewInstallMode"]
        self.assertEqual(mode["type"], "offlineInstaller", mode)

    def test_a_certificate_from_the_environment_signs_with_sha256_and_a_timestamp(self):
        code, conf = signing({"SMART_WINDOWS_CERTIFICATE_THUMBPRINT": "ab" * 20})
        self.assertEqual(code, 0, conf)
        win = conf["bundle"]["windows"]
        self.assertEqual(win["certificateThumbprint"], "AB" * 20)
        self.assertEqual(win["digestAlgorithm"], "sha256")
        self.assertTrue(win["timestampUrl"].startswith("http"))

    def test_without_a_certificate_nothing_is_signed(self):
        self.assertEqual(signing({}), (0, None))
        self.assertEqual(signing({"SMART_WINDOWS_CERTIFICATE_THUMBPRINT": "  "}), (0, None))

    def test_a_malformed_thumbprint_or_timestamp_url_is_refused_by_name(self):
        code, err = signing({"SMART_WINDOWS_CERTIFICATE_THUMBPRINT": "my-cert"})
        self.assertEqual(code, 2)
        self.assertIn("SMART_WINDOWS_CERTIFICATE_THUMBPRINT", err)
        code, err = signing({"SMART_WINDOWS_CERTIFICATE_THUMBPRINT": "ab" * 20, "SMART_WINDOWS_TIMESTAMP_URL": "ftp://x"})
        self.assertEqual(code, 2)
        self.assertIn("SMART_WINDOWS_TIMESTAMP_URL", err)


def vosk_config(env, present):
    """scripts/windows_vosk.mjs's answer for `env` with only the files in `present` existing."""
    script = (
        "import { windowsVoskConfig } from './scripts/windows_vosk.mjs';"
        "const [env, present] = JSON.parse(process.argv[1]);"
        "const list = (folder) => present.filter((p) => p.slice(0, p.lastIndexOf('/')) === folder.replaceAll('\\\\', '/'))"
        "  .map((p) => p.slice(p.lastIndexOf('/') + 1));"
        "console.log(JSON.stringify(windowsVoskConfig(env, list)));"
    )
    r = node(script, [env, present])
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return json.loads(r.stdout)


class WindowsWakeWord(unittest.TestCase):
    def test_the_package_carries_libvosk_and_its_runtime_exactly_where_the_worker_links_it(self):
        folder = "/h/.cache/smart/vosk/0.3.45/windows/"
        dlls = ("libvosk.dll", "libgcc_s_seh-1.dll", "libstdc++-6.dll", "libwinpthread-1.dll")
        conf = vosk_config({"HOME": "/h"}, [folder + d for d in dlls] + [folder + "README.txt"])
        self.assertEqual(
            conf["bundle"]["resources"],
            {f"target-bin/{d}": d for d in dlls},
        )
        # SMART_VOSK_DIR wins over HOME, as in crates/voice-worker/build.rs.
        self.assertIsNotNone(vosk_config({"HOME": "/h", "SMART_VOSK_DIR": "/v"}, ["/v/windows/libvosk.dll"]))
        self.assertIsNone(vosk_config({"HOME": "/h", "SMART_VOSK_DIR": "/v"}, ["/h/.cache/smart/vosk/0.3.45/windows/libvosk.dll"]))

    def test_without_libvosk_the_package_adds_nothing(self):
        self.assertIsNone(vosk_config({"HOME": "/h"}, []))
        self.assertIsNone(vosk_config({}, ["/h/.cache/smart/vosk/0.3.45/windows/libvosk.dll"]))
        # Its runtime DLLs without libvosk.dll are no wake word.
        self.assertIsNone(vosk_config({"HOME": "/h"}, ["/h/.cache/smart/vosk/0.3.45/windows/libstdc++-6.dll"]))

    def test_the_version_is_the_one_the_build_links(self):
        with open(os.path.join(ROOT, "crates/voice-worker/build.rs"), encoding="utf-8") as f:
            self.assertIn('const VOSK_VERSION: &str = "0.3.45";', f.read())
        with open(os.path.join(ROOT, "scripts/windows_vosk.mjs"), encoding="utf-8") as f:
            self.assertIn('VOSK_VERSION = "0.3.45"', f.read())


class Updates(unittest.TestCase):
    def test_the_committed_config_names_no_feed_and_a_release_key(self):
        with open(os.path.join(ROOT, "tauri.conf.json"), encoding="utf-8") as f:
            updater = json.load(f)["plugins"]["updater"]
        self.assertEqual(updater["endpoints"], [], "a build from the repo must not check a feed")
        self.assertTrue(updater["requireSignedVersion"])
        self.assertTrue(updater["pubkey"])
        # A Tauri private key is stored as base64 of a minisign "secret key" file: read every
        # string of the configs as such.
        for conf in ("tauri.conf.json", "tauri.bundle.conf.json"):
            with open(os.path.join(ROOT, conf), encoding="utf-8") as f:
                for value in strings(json.load(f)):
                    try:
                        text = base64.b64decode(value, validate=True).decode("utf-8", "replace")
                    except ValueError:
                        text = value
                    self.assertNotIn("secret key", text.lower(), f"{conf} holds a private key")

    def test_a_release_feed_from_the_environment_makes_signed_update_packages(self):
        env = {"SMART_UPDATE_FEED": "https://releases.example.org/smart/latest.json", "TAURI_SIGNING_PRIVATE_KEY": "k"}
        self.assertEqual(
            updates(env),
            (0, {"plugins": {"updater": {"endpoints": [env["SMART_UPDATE_FEED"]]}}, "bundle": {"createUpdaterArtifacts": True}}),
        )

    def test_without_a_feed_nothing_is_added(self):
        self.assertEqual(updates({}), (0, None))
        self.assertEqual(updates({"SMART_UPDATE_FEED": " ", "TAURI_SIGNING_PRIVATE_KEY": "k"}), (0, None))

    def test_a_feed_that_is_not_https_or_has_no_signing_key_is_refused_by_name(self):
        for env, says in (
            ({"SMART_UPDATE_FEED": "http://releases.example.org/latest.json", "TAURI_SIGNING_PRIVATE_KEY": "k"}, "https"),
            ({"SMART_UPDATE_FEED": "releases/latest.json", "TAURI_SIGNING_PRIVATE_KEY": "k"}, "not a URL"),
            ({"SMART_UPDATE_FEED": "https://releases.example.org/latest.json"}, "TAURI_SIGNING_PRIVATE_KEY"),
        ):
            code, err = updates(env)
            self.assertEqual(code, 2, env)
            self.assertIn(says, err)


def release_signatures(signatures, pubkey):
    """scripts/updates.mjs's check of a build's `.sig` files against `pubkey`: (exit code, error text)."""
    script = (
        "import { checkReleaseSignatures } from './scripts/updates.mjs';"
        "const [sigs, pubkey] = JSON.parse(process.argv[1]);"
        "try { checkReleaseSignatures(sigs, pubkey); } catch (e) { console.error(e.message); process.exit(2); }"
    )
    r = node(script, [signatures, pubkey])
    return r.returncode, r.stderr


class ReleaseSignatures(unittest.TestCase):
    """A release whose packages the app would refuse is stopped at the build."""

    def fixture(self, name):
        with open(os.path.join(ROOT, "src-tauri", "fixtures", "updates", name), encoding="utf-8") as f:
            return f.read()

    def test_packages_signed_by_the_trusted_key_pass(self):
        sig = {"name": "smart-0.2.0-package.txt.sig", "text": self.fixture("smart-0.2.0-package.txt.sig")}
        self.assertEqual(release_signatures([sig], self.fixture("release-key.pub")), (0, ""))

    def test_packages_signed_by_another_key_are_named(self):
        with open(os.path.join(ROOT, "tauri.conf.json"), encoding="utf-8") as f:
            committed = json.load(f)["plugins"]["updater"]["pubkey"]
        sig = {"name": "smart-0.2.0-package.txt.sig", "text": self.fixture("smart-0.2.0-package.txt.sig")}
        code, err = release_signatures([sig], committed)
        self.assertEqual(code, 2)
        self.assertIn("smart-0.2.0-package.txt.sig", err)
        self.assertIn("1C92E9205BB60269", err, "the trusted key's ID")

    def test_a_build_that_signed_nothing_or_a_garbled_signature_fails(self):
        self.assertEqual(release_signatures([], self.fixture("release-key.pub"))[0], 2)
        code, err = release_signatures([{"name": "x.sig", "text": "bm90IGEgc2lnbmF0dXJl"}], self.fixture("release-key.pub"))
        self.assertEqual(code, 2)
        self.assertIn("not a minisign", err)


def readme_block(fence):
    """The first ```fence block after the developers' heading of the README."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    text = text[text.index("## On macOS and Windows (developers)"):]
    start = text.index("```" + fence + "\n") + len(fence) + 4
    return text[start:text.index("```", start)]


def commands(block):
    """A block's cargo and npm commands, without their comments."""
    lines = (line.split("#")[0].strip() for line in block.splitlines())
    return [line for line in lines if line.startswith(("cargo ", "npm "))]


class Workflow(unittest.TestCase):
    """The CI workflow cannot run here; it is held to the README's commands instead."""

    def setUp(self):
        with open(os.path.join(ROOT, ".github", "workflows", "build.yml"), encoding="utf-8") as f:
            self.workflow = f.read()

    def job(self, name):
        start = self.workflow.index("\n  " + name + ":\n")
        end = min([i for i in (self.workflow.find("\n  " + j + ":\n", start + 1) for j in ("linux", "macos", "windows")) if i > start] or [len(self.workflow)])
        return self.workflow[start:end]

    def test_linux_runs_the_readme_test_command(self):
        self.assertIn("run: bash .ci/run", self.job("linux"))

    def test_macos_and_windows_run_the_readme_commands(self):
        for job, fence in (("macos", "sh"), ("windows", "powershell")):
            wanted = [c for c in commands(readme_block(fence)) if c != "npm run tauri dev"]
            self.assertGreaterEqual(len(wanted), 3, wanted)
            for c in wanted:
                self.assertIn(c, self.job(job), f"{job}: the README's `{c}` is not in the workflow")


if __name__ == "__main__":
    unittest.main()
