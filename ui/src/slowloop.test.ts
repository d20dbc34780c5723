import { describe, expect, it } from "vitest";
import {
  CONSENTS,
  answerProblem,
  artifactRows,
  bootstrapCard,
  decisionRows,
  gateRows,
  northStarRows,
  offerCheckIn,
  perceiveLines,
  principleRows,
  progressDisplay,
  proposalProblem,
  proposedText,
  referred,
  refreshKey,
  sessionRows,
  signalRows,
  sourceLabel,
  stageLabel,
  supersededCount,
  verdictRows,
  workOrderRows,
} from "./slowloop";
import type { ArtifactEntry, BootstrapView, DecisionRecord, Freshness, ProposalRead, SessionSummary, SlowLoopView } from "./bindings";
import { SNAPSHOT } from "./test_fixtures";

const NOW = 1_800_000_000_000;


const boot = (over: Partial<BootstrapView> = {}): BootstrapView => ({
  stage: "ladder",
  prompt: "Imagine a ladder…",
  propose_only: true,
  snapshot: SNAPSHOT,
  sessions: 1,
  abbreviated: false,
  reentered: false,
  ...over,
});

const view = (over: Partial<SlowLoopView> = {}, bootstrap: BootstrapView | null = null): SlowLoopView => ({
  now_ms: NOW,
  existing_user: true,
  memory: {
    stance: "execution",
    slow: { lease: null, decisions: [], principles: {}, north_stars: {} },
    fast: { progress: null, signals: {} },
    bridge: { artifacts: [] },
    proposals_waiting: [],
    work_orders: [],
    bootstrap,
  },
  reads: [],
  gates: [],
  sessions: [],
  session_gap_ms: 1_800_000,
  ...over,
});

const decision = (id: number, over: Partial<DecisionRecord> = {}): DecisionRecord => ({
  id,
  kind: "binding",
  decision: `decision ${id}`,
  rationale: [`decision ${id}`],
  confidence: "med",
  gate: "commitment",
  at: NOW,
  ...over,
});

describe("the bootstrap card", () => {
  it("numbers the four first-contact questions and says propose-only", () => {
    const c = bootstrapCard(boot({ stage: "gap", prompt: "If you moved up one step…" }));
    expect(c).toMatchObject({ stage: "gap", label: "One step up", step: "Question 3 of 4", proposeOnly: true, askConsent: false });
    expect(c?.prompt).toBe("If you moved up one step…");
  });

  it("offers the three consent answers at the permission question", () => {
    const c = bootstrapCard(boot({ stage: "permission", prompt: "Keep listening, or…?" }));
    expect(c?.askConsent).toBe(true);
    expect(c?.step).toBeNull();
    expect(CONSENTS.map((x) => x.label)).toEqual(["Keep listening", "Offer ideas", "I'm ready"]);
    expect(CONSENTS.map((x) => x.consent)).toEqual(["listen_only", "propose_structure", "ready_for_commitment"]);
  });

  it("is gone when bootstrap is done or never ran", () => {
    expect(bootstrapCard(null)).toBeNull();
    expect(bootstrapCard(undefined)).toBeNull();
    expect(bootstrapCard(boot({ stage: "done", prompt: null }))).toBeNull();
  });

  it("says it listens when listen-only asks nothing, and notices a welcome back", () => {
    expect(bootstrapCard(boot({ stage: "listening", prompt: null }))?.prompt).toContain("I'm listening");
    expect(bootstrapCard(boot({ stage: "anchor", prompt: "Welcome back. What's…" }))?.welcomeBack).toBe(true);
    expect(bootstrapCard(boot({ stage: "check_in", propose_only: false }))?.proposeOnly).toBe(false);
  });

  it("labels every stage", () => {
    expect(stageLabel("confirm_intent")).toBe("Your request");
    expect(stageLabel("check_in")).toBe("Check-in");
  });

  it("refuses empty and overlong answers before they are sent", () => {
    expect(answerProblem("   ")).toBe("Type an answer first");
    expect(answerProblem("about a 6")).toBeNull();
    expect(answerProblem("x".repeat(501))).toContain("500");
  });

  it("offers the check-in only to a returning person whose bootstrap never ran", () => {
    expect(offerCheckIn(view())).toBe(true);
    expect(offerCheckIn(view({ existing_user: false }))).toBe(false);
    expect(offerCheckIn(view({}, boot({ stage: "done" })))).toBe(false);
    expect(offerCheckIn(null)).toBe(false);
  });
});

