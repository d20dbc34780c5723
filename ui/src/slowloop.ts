// The slow loop as the HUD shows it: the pure shaping the panel and the bootstrap card do with
// what `slow_loop_view` returns (the memory view that `smart memory --json` prints, the gate
// controller's latest reads, the gate transitions and the sessions; its types are generated from
// the Rust ones into `bindings.ts`). Nothing here touches the DOM or
// Tauri; the panel's behaviour is tested through these functions.

import type {
  ArtifactEntry,
  BootstrapView,
  Consent,
  DecisionRecord,
  Effect,
  GateSource,
  GateTransition,
  InteractionSignals,
  NorthStar,
  Outcome,
  PerceiveResult,
  Principle,
  Progress,
  ProposalRead,
  SessionSummary,
  SlowLoopView,
  Stage,
  VerdictKind,
  WorkOrder,
} from "./bindings";
import { formatCountdown, stanceLabel } from "./status";

// --- the bootstrap card -----------------------------------------------------------------------

// Keyed by every stage the kernel has: a new stage fails the type check until it has a label.
const STAGE_LABELS: Record<Stage, string> = {
  ladder: "Where you stand",
  anchor: "What holds you steady",
  gap: "One step up",
  microstep: "One small thing",
  permission: "How to go on",
  listening: "Listening",
  confirm_intent: "Your request",
  check_in: "Check-in",
  done: "Done",
};

export function stageLabel(stage: Stage): string {
  return STAGE_LABELS[stage];
}

/** The four first-contact questions, for "question n of 4". */
const LADDER_STAGES: readonly Stage[] = ["ladder", "anchor", "gap", "microstep"];

export interface BootstrapCard {
  stage: Stage;
  label: string;
  /** "Question 2 of 4" during the first four stages, else null. */
  step: string | null;
  prompt: string;
  proposeOnly: boolean;
  /** The permission question: the three consent buttons replace free text as the easy answer. */
  askConsent: boolean;
  welcomeBack: boolean;
}

/** The card while bootstrap is under way; null when there is nothing to ask (none, or done). */
export function bootstrapCard(b: BootstrapView | null | undefined): BootstrapCard | null {
  if (!b || b.stage === "done") return null;
  const i = LADDER_STAGES.indexOf(b.stage);
  return {
    stage: b.stage,
    label: stageLabel(b.stage),
    step: i >= 0 ? `Question ${i + 1} of ${LADDER_STAGES.length}` : null,
    // Listen-only asks nothing: the person talks, SMART listens.
    prompt: b.prompt ?? "I'm listening. Say whatever is on your mind, or skip the introduction.",
    proposeOnly: b.propose_only,
    askConsent: b.stage === "permission",
    welcomeBack: (b.prompt ?? "").startsWith("Welcome back"),
  };
}

/** The permission question's three answers, in the order the card shows them. */
export const CONSENTS: ReadonlyArray<{ consent: Consent; label: string; hint: string }> = [
  { consent: "listen_only", label: "Keep listening", hint: "SMART only listens for now" },
  { consent: "propose_structure", label: "Offer ideas", hint: "SMART may suggest structure; you decide" },
  { consent: "ready_for_commitment", label: "I'm ready", hint: "Ready to commit to a piece of work" },
];

/** The returning person's check-in is offered only when bootstrap has never run. */
export function offerCheckIn(view: SlowLoopView | null): boolean {
  return view !== null && view.existing_user && view.memory.bootstrap === null;
}

/** Answers the card sends: trimmed, non-empty, within the kernel's bound. */
export const MAX_ANSWER_CHARS = 500;
export function answerProblem(text: string): string | null {
  const t = text.trim();
  if (t === "") return "Type an answer first";
  if ([...t].length > MAX_ANSWER_CHARS) return `An answer is at most ${MAX_ANSWER_CHARS} characters`;
  return null;
}

// --- proposals and verdicts -------------------------------------------------------------------

const SOURCE_LABELS: Record<GateSource, string> = {
  user_signal: "you",
  decay_manager: "the lease clock",
  perception: "perception",
  continuous_eval: "the evaluator",
  task_agent: "a work order",
};

export function sourceLabel(source: GateSource): string {
  return SOURCE_LABELS[source];
}

export interface VerdictRow {
  key: string;
  verdict: string;
  /** Referred proposals are suggestions the controller leaves to the person. */
  forYou: boolean;
  gate: string;
  severity: string;
  source: string;
  /** Why it was proposed. */
  proposal: string;
  /** Why the controller decided so. */
  why: string;
  /** What an accepted proposal did, in words. */
  effect: string | null;
  at_ms: number;
}

function effectText(effect: Effect | null | undefined): string | null {
  if (effect === undefined || effect === null) return null;
  if (effect === "bootstrap_reentry") return "bootstrap reentry";
  return `gate: ${effect.gate.replace(/_/g, " ")}`;
}

