// Words for what a pending call would do, from its preview (bindings: Preview).

import type { PendingView, Preview } from "./bindings";
import { formatCountdown, layerLabel } from "./status";

/** 0 B, 999 B, 1.0 KiB, 12.3 MiB, … ; unknown sizes read "size unknown". */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return "size unknown";
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

/** One line above the preview table: "2 files, 1.2 MiB" / "3 moves, 10 B" / "arguments". */
export function previewHeadline(p: Preview): string {
  switch (p.kind) {
    case "files": {
      const n = p.files.length + p.more;
      return `${n} ${n === 1 ? "item" : "items"}, ${formatBytes(p.total_bytes)}`;
    }
    case "moves": {
      const n = p.moves.length + p.more;
      return `${n} ${n === 1 ? "move" : "moves"}, ${formatBytes(p.total_bytes)}`;
    }
    case "args":
      return "arguments";
  }
}

const REVERSIBILITY: Record<string, string> = {
  read_only: "Reads only: changes nothing",
  propose_only: "Makes a plan: changes nothing",
  reversible: "Reversible: can be undone from the timeline",
  irreversible: "Irreversible: cannot be undone",
};

export function reversibilityText(r: string): string {
  return REVERSIBILITY[r] ?? r;
}

export interface Admissibility {
  /** Approve may be pressed (the time gate has passed). */
  ready: boolean;
  /** "Approvable in 12s" / "Approvable now". */
  label: string;
  /** "Expires in 4m 10s" / "Expired". */
  expires: string;
  expired: boolean;
}

/** Where the call stands against its time gate and its expiry, at the kernel's `nowMs`. */
export function admissibility(call: PendingView, nowMs: number): Admissibility {
  const wait = call.admissible_at_ms - nowMs;
  const left = call.expires_at_ms - nowMs;
  const expired = left <= 0;
  return {
    ready: wait <= 0 && !expired,
    label: wait > 0 ? `Approvable in ${formatCountdown(wait)}` : "Approvable now",
    expires: expired ? "Expired" : `Expires in ${formatCountdown(left)}`,
    expired,
  };
}

/** "fs.quarantine · L4 · Tier 3" */
export function callTitle(call: PendingView): string {
  return `${call.tool} · ${layerLabel(call.layer)} · Tier ${call.tier}`;
}
