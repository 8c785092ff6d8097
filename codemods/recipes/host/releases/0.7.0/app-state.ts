/**
 * MCP apps' states kept in Studio's URL, one slot per app on the page:
 * base64url of the UTF-8 JSON `{ v: 2, s: { [appKey]: state } }`, slots in
 * the order they were last written.
 */

/** Search param that carries the apps' states. */
export const APP_STATE_PARAM = "appState";

/** Cap on the param's length, so that links stay shareable. */
export const APP_STATE_MAX_LENGTH = 2048;

// Every app on the page reads the same param: it is decoded once per value.
let decoded: { param: string; slots: Map<string, unknown> } | undefined;
const warnedOverCap = new Set<string>();

// Never throws: the URL is user input. Takes base64url or standard base64,
// padded or not, with a `+` that a form decoder turned into a space.
function decode(param: string | null | undefined): Map<string, unknown> {
  if (!param) return new Map();
  if (decoded?.param === param) return decoded.slots;
  let slots = new Map<string, unknown>();
  try {
    const base64 = param.replace(/[ -]/g, "+").replace(/_/g, "/");
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const value = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(bytes),
    );
    if (value?.v === 2 && value.s?.constructor === Object) {
      slots = new Map(Object.entries(value.s));
      // A slot the new value shares with the last one stays the same object,
      // so that its app does not render again.
      for (const [key, state] of decoded?.slots ?? []) {
        const same = JSON.stringify(slots.get(key)) === JSON.stringify(state);
        if (same) slots.set(key, state);
      }
    }
  } catch {
    // not a state: the apps start from their initial view
  }
  decoded = { param, slots };
  return slots;
}

function encode(slots: [appKey: string, state: unknown][]): string {
  const json = JSON.stringify({ v: 2, s: Object.fromEntries(slots) });
  const bytes = new TextEncoder().encode(json);
  const binary = Array.from(bytes, (byte) => String.fromCharCode(byte));
  return btoa(binary.join(""))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** The state of the app `appKey` in the param; undefined for none. */
export function readAppState(
  param: string | null | undefined,
  appKey: string,
): unknown {
  return decode(param).get(appKey) ?? undefined;
}

/**
 * The param with the app's slot written last, or removed for a null state;
 * undefined when no slot is left. Over the cap, the least recently written
 * slots of other apps go first; a state over the cap on its own is not kept
 * (one warning per app), so the URL never points at an older state of it.
 */
export function writeAppState(
  param: string | null | undefined,
  appKey: string,
  state: unknown,
): string | undefined {
  const slots = decode(param);
  const json = JSON.stringify(state ?? null);
  if (JSON.stringify(slots.get(appKey) ?? null) === json) {
    return param || undefined;
  }
  const others = [...slots].filter(([key]) => key !== appKey);
  const fits = state != null && json.length <= APP_STATE_MAX_LENGTH;
  for (let first = 0; fits && first <= others.length; first++) {
    const next = encode([...others.slice(first), [appKey, state]]);
    if (next.length <= APP_STATE_MAX_LENGTH) return next;
  }
  if (state != null && !warnedOverCap.has(appKey)) {
    warnedOverCap.add(appKey);
    console.warn(
      `[MCP App ${appKey}] state over the ${APP_STATE_MAX_LENGTH}-character URL limit: not kept in the URL`,
    );
  }
  return others.length > 0 ? encode(others) : undefined;
}

/** The param with the state of `fromKey` copied to `toKey`. */
export function copyAppState(
  param: string | null | undefined,
  fromKey: string,
  toKey: string,
): string | undefined {
  return writeAppState(param, toKey, readAppState(param, fromKey) ?? null);
}
