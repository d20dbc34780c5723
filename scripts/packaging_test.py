"""What the packages need on each system, checked from any system.

A bundle built on a Mac or Windows machine cannot be run here, but what decides whether it works
is in files this repository holds: the macOS Info.plist (without a microphone usage description
macOS denies the microphone to the app and to every worker it starts), the entitlements (the
hardened runtime denies audio input without one), the WebView2 install mode (an installer that
must download WebView2 fails offline), and signing settings, which must come from the
environment, never from a committed file.

    python3 scripts/packaging_test.py
"""

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


def signing(env):
    """scripts/signing.mjs's answer for `env`: (exit code, JSON or error text)."""
    script = (
        "import { windowsSigningConfig } from './scripts/signing.mjs';"
        "try { console.log(JSON.stringify(windowsSigningConfig(JSON.parse(process.argv[1])))); }"
        "catch (e) { console.error(e.message); process.exit(2); }"
    )
    r = subprocess.run(
        ["node", "--input-type=module", "-e", script, json.dumps(env)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else r.stderr)


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
        "console.log(JSON.stringify(windowsVoskConfig(env, (p) => present.includes(p.replaceAll('\\\\', '/')))));"
    )
    r = subprocess.run(
        ["node", "--input-type=module", "-e", script, json.dumps([env, present])],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return json.loads(r.stdout)


class WindowsWakeWord(unittest.TestCase):
    def test_the_package_carries_libvosk_and_its_runtime_exactly_where_the_worker_links_it(self):
        conf = vosk_config({"HOME": "/h"}, ["/h/.cache/smart/vosk/0.3.45/windows/libvosk.dll"])
        self.assertEqual(
            conf["bundle"]["resources"],
            {f"target-bin/{d}": d for d in ("libvosk.dll", "libgcc_s_seh-1.dll", "libstdc++-6.dll", "libwinpthread-1.dll")},
        )
        # SMART_VOSK_DIR wins over HOME, as in crates/voice-worker/build.rs.
        self.assertIsNotNone(vosk_config({"HOME": "/h", "SMART_VOSK_DIR": "/v"}, ["/v/windows/libvosk.dll"]))
        self.assertIsNone(vosk_config({"HOME": "/h", "SMART_VOSK_DIR": "/v"}, ["/h/.cache/smart/vosk/0.3.45/windows/libvosk.dll"]))

    def test_without_libvosk_the_package_adds_nothing(self):
        self.assertIsNone(vosk_config({"HOME": "/h"}, []))
        self.assertIsNone(vosk_config({}, ["/h/.cache/smart/vosk/0.3.45/windows/libvosk.dll"]))

    def test_the_version_is_the_one_the_build_links(self):
        with open(os.path.join(ROOT, "crates/voice-worker/build.rs"), encoding="utf-8") as f:
            self.assertIn('const VOSK_VERSION: &str = "0.3.45";', f.read())
        with open(os.path.join(ROOT, "scripts/windows_vosk.mjs"), encoding="utf-8") as f:
            self.assertIn('VOSK_VERSION = "0.3.45"', f.read())


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
