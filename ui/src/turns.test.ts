import { describe, expect, it } from "vitest";
import { shortTurn, turnPlace } from "./turns";

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
