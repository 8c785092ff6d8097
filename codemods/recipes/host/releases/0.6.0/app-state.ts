{{compat_import}}/**
 * MCP app state kept in Studio's URL, so a reload, a shared link or
 * back/forward hands each app back the state it last reported. One page
 * shows several apps (tool calls in the thread, the app in the main panel),
 * so the param holds one slot per app, keyed by the app's key.
 */

/** Search param that carries the encoded app states. */
export const APP_STATE_PARAM = "appState";

/** Cap on the encoded value, so URLs stay shareable and within server limits. */
export const APP_STATE_MAX_LENGTH = 2048;
{{compat_schema}}
type Slot = [appKey: string, state: unknown];

// Apps whose state alone is over the cap: warned about once each.
const warnedOverCap: Set<string> = new Set();

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

// Accepts base64url and standard base64, with or without padding, and a `+`
// that a form decoder turned into a space.
function base64ToBytes(value: string): Uint8Array {
  const b64 = value
    .replace(/ /g, "+")
    .replace(/-/g, "+")
    .replace(/_/g, "/")
    .replace(/=+$/, "");
  const padded = b64.padEnd(Math.ceil(b64.length / 4) * 4, "=");
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// What a param holds: the slots, in the order they were last written, and a
// state without a key (a hand-made `base64(JSON(state))` link).
type Decoded = { slots: Slot[]; unscoped: unknown };

function decode(param: string | null | undefined): Decoded {
  const none = { slots: [], unscoped: undefined };
  if (!param) return none;
  let parsed: unknown;
  try {
    const json = new TextDecoder("utf-8", { fatal: true }).decode(
      base64ToBytes(param),
    );
    parsed = JSON.parse(json);
  } catch {
    return none;
  }
  if (!isRecord(parsed) || !("v" in parsed)) {
    return { slots: [], unscoped: parsed ?? undefined };
  }
  if (parsed.v === 2 && isRecord(parsed.s)) {
    const slots = Object.entries(parsed.s).filter(([, state]) => state != null);
    return { slots, unscoped: undefined };
  }
  // Releases before this format kept one app's state: `{ v: 1, k, s }`.
  if (parsed.v === 1 && typeof parsed.k === "string" && parsed.s != null) {
    return { slots: [[parsed.k, parsed.s]], unscoped: undefined };
  }
  // A later format, or a broken one: no state.
  return none;
}

function encode(slots: Slot[]): string | undefined {
  if (slots.length === 0) return undefined;
  // Written by hand so that the slots keep their order whatever the keys.
  const entries: string[] = [];
  for (const [appKey, state] of slots) {
    entries.push(`${JSON.stringify(appKey)}:${JSON.stringify(state)}`);
  }
  const json = `{"v":2,"s":{${entries.join()}}}`;
  return bytesToBase64Url(new TextEncoder().encode(json));
}

/**
 * The state of the app `appKey` in the param; undefined for none. Never
 * throws: the URL is user input. A state without a key (a hand-made link)
 * goes to the main panel's app only (`panel: true`).
 */
export function readAppState(
  param: string | null | undefined,
  appKey: string,
  options?: { panel?: boolean },
): unknown {
  const { slots, unscoped } = decode(param);
  const slot = slots.find(([key]) => key === appKey);
  if (slot) return slot[1];
  return options?.panel ? unscoped : undefined;
}

/**
 * The param with the app's slot written (moved last) or, for no state
 * (undefined or null), removed; undefined when no slot is left. Over the cap,
 * the least recently written slots of other apps go first; a state that is
 * over the cap alone is not kept (with one warning per app), so the URL never
 * points at an older state of the app.
 */
export function writeAppState(
  param: string | null | undefined,
  appKey: string,
  state: unknown,
): string | undefined {
  const { slots } = decode(param);
  const others = slots.filter(([key]) => key !== appKey);
  const current = slots.find(([key]) => key === appKey);
  let json: string | undefined;
  try {
    json = state === null ? undefined : JSON.stringify(state);
  } catch {
    // circular structures, BigInt, ...
  }
  // The value the slot already holds (none included): nothing changes.
  if (json === (current && JSON.stringify(current[1]))) {
    return param ?? undefined;
  }
  if (state === undefined || state === null) return encode(others);
  if (json !== undefined) {
    const own: Slot = [appKey, JSON.parse(json)];
    // Other apps' least recently written slots go first, one by one.
    for (const first of [...others.keys(), others.length]) {
      const next = encode([...others.slice(first), own]);
      if (next !== undefined && next.length <= APP_STATE_MAX_LENGTH) {
        return next;
      }
    }
  }
  if (!warnedOverCap.has(appKey)) {
    warnedOverCap.add(appKey);
    console.warn(
      `[MCP App ${appKey}] state is over the ${APP_STATE_MAX_LENGTH}-char limit (or not serializable) and will not be kept in the URL`,
    );
  }
  return encode(others);
}

/**
 * The param (any search value: not a string is no state) with the state of
 * `fromKey` copied to `toKey`: an app opened in the panel from a chat part
 * starts where the part is.
 */
export function copyAppState(
  param: unknown,
  fromKey: string,
  toKey: string,
): string | undefined {
  const value = typeof param === "string" ? param : undefined;
  return writeAppState(value, toKey, readAppState(value, fromKey));
}

/**
 * The states `before` holds that `after` does not, by app key ("" for a
 * state without a key): what a write left out of the URL.
 */
export function droppedAppStates(
  before: string | null | undefined,
  after: string | null | undefined,
): Record<string, unknown> {
  const next = decode(after);
  const kept = new Set(next.slots.map(([key]) => key));
  const { slots, unscoped } = decode(before);
  const dropped: Record<string, unknown> = {};
  for (const [key, state] of slots) {
    if (!kept.has(key)) dropped[key] = state;
  }
  if (unscoped !== undefined && next.unscoped === undefined) {
    dropped[""] = unscoped;
  }
  return dropped;
}
