// The overlay's words: a spoken turn at a glance (src-tauri/src/overlay.rs shows the window).
// The same live line as the HUD (hud.ts `fold`), said the way a person glancing at the edge of
// the screen needs it: what SMART is doing, what it heard, what it means to do, how it ended.

import { stateKey as key, type Live } from "./hud";

export interface OverlayView {
  /** Listening, Hearing, Thinking, Waiting for you, Doing it, Done, Stopped, Refused, Denied. */
  label: string;
  /** For styling: active, waiting, done, refused. */
  tone: "active" | "waiting" | "done" | "refused";
  /** The proposal in words ("quarantine old.log"), when there is one. */
  proposal: string | null;
  /** A call waits for the person's decision in the HUD. */
  waiting: boolean;
  /** The turn is over: the overlay fades out before the window is hidden. */
  ended: boolean;
}


/** What the turn is doing, from the interaction state and the kernel's outcome. */
export function overlayView(live: Live): OverlayView {
  const proposal = live.proposal ? proposalWords(live.proposal.tool, live.proposal.args) : null;
  const ended = key(live.state) === "idle";
  const waiting = key(live.state) === "awaitingconfirm" || live.outcome === "pending";
  const view = (label: string, tone: OverlayView["tone"]): OverlayView => ({ label, tone, proposal, waiting, ended });
  if (waiting) return view("Waiting for you", "waiting");
  switch (key(live.state)) {
    case "listening":
      return view("Listening", "active");
    case "transcribing":
      return view("Hearing", "active");
    case "reasoning":
    case "planning":
    case "riskclassifying":
      return view("Thinking", "active");
    case "executing":
      return view("Doing it", "active");
    default:
      break;
  }
  if (live.stopped) return view("Stopped", "refused");
  if (live.outcome === "refused") return view("Refused", "refused");
  if (live.outcome === "denied") return view("Denied", "refused");
  return view("Done", "done");
}

// Every registry tool in a person's words (a Rust test in src-tauri/src/overlay.rs holds this
// table to the registry): a draft must never read as the act ("draft a quarantine list of", not
// "quarantine"), and a tool's registry name is no sentence ("rebuild.index").
const VERBS: Record<string, string> = {
  "fs.scan": "scan",
  "fs.hash": "hash",
  "fs.read": "read",
  "rag.search": "search the documents",
  "orbit.get_context": "tell you where things stand",
  "cluster.duplicates": "find duplicates in",
  "infer.superseded_docs": "find outdated versions in",
  "rag.assemble_context": "bundle",
  "rag.validate_applicability": "check the index is current for",
  "propose.patch": "draft an edit to",
  "propose.move": "plan to move",
  "propose.redirects": "record the new place of",
  "propose.quarantine": "draft a quarantine list of",
  "apply.patch": "apply the edit",
  "apply.move": "carry out the move plan",
  "db.upsert": "remember a note",
  "fs.quarantine": "quarantine",
  "fs.compact": "compress",
  "rebuild.index": "rebuild the search index",
  "quarantine.purge": "permanently purge the quarantine",
  undo: "undo",
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
