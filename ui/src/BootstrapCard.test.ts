// @vitest-environment jsdom
// Bootstrap's card as a component: the question, propose-only, answering with Enter, the three
// consent answers at the permission question, a refusal shown in place, and skipping.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/svelte";
import { bootstrapCard } from "./slowloop";
import type { Stage } from "./bindings";
import { SNAPSHOT } from "./test_fixtures";

const invoke = vi.fn();
vi.mock("@tauri-apps/api/core", () => ({ invoke: (...a: unknown[]) => invoke(...a) }));

const { default: BootstrapCard } = await import("./lib/BootstrapCard.svelte");

const card = (stage: Stage, prompt: string | null = "Where are you on the ladder?") => {
  const c = bootstrapCard({ stage, prompt, propose_only: true, snapshot: SNAPSHOT, sessions: 1, abbreviated: false, reentered: false });
  if (c === null) throw new Error("no card");
  return c;
};
const ok = (stage: string) => ({
  outcome: { outcome: "recorded", code: null, reason: null, pending_id: null, seq: 3, tier: null, admissible_in_ms: null, notify: false },
  stage,
  prompt: "next",
  propose_only: true,
  turn: null,
});

beforeEach(() => invoke.mockReset());
afterEach(() => cleanup());

describe("BootstrapCard", () => {
  it("shows the question, which one it is, and that SMART only proposes", () => {
    render(BootstrapCard, { card: card("ladder"), onchanged: () => {} });
    expect(screen.getByTestId("bootstrap-prompt").textContent).toBe("Where are you on the ladder?");
    expect(screen.getByText("Question 1 of 4")).toBeTruthy();
    expect(screen.getByTestId("propose-only")).toBeTruthy();
    expect(screen.queryByRole("group", { name: "How to go on" })).toBeNull();
  });

  it("sends the answer on Enter and reports the step", async () => {
    invoke.mockResolvedValue(ok("anchor"));
    const onchanged = vi.fn();
    render(BootstrapCard, { card: card("ladder"), onchanged });
    const box = screen.getByLabelText("Your answer") as HTMLInputElement;
    await fireEvent.input(box, { target: { value: "  about a 6 " } });
    await fireEvent.submit(box.closest("form") as HTMLFormElement);
    expect(invoke).toHaveBeenCalledWith("bootstrap_answer", { text: "about a 6" });
    await vi.waitFor(() => expect(onchanged).toHaveBeenCalledWith(ok("anchor")));
    expect(box.value).toBe("");
  });

  it("does not send an empty answer", async () => {
    render(BootstrapCard, { card: card("ladder"), onchanged: () => {} });
    await fireEvent.submit(screen.getByLabelText("Your answer").closest("form") as HTMLFormElement);
    expect(invoke).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toBe("Type an answer first");
  });

  it("offers the three consents at the permission question", async () => {
    invoke.mockResolvedValue(ok("done"));
    render(BootstrapCard, { card: card("permission", "Keep listening, or offer ideas?"), onchanged: () => {} });
    const group = screen.getByRole("group", { name: "How to go on" });
    expect(Array.from(group.querySelectorAll("button")).map((b) => b.textContent)).toEqual(["Keep listening", "Offer ideas", "I'm ready"]);
    await fireEvent.click(screen.getByRole("button", { name: "Offer ideas" }));
    expect(invoke).toHaveBeenCalledWith("bootstrap_consent", { consent: "propose_structure" });
  });

  it("shows a refusal in place and keeps the answer", async () => {
    invoke.mockResolvedValue({ ...ok("ladder"), outcome: { ...ok("ladder").outcome, outcome: "refused", reason: "an answer is at most 500 characters" } });
    render(BootstrapCard, { card: card("ladder"), onchanged: () => {} });
    const box = screen.getByLabelText("Your answer") as HTMLInputElement;
    await fireEvent.input(box, { target: { value: "hmm" } });
    await fireEvent.submit(box.closest("form") as HTMLFormElement);
    await vi.waitFor(() => expect(screen.getByRole("alert").textContent).toContain("at most 500"));
    expect(box.value).toBe("hmm");
  });

  it("skips the introduction", async () => {
    invoke.mockResolvedValue(ok("done"));
    render(BootstrapCard, { card: card("gap"), onchanged: () => {} });
    await fireEvent.click(screen.getByRole("button", { name: "Skip introduction" }));
    expect(invoke).toHaveBeenCalledWith("bootstrap_skip");
  });
});
