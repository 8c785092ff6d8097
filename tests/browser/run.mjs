// The browser test: builds the harness from a codemod output tree, opens it
// in Debian's Chromium through playwright-core (no browser download), runs
// every scenario on one browser and prints one JSON result per scenario.
// Usage: node run.mjs <tree>/apps/mesh/src [scenario...]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { build, requireTool } from "./build.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { chromium } = requireTool("playwright-core");

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const ORIGIN = "http://mesh.test";
const BASE = `${ORIGIN}/acme/task-1`;
const NOTES = "ui://notes/app.html";
// sdk mode on the double of the SDK change: its schema requires `state`
// (SPEC 6), so a report without one never reaches the host (SPEC 2: "an SDK
// that rejects it never delivers it") and the URL keeps the app's state.
const SDK_REJECTS_MISSING_STATE = (process.env.MESH_CODEMOD_BROWSER_SDK || "").endsWith("app-bridge-double.ts");
const MAP = "ui://map/app.html";
const BOARD = "ui://board/app.html";
const APPS = [NOTES, MAP, BOARD];
// Each app's slot (SPEC 2): a chat part by its tool call's id, the panel's
// app by <connectionId>:<toolName> as `main` addresses it.
const KEY = {
  [NOTES]: "call-notes",
  [MAP]: "call-map",
  [BOARD]: "conn-board:show_board",
};
// The fixed settle time before a "nothing else happened" check: messages
// between the page and the iframe are asynchronous. Not a timing assertion.
const SETTLE_MS = 250;

// --- the URL format, written independently of the code under test -------

const b64url = (text) => Buffer.from(text, "utf8").toString("base64url");
const b64 = (text) => Buffer.from(text, "utf8").toString("base64");
// slots in the order they were last written
const encAll = (...slots) =>
  b64url(
    JSON.stringify({
      v: 2,
      s: Object.fromEntries(slots.map(([uri, state]) => [KEY[uri], state])),
    }),
  );
const enc = (uri, state) => encAll([uri, state]);
// 0.1.0 to 0.4.0's one-app form
const encV1 = (uri, state) =>
  b64url(JSON.stringify({ v: 1, k: KEY[uri], s: state }));
const search = (params) => {
  const usp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) usp.set(k, v);
  const text = usp.toString();
  return text ? `?${text}` : "";
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const paramOf = (href) => new URL(href).searchParams.get("appState");

// --- page helpers ----------------------------------------------------------

const snap = (page) => page.evaluate(() => window.__harness.snapshot());

async function ready(page, held = []) {
  await page.waitForFunction(
    ({ apps, held }) => {
      const h = window.__harness;
      if (!h) return false;
      const s = h.snapshot();
      // a page that failed is ready for its assertions
      if (s.errors.length || s.matches.some((m) => m.status === "error"))
        return true;
      return apps.every((uri) =>
        held.includes(uri)
          ? h.isWaiting(uri)
          : s.apps[uri]?.initialized && s.apps[uri]?.hasView,
      );
    },
    { apps: APPS, held },
    { timeout: 10000 },
  );
  const s = await snap(page);
  const failed = s.matches.filter((m) => m.status !== "success");
  if (s.errors.length || failed.length) {
    throw new Error(
      `the page failed: ${JSON.stringify({ errors: s.errors, routes: failed, text: s.text.slice(0, 300) })}`,
    );
  }
}

async function load(page, params = {}, { hold = [] } = {}) {
  await page.goto(`${ORIGIN}/blank`);
  await page.evaluate((hold) => {
    sessionStorage.setItem("harness.hold", JSON.stringify(hold));
  }, hold);
  await page.goto(BASE + search(params));
  await ready(page, hold);
  return snap(page);
}

const init = (s, uri) => s.apps[uri].log.find((e) => e.type === "init");
const pushes = (s, uri) =>
  s.apps[uri].log.filter(
    (e) => e.type === "context" && e.keys.includes("appState"),
  );
const pushedStates = (s, uri) =>
  pushes(s, uri).map((e) => e.params.appState);
const contexts = (s, uri) =>
  s.apps[uri].log.filter((e) => e.type === "context");

