// The status view (the object `smart status --json` prints and the app's `get_status` returns)
// and the pure formatting the HUD shows. Nothing here touches the DOM or Tauri.

// The view's types are generated from the Rust ones (`smart_kernel::status`, `Engine::status`).
import type { GateView, Horizon, LeaseView, PendingSummary, Stance, Status, Usage } from "./bindings";

export type { Horizon, Stance };
export type StatusView = Status;
export type Lease = LeaseView;
export type Gate = GateView;
export type Budget = Usage;
export type PendingCall = PendingSummary;

export const LAYERS = [0, 1, 2, 3, 4] as const;

/** The stance grid: rows are the mode, columns the phase within it. */
export const STANCE_GRID: ReadonlyArray<{ mode: string; stances: readonly [Stance, Stance] }> = [
  { mode: "Exploration", stances: ["sensemaking", "discovery"] },
  { mode: "Exploitation", stances: ["evaluation", "execution"] },
];

const has = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

const STANCE_LABELS: Record<Stance, string> = {
  sensemaking: "Sensemaking",
  discovery: "Discovery",
  evaluation: "Evaluation",
  execution: "Execution",
};

export function stanceLabel(stance: string): string {
  return has(STANCE_LABELS, stance) ? STANCE_LABELS[stance as Stance] : `Unknown (${stance})`;
}

const HORIZON_LABELS: Record<Horizon, string> = {
  short: "Short horizon",
  mid: "Mid horizon",
  long: "Long horizon",
};

export function horizonLabel(horizon: string): string {
  return has(HORIZON_LABELS, horizon) ? HORIZON_LABELS[horizon as Horizon] : horizon;
}

const pad2 = (n: number): string => String(n).padStart(2, "0");

/**
 * A countdown: "45s", "12m 04s", "1h 02m 03s". Partial seconds round up, so a countdown shows
 * "0s" only once the time has really run out; negative or non-finite input reads "0s".
 */
export function formatCountdown(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return "0s";
  const total = Math.ceil(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${pad2(m)}m ${pad2(s)}s`;
  if (m > 0) return `${m}m ${pad2(s)}s`;
  return `${s}s`;
}

export interface LeaseDisplay {
  active: boolean;
  frame: string;
  horizon: string;
  state: string;
  countdown: string;
}

/** The lease panel. Times come from the status view's own clock (`now_ms`), not the UI's. */
export function formatLease(lease: Lease | null, nowMs: number): LeaseDisplay {
  if (lease === null) {
    return { active: false, frame: "", horizon: "", state: "none", countdown: "no active lease" };
  }
  // A drafted lease has no expiry until the commitment gate activates it.
  const left = lease.expires_at_ms === null ? null : lease.expires_at_ms - nowMs;
  const expired = lease.state === "expired" || (left !== null && left <= 0);
  return {
    active: !expired && lease.state === "active",
    frame: lease.frame,
    horizon: horizonLabel(lease.horizon),
    state: expired ? "expired" : lease.state,
    countdown: expired ? "expired" : left === null ? "not committed yet" : `expires in ${formatCountdown(left)}`,
  };
}

export function layerLabel(layer: number): string {
  return Number.isInteger(layer) && layer >= 0 && layer <= 4 ? `L${layer}` : "L?";
}

export const frontierLabel = layerLabel;

export interface LayerRow {
  label: string;
  /** Layer at or below the lease's frontier. */
  committed: boolean;
  /** "—" for L0 (no gate), "open" once the gate has elapsed, else the time left. */
  gate: string;
  gateOpen: boolean;
}

/** One row per layer L0..L4, with each layer's gate (gates for missing layers read "—"). */
export function layerRows(frontier: number, gates: readonly Gate[]): LayerRow[] {
  return LAYERS.map((layer) => {
    const gate = gates.find((g) => g.layer === layer);
    const open = gate !== undefined && gate.remaining_ms <= 0;
    return {
      label: layerLabel(layer),
      committed: layer <= frontier,
      gate: gate === undefined ? "—" : open ? "open" : formatCountdown(gate.remaining_ms),
      gateOpen: open,
    };
  });
}

export function formatBudget(budget: Budget): string {
  return `${budget.used}/${budget.limit}`;
}

/** Share of the budget used, clamped to 0..1 (a zero limit counts as full once anything is used). */
export function budgetFraction(budget: Budget): number {
  if (!(budget.limit > 0)) return budget.used > 0 ? 1 : 0;
  return Math.min(1, Math.max(0, budget.used / budget.limit));
}

export interface PendingDisplay {
  id: string;
  shortId: string;
  tool: string;
  layer: string;
  tier: string;
  expiresIn: string;
}

export function formatPending(call: PendingCall, nowMs: number): PendingDisplay {
  const left = call.expires_at_ms - nowMs;
  return {
    id: call.id,
    shortId: call.id.slice(0, 8),
    tool: call.tool,
    layer: layerLabel(call.layer),
    tier: `T${call.tier}`,
    expiresIn: left > 0 ? formatCountdown(left) : "expired",
  };
}

/** The text of whatever `invoke` rejected with (Tauri passes a command's `Err(String)` as is). */
export function errorText(err: unknown): string {
  if (typeof err === "string") return err;
  if (err instanceof Error) return err.message;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

/** Splits text on `backtick` spans so the banner can show commands as code. */
export function splitCode(text: string): Array<{ code: boolean; text: string }> {
  const parts = text.split("`");
  // An odd number of backticks leaves the last one unmatched: keep it as plain text.
  if (parts.length % 2 === 0) {
    const last = parts.pop() ?? "";
    const before = parts.pop() ?? "";
    parts.push(`${before}\`${last}`);
  }
  return parts
    .map((part, i) => ({ code: i % 2 === 1, text: part }))
    .filter((p) => p.text !== "");
}
