// The wake word's library in a Windows package: libvosk.dll and the three MinGW runtime DLLs it
// needs, installed beside the voice worker (Windows finds a DLL beside the program that loads
// it). For `tauri.mjs`, on Windows only.
//
// The voice worker links libvosk.dll exactly when its build found it
// (crates/voice-worker/build.rs: `$SMART_VOSK_DIR`, else `$HOME/.cache/smart/vosk/<version>`,
// then `windows/`), so the package carries the DLLs exactly then, by the same rule: a worker
// that linked it and a package without it would not start; a package with it and a worker
// without it would only be larger. scripts/stage-sidecars.sh copies them into target-bin/.

import { existsSync } from "node:fs";
import { join } from "node:path";

export const VOSK_VERSION = "0.3.45";
export const VOSK_WINDOWS_DLLS = ["libvosk.dll", "libgcc_s_seh-1.dll", "libstdc++-6.dll", "libwinpthread-1.dll"];

/// Where the voice worker's build looks for the Windows libvosk, from `env`; null without one.
export function voskWindowsFolder(env) {
  const base = env.SMART_VOSK_DIR || (env.HOME ? join(env.HOME, ".cache", "smart", "vosk", VOSK_VERSION) : null);
  return base ? join(base, "windows") : null;
}

/// The `--config` that adds the DLLs to the package as resources beside the app and its
/// workers, or null where the worker is built without libvosk.
export function windowsVoskConfig(env, exists = existsSync) {
  const folder = voskWindowsFolder(env);
  if (!folder || !exists(join(folder, "libvosk.dll"))) return null;
  const resources = Object.fromEntries(VOSK_WINDOWS_DLLS.map((dll) => [`target-bin/${dll}`, dll]));
  return { bundle: { resources } };
}
