// `npm run tauri ...`: the Tauri CLI, with the packaging configuration added to `tauri build`.
//
// A package must carry the model worker beside the app (a Tauri "sidecar"), but naming it in
// tauri.conf.json would make every `cargo build` of the app require a pre-built worker. So the
// sidecar and the step that builds it live in tauri.bundle.conf.json, which only packaging
// reads: `npm run tauri build -- --bundles deb` gives a .deb whose app can load a model. A
// Windows signing certificate named in the environment is added too (scripts/signing.mjs), and
// on Windows the wake word's DLLs where the voice worker links them (scripts/windows_vosk.mjs).

import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { windowsSigningConfig } from "./signing.mjs";
import { windowsVoskConfig } from "./windows_vosk.mjs";

const args = process.argv.slice(2);
if (args[0] === "build" && !args.includes("--config") && !args.includes("-c")) {
  let signing;
  try {
    signing = windowsSigningConfig(process.env);
  } catch (e) {
    console.error(`tauri build: ${e.message}`);
    process.exit(1);
  }
  const extra = signing ? ["--config", JSON.stringify(signing)] : [];
  const vosk = process.platform === "win32" ? windowsVoskConfig(process.env) : null;
  if (vosk) extra.push("--config", JSON.stringify(vosk));
  if (process.platform === "win32" && !signing) {
    console.error("tauri build: no SMART_WINDOWS_CERTIFICATE_THUMBPRINT; the installer will be unsigned");
  }
  args.splice(1, 0, "--config", "tauri.bundle.conf.json", ...extra);
}
const require = createRequire(import.meta.url);
const cli = require.resolve("@tauri-apps/cli/tauri.js");
const r = spawnSync(process.execPath, [cli, ...args], { stdio: "inherit" });
process.exit(r.status ?? 1);