describe("verdicts", () => {
  const reads: ProposalRead[] = [
    {
      seq: 20,
      at_ms: NOW,
      trigger: "request",
      verdicts: [
        {
          proposal: { reason: "frame too wide", severity: "low", suggested_gate: "evaluation", source: "user_signal", at: NOW, origin: "person" },
          verdict: "accepted",
          effect: { gate: "evaluate" },
          reason: "execution pauses for the evaluation gate",
        },
        {
          proposal: { reason: "commit to a plan", severity: "medium", suggested_gate: "commitment", source: "perception", at: NOW },
          verdict: "referred",
          reason: "committing activates a lease, which only the person can do",
        },
      ],
    },
    {
      seq: 9,
      at_ms: NOW - 1000,
      trigger: "gateway_pass",
      verdicts: [
        {
          proposal: { reason: "listen again", severity: "high", suggested_gate: "evaluation", source: "perception", at: NOW, action: "bootstrap_reentry" },
          verdict: "rejected",
          reason: "bootstrap is already listening",
        },
      ],
    },
  ];

  it("flattens the reads newest first with both reasons and the effect", () => {
    const rows = verdictRows(reads);
    expect(rows.map((r) => r.verdict)).toEqual(["accepted", "referred", "rejected"]);
    expect(rows[0]).toMatchObject({ source: "you", proposal: "frame too wide", why: "execution pauses for the evaluation gate", effect: "gate: evaluate" });
    expect(rows[2]).toMatchObject({ gate: "bootstrap reentry", effect: null });
    expect(new Set(rows.map((r) => r.key)).size).toBe(3);
  });

  it("keeps referred proposals as suggestions for the person", () => {
    const mine = referred(verdictRows(reads));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ forYou: true, gate: "commitment", source: "perception" });
  });

  it("names every source", () => {
    expect(sourceLabel("decay_manager")).toBe("the lease clock");
    expect(sourceLabel("task_agent")).toBe("a work order");
    expect(sourceLabel("continuous_eval")).toBe("the evaluator");
  });

  it("checks a proposal before it goes and words the answer", () => {
    expect(proposalProblem("evaluation", "medium", "too wide")).toBeNull();
    expect(proposalProblem("lunch", "medium", "x")).toContain("Choose a gate");
    expect(proposalProblem("framing", "urgent", "x")).toContain("Choose a severity");
    expect(proposalProblem("framing", "low", "  ")).toBe("Say why");
    expect(proposalProblem("framing", "low", "y".repeat(501))).toContain("500");
    const base = { outcome: { outcome: "recorded" as const, reason: null } };
    expect(proposedText({ ...base, verdict: "rejected", reason: "already committed" })).toBe("Rejected: already committed");
    expect(proposedText({ ...base, verdict: null, reason: null })).toContain("next pass");
    expect(proposedText({ outcome: { outcome: "refused", reason: "the buffer is full" }, verdict: null, reason: null })).toBe(
      "Not taken: the buffer is full",
    );
  });
});

