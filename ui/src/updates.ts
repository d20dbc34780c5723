// What the Settings panel says about updates (src-tauri/src/updates.rs): a release feed that
// this build may not have, what a check found, and how far a download has got.

import type { UpdateCheck, UpdateProgress } from "./bindings";
import { formatBytes } from "./preview";

/** One line for what the last check found. */
export function updateLine(check: UpdateCheck): string {
  switch (check.state) {
    case "off":
      return `SMART ${check.current}. This build names no release feed, so it never checks for updates.`;
    case "up_to_date":
      return `SMART ${check.current} is the newest release.`;
    case "available": {
      const when = check.date ? ` (released ${check.date})` : "";
      return `SMART ${check.version}${when} is available; you have ${check.current}.`;
    }
  }
}

/** A download's progress in words: "3.1 MiB of 12.0 MiB", or only what has arrived. */
export function progressLine(p: UpdateProgress): string {
  return p.total === null ? `${formatBytes(p.done)} downloaded` : `${formatBytes(p.done)} of ${formatBytes(p.total)}`;
}