async function until(page, predicate, arg, what) {
  try {
    await page.waitForFunction(predicate, arg, { timeout: 10000 });
  } catch {
    const s = await snap(page);
    throw new Error(
      `timed out waiting for ${what}; page state: ${JSON.stringify(s).slice(0, 3000)}`,
    );
  }
}

const untilParam = (
  page,
  value,
  what = "the appState param",
  name = "appState",
) =>
  until(
    page,
    ({ name, value }) =>
      new URL(location.href).searchParams.get(name) === value,
    { name, value },
    `${what} = ${value}`,
  );

const untilView = (page, uri, state) =>
  until(
    page,
    ({ uri, json }) =>
      JSON.stringify(window.__harness.snapshot().apps[uri]?.view) === json,
    { uri, json: JSON.stringify(state) },
    `${uri} to show ${JSON.stringify(state)}`,
  );

const untilInit = (page, uri, count = 1) =>
  until(
    page,
    ({ uri, count }) =>
      (window.__harness.snapshot().apps[uri]?.log ?? []).filter(
        (e) => e.type === "init",
      ).length >= count,
    { uri, count },
    `${uri} to initialize`,
  );

const untilTheme = (page, uri, theme) =>
  until(
    page,
    ({ uri, theme }) =>
      window.__harness
        .snapshot()
        .apps[uri].log.some(
          (e) => e.type === "context" && e.params.theme === theme,
        ),
    { uri, theme },
    `the ${theme} theme push`,
  );

// lets a held app load, and waits for its ui/initialize
async function release(page, uri) {
  await page.evaluate((uri) => window.__harness.release(uri), uri);
  await untilInit(page, uri);
  await sleep(SETTLE_MS);
}

const report = (page, uri, state) =>
  page.evaluate(
    ([uri, state]) => window.__harness.report(uri, state),
    [uri, state],
  );
const reportParams = (page, uri, params) =>
  page.evaluate(
    ([uri, params]) => window.__harness.reportParams(uri, params),
    [uri, params],
  );
const navigate = (page, params) =>
  page.evaluate((params) => window.__harness.navigate(params), params);
const theme = (page, dark) =>
  page.evaluate((dark) => window.__harness.setTheme(dark), dark);

function noErrors(s) {
  assert.deepEqual(s.errors, [], "errors on the page");
  for (const m of s.matches)
    assert.equal(m.status, "success", `route ${m.id}: ${m.error}`);
  assert.match(s.text, /show_notes/, "the thread is not rendered");
}

// --- scenarios -------------------------------------------------------------