/** Every verdict of the latest reads, newest read first, in the order the controller gave them. */
export function verdictRows(reads: readonly ProposalRead[]): VerdictRow[] {
  return reads.flatMap((r) =>
    r.verdicts.map((v, i) => ({
      key: `${r.seq}:${i}`,
      verdict: v.verdict,
      forYou: v.verdict === "referred",
      gate: v.proposal.action ? v.proposal.action.replace(/_/g, " ") : v.proposal.suggested_gate,
      severity: v.proposal.severity,
      source: sourceLabel(v.proposal.source),
      proposal: v.proposal.reason,
      why: v.reason,
      effect: effectText(v.effect),
      at_ms: r.at_ms,
    })),
  );
}

/** Suggestions waiting on the person: the referred verdicts. */
export function referred(rows: readonly VerdictRow[]): VerdictRow[] {
  return rows.filter((r) => r.forYou);
}

export const GATES = ["evaluation", "framing", "commitment"] as const;
export const SEVERITIES = ["low", "medium", "high", "emergency"] as const;
export const MAX_REASON_CHARS = 500;

/** What is wrong with a proposal the form would send, or null when it may go. */
export function proposalProblem(gate: string, severity: string, reason: string): string | null {
  if (!(GATES as readonly string[]).includes(gate)) return `Choose a gate (${GATES.join(", ")})`;
  if (!(SEVERITIES as readonly string[]).includes(severity)) return `Choose a severity (${SEVERITIES.join(", ")})`;
  const r = reason.trim();
  if (r === "") return "Say why";
  if ([...r].length > MAX_REASON_CHARS) return `A reason is at most ${MAX_REASON_CHARS} characters`;
  return null;
}

/** What the person is told after proposing. */
export function proposedText(r: {
  outcome: Pick<Outcome, "outcome" | "reason">;
  verdict: VerdictKind | null;
  reason: string | null;
}): string {
  if (r.outcome.outcome === "refused") return `Not taken: ${r.outcome.reason ?? "refused"}`;
  if (r.verdict === null) return "Proposed; the gate controller reads it at the next pass";
  return `${r.verdict[0]?.toUpperCase() ?? ""}${r.verdict.slice(1)}: ${r.reason ?? ""}`;
}

// --- slow memory ------------------------------------------------------------------------------

export interface DecisionRow {
  id: number;
  text: string;
  kind: string;
  gate: string;
  confidence: string;
  rationale: string[];
  superseded: boolean;
  /** "superseded by 3" / "supersedes 1", or "". */
  note: string;
}

/** The decision log, newest first; superseded decisions only when asked for (shown greyed). */
export function decisionRows(decisions: readonly DecisionRecord[], withSuperseded: boolean): DecisionRow[] {
  return decisions
    .filter((d) => withSuperseded || d.superseded_by === undefined || d.superseded_by === null)
    .map((d) => ({
      id: d.id,
      text: d.decision,
      kind: d.kind,
      gate: d.gate,
      confidence: d.confidence,
      rationale: d.rationale.filter((r) => r !== d.decision),
      superseded: d.superseded_by !== undefined && d.superseded_by !== null,
      note:
        d.superseded_by !== undefined && d.superseded_by !== null
          ? `superseded by ${d.superseded_by}`
          : d.supersedes !== undefined && d.supersedes !== null
            ? `supersedes ${d.supersedes}`
            : "",
    }))
    .reverse();
}

export function supersededCount(decisions: readonly DecisionRecord[]): number {
  return decisions.filter((d) => d.superseded_by !== undefined && d.superseded_by !== null).length;
}

export interface NamedRow {
  name: string;
  text: string;
  /** The principle's kind, or the North Star's version. */
  tag: string;
}

export function principleRows(principles: Record<string, Principle> | undefined): NamedRow[] {
  return Object.entries(principles ?? {}).map(([name, p]) => ({ name, text: p.text, tag: p.kind.replace(/_/g, " ") }));
}

export function northStarRows(stars: Record<string, NorthStar> | undefined): NamedRow[] {
  return Object.entries(stars ?? {}).map(([name, s]) => ({ name, text: s.text, tag: `v${s.version}` }));
}

// --- fast memory and the bridge ---------------------------------------------------------------

export interface ProgressDisplay {
  stage: string;
  next: string[];
  blockers: string[];
  wins: string[];
  stale: boolean;
  /** "stale since …" or "reconsider in …". */
  clock: string;
}

