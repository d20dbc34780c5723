import { describe, expect, it } from "vitest";
import { IDLE, type Live } from "./hud";
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
  });

  it("a call waiting for the person says so and offers the HUD", () => {
    const v = overlayView(at("AWAITING_CONFIRM", { proposal: { tool: "apply.quarantine", source: "model", args: { paths: ["/h/Downloads/a.log", "/h/Downloads/b.log"] } } }));
    expect(v).toMatchObject({ label: "Waiting for you", tone: "waiting", waiting: true, proposal: "quarantine 2 files" });
    // After the turn, a pending outcome still waits.
    expect(overlayView(at("IDLE", { outcome: "pending" })).waiting).toBe(true);
  });
});

describe("proposalWords", () => {
  it("says the call as a person would", () => {
    expect(proposalWords("apply.quarantine", { paths: ["/home/ana/old.log"] })).toBe("quarantine old.log");
    expect(proposalWords("fs.scan", { path: "/home/ana/Downloads" })).toBe("scan Downloads");
    expect(proposalWords("propose.move", { moves: [{ from: "/a/x.txt", to: "/b/x.txt" }] })).toBe("plan to move x.txt");
    expect(proposalWords("orbit.get_context", {})).toBe("tell you where things stand");
    expect(proposalWords("new.tool_name", null)).toBe("tool name");
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
