import { describe, expect, it } from "vitest";
import { groupSize, hiddenRows, ledgerIndex, shortTurn, turnPlace } from "./turns";

describe("turnPlace", () => {
  it("joins neighbouring rows of one request and nothing else", () => {
    const ids = ["b", "a", "a", "a", "c", "a"];
    const places = ids.map((id, i) => turnPlace(ids[i - 1], id, ids[i + 1]));
    expect(places).toEqual(["alone", "first", "middle", "last", "alone", "alone"]);
  });
  it("treats a row not loaded yet as another request", () => {
    expect(turnPlace(undefined, "a", "a")).toBe("first");
    expect(turnPlace("a", "a", undefined)).toBe("last");
  });
  it("never groups rows without an id", () => {
    expect(turnPlace("", "", "")).toBe("alone");
  });
});

describe("shortTurn", () => {
  it("is the id's beginning", () => {
    expect(shortTurn("0123456789abcdef")).toBe("01234567");
  });
});

describe("folding a request", () => {
  // Two pages of three rows: request a spans the page boundary, b is alone, c has two rows.
  const pages = new Map([
    [0, [{ corr: "b" }, { corr: "a" }, { corr: "a" }]],
    [1, [{ corr: "a" }, { corr: "c" }, { corr: "c" }]],
  ]);

  it("hides every row of a folded request but its newest, across pages", () => {
    expect(hiddenRows(pages, 3, new Set(["a"]))).toEqual([2, 3]);
    expect(hiddenRows(pages, 3, new Set(["a", "c"]))).toEqual([2, 3, 5]);
    expect(hiddenRows(pages, 3, new Set())).toEqual([]);
  });

  it("hides nothing of a lone row or of rows without an id", () => {
    expect(hiddenRows(pages, 3, new Set(["b"]))).toEqual([]);
    expect(hiddenRows(new Map([[0, [{ corr: "" }, { corr: "" }]]]), 3, new Set([""]))).toEqual([]);
  });

  it("keeps a tail whose head is on a page not loaded yet", () => {
    expect(hiddenRows(new Map([[1, pages.get(1) ?? []]]), 3, new Set(["a"]))).toEqual([]);
  });

  it("maps rows on screen to ledger positions past the hidden ones", () => {
    const hidden = [2, 3];
    expect([0, 1, 2, 3].map((s) => ledgerIndex(s, hidden))).toEqual([0, 1, 4, 5]);
    expect(ledgerIndex(2, [])).toBe(2);
  });

  it("counts a group's loaded rows from its head", () => {
    expect(groupSize(pages, 3, 1)).toBe(3);
    expect(groupSize(pages, 3, 4)).toBe(2);
    expect(groupSize(pages, 3, 0)).toBe(1);
  });
});
