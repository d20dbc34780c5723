// The HUD's live line: the runtime's bus events (bindings: HudEvent) folded into what the
// person sees while an utterance is handled — state, what was heard, the proposal being
// considered, what the kernel made of it.

import type { CallOutcome, HudEvent } from "./bindings";

export interface Live {
  corr: string | null;
  /** The request's id, from its utterance on: what the timeline's Request filter finds it by.
   * Later events of other requests (the microphone's level under the next id) do not move it. */
  request: string | null;
  state: string;
  heard: string | null;
  proposal: { tool: string; source: string; args: unknown } | null;
  outcome: CallOutcome | null;
  reply: string | null;
  /** What SMART said aloud when the spoken turn ended ("Done.", "That needs your approval."). */
  spoken: string | null;
  worker: string | null;
  fault: string | null;
  /** The microphone's loudness (dBFS) while capturing; null when nothing is captured. */
  level: number | null;
  /** Talking right now (between speech start, or the key press, and its end). */
  speaking: boolean;
  /** A wake phrase or emergency word just heard. */
  voiceNote: string | null;
  /** An emergency word stopped everything in this turn. */
  stopped: boolean;
}

export const IDLE: Live = {
  corr: null,
  request: null,
  state: "idle",
  heard: null,
  proposal: null,
  outcome: null,
  reply: null,
  spoken: null,
  worker: null,
  fault: null,
  level: null,
  speaking: false,
  voiceNote: null,
  stopped: false,
};

/** "AWAITING_CONFIRM", "awaiting_confirm" → "awaitingconfirm": the runtime's state names, spelt
 *  either way, compared as one. */
export const stateKey = (s: string): string => s.replace(/_/g, "").toLowerCase();

export function fold(live: Live, ev: HudEvent): Live {
  // A new interaction clears the previous one's details.
  // So does starting to listen: a spoken turn begins at the key press or the wake word, before
  // anything is heard, and the last turn's outcome ("pending") is not this one's.
  const listens = ev.event === "state_changed" && stateKey(live.state) === "idle" && stateKey(ev.state ?? "") === "listening";
  const base =
    (ev.event === "utterance" && ev.corr !== live.corr) || listens
      ? { ...IDLE, state: live.state, worker: live.worker, level: live.level, speaking: live.speaking }
      : live;
  const next: Live = { ...base, corr: ev.corr };
  switch (ev.event) {
    case "state_changed":
      next.state = ev.state ?? next.state;
      break;
    case "utterance":
      next.heard = ev.text;
      next.request = ev.corr;
      break;
    case "proposal":
      next.proposal = { tool: ev.tool ?? "?", source: ev.source ?? "?", args: ev.args };
      next.outcome = null;
      break;
    case "outcome":
      next.outcome = ev.outcome;
      break;
    case "reply":
      next.reply = ev.text;
      break;
    case "spoken":
      next.spoken = ev.text;
      break;
    case "worker_starting":
      next.worker = "loading the model…";
      break;
    case "worker_ready":
      next.worker = ev.model;
      break;
    case "preparing":
      next.worker = "getting ready…";
      break;
    case "prepared":
      next.worker = "ready";
      break;
    case "worker_fault":
      next.fault = ev.reason;
      break;
    case "level":
      next.level = ev.level;
      break;
    case "speech_start":
      next.speaking = true;
      break;
    case "speech_end":
      next.speaking = false;
      break;
    case "heard":
    case "partial":
      next.heard = ev.text;
      break;
    case "wake":
      next.voiceNote = `wake word “${ev.text ?? ""}”`;
      break;
    case "wake_rejected":
      next.voiceNote = `not for me (no wake word): “${ev.text ?? ""}”`;
      break;
    case "emergency":
      next.voiceNote = `emergency word “${ev.text ?? ""}”: everything stopped`;
      next.stopped = true;
      break;
    default:
      break;
  }
  return next;
}

/** The level meter's fill, 0–100, from dBFS: −60 dB and below is empty, 0 dB full. */
export function levelPercent(dbfs: number | null): number {
  if (dbfs === null || !Number.isFinite(dbfs)) return 0;
  return Math.round(Math.min(100, Math.max(0, ((dbfs + 60) / 60) * 100)));
}

/** "Awaiting confirm" for "awaiting_confirm" or "AWAITING_CONFIRM" (the runtime's spelling). */
export function stateLabel(state: string): string {
  const s = state.replace(/_/g, " ").toLowerCase();
  return s.charAt(0).toUpperCase() + s.slice(1);
}
