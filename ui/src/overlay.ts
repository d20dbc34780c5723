// The overlay's words: a spoken turn at a glance (src-tauri/src/overlay.rs shows the window).
// The same live line as the HUD (hud.ts `fold`), said the way a person glancing at the edge of
// the screen needs it: what SMART is doing, what it heard, what it means to do, how it ended.

import type { Live } from "./hud";

export interface OverlayView {
  /** Listening, Hearing, Thinking, Waiting for you, Doing it, Done, Refused, Denied. */
  label: string;
  /** For styling: active, waiting, done, refused. */
  tone: "active" | "waiting" | "done" | "refused";
  /** The proposal in words ("quarantine old.log"), when there is one. */
  proposal: string | null;
  /** A call waits for the person's decision in the HUD. */
  waiting: boolean;
}

/** "AWAITING_CONFIRM", "awaiting_confirm" → "awaitingconfirm". */
const key = (s: string): string => s.replace(/_/g, "").toLowerCase();

/** What the turn is doing, from the interaction state and the kernel's outcome. */
export function overlayView(live: Live): OverlayView {
  const proposal = live.proposal ? proposalWords(live.proposal.tool, live.proposal.args) : null;
  const waiting = key(live.state) === "awaitingconfirm" || live.outcome === "pending";
  if (waiting) return { label: "Waiting for you", tone: "waiting", proposal, waiting };
  switch (key(live.state)) {
    case "listening":
      return { label: "Listening", tone: "active", proposal, waiting };
    case "transcribing":
      return { label: "Hearing", tone: "active", proposal, waiting };
    case "reasoning":
    case "planning":
    case "riskclassifying":
      return { label: "Thinking", tone: "active", proposal, waiting };
    case "executing":
      return { label: "Doing it", tone: "active", proposal, waiting };
    default:
      break;
  }
  if (live.outcome === "refused") return { label: "Refused", tone: "refused", proposal, waiting };
  if (live.outcome === "denied") return { label: "Denied", tone: "refused", proposal, waiting };
  return { label: "Done", tone: "done", proposal, waiting };
}

const VERBS: Record<string, string> = {
  "fs.scan": "scan",
  "fs.list": "list",
  "fs.read": "read",
  "fs.hash": "hash",
  "cluster.duplicates": "find duplicates in",
  "propose.move": "plan to move",
  "apply.move": "move",
  "apply.quarantine": "quarantine",
  "apply.patch": "edit",
  "rag.search": "search",
  "orbit.get_context": "tell you where things stand",
};

/** The last part of a path, as a person would name it. */
function base(p: string): string {
  const parts = p.split(/[\\/]/).filter((x) => x.length > 0);
  return parts[parts.length - 1] ?? p;
}

/** Every path an argument object names (path, paths, from, to, files), in order. */
function paths(args: unknown): string[] {
  if (args === null || typeof args !== "object") return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    if (typeof v === "string" && ["path", "from", "to", "file", "dir"].includes(k)) out.push(v);
    else if (Array.isArray(v) && ["paths", "files", "moves"].includes(k)) {
      for (const item of v) {
        if (typeof item === "string") out.push(item);
        else if (item && typeof item === "object" && typeof (item as { from?: unknown }).from === "string") {
          out.push((item as { from: string }).from);
        }
      }
    }
  }
  return out;
}

/** "quarantine old.log", "quarantine 2 files", "scan Downloads", "apply.foo" for the unknown. */
export function proposalWords(tool: string, args: unknown): string {
  const verb = VERBS[tool] ?? tool.split(".").pop()?.replace(/_/g, " ") ?? tool;
  const ps = paths(args);
  if (ps.length === 0) return verb;
  if (ps.length === 1) return `${verb} ${base(ps[0] ?? "")}`;
  return `${verb} ${ps.length} files`;
}

/** A waiting call's time gate in words: "approve in 12 s", or null once it is open. */
export function gateWords(admissibleAtMs: number, nowMs: number): string | null {
  const left = Math.ceil((admissibleAtMs - nowMs) / 1000);
  if (left <= 0) return null;
  if (left < 120) return `approve in ${left} s`;
  return `approve in ${Math.ceil(left / 60)} min`;
}
