import { describe, expect, it, spyOn } from "bun:test";
import {
  APP_STATE_MAX_LENGTH,
  decodeAppState,
  encodeAppState,
  toAppStateParam,
} from "./app-state.ts";

const KEY = "conn-1:my_tool";

// Standard base64 (with padding) of the UTF-8 bytes of `text`.
function standardBase64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary);
}

describe("encodeAppState / decodeAppState", () => {
  it("round-trips plain JSON state", () => {
    const state = { page: 2, filters: ["open", "mine"], nested: { a: null } };
    const encoded = encodeAppState(KEY, state);
    expect(encoded).not.toBeNull();
    expect(decodeAppState(KEY, encoded)).toEqual(state);
  });

  it("round-trips non-ASCII text (emoji, CJK)", () => {
    const state = { title: "日本語のテキスト 🚀🎉", note: "中文 ✓ ñ" };
    const encoded = encodeAppState(KEY, state);
    expect(encoded).not.toBeNull();
    expect(decodeAppState(KEY, encoded)).toEqual(state);
  });

  it("produces unpadded base64url", () => {
    const encoded = encodeAppState(KEY, { q: "??>>~~" });
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("round-trips primitive state", () => {
    expect(decodeAppState(KEY, encodeAppState(KEY, "tab-2"))).toBe("tab-2");
    expect(decodeAppState(KEY, encodeAppState(KEY, 0))).toBe(0);
    expect(decodeAppState(KEY, encodeAppState(KEY, false))).toBe(false);
  });
});

describe("size cap", () => {
  const big = { text: "x".repeat(APP_STATE_MAX_LENGTH) };

  it("returns null when the encoded value is over the cap", () => {
    expect(encodeAppState(KEY, big)).toBeNull();
  });

  it("returns null when the state cannot be serialized", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(encodeAppState(KEY, circular)).toBeNull();
  });

  it("toAppStateParam warns once and returns undefined over the cap", () => {
    const warn = spyOn(console, "warn").mockImplementation(() => {});
    try {
      expect(toAppStateParam(KEY, big)).toBeUndefined();
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });

  it("toAppStateParam returns the encoded value under the cap", () => {
    const warn = spyOn(console, "warn").mockImplementation(() => {});
    try {
      const state = { page: 1 };
      expect(toAppStateParam(KEY, state)).toBe(
        encodeAppState(KEY, state) as string,
      );
      expect(warn).not.toHaveBeenCalled();
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
  ])("%s -> undefined", (_label, value) => {
    expect(() => decodeAppState(KEY, value)).not.toThrow();
    expect(decodeAppState(KEY, value)).toBeUndefined();
  });

  it("null and undefined -> undefined", () => {
    expect(decodeAppState(KEY, null)).toBeUndefined();
    expect(decodeAppState(KEY, undefined)).toBeUndefined();
  });
});

describe("legacy and alternative forms", () => {
  it("accepts a legacy unscoped value for any key", () => {
    const state = { page: 3, label: "héllo 👋" };
    const legacy = standardBase64(JSON.stringify(state));
    expect(legacy).toContain("=");
    expect(decodeAppState(KEY, legacy)).toEqual(state);
    expect(decodeAppState("other:tool", legacy)).toEqual(state);
  });

  it("ignores a scoped value written for another app", () => {
    const encoded = encodeAppState(KEY, { page: 1 });
    expect(decodeAppState("other:tool", encoded)).toBeUndefined();
  });

  it("accepts standard base64 and padded forms of a scoped value", () => {
    const state = { q: "??>>~~", emoji: "🙂" };
    const json = JSON.stringify({ v: 1, k: KEY, s: state });
    const padded = standardBase64(json);
    expect(padded).toMatch(/[+/]/);
    expect(padded).toMatch(/=$/);
    expect(decodeAppState(KEY, padded)).toEqual(state);
    expect(decodeAppState(KEY, padded.replace(/=+$/, ""))).toEqual(state);

    const url = encodeAppState(KEY, state) as string;
    const urlPadded = url.padEnd(Math.ceil(url.length / 4) * 4, "=");
    expect(decodeAppState(KEY, urlPadded)).toEqual(state);
  });
});
