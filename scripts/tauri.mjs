// `npm run tauri ...`: the Tauri CLI, with the packaging configuration added to `tauri build`.
//
// A package must carry the model worker beside the app (a Tauri "sidecar"), but naming it in
// tauri.conf.json would make every `cargo build` of the app require a pre-built worker. So the
// sidecar and the step that builds it live in tauri.bundle.conf.json, which only packaging
// reads: `npm run tauri build -- --bundles deb` gives a .deb whose app can load a model.

import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const args = process.argv.slice(2);
if (args[0] === "build" && !args.includes("--config") && !args.includes("-c")) {
  args.splice(1, 0, "--config", "tauri.bundle.conf.json");
}
const require = createRequire(import.meta.url);
const cli = require.resolve("@tauri-apps/cli/tauri.js");
const r = spawnSync(process.execPath, [cli, ...args], { stdio: "inherit" });
process.exit(r.status ?? 1);
