/**
 * MCP app state kept in Studio's URL, so a reload, deep link or back/forward
 * navigation hands the app back the state it last reported.
 */

/** Search param that carries the encoded app state. */
export const APP_STATE_PARAM = "appState";

/** Cap on the encoded value, so URLs stay shareable and within server limits. */
export const APP_STATE_MAX_LENGTH = 2048;

// btoa/atob only handle Latin-1 text, so both helpers work on UTF-8 bytes
// spelled out as a binary string.
function bytesToBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary)
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

// Accepts base64url and standard base64, with or without padding.
function base64ToBytes(value: string): Uint8Array {
  const b64 = value.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  const padded = b64.padEnd(Math.ceil(b64.length / 4) * 4, "=");
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

/**
 * Encode `state` for the URL as base64url (RFC 4648 §5, no padding) of
 * `{ v: 1, k: appKey, s: state }`. The key scopes the state to one app, so a
 * link never feeds one app's state to another. Returns null when there is no
 * state (undefined or null), when it cannot be serialized or the result exceeds
 * APP_STATE_MAX_LENGTH.
 */
export function encodeAppState(appKey: string, state: unknown): string | null {
  // null is no state; JSON would drop an undefined `s`.
  if (state === undefined || state === null) return null;
  let json: string;
  try {
    json = JSON.stringify({ v: 1, k: appKey, s: state });
  } catch {
    // circular structures, BigInt, ...
    return null;
  }
  const encoded = bytesToBase64Url(new TextEncoder().encode(json));
  return encoded.length > APP_STATE_MAX_LENGTH ? null : encoded;
}

/**
 * Decode a URL value written by encodeAppState. Never throws: the URL is user
 * input, so anything undecodable yields undefined. Only `{ v: 1, k, s }` with
 * a string `k` is scoped to an app; any other JSON (a hand-made
 * `base64(JSON(state))` link, even an object with a `k` field) is a legacy
 * state that applies to whichever app reads it.
 */
export function decodeAppState(
  appKey: string,
  value: string | null | undefined,
): unknown {
  if (!value) return undefined;
  try {
    const json = new TextDecoder("utf-8", { fatal: true }).decode(
      base64ToBytes(value),
    );
    const parsed: unknown = JSON.parse(json);
    // null is no state (the app's initial view), in any form.
    if (parsed === null) return undefined;
    if (
      typeof parsed !== "object" ||
      !("k" in parsed) ||
      typeof parsed.k !== "string"
    ) {
      return parsed;
    }
    if ("v" in parsed && parsed.v === 1 && "s" in parsed) {
      return parsed.k === appKey ? (parsed.s ?? undefined) : undefined;
    }
    // A later format this code cannot read.
    if ("v" in parsed && parsed.v !== 1) return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

/**
 * encodeAppState for the search param: no state (undefined or null) removes
 * the param; over the cap, warn and drop the param rather than write a URL
 * that is too long to share.
 */
export function toAppStateParam(
  appKey: string,
  state: unknown,
): string | undefined {
  if (state === undefined || state === null) return undefined;
  const encoded = encodeAppState(appKey, state);
  if (encoded === null) {
    console.warn(
      `[MCP App ${appKey}] state is over the ${APP_STATE_MAX_LENGTH}-char limit (or not serializable) and will not be kept in the URL`,
    );
    return undefined;
  }
  return encoded;
}
