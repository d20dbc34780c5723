import { describe, expect, it } from "vitest";
import { progressLine, updateLine } from "./updates";

describe("updateLine", () => {
  it("says a build without a feed never checks", () => {
    expect(updateLine({ state: "off", current: "0.1.0" })).toBe(
      "SMART 0.1.0. This build names no release feed, so it never checks for updates.",
    );
  });
  it("says the running release is the newest", () => {
    expect(updateLine({ state: "up_to_date", current: "0.2.0" })).toBe("SMART 0.2.0 is the newest release.");
  });
  it("names the new version, its date when known, and the running one", () => {
    const found = { state: "available", current: "0.1.0", version: "0.2.0", notes: null } as const;
    expect(updateLine({ ...found, date: "2026-11-20" })).toBe(
      "SMART 0.2.0 (released 2026-11-20) is available; you have 0.1.0.",
    );
    expect(updateLine({ ...found, date: null })).toBe("SMART 0.2.0 is available; you have 0.1.0.");
  });
});

describe("progressLine", () => {
  it("shows what arrived of the whole, or only what arrived when the size is unknown", () => {
    expect(progressLine({ done: 512, total: 2048 })).toBe("512 B of 2.0 KiB");
    expect(progressLine({ done: 1024, total: null })).toBe("1.0 KiB downloaded");
  });
});