const scenarios = {
  // rule 1: absent state means no appState key in hostContext at all
  async absent_state_has_no_key(page) {
    const s = await load(page);
    for (const uri of APPS) {
      assert.equal(
        init(s, uri).hasAppState,
        false,
        `${uri} got an appState key`,
      );
      assert.equal(s.apps[uri].view, "<default>");
    }
    noErrors(s);
  },

  // section 2 + rule 2: base64url of {v,k,s}, written with replace; an equal
  // value navigates nothing
  async report_writes_scoped_param_with_replace(page) {
    const before = await load(page, { tab: "files" });
    const first = { folder: "inbox", id: 7 };
    await report(page, NOTES, first);
    await untilParam(page, enc(NOTES, first));
    let s = await snap(page);
    const value = paramOf(s.href);
    assert.match(value, /^[A-Za-z0-9_-]+$/, "not base64url without padding");
    assert.deepEqual(
      JSON.parse(Buffer.from(value, "base64url").toString("utf8")),
      { v: 2, s: { [KEY[NOTES]]: first } },
    );
    assert.equal(
      new URL(s.href).searchParams.get("tab"),
      "files",
      "other params kept",
    );
    assert.equal(
      s.historyLength,
      before.historyLength,
      "the report added a history entry",
    );
    const second = { folder: "sent", id: 8 };
    await report(page, NOTES, second);
    await untilParam(page, enc(NOTES, second));
    s = await snap(page);
    assert.equal(
      s.historyLength,
      before.historyLength,
      "the second report added a history entry",
    );
    const navigations = s.navigations;
    await report(page, NOTES, { ...second });
    await sleep(SETTLE_MS);
    s = await snap(page);
    assert.equal(s.navigations, navigations, "an equal report navigated");
    return { value };
  },

  // rule 3: never echo back what the app itself just reported
  async no_echo_of_own_report(page) {
    await load(page, { appState: enc(NOTES, { page: 1 }) });
    for (const n of [2, 3, 4]) {
      await report(page, NOTES, { page: n });
      await untilParam(page, enc(NOTES, { page: n }));
    }
    await sleep(SETTLE_MS);
    const s = await snap(page);
    assert.deepEqual(
      pushes(s, NOTES),
      [],
      "the host echoed the app's own report",
    );
    assert.deepEqual(s.apps[NOTES].view, { page: 4 });
    for (const uri of [MAP, BOARD]) assert.deepEqual(pushes(s, uri), []);
  },

  // rule 1 + section 2: a reload restores through ui/initialize, UTF-8 intact
  async reload_restores_non_ascii(page) {
    await load(page);
    const state = {
      title: "Olá, 世界 🌍 “quotes” ñ ß",
      tags: ["ünï", "😀"],
      n: 1,
    };
    await report(page, NOTES, state);
    await untilParam(page, enc(NOTES, state));
    await page.reload();
    await ready(page);
    const s = await snap(page);
    assert.equal(init(s, NOTES).hasAppState, true);
    assert.deepEqual(init(s, NOTES).appState, state);
    assert.deepEqual(s.apps[NOTES].view, state);
    assert.equal(paramOf(s.href), enc(NOTES, state));
  },

  // section 2: the key scopes the state to one app (chat part and panel)
  async other_apps_state_not_applied(page) {
    const notesState = { note: 42 };
    let s = await load(page, { appState: enc(NOTES, notesState) });
    assert.deepEqual(init(s, NOTES).appState, notesState);
    assert.equal(
      init(s, MAP).hasAppState,
      false,
      "the map app got the notes app's state",
    );
    assert.equal(
      init(s, BOARD).hasAppState,
      false,
      "the panel app got the notes app's state",
    );
    const boardState = { column: "done" };
    s = await load(page, { appState: enc(BOARD, boardState) });
    assert.deepEqual(
      init(s, BOARD).appState,
      boardState,
      "the panel app did not get its state",
    );
    assert.equal(init(s, NOTES).hasAppState, false);
    assert.equal(init(s, MAP).hasAppState, false);
  },

  // rule 3: a change from outside while mounted is pushed, once; back/forward too
  async outside_change_pushed_once(page) {
    const a = { view: "a" };
    const b = { view: "b" };
    await load(page, { appState: enc(NOTES, a) });
    await navigate(page, { appState: enc(NOTES, b) });
    await untilView(page, NOTES, b);
    // unrelated changes and a theme push must not resend it
    await navigate(page, { tab: "other" });
    await theme(page, true);
    await sleep(SETTLE_MS);
    let s = await snap(page);
    assert.deepEqual(
      pushedStates(s, NOTES),
      [b],
      "pushed other than once",
    );
    for (const uri of [MAP, BOARD])
      assert.deepEqual(pushes(s, uri), [], `${uri} got a push`);
    await page.goBack(); // tab=other -> appState b (same state: no push)
    await page.goBack(); // appState b -> appState a
    await untilView(page, NOTES, a);
    await sleep(SETTLE_MS);
    s = await snap(page);
    assert.deepEqual(
      pushedStates(s, NOTES),
      [b, a],
      "back was not pushed once",
    );
  },

  // rule 6: a link back to the state the app started from is pushed
  async link_back_to_starting_state_pushed(page) {
    const start = { step: "start" };
    await load(page, { appState: enc(NOTES, start) });
    await report(page, NOTES, { step: "moved" });
    await untilParam(page, enc(NOTES, { step: "moved" }));
    await navigate(page, { appState: enc(NOTES, start) });
    await untilView(page, NOTES, start);
    await sleep(SETTLE_MS);
    const s = await snap(page);
    assert.deepEqual(pushedStates(s, NOTES), [start]);
  },

  // rule 5: a theme push carries no appState, also right after a report
  async theme_push_has_no_app_state(page) {
    await load(page, { appState: enc(NOTES, { t: 0 }) });
    await theme(page, true);
    await untilTheme(page, NOTES, "dark");
    await page.evaluate(async () => {
      const h = window.__harness;
      const done = h.report("ui://notes/app.html", { t: 1 });
      h.setTheme(false); // right after the report
      await done;
    });
    await untilTheme(page, NOTES, "light");
    await untilParam(page, enc(NOTES, { t: 1 }));
    await sleep(SETTLE_MS);
    const s = await snap(page);
    for (const uri of APPS) {
      assert.deepEqual(pushes(s, uri), [], `${uri}: a push carried appState`);
      assert.ok(contexts(s, uri).length >= 2, `${uri}: theme not pushed`);
    }
    assert.deepEqual(s.apps[NOTES].view, { t: 1 });
  },

  // rule 6: a link followed while the app is loading is not lost
  async link_during_loading(page) {
    const a = { id: "a" };
    const b = { id: "b" };
    await load(page, { appState: enc(NOTES, a) }, { hold: [NOTES] });
    await navigate(page, { appState: enc(NOTES, b) });
    await untilParam(page, enc(NOTES, b));
    await sleep(SETTLE_MS);
    await release(page, NOTES);
    let s = await snap(page);
    assert.deepEqual(
      init(s, NOTES).appState,
      b,
      "the app initialized without the newest state",
    );
    assert.deepEqual(s.apps[NOTES].view, b);
    // after initialization, a new state is pushed, once
    const c = { id: "c" };
    await navigate(page, { appState: enc(NOTES, c) });
    await untilView(page, NOTES, c);
    await sleep(SETTLE_MS);
    s = await snap(page);
    assert.deepEqual(pushedStates(s, NOTES), [c]);
  },

  // rules 5 + 6: a theme change while loading keeps the state for ui/initialize
  async theme_during_loading_keeps_state(page) {
    const a = { id: "a" };
    await load(page, { appState: enc(NOTES, a) }, { hold: [NOTES] });
    await theme(page, true);
    await sleep(SETTLE_MS);
    await release(page, NOTES);
    const s = await snap(page);
    assert.equal(init(s, NOTES).theme, "dark", "the theme change was lost");
    assert.deepEqual(
      init(s, NOTES).appState,
      a,
      "the theme change dropped the state",
    );
    assert.deepEqual(s.apps[NOTES].view, a);
  },

  // rule 6: a link, then a theme change, both while loading
  async link_and_theme_during_loading(page) {
    await load(page, { appState: enc(NOTES, { id: "a" }) }, { hold: [NOTES] });
    await navigate(page, { appState: enc(NOTES, { id: "b" }) });
    await untilParam(page, enc(NOTES, { id: "b" }));
    await theme(page, true);
    await sleep(SETTLE_MS);
    await release(page, NOTES);
    const s = await snap(page);
    assert.equal(init(s, NOTES).theme, "dark");
    assert.deepEqual(init(s, NOTES).appState, { id: "b" });
    assert.deepEqual(s.apps[NOTES].view, { id: "b" });
  },

  // section 2: over 2048 characters the app's own slot is removed (other
  // slots stay), with one warning per app and no push to the app
  async cap_removes_param_and_warns_once(page) {
    const overhead = JSON.stringify({ v: 2, s: { [KEY[NOTES]]: "" } }).length;
    const fits = "x".repeat(1536 - overhead); // 1536 bytes -> exactly 2048 chars
    const over = "x".repeat(1536 - overhead + 1); // -> 2050 chars
    assert.equal(enc(NOTES, fits).length, 2048);
    assert.ok(enc(NOTES, over).length > 2048);
    const before = await load(page, { appState: enc(NOTES, { small: true }) });
    await report(page, NOTES, fits);
    await untilParam(page, enc(NOTES, fits), "the param at exactly the cap");
    let s = await snap(page);
    const warns = s.warns.length;
    await report(page, MAP, { map: 1 });
    // the two do not fit: the notes' slot (written less recently) goes
    await untilParam(page, enc(MAP, { map: 1 }), "the notes' slot evicted");
    await report(page, NOTES, over);
    await untilParam(page, enc(MAP, { map: 1 }), "only the map's slot");
    await report(page, NOTES, `${over}y`);
    await sleep(SETTLE_MS);
    s = await snap(page);
    assert.equal(
      s.warns.length - warns,
      1,
      `warnings: ${JSON.stringify(s.warns.slice(warns))}`,
    );
    for (const uri of APPS)
      assert.deepEqual(pushes(s, uri), [], `${uri} was pushed by the cap`);
    assert.equal(s.apps[NOTES].view, `${over}y`);
    assert.equal(
      s.historyLength,
      before.historyLength,
      "the removal added a history entry",
    );
    await page.reload();
    await ready(page);
    s = await snap(page);
    assert.notDeepEqual(
      init(s, NOTES).appState,
      fits,
      "the page went back to an older state",
    );
    assert.deepEqual(init(s, MAP).appState, { map: 1 });
  },

  // section 2: malformed, undecodable or future-format values: default view, no error
  async malformed_or_future_value_gives_default(page) {
    const bad = {
      "not base64": "%%%not*base64%%%",
      "base64 of text": b64url("not json at all"),
      "invalid UTF-8": Buffer.from([0xff, 0xfe, 0x80, 0x81]).toString(
        "base64url",
      ),
      "future format v:3": b64url(
        JSON.stringify({ v: 3, s: { [KEY[NOTES]]: { x: 1 } } }),
      ),
      "v:1 without a state": b64url(JSON.stringify({ v: 1, k: KEY[NOTES] })),
      "future format v:99": b64url(
        JSON.stringify({ v: 99, k: KEY[NOTES], s: { x: 1 } }),
      ),
      "a number (schema)": "123",
      "an object (schema)": '{"a":1}',
    };
    const failures = [];
    for (const [label, value] of Object.entries(bad)) {
      try {
        const s = await load(page, { appState: value });
        noErrors(s);
        for (const uri of APPS) {
          assert.equal(init(s, uri).hasAppState, false, `${uri} got a state`);
          assert.equal(s.apps[uri].view, "<default>");
        }
      } catch (error) {
        failures.push(`${label} (${value}): ${error.message}`);
      }
    }
    assert.deepEqual(failures, [], failures.join("\n"));
    return Object.keys(bad);
  },

  // section 2: a hand-made legacy link opens the panel's app only; 0.4.0's
  // one-app form, and standard base64 with padding (a `+` read as a space
  // too), are accepted
  async legacy_link_applies(page) {
    const withK = { k: "not-a-key", view: "legacy" }; // an object with a k field
    const legacy = {
      "object with k, standard base64": b64(JSON.stringify(withK)),
      "string, base64url": b64url(JSON.stringify("plain ✓ string")),
      "array, standard base64": b64(JSON.stringify([1, ">>>", "???"])),
    };
    const failures = [];
    for (const [label, value] of Object.entries(legacy)) {
      const state = JSON.parse(Buffer.from(value, "base64").toString("utf8"));
      const s = await load(page, { appState: value });
      try {
        assert.deepEqual(init(s, BOARD).appState, state);
        for (const uri of [NOTES, MAP])
          assert.equal(init(s, uri).hasAppState, false, `${uri} got it`);
      } catch (error) {
        failures.push(`${label}: ${error.message}`);
      }
    }
    assert.deepEqual(failures, [], failures.join("\n"));
    const scoped = { std: "+/?" };
    const std = b64(JSON.stringify({ v: 2, s: { [KEY[NOTES]]: scoped } }));
    assert.match(std, /[+/=]/, "the sample should need standard base64");
    let s = await load(page, { appState: std });
    assert.deepEqual(
      init(s, NOTES).appState,
      scoped,
      "standard base64 with padding",
    );
    assert.equal(init(s, MAP).hasAppState, false);
    // a `+` that a form decoder turned into a space
    await page.goto(`${BASE}?appState=${std.replace(/\+/g, " ")}`);
    await ready(page);
    s = await snap(page);
    assert.deepEqual(init(s, NOTES).appState, scoped, "a space for `+`");
    s = await load(page, { appState: encV1(BOARD, { v1: true }) });
    assert.deepEqual(init(s, BOARD).appState, { v1: true }, "0.4.0's form");
    assert.equal(init(s, NOTES).hasAppState, false);
  },

  // section 2: a report of `undefined` removes the param
  async undefined_report_removes_param(page) {
    const before = await load(page, {
      appState: enc(NOTES, { x: 1 }),
      tab: "files",
    });
    await report(page, NOTES, undefined);
    if (SDK_REJECTS_MISSING_STATE) {
      await sleep(SETTLE_MS);
      const kept = await snap(page);
      assert.equal(
        new URL(kept.href).searchParams.get("appState"),
        enc(NOTES, { x: 1 }),
        "a report the SDK rejects changed the URL",
      );
      return;
    }
    await untilParam(page, null, "no appState param");
    await sleep(SETTLE_MS);
    const s = await snap(page);
    assert.equal(new URL(s.href).searchParams.get("tab"), "files");
    assert.equal(s.historyLength, before.historyLength);
    // a removal, not an over-the-cap state: nothing to warn about
    assert.deepEqual(
      s.warns.slice(before.warns.length),
      [],
      "a warning for a state-less report",
    );
  },

  // section 2: an older app's report without a state (`params: {}`) removes
  // the param, like undefined
  async empty_params_report_removes_param(page) {
    const before = await load(page, {
      appState: enc(NOTES, { x: 1 }),
      tab: "files",
    });
    await reportParams(page, NOTES, {});
    if (SDK_REJECTS_MISSING_STATE) {
      await sleep(SETTLE_MS);
      const kept = await snap(page);
      assert.equal(
        new URL(kept.href).searchParams.get("appState"),
        enc(NOTES, { x: 1 }),
        "a report the SDK rejects changed the URL",
      );
      return;
    }
    await untilParam(page, null, "no appState param");
    await sleep(SETTLE_MS);
    const s = await snap(page);
    assert.equal(new URL(s.href).searchParams.get("tab"), "files");
    assert.equal(s.historyLength, before.historyLength);
    assert.deepEqual(s.warns.slice(before.warns.length), []);
    assert.deepEqual(pushes(s, NOTES), [], "the removal was echoed");
  },

  // section 2: `state: null` is no state: the param goes, null is not stored
  async null_report_removes_param(page) {
    const before = await load(page, { tab: "files" });
    await report(page, NOTES, { x: 2 });
    await untilParam(page, enc(NOTES, { x: 2 }));
    await report(page, NOTES, null);
    await untilParam(page, null, "no appState param");
    await sleep(SETTLE_MS);
    const s = await snap(page);
    assert.equal(new URL(s.href).searchParams.get("tab"), "files");
    assert.equal(s.historyLength, before.historyLength);
    assert.deepEqual(s.warns.slice(before.warns.length), []);
    assert.deepEqual(pushes(s, NOTES), [], "the removal was echoed");
  },

  // rule 3: back to a URL without the param, the mounted app hears
  // appState: null (host-context-changed is a partial update)
  async param_removed_pushes_null(page) {
    const a = { view: "a" };
    const b = { view: "b" };
    await load(page, { appState: enc(NOTES, a) });
    await navigate(page, { appState: enc(NOTES, b) });
    await untilView(page, NOTES, b);
    await navigate(page, { appState: undefined });
    await untilParam(page, null, "no appState param");
    await untilView(page, NOTES, null);
    await sleep(SETTLE_MS);
    let s = await snap(page);
    assert.deepEqual(pushedStates(s, NOTES), [b, null]);
    for (const uri of [MAP, BOARD])
      assert.deepEqual(pushes(s, uri), [], `${uri} got a push`);
    // back to the state, and forward to none again
    await page.goBack();
    await untilView(page, NOTES, b);
    await page.goForward();
    await untilView(page, NOTES, null);
    await sleep(SETTLE_MS);
    s = await snap(page);
    assert.deepEqual(pushedStates(s, NOTES), [b, null, b, null]);
  },

  // rule 8: the host advertises the appState capability, with maxLength, to
  // every app whose site keeps state
  async host_capabilities_include_app_state(page) {
    const s = await load(page);
    for (const uri of APPS) {
      const event = s.apps[uri].log.find((e) => e.type === "capabilities");
      assert.ok(event, `${uri} saw no ui/initialize result`);
      assert.deepEqual(
        event.hostCapabilities.appState,
        { maxLength: 1024 },
        `${uri}: no appState capability in ${JSON.stringify(event.hostCapabilities)}`,
      );
    }
  },

  // rule 4: a notification for a bridge that was torn down is ignored
  async stale_bridge_ignored(page) {
    const kept = { kept: true };
    await load(page, { appState: enc(NOTES, kept) });
    await page.evaluate(() => window.__harness.remount("show_notes"));
    await untilInit(page, NOTES, 2);
    await sleep(SETTLE_MS);
    const navigations = (await snap(page)).navigations;
    const called = await page.evaluate(() =>
      window.__harness.notifyStaleBridges("show_notes", { stale: true }),
    );
    assert.ok(
      called >= 1,
      `no torn-down bridge to notify: ${JSON.stringify((await snap(page)).bridges)}`,
    );
    await sleep(SETTLE_MS);
    const s = await snap(page);
    assert.equal(
      paramOf(s.href),
      enc(NOTES, kept),
      "a torn-down bridge wrote the URL",
    );
    assert.equal(s.navigations, navigations, "a torn-down bridge navigated");
    assert.deepEqual(init(s, NOTES).appState, kept);
    return { staleHandlersCalled: called };
  },

  // rule 2: fast reports compose on the router's current search: the URL
  // ends at the last report, and the app hears none of them back
  async fast_reports_end_at_last_report(page) {
    const before = await load(page, { appState: enc(NOTES, "O") });
    const live = await page.evaluate(() =>
      window.__harness.burst("show_notes", ["A", "O", "B", "O"]),
    );
    assert.equal(live, 1, "no live bridge for the notes part");
    await untilParam(page, enc(NOTES, "O"));
    await sleep(SETTLE_MS);
    const s = await snap(page);
    assert.equal(paramOf(s.href), enc(NOTES, "O"), "the URL left at another report");
    assert.deepEqual(pushes(s, NOTES), [], "a report was pushed back");
    assert.equal(s.historyLength, before.historyLength);
  },

  // section 2 + rules 1, 3: two tool calls keep two states; a report of one
  // never reaches the other; reload and back/forward restore each
  async separate_apps_keep_separate_states(page) {
    await load(page);
    await report(page, NOTES, { n: 1 });
    await report(page, MAP, { m: 1 });
    await report(page, BOARD, { b: 1 });
    const first = encAll([NOTES, { n: 1 }], [MAP, { m: 1 }], [BOARD, { b: 1 }]);
    await untilParam(page, first);
    let s = await snap(page);
    for (const uri of APPS) assert.deepEqual(pushes(s, uri), [], `${uri} pushed`);
    await page.reload();
    await ready(page);
    s = await snap(page);
    assert.deepEqual(init(s, NOTES).appState, { n: 1 });
    assert.deepEqual(init(s, MAP).appState, { m: 1 });
    assert.deepEqual(init(s, BOARD).appState, { b: 1 });
    const second = encAll([NOTES, { n: 2 }], [MAP, { m: 1 }], [BOARD, { b: 2 }]);
    await navigate(page, { appState: second });
    await untilView(page, NOTES, { n: 2 });
    await untilView(page, BOARD, { b: 2 });
    await page.goBack();
    await untilView(page, NOTES, { n: 1 });
    await untilView(page, BOARD, { b: 1 });
    await sleep(SETTLE_MS);
    s = await snap(page);
    assert.deepEqual(pushedStates(s, NOTES), [{ n: 2 }, { n: 1 }]);
    assert.deepEqual(pushedStates(s, MAP), [], "the map's slot did not change");
    assert.deepEqual(pushedStates(s, BOARD), [{ b: 2 }, { b: 1 }]);
  },

  // rule 7: a URL change re-renders only parts whose app state may have changed
  async render_count(page) {
    await load(page, { appState: enc(NOTES, { n: 0 }), tab: "a" });
    const counts = {};
    await page.evaluate(() => window.__harness.resetRenders());
    await navigate(page, { appState: enc(NOTES, { n: 1 }) });
    await untilView(page, NOTES, { n: 1 });
    await sleep(SETTLE_MS);
    counts.appStateChange = (await snap(page)).renders;
    await page.evaluate(() => window.__harness.resetRenders());
    await navigate(page, { tab: "b" });
    await untilParam(page, "b", "the tab param", "tab");
    await sleep(SETTLE_MS);
    counts.unrelatedChange = (await snap(page)).renders;
    const of = (c, title) => c[title] ?? 0;
    // the witness works: the part that shows the changed app did render
    assert.ok(
      of(counts.appStateChange, "show_notes") >= 1,
      `counts: ${JSON.stringify(counts)}`,
    );
    assert.equal(
      of(counts.appStateChange, "search_docs"),
      0,
      `a part without an app re-rendered on an appState change: ${JSON.stringify(counts)}`,
    );
    for (const title of ["show_notes", "show_map", "search_docs"]) {
      assert.equal(
        of(counts.unrelatedChange, title),
        0,
        `${title} re-rendered on an unrelated change: ${JSON.stringify(counts)}`,
      );
    }
    return counts;
  },

  // the panel app (project-app-view.tsx): reports with replace, restores on reload
  async panel_app_reports_and_restores(page) {
    const before = await load(page);
    const state = { column: "doing", card: "Ünïcode ✓" };
    await report(page, BOARD, state);
    await untilParam(page, enc(BOARD, state));
    assert.equal((await snap(page)).historyLength, before.historyLength);
    await page.reload();
    await ready(page);
    const s = await snap(page);
    assert.deepEqual(init(s, BOARD).appState, state);
    assert.equal(init(s, NOTES).hasAppState, false);
  },
};

