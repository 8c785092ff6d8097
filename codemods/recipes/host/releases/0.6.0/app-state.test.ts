import { describe, expect, it, spyOn } from "bun:test";
import {
  APP_STATE_MAX_LENGTH,
  copyAppState,
  readAppState,
  writeAppState,
} from "./app-state.ts";

const CHAT = "call_1";
const OTHER = "call_2";
const PANEL = "conn-1:my_tool";

// Standard base64 (with padding) of the UTF-8 bytes of `text`.
function standardBase64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary);
}

function json(param: string | undefined): unknown {
  if (param === undefined) return undefined;
  const b64 = param.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, "="));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

function quietly(run: () => unknown): unknown {
  const warn = spyOn(console, "warn").mockImplementation(() => {});
  try {
    return run();
  } finally {
    warn.mockRestore();
  }
}

describe("writeAppState / readAppState", () => {
  it("round-trips JSON state, non-ASCII text included", () => {
    const state = {
      title: "日本語 🚀",
      filters: ["open"],
      nested: { a: null },
    };
    const param = writeAppState(undefined, CHAT, state);
    expect(param).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(readAppState(param, CHAT)).toEqual(state);
    expect(json(param)).toEqual({ v: 2, s: { [CHAT]: state } });
  });

  it("round-trips primitive states", () => {
    for (const state of ["tab-2", 0, false]) {
      expect(readAppState(writeAppState(null, CHAT, state), CHAT)).toBe(state);
    }
  });

  it("keeps other apps' slots and gives each app its own", () => {
    const one = writeAppState(undefined, CHAT, { page: 1 });
    const two = writeAppState(one, OTHER, { page: 2 });
    const three = writeAppState(two, PANEL, "panel");
    expect(readAppState(three, CHAT)).toEqual({ page: 1 });
    expect(readAppState(three, OTHER)).toEqual({ page: 2 });
    expect(readAppState(three, PANEL, { panel: true })).toBe("panel");
    expect(readAppState(three, "call_3")).toBeUndefined();
  });

  it("keeps the slots in the order they were last written", () => {
    let param = writeAppState(undefined, CHAT, 1);
    param = writeAppState(param, OTHER, 2);
    param = writeAppState(param, CHAT, 3);
    expect(Object.keys((json(param) as { s: object }).s)).toEqual([
      OTHER,
      CHAT,
    ]);
  });

  it("changes nothing when the slot already holds the value", () => {
    let param = writeAppState(undefined, CHAT, { page: 1 });
    param = writeAppState(param, OTHER, { page: 2 });
    expect(writeAppState(param, CHAT, { page: 1 })).toBe(param);
    expect(writeAppState(param, "call_3", null)).toBe(param);
  });

  it("removes the slot for no state, and the param with the last slot", () => {
    const param = writeAppState(writeAppState(undefined, CHAT, 1), OTHER, 2);
    for (const none of [undefined, null]) {
      const next = writeAppState(param, CHAT, none);
      expect(readAppState(next, CHAT)).toBeUndefined();
      expect(readAppState(next, OTHER)).toBe(2);
      expect(writeAppState(next, OTHER, none)).toBeUndefined();
    }
  });
});

describe("the cap", () => {
  const third = "x".repeat(Math.floor(APP_STATE_MAX_LENGTH / 3));

  it("drops the least recently written slots of other apps first", () => {
    let param = writeAppState(undefined, "a", third);
    param = writeAppState(param, "b", third);
    param = writeAppState(param, "c", "small");
    param = writeAppState(param, "d", third);
    expect(param?.length).toBeLessThanOrEqual(APP_STATE_MAX_LENGTH);
    expect(readAppState(param, "a")).toBeUndefined();
    expect(readAppState(param, "b")).toBe(third);
    expect(readAppState(param, "c")).toBe("small");
    expect(readAppState(param, "d")).toBe(third);
  });

  it("removes the app's own slot when its state alone is over the cap", () => {
    const warn = spyOn(console, "warn").mockImplementation(() => {});
    try {
      const big = { text: "x".repeat(APP_STATE_MAX_LENGTH) };
      let param = writeAppState(undefined, OTHER, { page: 2 });
      param = writeAppState(param, "big-app", { page: 1 });
      param = writeAppState(param, "big-app", big);
      expect(readAppState(param, "big-app")).toBeUndefined();
      expect(readAppState(param, OTHER)).toEqual({ page: 2 });
      writeAppState(param, "big-app", big);
      expect(warn).toHaveBeenCalledTimes(1);
      writeAppState(param, "big-app-2", big);
      expect(warn).toHaveBeenCalledTimes(2);
    } finally {
      warn.mockRestore();
    }
  });
});

