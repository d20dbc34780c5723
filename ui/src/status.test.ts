import { describe, expect, it } from "vitest";
import {
  budgetFraction,
  errorText,
  formatBudget,
  formatCountdown,
  formatLease,
  formatPending,
  frontierLabel,
  layerRows,
  splitCode,
  stanceLabel,
  STANCE_GRID,
  type Gate,
  type Lease,
} from "./status";

const NOW = 1_700_000_000_000;

const lease = (over: Partial<Lease> = {}): Lease => ({
  id: "ab12cd34ef56",
  frame: "tidy the downloads folder",
  horizon: "short",
  state: "active",
  duration_ms: 3_600_000,
  expires_at_ms: NOW + 600_000,
  success_criteria: [],
  non_goals: [],
  ...over,
});

const gates = (remaining: [number, number, number, number]): Gate[] =>
  remaining.map((r, i) => ({ layer: i + 1, gate_ms: 2000 * (i + 1), remaining_ms: r }));

describe("stanceLabel and the grid", () => {
  it("labels every stance", () => {
    expect(stanceLabel("sensemaking")).toBe("Sensemaking");
    expect(stanceLabel("discovery")).toBe("Discovery");
    expect(stanceLabel("evaluation")).toBe("Evaluation");
    expect(stanceLabel("execution")).toBe("Execution");
  });

  it("shows an unknown stance instead of hiding it", () => {
    expect(stanceLabel("dreaming")).toBe("Unknown (dreaming)");
    expect(stanceLabel("toString")).toBe("Unknown (toString)");
  });

  it("puts exploration on the first row and exploitation on the second", () => {
    expect(STANCE_GRID.map((r) => r.mode)).toEqual(["Exploration", "Exploitation"]);
    expect(STANCE_GRID[0]?.stances).toEqual(["sensemaking", "discovery"]);
    expect(STANCE_GRID[1]?.stances).toEqual(["evaluation", "execution"]);
  });
});

describe("formatCountdown", () => {
  it("formats minutes with zero-padded seconds", () => {
    expect(formatCountdown(12 * 60_000 + 4_000)).toBe("12m 04s");
    expect(formatCountdown(60_000)).toBe("1m 00s");
  });

  it("formats seconds alone and hours with padding", () => {
    expect(formatCountdown(45_000)).toBe("45s");
    expect(formatCountdown(3_723_000)).toBe("1h 02m 03s");
  });

  it("rounds partial seconds up", () => {
    expect(formatCountdown(1)).toBe("1s");
    expect(formatCountdown(59_001)).toBe("1m 00s");
  });

  it("reads 0s for zero, negative and non-finite input", () => {
    expect(formatCountdown(0)).toBe("0s");
    expect(formatCountdown(-5_000)).toBe("0s");
    expect(formatCountdown(Number.NaN)).toBe("0s");
  });
});

describe("formatLease", () => {
  it("says so when there is no lease", () => {
    expect(formatLease(null, NOW)).toEqual({
      active: false,
      frame: "",
      horizon: "",
      state: "none",
      countdown: "no active lease",
    });
  });

  it("counts down an active lease against the status clock", () => {
    const d = formatLease(lease({ expires_at_ms: NOW + 724_000, horizon: "mid" }), NOW);
    expect(d.active).toBe(true);
    expect(d.frame).toBe("tidy the downloads folder");
    expect(d.horizon).toBe("Mid horizon");
    expect(d.state).toBe("active");
    expect(d.countdown).toBe("expires in 12m 04s");
  });

  it("treats a lease past its expiry as expired even if its state lags", () => {
    const d = formatLease(lease({ expires_at_ms: NOW - 1 }), NOW);
    expect(d.active).toBe(false);
    expect(d.state).toBe("expired");
    expect(d.countdown).toBe("expired");
    expect(formatLease(lease({ expires_at_ms: NOW }), NOW).countdown).toBe("expired");
  });

  it("reports an expired state even before the expiry time", () => {
    const d = formatLease(lease({ state: "expired" }), NOW);
    expect(d.active).toBe(false);
    expect(d.countdown).toBe("expired");
  });

  it("keeps a drafted lease inactive but shows its time", () => {
    const d = formatLease(lease({ state: "drafted", expires_at_ms: NOW + 30_000 }), NOW);
    expect(d.active).toBe(false);
    expect(d.state).toBe("drafted");
    expect(d.countdown).toBe("expires in 30s");
  });

  // The kernel gives a drafted lease no expiry (the commitment gate sets it); the hand-written
  // type said it always had one, and the panel read "expires in 0s".
  it("says a drafted lease without an expiry is not committed yet", () => {
    const d = formatLease(lease({ state: "drafted", expires_at_ms: null }), NOW);
    expect(d.active).toBe(false);
    expect(d.state).toBe("drafted");
    expect(d.countdown).toBe("not committed yet");
  });
});