describe("slow memory", () => {
  const log = [decision(1, { superseded_by: 2 }), decision(2, { kind: "supersession", gate: "evaluate", supersedes: 1, rationale: ["cheaper"] }), decision(3)];

  it("lists current decisions newest first and hides superseded ones unless asked", () => {
    expect(decisionRows(log, false).map((d) => d.id)).toEqual([3, 2]);
    const all = decisionRows(log, true);
    expect(all.map((d) => [d.id, d.superseded, d.note])).toEqual([
      [3, false, ""],
      [2, false, "supersedes 1"],
      [1, true, "superseded by 2"],
    ]);
    expect(supersededCount(log)).toBe(1);
  });

  it("drops a rationale that only repeats the decision", () => {
    const [three, two] = decisionRows(log, false);
    expect(three?.rationale).toEqual([]);
    expect(two?.rationale).toEqual(["cheaper"]);
    expect(two).toMatchObject({ text: "decision 2", kind: "supersession", gate: "evaluate" });
  });

  it("names principles by kind and North Stars by version", () => {
    expect(principleRows({ focus: { kind: "non_negotiable", text: "no deletes", set_at: 1 } })).toEqual([
      { name: "focus", text: "no deletes", tag: "non negotiable" },
    ]);
    expect(northStarRows({ calm: { text: "a calm inbox", version: 2, ratified_at: 1 } })).toEqual([{ name: "calm", text: "a calm inbox", tag: "v2" }]);
    expect(principleRows(undefined)).toEqual([]);
  });
});

describe("fast memory and the bridge", () => {
  const progress = {
    current_stage: "scanning",
    next_actions: ["scan docs"],
    blockers: ["waiting on backup"],
    recent_wins: [],
    staleness_ms: 7_200_000,
    updated_at: NOW - 3_600_000,
    stale_at: NOW + 3_600_000,
    stale: false,
  };

  it("shows progress with its staleness clock, on the kernel's time", () => {
    expect(progressDisplay(progress, NOW)).toMatchObject({ stage: "scanning", stale: false, clock: "reconsider in 1 h", blockers: ["waiting on backup"] });
    expect(progressDisplay(progress, NOW + 3_600_000 + 5 * 60_000)).toMatchObject({ stale: true, clock: "stale for 5 min" });
    expect(progressDisplay({ ...progress, stale: true }, NOW)?.stale).toBe(true);
    expect(progressDisplay({ ...progress, stale_at: NOW - 3 * 86_400_000 }, NOW)?.clock).toBe("stale for 3 d");
    expect(progressDisplay(null, NOW)).toBeNull();
  });

  it("lists interaction signals by kind", () => {
    expect(signalRows({ user_preferences: ["short answers"], avoidances: ["jargon"] })).toEqual([
      { kind: "prefers", text: "short answers" },
      { kind: "avoid", text: "jargon" },
    ]);
    expect(signalRows(undefined)).toEqual([]);
  });

  it("puts artifacts that need attention first", () => {
    const a = (name: string, freshness: Freshness): ArtifactEntry => ({ name, type: "doc", pointer: `docs/${name}`, status: "draft", version: 1, owner: "person", updated_at: NOW, freshness });
    const rows = artifactRows([a("b", "current"), a("a", "current"), a("c", "review_needed")]);
    expect(rows.map((r) => [r.name, r.freshness, r.attention])).toEqual([
      ["c", "review needed", true],
      ["a", "current", false],
      ["b", "current", false],
    ]);
  });

  it("shortens work order ids and lists their tools", () => {
    expect(workOrderRows([{ id: "0123456789abcdef", brief: "scan the docs", lease: "l", epoch: 1, tools: ["fs.scan", "fs.read"], opened_at: NOW }])).toEqual([
      { id: "0123456789abcdef", shortId: "01234567", brief: "scan the docs", tools: "fs.scan, fs.read" },
    ]);
  });
});

