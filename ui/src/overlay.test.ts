import { describe, expect, it } from "vitest";
import type { BusEventKind } from "./bindings";
import { IDLE, fold, type Live } from "./hud";
import { gateWords, overlayView, proposalWords } from "./overlay";

const at = (state: string, extra: Partial<Live> = {}): Live => ({ ...IDLE, state, ...extra });

describe("overlayView", () => {
  it("follows a turn through its states", () => {
    expect(overlayView(at("LISTENING")).label).toBe("Listening");
    expect(overlayView(at("TRANSCRIBING")).label).toBe("Hearing");
    expect(overlayView(at("REASONING")).label).toBe("Thinking");
    expect(overlayView(at("RISK_CLASSIFYING")).label).toBe("Thinking");
    expect(overlayView(at("EXECUTING")).label).toBe("Doing it");
    expect(overlayView(at("IDLE", { outcome: "committed" }))).toMatchObject({ label: "Done", tone: "done" });
    expect(overlayView(at("IDLE", { outcome: "refused" }))).toMatchObject({ label: "Refused", tone: "refused" });
    expect(overlayView(at("IDLE", { stopped: true }))).toMatchObject({ label: "Stopped", tone: "refused" });
  });

  it("a call waiting for the person says so and offers the HUD", () => {
    const v = overlayView(at("AWAITING_CONFIRM", { proposal: { tool: "fs.quarantine", source: "model", args: { paths: ["/h/Downloads/a.log", "/h/Downloads/b.log"] } } }));
    expect(v).toMatchObject({ label: "Waiting for you", tone: "waiting", waiting: true, proposal: "quarantine 2 files" });
    // After the turn, a pending outcome still waits.
    expect(overlayView(at("IDLE", { outcome: "pending" })).waiting).toBe(true);
  });
});

describe("the end of a turn", () => {
  it("fades the overlay only once the turn is over, and keeps what was said aloud", () => {
    expect(overlayView(at("LISTENING")).ended).toBe(false);
    expect(overlayView(at("AWAITING_CONFIRM")).ended).toBe(false);
    expect(overlayView(at("IDLE", { outcome: "committed" })).ended).toBe(true);
    const ev = (event: BusEventKind, text: string | null) =>
      ({ corr: "t1", event, state: null, text, tool: null, args: null, outcome: null, source: null, model: null, reason: null, level: null });
    let live = fold(IDLE, ev("utterance", "scan the docs folder"));
    live = fold(live, ev("spoken", "Done."));
    expect(live.spoken).toBe("Done.");
    // The next turn starts without the last one's words.
    expect(fold({ ...live, corr: "t1" }, { ...ev("utterance", "stop"), corr: "t2" }).spoken).toBeNull();
    // Regression: a key press after a turn that left a call waiting showed "Waiting for you"
    // instead of "Listening" — the last turn's outcome was taken for this one's.
    const waited: Live = { ...live, state: "IDLE", outcome: "pending" };
    const pressed = fold(waited, { ...ev("state_changed", null), corr: "t3", state: "LISTENING" });
    expect(overlayView(pressed).label).toBe("Listening");
    expect(pressed.spoken).toBeNull();
  });
});

describe("proposalWords", () => {
  it("says the call as a person would", () => {
    expect(proposalWords("fs.quarantine", { paths: ["/home/ana/old.log"] })).toBe("quarantine old.log");
    expect(proposalWords("fs.scan", { path: "/home/ana/Downloads" })).toBe("scan Downloads");
    expect(proposalWords("propose.move", { moves: [{ from: "/a/x.txt", to: "/b/x.txt" }] })).toBe("plan to move x.txt");
    expect(proposalWords("orbit.get_context", {})).toBe("tell you where things stand");
    expect(proposalWords("new.tool_name", null)).toBe("tool name");
    // A draft never reads as the act.
    expect(proposalWords("propose.quarantine", { paths: ["/h/a.log"] })).toBe("draft a quarantine list of a.log");
    expect(proposalWords("rebuild.index", {})).toBe("rebuild the search index");
  });
});

describe("gateWords", () => {
  it("counts down to the time gate and says nothing once it is open", () => {
    expect(gateWords(12_000, 0)).toBe("approve in 12 s");
    expect(gateWords(12_000, 11_001)).toBe("approve in 1 s");
    expect(gateWords(12_000, 12_000)).toBeNull();
    expect(gateWords(600_000, 0)).toBe("approve in 10 min");
  });
});