// --- main ------------------------------------------------------------------

async function main() {
  if (process.argv.includes("--list")) {
    console.log(JSON.stringify(Object.keys(scenarios)));
    return;
  }
  const [src, ...only] = process.argv.slice(2);
  if (!src)
    throw new Error(
      "usage: node run.mjs <tree>/apps/mesh/src [scenario...] | --list",
    );
  const out = mkdtempSync(path.join(tmpdir(), "mesh-codemod-browser-"));
  const profile = mkdtempSync(path.join(tmpdir(), "mesh-codemod-chromium-"));
  const results = {};
  let context;
  try {
    await build(src, out, process.env.MESH_CODEMOD_BROWSER_SDK || "released");
    const files = {
      "/host.js": readFileSync(path.join(out, "host.js")),
      "/demo-app.js": readFileSync(path.join(out, "demo-app.js")),
    };
    const html = readFileSync(path.join(HERE, "index.html"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) return route.abort();
      if (files[url.pathname]) {
        return route.fulfill({
          body: files[url.pathname],
          contentType: "text/javascript",
        });
      }
      if (url.pathname === "/blank")
        return route.fulfill({
          body: "<!doctype html>",
          contentType: "text/html",
        });
      return route.fulfill({ body: html, contentType: "text/html" });
    });
    const page = context.pages()[0] ?? (await context.newPage());
    for (const [name, scenario] of Object.entries(scenarios)) {
      if (only.length && !only.includes(name)) continue;
      const started = Date.now();
      try {
        await theme(page, false).catch(() => {});
        const details = await scenario(page);
        results[name] = {
          ok: true,
          details: details ?? null,
          ms: Date.now() - started,
        };
      } catch (error) {
        results[name] = {
          ok: false,
          error: String(error?.stack ?? error),
          ms: Date.now() - started,
        };
      }
    }
  } finally {
    await context?.close();
    rmSync(out, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
  console.log(JSON.stringify(results));
}

await main();
