import { describe, expect, it } from "vitest";
import type { HudEvent, PendingView } from "./bindings";
import { axisFor, bucketFor, layoutBars } from "./chart";
import { ServerClock } from "./clock";
import { IDLE, fold, levelPercent, stateLabel } from "./hud";
import { admissibility, callTitle, formatBytes, previewHeadline, reversibilityText } from "./preview";
import { pagesFor, rowWindow } from "./virtual";

const call = (over: Partial<PendingView> = {}): PendingView => ({
  id: "p1",
  tool: "fs.quarantine",
  layer: 4,
  tier: 3,
  why: "L4 always asks",
  reversibility: "reversible",
  call_hash: "ab".repeat(32),
  args: {},
  created_at_ms: 1_000,
  admissible_at_ms: 11_000,
  expires_at_ms: 301_000,
  preview: { kind: "files", files: [], total_bytes: 0, more: 0 },
  ...over,
});

describe("formatBytes", () => {
  it("uses binary units and says when a size is unknown", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(1024)).toBe("1.0 KiB");
    expect(formatBytes(5 * 1024 * 1024 + 1)).toBe("5.0 MiB");
    expect(formatBytes(3 * 1024 ** 4)).toBe("3.0 TiB");
    expect(formatBytes(null)).toBe("size unknown");
    expect(formatBytes(-1)).toBe("size unknown");
    expect(formatBytes(Number.NaN)).toBe("size unknown");
  });
});

describe("previewHeadline", () => {
  it("counts listed and unlisted rows", () => {
    const f = { path: "/a", bytes: 10, is_dir: false, exists: true };
    expect(previewHeadline({ kind: "files", files: [f], total_bytes: 10, more: 0 })).toBe("1 item, 10 B");
    expect(previewHeadline({ kind: "files", files: [f], total_bytes: 2048, more: 4 })).toBe("5 items, 2.0 KiB");
    const m = { from: "/a", to: "/b", bytes: 1, target_exists: false };
    expect(previewHeadline({ kind: "moves", moves: [m, m], total_bytes: 2, more: 0 })).toBe("2 moves, 2 B");
    expect(previewHeadline({ kind: "args", text: "{}" })).toBe("arguments");
  });
});

describe("admissibility", () => {
  it("keeps Approve disabled until the time gate passes, counting down", () => {
    const a = admissibility(call(), 1_000);
    expect(a.ready).toBe(false);
    expect(a.label).toBe("Approvable in 10s");
    expect(a.expires).toBe("Expires in 5m 00s");
    expect(admissibility(call(), 10_001).label).toBe("Approvable in 1s");
    const open = admissibility(call(), 11_000);
    expect(open.ready).toBe(true);
    expect(open.label).toBe("Approvable now");
  });
  it("never allows approving an expired call", () => {
    const a = admissibility(call(), 301_000);
    expect(a.expired).toBe(true);
    expect(a.ready).toBe(false);
    expect(a.expires).toBe("Expired");
  });
  it("titles and reversibility read as words", () => {
    expect(callTitle(call())).toBe("fs.quarantine · L4 · Tier 3");
    expect(reversibilityText("irreversible")).toMatch(/cannot be undone/);
    expect(reversibilityText("something_new")).toBe("something_new");
  });
});

describe("rowWindow / pagesFor", () => {
  it("renders only the rows in view plus overscan", () => {
    expect(rowWindow(0, 280, 28, 1_000_000, 10)).toEqual({ start: 0, end: 21 });
    expect(rowWindow(28 * 500_000, 280, 28, 1_000_000, 10)).toEqual({ start: 499_990, end: 500_021 });
  });
  it("clamps at the end and for empty lists", () => {
    expect(rowWindow(28 * 995, 280, 28, 1_000, 10)).toEqual({ start: 985, end: 1_000 });
    expect(rowWindow(99_999, 280, 28, 5, 10)).toEqual({ start: 0, end: 5 });
    expect(rowWindow(0, 280, 28, 0)).toEqual({ start: 0, end: 0 });
    expect(rowWindow(-50, 280, 28, 3, 0)).toEqual({ start: 0, end: 3 });
  });
  it("asks for each page the window touches, once", () => {
    expect(pagesFor({ start: 95, end: 205 }, 100)).toEqual([0, 1, 2]);
    expect(pagesFor({ start: 100, end: 200 }, 100)).toEqual([1]);
    expect(pagesFor({ start: 0, end: 0 }, 100)).toEqual([]);
  });
});

