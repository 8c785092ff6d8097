import { describe, expect, it, spyOn } from "bun:test";
import {
  APP_STATE_MAX_LENGTH,
  copyAppState,
  readAppState,
  writeAppState,
} from "./app-state.ts";

const base64 = (text: string) => Buffer.from(text).toString("base64");
const slotsOf = (param: string | undefined) =>
  Object.keys(JSON.parse(Buffer.from(param ?? "", "base64url").toString()).s);

describe("app state in the URL", () => {
  it("round-trips each app's state, non-ASCII text included", () => {
    const state = { title: "日本語 🚀", filters: ["open"], page: null };
    const param = writeAppState(writeAppState(null, "call_1", state), "c:t", 2);
    expect(param).toMatch(/^[\w-]+$/);
    expect(readAppState(param, "call_1")).toEqual(state);
    expect(readAppState(param, "c:t")).toBe(2);
    expect(readAppState(param, "call_2")).toBe(undefined);
  });

  it("keeps slots in the order last written, and removes them for null", () => {
    let param = writeAppState(undefined, "a", 1);
    param = writeAppState(param, "b", 2);
    expect(writeAppState(param, "a", 1)).toBe(param);
    param = writeAppState(param, "a", 3);
    expect(slotsOf(param)).toEqual(["b", "a"]);
    param = writeAppState(param, "b", null);
    expect(slotsOf(param)).toEqual(["a"]);
    expect(writeAppState(param, "a", null)).toBe(undefined);
  });

  it("evicts the least recently written slots of other apps at the cap", () => {
    const third = "x".repeat(APP_STATE_MAX_LENGTH / 3);
    let param = writeAppState(undefined, "a", third);
    for (const [key, state] of Object.entries({ b: "s", c: third, d: third })) {
      param = writeAppState(param, key, state);
    }
    expect(param?.length).toBeLessThanOrEqual(APP_STATE_MAX_LENGTH);
    expect(slotsOf(param)).toEqual(["b", "c", "d"]);
  });

  it("removes an app's slot over the cap on its own, warning once", () => {
    const warn = spyOn(console, "warn").mockImplementation(() => {});
    const big = "x".repeat(APP_STATE_MAX_LENGTH);
    const param = writeAppState(writeAppState(null, "other", 1), "big", 1);
    expect(slotsOf(writeAppState(param, "big", big))).toEqual(["other"]);
    writeAppState(param, "big", big);
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });

  it("reads standard base64, a space for +, and anything else as no state", () => {
    const state = { q: "??>>~~", emoji: "🙂" };
    const padded = base64(JSON.stringify({ v: 2, s: { k: state } }));
    expect(padded).toMatch(/\+.*=$/);
    for (const param of [padded, padded.replace(/=+$/, "")]) {
      expect(readAppState(param, "k")).toEqual(state);
      expect(readAppState(param.replace(/\+/g, " "), "k")).toEqual(state);
    }
    const malformed = ["!!", "abcde", "", null, btoa("\xff\xfe")];
    const shapes = ["not json {", '{"v":2,"s":[1]}', '{"v":1,"k":"k","s":1}'];
    for (const param of [...malformed, ...shapes.map(base64)]) {
      expect(readAppState(param, "k")).toBeUndefined();
    }
  });

  it("copies one app's state to another key, keeping the rest", () => {
    const param = writeAppState(writeAppState(null, "call_1", 4), "x", 5);
    const copied = copyAppState(param, "call_1", "c:t");
    expect(slotsOf(copied)).toEqual(["call_1", "x", "c:t"]);
    expect(readAppState(copied, "c:t")).toBe(4);
    expect(
      readAppState(copyAppState(copied, "-", "c:t"), "c:t"),
    ).toBeUndefined();
  });
});
