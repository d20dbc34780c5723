// `npm run tauri ...`: the Tauri CLI, with the packaging configuration added to `tauri build`.
//
// A package must carry the model worker beside the app (a Tauri "sidecar"), but naming it in
// tauri.conf.json would make every `cargo build` of the app require a pre-built worker. So the
// sidecar and the step that builds it live in tauri.bundle.conf.json, which only packaging
// reads: `npm run tauri build -- --bundles deb` gives a .deb whose app can load a model. A
// Windows signing certificate named in the environment is added too (scripts/signing.mjs), and
// on Windows the wake word's DLLs where the voice worker links them (scripts/windows_vosk.mjs),
// and a release's update feed with its signed update packages (scripts/updates.mjs).

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { windowsSigningConfig } from "./signing.mjs";
import { checkReleaseSignatures, updaterConfig } from "./updates.mjs";
import { windowsVoskConfig } from "./windows_vosk.mjs";

const args = process.argv.slice(2);
const started = Date.now();
let updates = null;
if (args[0] === "build" && !args.includes("--config") && !args.includes("-c")) {
  let signing;
  try {
    signing = windowsSigningConfig(process.env);
    updates = updaterConfig(process.env);
  } catch (e) {
    console.error(`tauri build: ${e.message}`);
    process.exit(1);
  }
  const extra = signing ? ["--config", JSON.stringify(signing)] : [];
  if (updates) extra.push("--config", JSON.stringify(updates));
  else console.error("tauri build: no SMART_UPDATE_FEED; this build will not check for updates");
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
if (r.status === 0 && updates) {
  try {
    checkReleaseSignatures(signaturesSince(started), JSON.parse(readFileSync("tauri.conf.json", "utf8")).plugins.updater.pubkey);
  } catch (e) {
    console.error(`tauri build: the update packages: ${e.message}`);
    process.exit(1);
  }
}
process.exit(r.status ?? 1);

/** The `.sig` files this build wrote into the bundle folders of the target dir. */
function signaturesSince(since) {
  const target = process.env.CARGO_TARGET_DIR || "target";
  const bundles = [join(target, "release", "bundle")];
  for (const triple of existsSync(target) ? readdirSync(target) : []) bundles.push(join(target, triple, "release", "bundle"));
  const found = [];
  const walk = (dir) => {
    for (const entry of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".sig") && statSync(path).mtimeMs >= since) found.push({ name: path, text: readFileSync(path, "utf8") });
    }
  };
  bundles.forEach(walk);
  return found;
}
