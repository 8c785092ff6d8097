// Studio's navigation with many apps on the page (not a test). Run with bun:
//
//   tools/node_modules/.bin/bun --no-install benchmarks/studio_navigation.ts \
//     LABEL=TREE/apps/mesh/src [LABEL=TREE/apps/mesh/src ...]
//
// (benchmarks/studio_navigation.py runs it on 0.6.0's output on the fixture
// and this checkout's). Each tree's `useAppStateParam` hook
// and `app-state.ts` run under the real TanStack Router on a memory history,
// React's production build and happy-dom, all from tools/node_modules:
//
// (a) one navigation that changes another search param (`tab`), with 40
//     mounted hooks (the keys of 40 apps, all in a full 2048-character
//     `appState` param), minus the same navigation with 40 plain
//     components; medians of 200 runs, the trees and the two pages in turns
//     (goal: under 0.5 ms): wall time until the router has rendered it;
// (b) the history writes that 60 reports in one animation frame make
//     (goal: 1).
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const TOOLS = path.resolve(import.meta.dir, "../tools/node_modules");
const HOOK = "web/hooks/use-app-state-param.ts";
const FORMAT = "mcp-apps/app-state.ts";
const APPS = 40;
const RUNS = 200;
const WARMUP = 20;
const REPORTS = 60;
const CAP = 2048;
const PAUSE_MS = 2;

process.env.NODE_ENV = "production";
const tool = (name: string) => import(Bun.resolveSync(name, TOOLS));
const { Window } = await tool("happy-dom");
const React = await tool("react");
const { createRoot } = await tool("react-dom/client");
const {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  RouterProvider,
} = await tool("@tanstack/react-router");
const h = React.createElement;

// happy-dom's window as the global scope, as a browser page has it.
const window = new Window({ url: "http://localhost/" });
for (const key of Object.getOwnPropertyNames(window)) {
  if (!(key in globalThis)) {
    Object.defineProperty(globalThis, key, {
      configurable: true,
      get: () => window[key],
    });
  }
}
const setGlobal = (key: string, value: unknown) =>
  Object.defineProperty(globalThis, key, { configurable: true, writable: true, value });
setGlobal("window", window);
setGlobal("document", window.document);
// Animation frames run when the benchmark says a frame ends.
let frames: Array<(time: number) => void> = [];
setGlobal("requestAnimationFrame", (run: (time: number) => void) => frames.push(run));
const endFrame = () => {
  const due = frames;
  frames = [];
  for (const run of due) run(performance.now());
};

// A tree's hook and format module, with their imports resolved as in mesh
// (`@/` is the tree's src) and their packages from tools/node_modules: the
// two files are copied next to a tsconfig that says so.
async function load(src: string) {
  const dir = mkdtempSync(path.join(tmpdir(), "studio-navigation-"));
  for (const file of [HOOK, FORMAT]) {
    mkdirSync(path.dirname(path.join(dir, "src", file)), { recursive: true });
    cpSync(path.join(src, file), path.join(dir, "src", file));
  }
  symlinkSync(TOOLS, path.join(dir, "node_modules"));
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { baseUrl: ".", paths: { "@/*": ["./src/*"] } } }),
  );
  const hook = await import(path.join(dir, "src", HOOK));
  const format = await import(path.join(dir, "src", FORMAT));
  return { dir, hook, format };
}

const keys = Array.from({ length: APPS }, (_, i) => `toolu_${String(i + 1).padStart(2, "0")}`);
// The 40 apps' slots, padded to fill the cap: written independently of the
// trees' code (base64url of the UTF-8 JSON { v: 2, s }).
function fullParam(): string {
  const encode = (pad: number) =>
    Buffer.from(
      JSON.stringify({
        v: 2,
        s: Object.fromEntries(keys.map((k, i) => [k, { page: i, q: "x".repeat(pad) }])),
      }),
    ).toString("base64url");
  let pad = 0;
  while (encode(pad + 1).length <= CAP) pad++;
  return encode(pad);
}

// A page like the chat route: `appState`, `tab` and `main` in its search,
// and a thread of 40 components (memoized: they render only through their
// own subscriptions).
function page(Component: (props: { appKey: string }) => unknown, search: string) {
  const history = createMemoryHistory({ initialEntries: [`/acme/task-1?${search}`] });
  let writes = 0;
  for (const method of ["push", "replace"] as const) {
    const original = history[method].bind(history);
    history[method] = (...args: unknown[]) => {
      writes++;
      return original(...args);
    };
  }
  const Item = React.memo(Component);
  const Thread = React.memo(() => h("div", null, keys.map((appKey) => h(Item, { key: appKey, appKey }))));
  const rootRoute = createRootRoute();
  const chatRoute = createRoute({
    getParentRoute: () => rootRoute,
    path: "$org/$taskId",
    validateSearch: (search: Record<string, unknown>) => {
      const text = (value: unknown) => (typeof value === "string" ? value : undefined);
      return { tab: text(search.tab), main: text(search.main), appState: text(search.appState) };
    },
    component: Thread,
  });
  const router = createRouter({ routeTree: rootRoute.addChildren([chatRoute]), history });
  const container = document.createElement("div");
  document.body.appendChild(container);
  const root = createRoot(container);
  return {
    router,
    writes: () => writes,
    async mount() {
      await router.load();
      root.render(h(RouterProvider, { router }));
      await settled();
    },
    unmount: () => root.unmount(),
  };
}

