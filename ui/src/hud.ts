// The HUD's live line: the runtime's bus events (bindings: HudEvent) folded into what the
// person sees while an utterance is handled — state, what was heard, the proposal being
// considered, what the kernel made of it.

import type { HudEvent } from "./bindings";

export interface Live {
  corr: string | null;
  state: string;
  heard: string | null;
  proposal: { tool: string; source: string; args: unknown } | null;
  outcome: string | null;
  reply: string | null;
  worker: string | null;
  fault: string | null;
}

export const IDLE: Live = {
  corr: null,
  state: "idle",
  heard: null,
  proposal: null,
  outcome: null,
  reply: null,
  worker: null,
  fault: null,
};

export function fold(live: Live, ev: HudEvent): Live {
  // A new interaction clears the previous one's details.
  const base = ev.event === "utterance" && ev.corr !== live.corr ? { ...IDLE, state: live.state, worker: live.worker } : live;
  const next: Live = { ...base, corr: ev.corr };
  switch (ev.event) {
    case "state_changed":
      next.state = ev.state ?? next.state;
      break;
    case "utterance":
      next.heard = ev.text;
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
    case "worker_starting":
      next.worker = "loading the model…";
      break;
    case "worker_ready":
      next.worker = ev.model;
      break;
    case "worker_fault":
      next.fault = ev.reason;
      break;
    default:
      break;
  }
  return next;
}

/** "Awaiting confirm" for "awaiting_confirm" or "AWAITING_CONFIRM" (the runtime's spelling). */
export function stateLabel(state: string): string {
  const s = state.replace(/_/g, " ").toLowerCase();
  return s.charAt(0).toUpperCase() + s.slice(1);
}