describe("the live line", () => {
  const ev = (over: Partial<HudEvent>): HudEvent => ({
    corr: "c1",
    event: "state_changed",
    state: null,
    text: null,
    tool: null,
    args: null,
    outcome: null,
    source: null,
    model: null,
    reason: null,
    level: null,
    ...over,
  });
  it("follows one interaction from utterance to outcome", () => {
    let live = fold(IDLE, ev({ event: "utterance", text: "quarantine old.log" }));
    live = fold(live, ev({ state: "reasoning" }));
    live = fold(live, ev({ event: "proposal", tool: "fs.quarantine", source: "template" }));
    live = fold(live, ev({ event: "outcome", outcome: "pending" }));
    live = fold(live, ev({ state: "awaiting_confirm" }));
    expect(live).toMatchObject({
      heard: "quarantine old.log",
      proposal: { tool: "fs.quarantine", source: "template" },
      outcome: "pending",
      state: "awaiting_confirm",
    });
    expect(stateLabel(live.state)).toBe("Awaiting confirm");
    expect(stateLabel("AWAITING_CONFIRM")).toBe("Awaiting confirm");
  });
  it("says it is getting ready while the prompt is prepared, and ready after", () => {
    let live = fold(IDLE, ev({ corr: "", event: "preparing" }));
    expect(live.worker).toBe("getting ready…");
    live = fold(live, ev({ corr: "c1", event: "utterance", text: "scan inbox" }));
    expect(live.worker).toBe("getting ready…");
    live = fold(live, ev({ corr: "", event: "prepared" }));
    expect(live.worker).toBe("ready");
    live = fold(live, ev({ event: "worker_ready", model: "Qwen2.5 Coder 0.5B" }));
    expect(live.worker).toBe("Qwen2.5 Coder 0.5B");
  });
  it("keeps the request's id from its utterance, whatever the next request's events say", () => {
    let live = fold(IDLE, ev({ corr: "aaaa1111bbbb2222", event: "speech_start" }));
    expect(live.request).toBeNull();
    live = fold(live, ev({ corr: "aaaa1111bbbb2222", event: "utterance", text: "scan inbox" }));
    live = fold(live, ev({ corr: "aaaa1111bbbb2222", event: "outcome", outcome: "committed" }));
    // The voice task has already made the next request's id; its level events carry it.
    live = fold(live, ev({ corr: "cccc3333dddd4444", event: "level", level: -40 }));
    expect(live.request).toBe("aaaa1111bbbb2222");
    live = fold(live, ev({ corr: "cccc3333dddd4444", event: "utterance", text: "scan docs" }));
    expect(live.request).toBe("cccc3333dddd4444");
  });
  it("clears the previous interaction's details when a new one starts", () => {
    let live = fold(IDLE, ev({ event: "outcome", outcome: "refused" }));
    live = fold(live, ev({ corr: "c2", event: "utterance", text: "scan inbox" }));
    expect(live.outcome).toBeNull();
    expect(live.heard).toBe("scan inbox");
  });
  it("follows the microphone: level, speech start and end, what whisper heard, the wake word", () => {
    let live = fold(IDLE, ev({ event: "level", level: -23.5 }));
    expect(live.level).toBe(-23.5);
    expect(levelPercent(live.level)).toBe(61);
    live = fold(live, ev({ event: "speech_start" }));
    expect(live.speaking).toBe(true);
    live = fold(live, ev({ event: "speech_end" }));
    live = fold(live, ev({ event: "heard", text: "scan the Downloads folder" }));
    expect(live).toMatchObject({ speaking: false, heard: "scan the Downloads folder" });
    live = fold(live, ev({ event: "wake", text: "hey smart" }));
    expect(live.voiceNote).toContain("hey smart");
    live = fold(live, ev({ event: "wake_rejected", text: "could you pass the salt" }));
    expect(live.voiceNote).toContain("not for me");
    expect(live.voiceNote).toContain("pass the salt");
    expect(levelPercent(null)).toBe(0);
    expect(levelPercent(-90)).toBe(0);
    expect(levelPercent(3)).toBe(100);
  });
});

describe("ServerClock", () => {
  it("advances the backend's time by the UI's monotonic clock", () => {
    let t = 100;
    const c = new ServerClock(() => t);
    expect(c.now()).toBeNull();
    c.sync(1_000_000);
    t = 350;
    expect(c.now()).toBe(1_000_250);
  });
});

describe("activity chart", () => {
  it("scales to the tallest bar and stacks refusals on top", () => {
    const bars = layoutBars(
      [
        { start_wall_ms: 0, events: 10, refusals: 5 },
        { start_wall_ms: 60_000, events: 5, refusals: 0 },
      ],
      200,
      100,
    );
    expect(bars).toHaveLength(2);
    expect(bars[0]).toMatchObject({ x: 0, ok: 50, refused: 50 });
    expect(bars[1]).toMatchObject({ x: 100, ok: 50, refused: 0 });
    expect(layoutBars([], 200, 100)).toEqual([]);
  });
  it("places bars at their time on an axis, leaving quiet stretches empty", () => {
    const axis = axisFor(3_599_999, 3_600_000, 600_000);
    expect(axis).toEqual({ fromMs: 0, bucketMs: 600_000, count: 6 });
    const bars = layoutBars(
      [
        { start_wall_ms: 0, events: 2, refusals: 0 },
        { start_wall_ms: 3_000_000, events: 1, refusals: 1 },
        { start_wall_ms: 9_000_000, events: 9, refusals: 0 },
      ],
      600,
      50,
      axis,
    );
    expect(bars.map((b) => b.x)).toEqual([0, 500]);
    // The tallest bar on the axis fills the height; the one outside does not count.
    expect(bars[0]?.ok).toBe(50);
  });
  it("picks readable bucket sizes", () => {
    expect(bucketFor(30_000)).toBe(1_000);
    expect(bucketFor(86_400_000)).toBe(3_600_000);
    expect(bucketFor(365 * 86_400_000)).toBe(604_800_000);
  });
});