const minutes = (ms: number): string => {
  const m = Math.max(0, Math.round(ms / 60_000));
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h` : `${Math.floor(h / 24)} d`;
};

/** Progress on the kernel's clock: stale when the kernel says so or its clock has run out. */
export function progressDisplay(p: Progress | null | undefined, nowMs: number): ProgressDisplay | null {
  if (!p) return null;
  const stale = p.stale || nowMs >= p.stale_at;
  return {
    stage: p.current_stage,
    next: p.next_actions,
    blockers: p.blockers,
    wins: p.recent_wins,
    stale,
    clock: stale ? `stale for ${minutes(nowMs - p.stale_at)}` : `reconsider in ${minutes(p.stale_at - nowMs)}`,
  };
}

const SIGNAL_KINDS: ReadonlyArray<[keyof InteractionSignals, string]> = [
  ["user_preferences", "prefers"],
  ["friction_signals", "friction"],
  ["effective_patterns", "works well"],
  ["avoidances", "avoid"],
];

export function signalRows(s: InteractionSignals | undefined): Array<{ kind: string; text: string }> {
  if (!s) return [];
  return SIGNAL_KINDS.flatMap(([k, label]) => (s[k] ?? []).map((text) => ({ kind: label, text })));
}

export interface ArtifactRow {
  name: string;
  pointer: string;
  type: string;
  status: string;
  version: number;
  freshness: string;
  /** Not current: stale or needing review. */
  attention: boolean;
}

/** The artifact index: what needs attention first, then by name. */
export function artifactRows(artifacts: readonly ArtifactEntry[]): ArtifactRow[] {
  return artifacts
    .map((a) => ({
      name: a.name,
      pointer: a.pointer,
      type: a.type,
      status: a.status,
      version: a.version,
      freshness: a.freshness.replace(/_/g, " "),
      attention: a.freshness !== "current",
    }))
    .sort((a, b) => Number(b.attention) - Number(a.attention) || a.name.localeCompare(b.name));
}

export function workOrderRows(orders: readonly WorkOrder[]): Array<{ id: string; shortId: string; brief: string; tools: string }> {
  return orders.map((w) => ({ id: w.id, shortId: w.id.slice(0, 8), brief: w.brief, tools: w.tools.join(", ") }));
}

// --- perception and refreshing ----------------------------------------------------------------

/** The perception card's text: the summary (and the correction), or the error. */
export function perceiveLines(r: PerceiveResult): { ok: boolean; lines: string[] } {
  if (r.error !== null) return { ok: false, lines: [r.error] };
  const lines = [r.summary ?? "No report."];
  if (r.correction) lines.push(`Suggested correction: ${r.correction}`);
  lines.push(r.findings.length > 0 ? `Proposed: ${r.findings.join(", ")}` : "Nothing to propose.");
  if (r.took_ms !== null) lines.push(`took ${(r.took_ms / 1000).toFixed(1)} s`);
  return { ok: true, lines };
}

/**
 * When the panel should read the slow loop again: whenever the ledger grew or the stance moved
 * (the status poll carries both), so a steady HUD does not re-read it every second.
 */
export function refreshKey(status: { stance: string; events?: number } | null): string | null {
  return status === null ? null : `${status.stance}:${status.events ?? "?"}`;
}

// --- history (audit only: computed from the ledger) -------------------------------------------

export interface SessionRow {
  key: number;
  /** When it started, in the person's locale. */
  when: string;
  /** How long it lasted: "20m 00s", or "a moment" for a single instant. */
  length: string;
  /** What was done: "1 committed · 1 refused · 2 gate transitions". */
  did: string;
  /** Still going: the ledger has not been quiet long enough since. */
  current: boolean;
  events: string;
}

function counted(n: number, one: string, many: string = one): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The sessions list. `when` formats a start time; the default is the person's locale. */
export function sessionRows(
  sessions: readonly SessionSummary[] | undefined,
  nowMs: number,
  gapMs: number,
  when: (ms: number) => string = (ms) => new Date(ms).toLocaleString(),
): SessionRow[] {
  return (sessions ?? []).map((s, i) => {
    const did = [counted(s.committed, "committed"), counted(s.refused, "refused")];
    const extra: Array<[number, string, string]> = [
      [s.asked, "asked for approval", "asked for approval"],
      [s.approved, "approved", "approved"],
      [s.denied, "denied", "denied"],
      [s.undone, "undone", "undone"],
      [s.failed, "failed", "failed"],
      [s.gates, "gate transition", "gate transitions"],
      [s.emergencies, "emergency stop", "emergency stops"],
    ];
    for (const [n, one, many] of extra) if (n > 0) did.push(counted(n, one, many));
    const span = s.end_ms - s.start_ms;
    return {
      key: s.first_seq,
      when: when(s.start_ms),
      length: span > 0 ? formatCountdown(span) : "a moment",
      did: did.join(" · "),
      current: i === 0 && nowMs - s.end_ms <= gapMs,
      events: s.first_seq === s.last_seq ? `event ${s.first_seq}` : `events ${s.first_seq}–${s.last_seq}`,
    };
  });
}

/** Gate transitions in words: "Sensemaking → Framing (commit), 1 memory write". */
export function gateRows(gates: readonly GateTransition[] | undefined): Array<{ key: number; text: string }> {
  return (gates ?? []).map((g) => ({
    key: g.seq,
    text: `${stanceLabel(g.from)} → ${stanceLabel(g.to)} (${g.act.replaceAll("_", " ")})${g.writes > 0 ? `, ${counted(g.writes, "memory write", "memory writes")}` : ""}`,
  }));
}
