// @vitest-environment jsdom
// The confirmation dialog as a component: what it shows, when Approve is allowed, and that a
// decision goes to the backend with exactly the call hash on screen.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/svelte";
import type { PendingView } from "./bindings";

const invoke = vi.fn();
vi.mock("@tauri-apps/api/core", () => ({ invoke: (...a: unknown[]) => invoke(...a) }));

const { default: ConfirmDialog } = await import("./lib/ConfirmDialog.svelte");

const HASH = "c0ffee".repeat(10) + "abcd";
const call: PendingView = {
  id: "pend-1",
  tool: "fs.quarantine",
  layer: 4,
  tier: 3,
  why: "fs.quarantine is L4: it always waits for you",
  reversibility: "reversible",
  call_hash: HASH,
  args: { paths: ["/home/ana/old.log", "/home/ana/tmp"] },
  created_at_ms: 0,
  admissible_at_ms: 10_000,
  expires_at_ms: 300_000,
  preview: {
    kind: "files",
    files: [
      { path: "/home/ana/old.log", bytes: 2048, is_dir: false, exists: true },
      { path: "/home/ana/tmp", bytes: null, is_dir: false, exists: false },
    ],
    total_bytes: 2048,
    more: 0,
  },
};

beforeEach(() => invoke.mockReset());
afterEach(() => cleanup());

describe("ConfirmDialog", () => {
  it("shows the files with sizes, why, reversibility and the hash that will be signed", () => {
    render(ConfirmDialog, { call, nowMs: 0, queued: 2, ondecided: () => {}, onlater: () => {} });
    expect(screen.getByRole("alertdialog", { name: "Approve fs.quarantine?" })).toBeTruthy();
    expect(screen.getByText("/home/ana/old.log")).toBeTruthy();
    expect(screen.getByText("2.0 KiB")).toBeTruthy();
    expect(screen.getByText(/not found/)).toBeTruthy();
    expect(screen.getByText("2 items, 2.0 KiB")).toBeTruthy();
    expect(screen.getByText(/always waits for you/)).toBeTruthy();
    expect(screen.getByText(/can be undone/)).toBeTruthy();
    expect(screen.getByText(/2 more waiting/)).toBeTruthy();
    expect(screen.getByTestId("call-hash").textContent).toBe(HASH);
  });

  it("keeps Approve disabled through the time gate's countdown", async () => {
    const r = render(ConfirmDialog, { call, nowMs: 4_000, queued: 0, ondecided: () => {}, onlater: () => {} });
    const approve = screen.getByRole("button", { name: "Approve" }) as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    expect(screen.getByTestId("countdown").textContent).toContain("Approvable in 6s");
    await r.rerender({ call, nowMs: 10_000, queued: 0, ondecided: () => {}, onlater: () => {} });
    expect(approve.disabled).toBe(false);
    expect(screen.getByTestId("countdown").textContent).toContain("Approvable now");
  });

  it("approves with exactly the shown hash and reports the outcome", async () => {
    invoke.mockResolvedValue({ outcome: "committed", notify: false });
    const ondecided = vi.fn();
    render(ConfirmDialog, { call, nowMs: 20_000, queued: 0, ondecided, onlater: () => {} });
    await fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    expect(invoke).toHaveBeenCalledWith("decide", { pendingId: "pend-1", callHash: HASH, approve: true });
    await vi.waitFor(() => expect(ondecided).toHaveBeenCalledWith("committed"));
  });

  it("denies, and shows a refusal instead of closing", async () => {
    invoke.mockResolvedValueOnce({ outcome: "refused", code: "approval_expired", reason: "too late", notify: false });
    const ondecided = vi.fn();
    render(ConfirmDialog, { call, nowMs: 20_000, queued: 0, ondecided, onlater: () => {} });
    await fireEvent.click(screen.getByRole("button", { name: "Deny" }));
    expect(invoke).toHaveBeenCalledWith("decide", { pendingId: "pend-1", callHash: HASH, approve: false });
    await vi.waitFor(() => expect(screen.getByRole("alert").textContent).toContain("approval_expired"));
    expect(ondecided).not.toHaveBeenCalled();
  });

  it("starts with focus on Deny and keeps Tab inside the dialog", async () => {
    render(ConfirmDialog, { call, nowMs: 20_000, queued: 0, ondecided: () => {}, onlater: () => {} });
    await vi.waitFor(() => expect(document.activeElement?.textContent).toBe("Deny"));
    const approve = screen.getByRole("button", { name: "Approve" });
    approve.focus();
    await fireEvent.keyDown(screen.getByRole("alertdialog"), { key: "Tab" });
    expect(document.activeElement?.textContent).toBe("Decide later");
  });
});