// React's updates from the router's store run in microtasks and tasks.
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

const nextTask = () => new Promise((resolve) => setImmediate(resolve));

// The time from the navigation until the router has rendered it (its
// transition committed: React's deferred work included), after a pause
// that lets the previous page's leftovers run untimed.
async function navigation(p: ReturnType<typeof page>, tab: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  const start = performance.now();
  await p.router.navigate({
    to: ".",
    search: (prev: Record<string, unknown>) => ({ ...prev, tab }),
  });
  const busy = ({ state } = p.router) =>
    state.isTransitioning ||
    state.status !== "idle" ||
    state.resolvedLocation?.href !== state.location.href;
  while (busy()) await nextTask();
  return performance.now() - start;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const trees = process.argv.slice(2).map((arg) => {
  const at = arg.indexOf("=");
  if (at < 1) throw new Error(`usage: LABEL=TREE/apps/mesh/src, not ${arg}`);
  return { label: arg.slice(0, at), src: path.resolve(arg.slice(at + 1)) };
});
if (trees.length === 0) throw new Error("usage: bun --no-install benchmarks/studio_navigation.ts LABEL=TREE/apps/mesh/src ...");

const param = fullParam();
const search = `appState=${param}&tab=chat`;
const Plain = () => h("div", null);
const results: Array<Record<string, unknown>> = [];
const loaded = [];
for (const tree of trees) {
  const { dir, hook, format } = await load(tree.src);
  const read = keys.filter((k, i) => format.readAppState(param, k)?.page === i).length;
  if (read !== APPS) throw new Error(`${tree.label}: its readAppState reads ${read} of ${APPS} slots`);
  const callbacks = new Map<string, (state: unknown) => void>();
  const Hooked = ({ appKey }: { appKey: string }) => {
    const { onAppStateChange } = hook.useAppStateParam(appKey);
    callbacks.set(appKey, onAppStateChange);
    return h("div", null);
  };
  loaded.push({ ...tree, dir, hooked: page(Hooked, search), plain: page(Plain, search), callbacks, format });
}

// (a) the navigation, in turns
const times = new Map<string, { hooked: number[]; plain: number[] }>();
for (const tree of loaded) {
  await tree.hooked.mount();
  await tree.plain.mount();
  times.set(tree.label, { hooked: [], plain: [] });
}
for (let run = 0; run < WARMUP + RUNS; run++) {
  const tab = run % 2 ? "files" : "chat";
  for (const tree of run % 2 ? [...loaded].reverse() : loaded) {
    const pages = run % 4 < 2 ? (["hooked", "plain"] as const) : (["plain", "hooked"] as const);
    for (const which of pages) {
      const ms = await navigation(tree[which], tab);
      if (run >= WARMUP) times.get(tree.label)![which].push(ms);
    }
  }
}

// (b) 60 reports in one frame, on the page with the hooks
for (const tree of loaded) {
  const before = tree.hooked.writes();
  const expected: Record<string, unknown> = {};
  for (let i = 0; i < REPORTS; i++) {
    const appKey = keys[i % APPS];
    expected[appKey] = { report: i };
    tree.callbacks.get(appKey)!({ report: i });
  }
  endFrame();
  await settled();
  const writes = tree.hooked.writes() - before;
  const now = tree.hooked.router.state.location.search.appState;
  const last = keys.filter((k) => JSON.stringify(tree.format.readAppState(now, k)) === JSON.stringify(expected[k]));
  const { hooked, plain } = times.get(tree.label)!;
  results.push({
    tree: tree.label,
    "hooks (ms)": median(hooked),
    "plain (ms)": median(plain),
    "(a) appState work (ms)": median(hooked) - median(plain),
    "(b) history writes": writes,
    "apps at their last report": `${last.length}/${APPS}`,
  });
  tree.hooked.unmount();
  tree.plain.unmount();
  rmSync(tree.dir, { recursive: true, force: true });
}

const round = (value: unknown) => (typeof value === "number" && !Number.isInteger(value) ? Number(value.toFixed(3)) : value);
console.log(`param: ${param.length} characters, ${APPS} apps; ${RUNS} runs after ${WARMUP}; goals: (a) under 0.5 ms, (b) 1`);
console.table(results.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, round(v)]))));
console.log(JSON.stringify(results));
await window.happyDOM.close();
process.exit(0);
