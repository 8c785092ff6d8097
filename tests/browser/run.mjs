// The browser test: builds the harness from a codemod output tree, opens it
// in Debian's Chromium through playwright-core (no browser download), runs
// every scenario on one browser and prints one JSON result per scenario.
// Usage: node run.mjs <tree>/apps/mesh/src [scenario...] | --list
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
// The thread's apps, by their keys (the tool call ids); `uri` is the app's
// resource, which the demo app logs under.
const APPS = Array.from({ length: 8 }, (_, i) => `call_${i + 1}`);
const uri = (key) =>
  key.startsWith("conn:")
    ? `ui://panel-${key.slice(5)}/app.html`
    : `ui://app-${key.slice(5)}/app.html`;
const DETAILS = "ui://details/app.html";
// The fixed settle time before a "nothing else happened" check: messages
// between the page and the iframes are asynchronous. Not a timing assertion.
const SETTLE_MS = 250;
const CAP = 2048;

// --- the URL format, written independently of the code under test -------

// slots in the order they were last written: [[key, state], ...]
const enc = (slots) =>
  Buffer.from(
    JSON.stringify({ v: 2, s: Object.fromEntries(slots) }),
    "utf8",
  ).toString("base64url");
const slotsOf = (href) => {
  const param = new URL(href).searchParams.get("appState");
  if (!param) return {};
  return JSON.parse(Buffer.from(param, "base64url").toString("utf8")).s;
};
// The slots after `key` writes `state`: others least recently written go
// first until the value fits the cap.
function written(slots, key, state) {
  const others = slots.filter(([k]) => k !== key);
  while (enc([...others, [key, state]]).length > CAP) others.shift();
  return [...others, [key, state]];
}
const search = (params) => {
  const text = new URLSearchParams(params).toString();
  return text ? `?${text}` : "";
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const settle = () => sleep(SETTLE_MS);

// --- page helpers ----------------------------------------------------------

const snap = (page) => page.evaluate(() => window.__harness.snapshot());
const log = (s, key) => s.apps[uri(key)]?.log ?? [];
const init = (s, key) => log(s, key).find((e) => e.type === "init");
const view = (s, key) => log(s, key).findLast((e) => e.type === "view")?.state;
// what the host pushed to the app after its initialization
const pushes = (s, key) =>
  log(s, key)
    .filter((e) => e.type === "context" && e.initialized)
    .filter((e) => e.keys.includes("appState"))
    .map((e) => e.appState);
function noPushes(s, keys = APPS) {
  const got = Object.fromEntries(keys.map((k) => [k, pushes(s, k)]));
  assert.deepEqual(got, Object.fromEntries(keys.map((k) => [k, []])));
}
function noErrors(s) {
  assert.deepEqual(s.errors, [], "errors on the page");
  for (const m of s.matches)
    assert.equal(m.status, "success", `route ${m.id}: ${m.error}`);
}

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

const untilInit = (page, key) =>
  until(
    page,
    (u) => window.__harness.snapshot().apps[u]?.log.some((e) => e.type === "init"),
    uri(key),
    `${key} to initialize`,
  );

async function load(page, params = {}, { hold = [], panel = null } = {}) {
  await page.goto(`${ORIGIN}/blank`);
  await page.evaluate((hold) => {
    sessionStorage.setItem("harness.hold", JSON.stringify(hold));
  }, hold.map(uri));
  await page.goto(BASE + search(params));
  const expected = [...APPS, ...(panel ? [panel] : [])].map(uri);
  await until(
    page,
    ({ expected, held }) => {
      const h = window.__harness;
      if (!h) return false;
      const s = h.snapshot();
      // a page that failed is ready for its assertions
      if (s.errors.length || s.matches.some((m) => m.status === "error"))
        return true;
      const started = (u) => s.apps[u]?.log.some((e) => e.type === "init");
      return (
        started("ui://details/app.html") &&
        expected.every((u) => (held.includes(u) ? h.isWaiting(u) : started(u)))
      );
    },
    { expected, held: hold.map(uri) },
    "the apps to initialize",
  );
  await settle();
  const s = await snap(page);
  noErrors(s);
  return s;
}

// each state, one after the other in one task of the page
const report = (page, key, states) =>
  page.evaluate(
    ([u, states]) => window.__harness.report(u, states),
    [uri(key), states],
  );
const navigate = (page, params, replace = false) =>
  page.evaluate(
    ([params, replace]) => window.__harness.navigate(params, replace),
    [params, replace],
  );
// as the browser's Back button: a traversal of the history
const back = (page) => page.evaluate(() => history.back());
const theme = (page, dark) =>
  page.evaluate((dark) => window.__harness.setTheme(dark), dark);

const untilSlots = (page, slots, what = "the appState param") =>
  until(
    page,
    (value) => (new URL(location.href).searchParams.get("appState") ?? "") === value,
    slots.length ? enc(slots) : "",
    `${what} = ${JSON.stringify(slots).slice(0, 200)}`,
  );
const untilView = (page, key, state) =>
  until(
    page,
    ([u, json]) =>
      JSON.stringify(
        window.__harness
          .snapshot()
          .apps[u]?.log.findLast((e) => e.type === "view")?.state,
      ) === json,
    [uri(key), JSON.stringify(state)],
    `${key} to show ${JSON.stringify(state)}`,
  );

// --- scenarios -------------------------------------------------------------

const scenarios = {
  // the app's slot, base64url of {v: 2, s}, written with replace (one history
  // write, other params kept); a reload starts the app from it
  async a_report_writes_the_url_and_a_reload_restores_it(page) {
    const before = await load(page, { tab: "files" });
    const state = { title: "Olá, 世界 🌍 “quotes” ñ", tags: ["ünï", "😀"] };
    await report(page, "call_1", [state]);
    await untilSlots(page, [["call_1", state]]);
    await settle();
    let s = await snap(page);
    const value = new URL(s.href).searchParams.get("appState");
    assert.match(value, /^[A-Za-z0-9_-]+$/, "not base64url without padding");
    assert.equal(new URL(s.href).searchParams.get("tab"), "files");
    assert.equal(s.historyLength, before.historyLength, "a history entry added");
    assert.equal(s.historyWrites - before.historyWrites, 1);
    // the value the slot already holds navigates nothing
    await report(page, "call_1", [JSON.parse(JSON.stringify(state))]);
    await settle();
    assert.equal((await snap(page)).historyWrites - before.historyWrites, 1);
    noPushes(s);
    await page.reload();
    await untilInit(page, "call_8");
    await settle();
    s = await snap(page);
    noErrors(s);
    assert.deepEqual(init(s, "call_1").appState, state);
    assert.deepEqual(view(s, "call_1"), state);
    assert.equal(init(s, "call_2").hasAppState, false, "another app's state");
  },

  // a link opened in a new page: each app, the panel's too, starts from its
  // own slot; an app without one (or a site that keeps no state) from none
  async a_shared_link_starts_each_app_from_its_own_slot(page) {
    const slots = [
      ["call_3", { page: 3 }],
      ["conn:tool_5", "panel"],
      ["call_1", ["first"]],
    ];
    const s = await load(
      page,
      { main: "app:conn:tool_5", appState: enc(slots) },
      { panel: "conn:tool_5" },
    );
    for (const [key, state] of slots) {
      assert.deepEqual(init(s, key).appState, state, key);
      assert.deepEqual(view(s, key), state, key);
    }
    for (const key of APPS.filter((k) => !["call_1", "call_3"].includes(k))) {
      assert.equal(init(s, key).hasAppState, false, key);
    }
    assert.equal(s.apps[DETAILS].log.find((e) => e.type === "init").hasAppState, false);
    assert.deepEqual(slotsOf(s.href), Object.fromEntries(slots));
    noPushes(s, [...APPS, "conn:tool_5"]);
  },

  // a state over the cap on its own: its slot removed (other slots kept), one
  // warning, and the app keeps its view through Studio's other navigations
  async an_over_cap_app_then_another_params_navigation_pushes_nothing(page) {
    await load(page, {
      appState: enc([
        ["call_1", "small"],
        ["call_2", "kept"],
      ]),
    });
    const big = { text: "x".repeat(3000) };
    await report(page, "call_1", [big]);
    await untilSlots(page, [["call_2", "kept"]]);
    const bigger = { text: "y".repeat(3000) };
    await report(page, "call_1", [bigger]);
    await settle();
    await navigate(page, { tab: "files" }); // a tab change: a new entry
    await navigate(page, { main: "0" }, true); // a panel toggle replaces it
    await settle();
    const s = await snap(page);
    assert.equal(s.search.tab, "files");
    assert.equal(s.search.main, "0");
    assert.deepEqual(slotsOf(s.href), { call_2: "kept" });
    noPushes(s);
    assert.deepEqual(view(s, "call_1"), bigger);
    const warns = s.warns.filter((w) => w.includes("call_1"));
    assert.equal(warns.length, 1, `warnings: ${JSON.stringify(s.warns)}`);
  },

  // eight apps of 280 characters: the three least recently written are
  // evicted; then Studio's navigations push nothing and every app keeps its view
  async eight_apps_three_evicted_then_a_navigation_pushes_nothing(page) {
    await load(page);
    let slots = [];
    for (const key of APPS) {
      const state = `${key}:${"y".repeat(280)}`;
      slots = written(slots, key, state);
      await report(page, key, [state]);
      await untilSlots(page, slots);
    }
    assert.deepEqual(
      slots.map(([k]) => k),
      APPS.slice(3),
      "the test's own arithmetic",
    );
    await navigate(page, { tab: "files" });
    await navigate(page, { main: "0" }, true);
    await settle();
    const s = await snap(page);
    noPushes(s);
    for (const key of APPS) assert.equal(view(s, key), `${key}:${"y".repeat(280)}`);
    assert.deepEqual(Object.keys(slotsOf(s.href)), APPS.slice(3));
  },

  // reports A, B, A in one task, before the page renders again, then Back
  // to an entry whose slot is B: the app is told B
  async a_burst_then_back_pushes_the_entrys_state(page) {
    await load(page);
    await report(page, "call_1", ["B"]);
    await untilSlots(page, [["call_1", "B"]]);
    await navigate(page, { appState: enc([["call_1", "C"]]) });
    await untilView(page, "call_1", "C");
    await settle();
    await page.evaluate(() => window.__harness.slowRoute(40));
    await report(page, "call_1", ["A", "B", "A"]);
    await untilSlots(page, [["call_1", "A"]]);
    await settle();
    await back(page);
    await untilView(page, "call_1", "B");
    await settle();
    const s = await snap(page);
    assert.deepEqual(pushes(s, "call_1"), ["C", "B"]);
    noPushes(s, APPS.slice(1));
  },

  // back and forward push the app its slot of the entry, null when it has none
  async back_and_forward_push_the_slot_and_null_when_it_goes(page) {
    await load(page, { appState: enc([["call_2", "other"]]) });
    await navigate(page, { tab: "files" });
    await report(page, "call_1", ["x"]);
    await untilSlots(page, [
      ["call_2", "other"],
      ["call_1", "x"],
    ]);
    await settle();
    await back(page);
    await untilView(page, "call_1", null);
    await page.evaluate(() => history.forward());
    await untilView(page, "call_1", "x");
    await settle();
    const s = await snap(page);
    assert.deepEqual(pushes(s, "call_1"), [null, "x"]);
    noPushes(s, APPS.slice(1));
  },

  // Back to an entry whose route takes a while to load, while another app
  // reports (its write replaces the entry before the router renders it): the
  // app whose slot went is still told null, the reporting app nothing
  async back_while_another_app_reports_still_pushes(page) {
    await load(page, { appState: enc([["call_2", "other"]]) });
    await navigate(page, { tab: "files" });
    await report(page, "call_1", ["x"]);
    await untilSlots(page, [
      ["call_2", "other"],
      ["call_1", "x"],
    ]);
    await settle();
    await page.evaluate(() => window.__harness.slowRoute(80));
    await back(page);
    await report(page, "call_2", ["moved"]);
    await untilSlots(page, [["call_2", "moved"]]);
    await untilView(page, "call_1", null);
    await settle();
    const s = await snap(page);
    assert.deepEqual(pushes(s, "call_1"), [null]);
    noPushes(s, APPS.filter((k) => k !== "call_1"));
  },

  // a followed link is pushed once, also a link back to the state the app
  // started from
  async a_link_followed_pushes_once_even_back_to_the_start(page) {
    await load(page, { appState: enc([["call_1", "start"]]) });
    await report(page, "call_1", ["moved"]);
    await untilSlots(page, [["call_1", "moved"]]);
    await navigate(page, { appState: enc([["call_1", "start"]]) });
    await untilView(page, "call_1", "start");
    await navigate(page, { appState: enc([["call_1", "next"]]) });
    await untilView(page, "call_1", "next");
    await settle();
    const s = await snap(page);
    assert.deepEqual(pushes(s, "call_1"), ["start", "next"]);
    noPushes(s, APPS.slice(1));
  },

  // only {v: 2, s} is read: an earlier form, a future one, bytes that do
  // not decode, or a value the router parses into something else than a
  // string start every app from its initial view, and the route does not fail
  async an_undecodable_or_earlier_form_is_no_state(page) {
    const b64url = (value) =>
      Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
    for (const value of [
      b64url({ v: 1, k: "call_1", s: "old" }),
      b64url({ call_1: "unscoped" }),
      b64url({ v: 3, s: { call_1: "future" } }),
      "%%not base64",
      JSON.stringify({ v: 2, s: { call_1: "not base64" } }),
    ]) {
      const s = await load(page, { appState: value });
      for (const key of APPS) {
        assert.equal(init(s, key).hasAppState, false, `${key} from ${value}`);
      }
    }
  },

  // a report without `state` is malformed: it neither clears nor replaces
  async a_report_without_state_is_ignored(page) {
    await load(page);
    await report(page, "call_1", ["x"]);
    await untilSlots(page, [["call_1", "x"]]);
    await settle();
    const before = await snap(page);
    for (const params of [{}, { other: 1 }]) {
      await page.evaluate(
        ([u, p]) => window.__harness.reportParams(u, p),
        [uri("call_1"), params],
      );
    }
    await settle();
    const s = await snap(page);
    assert.equal(s.href, before.href);
    assert.equal(s.historyWrites, before.historyWrites);
    assert.equal(view(s, "call_1"), "x");
    noPushes(s);
  },

  // 60 reports of two apps in one animation frame: one history write, the
  // URL at each app's last report
  async sixty_reports_in_one_frame_make_one_history_write(page) {
    await load(page);
    const before = await snap(page);
    await page.evaluate(() => window.__harness.holdFrames());
    await page.evaluate(
      ([one, two]) => {
        for (let i = 1; i <= 30; i++) {
          window.__harness.report(one, [{ i }]);
          window.__harness.report(two, [i]);
        }
      },
      [uri("call_1"), uri("call_2")],
    );
    await settle(); // every report reaches the host within the held frame
    await page.evaluate(() => window.__harness.releaseFrames());
    await untilSlots(page, [
      ["call_1", { i: 30 }],
      ["call_2", 30],
    ]);
    await settle();
    const s = await snap(page);
    assert.equal(s.historyWrites - before.historyWrites, 1);
    noPushes(s);
  },

  // a link followed and a theme changed while the app loads: it starts from
  // the newest state and theme, and is not pushed them again
  async a_link_and_a_theme_while_the_app_loads_start_it_from_the_newest(page) {
    await load(page, { appState: enc([["call_1", "start"]]) }, { hold: ["call_1"] });
    await navigate(page, { appState: enc([["call_1", "link"]]) });
    await theme(page, true);
    await settle();
    await page.evaluate((u) => window.__harness.release(u), uri("call_1"));
    await untilInit(page, "call_1");
    await settle();
    const s = await snap(page);
    assert.equal(init(s, "call_1").appState, "link");
    assert.equal(init(s, "call_1").theme, "dark");
    noPushes(s);
  },

  // reports across frames while renders keep up or lag behind: the app is
  // never told back what it reported
  async no_echo_when_reports_come_faster_than_renders(page) {
    await load(page);
    const seen = {};
    for (const [round, lag] of [
      ["quick", 0],
      ["late", 40],
    ]) {
      if (lag) await page.evaluate((ms) => window.__harness.slowRoute(ms), lag);
      seen[round] = await page.evaluate(async (u) => {
        const params = new Set();
        for (let i = 1; i <= 40; i++) {
          window.__harness.report(u, [{ step: i }]);
          params.add(new URL(location.href).searchParams.get("appState"));
          await new Promise((r) => setTimeout(r, 2 + (i % 4)));
        }
        return params.size;
      }, uri("call_1"));
      await untilSlots(page, [["call_1", { step: 40 }]]);
      await sleep(500);
    }
    const s = await snap(page);
    assert.ok(seen.late > 3, `several writes while renders lagged: ${seen.late}`);
    noPushes(s);
    assert.deepEqual(view(s, "call_1"), { step: 40 });
    return seen;
  },

  // "Show in side panel": the panel's app starts from the part's state (its
  // slot copied to <connectionId>:<toolName> in the same navigation)
  async open_in_panel_starts_the_panels_app_from_the_part(page) {
    const before = await load(page);
    await report(page, "call_2", [{ page: 4 }]);
    await untilSlots(page, [["call_2", { page: 4 }]]);
    await settle();
    await page.evaluate(() =>
      window.__harness.click("call_2", "Show in side panel"),
    );
    await untilInit(page, "conn:tool_2");
    await settle();
    const s = await snap(page);
    const url = new URL(s.href);
    assert.equal(url.searchParams.get("main"), "app:conn:tool_2");
    assert.deepEqual(slotsOf(s.href), {
      call_2: { page: 4 },
      "conn:tool_2": { page: 4 },
    });
    assert.equal(s.historyLength, before.historyLength, "a history entry added");
    assert.deepEqual(init(s, "conn:tool_2").appState, { page: 4 });
    noPushes(s, [...APPS, "conn:tool_2"]);
  },

  // theme pushes carry the theme and never the app's state
  async theme_pushes_resend_no_state(page) {
    await load(page, { appState: enc([["call_1", "start"]]) });
    await report(page, "call_1", ["moved"]);
    await untilSlots(page, [["call_1", "moved"]]);
    for (const dark of [true, false]) {
      await theme(page, dark);
      await until(
        page,
        ([u, t]) =>
          window.__harness
            .snapshot()
            .apps[u].log.some((e) => e.type === "context" && e.params.theme === t),
        [uri("call_1"), dark ? "dark" : "light"],
        "the theme push",
      );
    }
    await settle();
    const s = await snap(page);
    noPushes(s);
    assert.equal(view(s, "call_1"), "moved");
  },

  // a change of one app's slot re-renders that part alone; a navigation of
  // another param, no part; a part without an app, never
  async only_the_part_whose_slot_changed_renders(page) {
    await load(page);
    await report(page, "call_1", [{ deep: { a: [1] } }]);
    await untilSlots(page, [["call_1", { deep: { a: [1] } }]]);
    await settle();
    await page.evaluate(() => window.__harness.resetRenders());
    await report(page, "call_2", [{ deep: { b: [2] } }]);
    await untilSlots(page, [
      ["call_1", { deep: { a: [1] } }],
      ["call_2", { deep: { b: [2] } }],
    ]);
    await settle();
    const afterReport = (await snap(page)).renders;
    await page.evaluate(() => window.__harness.resetRenders());
    await navigate(page, { tab: "files" });
    await settle();
    const afterNavigation = (await snap(page)).renders;
    assert.deepEqual(Object.keys(afterReport), ["tool_2"], JSON.stringify(afterReport));
    assert.deepEqual(afterNavigation, {}, JSON.stringify(afterNavigation));
    return { afterReport };
  },

  // the capability where the render site keeps state (the parts, the panel),
  // not where it keeps none (the details view)
  async the_capability_is_advertised_where_state_is_kept(page) {
    const s = await load(page, { main: "app:conn:tool_3" }, { panel: "conn:tool_3" });
    const capabilities = (u) =>
      s.apps[u].log.find((e) => e.type === "capabilities").hostCapabilities;
    for (const key of [...APPS, "conn:tool_3"]) {
      assert.deepEqual(capabilities(uri(key)).appState, { maxLength: 1024 }, key);
    }
    assert.equal("appState" in capabilities(DETAILS), false);
    assert.equal("openLinks" in capabilities(DETAILS), true);
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
        const details = await scenario(page);
        noErrors(await snap(page));
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