describe("malformed input", () => {
  it.each([
    ["garbage", "!!not base64!!"],
    ["bad base64", "abcde"],
    ["base64 of non-JSON", standardBase64("not json {")],
    ["base64 of invalid UTF-8", btoa("\xff\xfe\xfd")],
    ["empty string", ""],
    ["slots that are not an object", standardBase64('{"v":2,"s":[1]}')],
  ])("%s -> no state", (_label, value) => {
    expect(() => readAppState(value, CHAT, { panel: true })).not.toThrow();
    expect(readAppState(value, CHAT, { panel: true })).toBeUndefined();
    const write = () => writeAppState(value, CHAT, 1);
    expect(() => quietly(write)).not.toThrow();
  });

  it("null and undefined -> no state", () => {
    expect(readAppState(null, CHAT)).toBeUndefined();
    expect(readAppState(undefined, PANEL, { panel: true })).toBeUndefined();
  });

  it("a future format is no state", () => {
    for (const v of [3, 99, "2", null]) {
      const future = standardBase64(JSON.stringify({ v, s: { [CHAT]: 1 } }));
      expect(readAppState(future, CHAT, { panel: true })).toBeUndefined();
    }
  });
});

describe("spellings and earlier forms", () => {
  const state = { q: "??>>~~", emoji: "🙂" };

  it("accepts standard base64, padded or not, and a space for `+`", () => {
    const padded = standardBase64(
      JSON.stringify({ v: 2, s: { [CHAT]: state } }),
    );
    expect(padded).toMatch(/\+/);
    expect(padded).toMatch(/=$/);
    expect(readAppState(padded, CHAT)).toEqual(state);
    expect(readAppState(padded.replace(/=+$/, ""), CHAT)).toEqual(state);
    expect(readAppState(padded.replace(/\+/g, " "), CHAT)).toEqual(state);
    const url = writeAppState(undefined, CHAT, state) as string;
    const urlPadded = url.padEnd(Math.ceil(url.length / 4) * 4, "=");
    expect(readAppState(urlPadded, CHAT)).toEqual(state);
  });

  it("reads 0.1.0 to 0.4.0's `{ v: 1, k, s }` as the slot k", () => {
    const v1 = standardBase64(JSON.stringify({ v: 1, k: PANEL, s: state }));
    expect(readAppState(v1, PANEL, { panel: true })).toEqual(state);
    expect(readAppState(v1, CHAT)).toBeUndefined();
    const next = writeAppState(v1, CHAT, 1);
    expect(readAppState(next, PANEL)).toEqual(state);
    expect(readAppState(next, CHAT)).toBe(1);
  });

  it("reads `{ v: 1 }` without a string key or a state as no state", () => {
    for (const value of [
      { v: 1, k: PANEL },
      { v: 1, k: 7, s: 1 },
    ]) {
      const param = standardBase64(JSON.stringify(value));
      expect(readAppState(param, PANEL, { panel: true })).toBeUndefined();
    }
  });

  it("gives a hand-made base64(JSON) link to the panel's app only", () => {
    const legacy = standardBase64(JSON.stringify({ k: "tab-2", page: 3 }));
    expect(readAppState(legacy, PANEL, { panel: true })).toEqual({
      k: "tab-2",
      page: 3,
    });
    expect(readAppState(legacy, CHAT)).toBeUndefined();
    expect(readAppState(standardBase64("null"), PANEL, { panel: true })).toBe(
      undefined,
    );
  });

  it("ignores a slot written for another app", () => {
    const param = writeAppState(undefined, CHAT, { page: 1 });
    expect(readAppState(param, PANEL, { panel: true })).toBeUndefined();
  });
});

describe("copyAppState", () => {
  it("starts the panel's app from the part's state, keeping the rest", () => {
    let param = writeAppState(undefined, CHAT, { page: 4 });
    param = writeAppState(param, OTHER, { page: 5 });
    const next = copyAppState(param, CHAT, PANEL);
    expect(readAppState(next, PANEL, { panel: true })).toEqual({ page: 4 });
    expect(readAppState(next, CHAT)).toEqual({ page: 4 });
    expect(readAppState(next, OTHER)).toEqual({ page: 5 });
  });

  it("removes the panel's slot when the part has none", () => {
    const param = writeAppState(undefined, PANEL, { page: 1 });
    expect(copyAppState(param, CHAT, PANEL)).toBeUndefined();
  });
});