describe("perception and refreshing", () => {
  it("shows the summary, the correction and what was proposed", () => {
    const r = perceiveLines({ summary: "The conversation is drifting.", correction: "answer in one line", findings: ["drift"], took_ms: 31_250, error: null });
    expect(r).toEqual({
      ok: true,
      lines: ["The conversation is drifting.", "Suggested correction: answer in one line", "Proposed: drift", "took 31.3 s"],
    });
    expect(perceiveLines({ summary: "Fine.", correction: null, findings: [], took_ms: null, error: null }).lines).toEqual(["Fine.", "Nothing to propose."]);
  });

  it("shows an error in the report's place", () => {
    expect(perceiveLines({ summary: null, correction: null, findings: [], took_ms: null, error: "no conversation yet" })).toEqual({
      ok: false,
      lines: ["no conversation yet"],
    });
  });

  it("re-reads the slow loop when the ledger grows or the stance moves, not on every poll", () => {
    const a = refreshKey({ stance: "execution", events: 14 });
    expect(refreshKey({ stance: "execution", events: 14 })).toBe(a);
    expect(refreshKey({ stance: "execution", events: 15 })).not.toBe(a);
    expect(refreshKey({ stance: "evaluation", events: 14 })).not.toBe(a);
    expect(refreshKey(null)).toBeNull();
  });
});

const session = (first: number, last: number, start: number, end: number, over: Partial<SessionSummary> = {}): SessionSummary => ({
  first_seq: first,
  last_seq: last,
  start_ms: start,
  end_ms: end,
  events: last - first + 1,
  committed: 0,
  refused: 0,
  asked: 0,
  approved: 0,
  denied: 0,
  undone: 0,
  gates: 0,
  emergencies: 0,
  failed: 0,
  ...over,
});

describe("history", () => {
  const GAP = 1_800_000;
  const at = (ms: number): string => `t${ms - NOW}`;

  it("says what each session did, leaving out what did not happen", () => {
    const rows = sessionRows(
      [
        session(40, 61, NOW - 1_200_000, NOW - 60_000, { committed: 3, refused: 1, asked: 1, approved: 1, gates: 2 }),
        session(1, 39, NOW - 86_400_000, NOW - 86_400_000 + 2_700_000, { committed: 1, undone: 1, gates: 1, emergencies: 1 }),
      ],
      NOW,
      GAP,
      at,
    );
    expect(rows.map((r) => [r.key, r.when, r.length, r.events])).toEqual([
      [40, "t-1200000", "19m 00s", "events 40–61"],
      [1, "t-86400000", "45m 00s", "events 1–39"],
    ]);
    expect(rows[0]?.did).toBe("3 committed · 1 refused · 1 asked for approval · 1 approved · 2 gate transitions");
    expect(rows[1]?.did).toBe("1 committed · 0 refused · 1 undone · 1 gate transition · 1 emergency stop");
  });

  it("marks only the newest session as current, and only while the ledger has not been quiet for the gap", () => {
    const s = [session(5, 9, NOW - 600_000, NOW - 300_000), session(1, 4, NOW - 90_000_000, NOW - 89_000_000)];
    expect(sessionRows(s, NOW, GAP, at).map((r) => r.current)).toEqual([true, false]);
    expect(sessionRows(s, NOW - 300_000 + GAP, GAP, at)[0]?.current).toBe(true);
    expect(sessionRows(s, NOW - 300_000 + GAP + 1, GAP, at)[0]?.current).toBe(false);
  });

  it("reads a one-event session as a moment, and no sessions as none", () => {
    expect(sessionRows([session(1, 1, NOW, NOW)], NOW, GAP, at)[0]).toMatchObject({ length: "a moment", events: "event 1" });
    expect(sessionRows(undefined, NOW, GAP)).toEqual([]);
    expect(sessionRows(view().sessions, NOW, GAP)).toEqual([]);
  });

  it("puts gate transitions in words", () => {
    expect(
      gateRows([
        { seq: 9, at_ms: NOW, from: "execution", to: "evaluation", act: "lease_expiry", writes: 0 },
        { seq: 7, at_ms: NOW, from: "sensemaking", to: "execution", act: "commitment", writes: 2 },
      ]),
    ).toEqual([
      { key: 9, text: "Execution → Evaluation (lease expiry)" },
      { key: 7, text: "Sensemaking → Execution (commitment), 2 memory writes" },
    ]);
  });
});
