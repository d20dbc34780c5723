// The wake word's library in a Windows package: libvosk.dll and the three MinGW runtime DLLs it
// needs, installed beside the voice worker (Windows finds a DLL beside the program that loads
// it). For `tauri.mjs`, on Windows only.
//
// The voice worker links libvosk.dll exactly when its build found it
// (crates/voice-worker/build.rs: `$SMART_VOSK_DIR`, else `$HOME/.cache/smart/vosk/<version>`,
// then `windows/`), so the package carries the DLLs exactly then, by the same rule: a worker
// that linked it and a package without it would not start; a package with it and a worker
// without it would only be larger. scripts/stage-sidecars.sh copies them into target-bin/.
// Which DLLs they are is said once, where scripts/setup.sh takes them out of the wheel into that
// folder; here and in stage-sidecars.sh they are the folder's DLLs.

import { readdirSync } from "node:fs";
import { join } from "node:path";

export const VOSK_VERSION = "0.3.45";

/// Where the voice worker's build looks for the Windows libvosk, from `env`; null without one.
export function voskWindowsFolder(env) {
  const base = env.SMART_VOSK_DIR || (env.HOME ? join(env.HOME, ".cache", "smart", "vosk", VOSK_VERSION) : null);
  return base ? join(base, "windows") : null;
}

/// The names in `folder`; none where it cannot be read.
function namesIn(folder) {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

/// The `--config` that adds the DLLs to the package as resources beside the app and its
/// workers, or null where the worker is built without libvosk. `list` gives a folder's names.
export function windowsVoskConfig(env, list = namesIn) {
  const folder = voskWindowsFolder(env);
  const dlls = (folder ? list(folder) : []).filter((name) => name.endsWith(".dll"));
  if (!dlls.includes("libvosk.dll")) return null;
  const resources = Object.fromEntries([...dlls].sort().map((dll) => [`target-bin/${dll}`, dll]));
  return { bundle: { resources } };
}