describe("frontier and layers", () => {
  it("labels the frontier L0..L4", () => {
    expect(frontierLabel(0)).toBe("L0");
    expect(frontierLabel(2)).toBe("L2");
    expect(frontierLabel(4)).toBe("L4");
  });

  it("rejects a frontier out of range", () => {
    expect(frontierLabel(5)).toBe("L?");
    expect(frontierLabel(-1)).toBe("L?");
    expect(frontierLabel(1.5)).toBe("L?");
  });

  it("lists L0..L4 with gate countdowns and the committed layers", () => {
    const rows = layerRows(2, gates([0, 1_500, 12_000, 64_000]));
    expect(rows.map((r) => r.label)).toEqual(["L0", "L1", "L2", "L3", "L4"]);
    expect(rows.map((r) => r.committed)).toEqual([true, true, true, false, false]);
    expect(rows.map((r) => r.gate)).toEqual(["—", "open", "2s", "12s", "1m 04s"]);
    expect(rows.map((r) => r.gateOpen)).toEqual([false, true, false, false, false]);
  });

  it("shows every gate open when none has time remaining", () => {
    const rows = layerRows(0, gates([0, 0, 0, -20]));
    expect(rows.slice(1).map((r) => r.gate)).toEqual(["open", "open", "open", "open"]);
    expect(rows.slice(1).every((r) => r.gateOpen)).toBe(true);
    expect(rows.map((r) => r.committed)).toEqual([true, false, false, false, false]);
  });

  it("marks missing gates instead of inventing them", () => {
    const rows = layerRows(0, []);
    expect(rows.map((r) => r.gate)).toEqual(["—", "—", "—", "—", "—"]);
  });
});

describe("budget", () => {
  it("formats used/limit", () => {
    expect(formatBudget({ used: 3, limit: 1000 })).toBe("3/1000");
    expect(formatBudget({ used: 0, limit: 0 })).toBe("0/0");
  });

  it("computes a clamped fraction", () => {
    expect(budgetFraction({ used: 250, limit: 1000 })).toBe(0.25);
    expect(budgetFraction({ used: 1200, limit: 1000 })).toBe(1);
    expect(budgetFraction({ used: 0, limit: 0 })).toBe(0);
    expect(budgetFraction({ used: 1, limit: 0 })).toBe(1);
  });
});

describe("formatPending", () => {
  it("formats tool, layer, tier and a short id", () => {
    const call = {
      id: "0123456789abcdef",
      tool: "fs.quarantine",
      layer: 4,
      tier: 3,
      why: "L4 always asks",
      call_hash: "ff00",
      args: {},
      expires_at_ms: NOW + 90_000,
      admissible_at_ms: NOW,
    };
    expect(formatPending(call, NOW)).toEqual({
      id: "0123456789abcdef",
      shortId: "01234567",
      tool: "fs.quarantine",
      layer: "L4",
      tier: "T3",
      expiresIn: "1m 30s",
    });
    expect(formatPending({ ...call, expires_at_ms: NOW - 1 }, NOW).expiresIn).toBe("expired");
  });
});

describe("error banner text", () => {
  it("passes command errors through", () => {
    expect(errorText("Not initialised: run `smart init --root DIR`")).toBe(
      "Not initialised: run `smart init --root DIR`",
    );
    expect(errorText(new Error("boom"))).toBe("boom");
    expect(errorText({ code: 7 })).toBe('{"code":7}');
    expect(errorText(undefined)).toBe("undefined");
  });

  it("splits backtick spans into code", () => {
    expect(splitCode("Not initialised: run `smart init --root DIR`")).toEqual([
      { code: false, text: "Not initialised: run " },
      { code: true, text: "smart init --root DIR" },
    ]);
    expect(splitCode("plain")).toEqual([{ code: false, text: "plain" }]);
    expect(splitCode("a `b` c `d")).toEqual([
      { code: false, text: "a " },
      { code: true, text: "b" },
      { code: false, text: " c `d" },
    ]);
  });
});
