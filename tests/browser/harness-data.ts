// The test harness inside the host page (ours): the thread's parts, the fake
// server's answers, the hold/release gate for the demo apps' initialization,
// render counters and `window.__harness`, which run.mjs drives.
import type { DynamicToolUIPart } from "ai";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyRouter } from "@tanstack/react-router";

interface AppRecord {
  log: Array<Record<string, unknown>>;
  report?: (params: Record<string, unknown>) => Promise<void>;
}

function part(
  id: string,
  toolName: string,
  meta: Record<string, unknown>,
): { part: DynamicToolUIPart; toolMeta: Record<string, unknown> } {
  return {
    part: {
      type: "dynamic-tool",
      toolCallId: id,
      toolName,
      state: "output-available",
      input: { q: toolName },
      output: { content: [{ type: "text", text: `${toolName} done` }] },
    } as DynamicToolUIPart,
    toolMeta: meta,
  };
}

// Eight tool calls that show an app (call_1 .. call_8, tools tool_1 ..
// tool_8 of one connection) and one that shows none.
export const THREAD_PARTS = [
  ...Array.from({ length: 8 }, (_, i) =>
    part(`call_${i + 1}`, `tool_${i + 1}`, {
      connectionId: "conn",
      ui: { resourceUri: `ui://app-${i + 1}/app.html` },
    }),
  ),
  part("call_plain", "search_docs", { connectionId: "conn" }),
];

// A render site that keeps no state (as the tool details view): the iframe
// renderer without onAppStateChange.
export const DETAILS_URI = "ui://details/app.html";

// The connection's tools, each with its app for the main panel.
export const DEMO_TOOLS: Tool[] = Array.from({ length: 8 }, (_, i) => ({
  name: `tool_${i + 1}`,
  inputSchema: { type: "object" },
  _meta: { ui: { resourceUri: `ui://panel-tool_${i + 1}/app.html` } },
}));

export function demoAppHtml(uri: string): string {
  return `<!doctype html><html><body><div id="view">loading</div><script>window.APP_URI = ${JSON.stringify(uri)};</script><script src="/demo-app.js"></script></body></html>`;
}

const renders: Record<string, number> = {};
export function countRender(title: string) {
  renders[title] = (renders[title] ?? 0) + 1;
}

let router: AnyRouter | null = null;
export function exposeRouter(r: AnyRouter) {
  router = r;
}

const apps: Record<string, AppRecord> = {};
function app(uri: string): AppRecord {
  apps[uri] ??= { log: [] };
  return apps[uri];
}

// Apps whose initialization waits for release(): sessionStorage survives the
// reload that starts a scenario.
const held = new Set<string>(
  JSON.parse(sessionStorage.getItem("harness.hold") ?? "[]") as string[],
);
const waiting = new Map<string, () => void>();
// Animation frames the page asked for while frames are held.
let heldFrames: FrameRequestCallback[] | null = null;
const requestFrame = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = (run) => {
  if (!heldFrames) return requestFrame(run);
  heldFrames.push(run);
  return 0;
};

// the route whose path is `path` (the chat route: "/$taskId")
function route(path: string) {
  const routes = Object.values(
    (router as unknown as { looseRoutesById: Record<string, any> })
      .looseRoutesById,
  );
  const found = routes.find((r) => r.options.path === path);
  if (!found) throw new Error(`no route ${path}`);
  return found;
}

const harness = {
  // called by the demo app in the iframe
  register(
    uri: string,
    report: (params: Record<string, unknown>) => Promise<void>,
  ) {
    app(uri).report = report;
  },
  event(uri: string, event: Record<string, unknown>) {
    app(uri).log.push(event);
  },
  gate(uri: string): Promise<void> {
    if (!held.has(uri)) return Promise.resolve();
    return new Promise((resolve) => waiting.set(uri, resolve));
  },
  crash(error: unknown) {
    (window as unknown as { __errors: string[] }).__errors.push(
      `boundary: ${String(error)}`,
    );
  },
  // called by the test
  release(uri: string) {
    held.delete(uri);
    waiting.get(uri)?.();
    waiting.delete(uri);
  },
  isWaiting(uri: string) {
    return waiting.has(uri);
  },
  // each state reported by the app, one after the other in this one task
  report(uri: string, states: unknown[]) {
    const record = apps[uri];
    if (!record?.report) throw new Error(`app ${uri} has not registered`);
    return Promise.all(states.map((state) => record.report?.({ state })));
  },
  reportParams(uri: string, params: Record<string, unknown>) {
    const record = apps[uri];
    if (!record?.report) throw new Error(`app ${uri} has not registered`);
    return record.report(params);
  },
  // another param changed, as Studio's own navigations do: no history state
  navigate(search: Record<string, unknown>, replace = false) {
    if (!router) throw new Error("no router");
    return router.navigate({
      to: ".",
      search: (prev: Record<string, unknown>) => ({ ...prev, ...search }),
      replace,
    } as never);
  },
  // every navigation of the chat route renders `ms` late from now on
  slowRoute(ms: number) {
    route("/$taskId").options.beforeLoad = () =>
      new Promise((resolve) => setTimeout(resolve, ms));
  },
  click(partId: string, label: string) {
    const part = document.querySelector(`[data-part="${partId}"]`);
    const button = [...(part?.querySelectorAll("button") ?? [])].find((b) =>
      b.textContent?.includes(label),
    );
    if (!button) throw new Error(`no "${label}" button in ${partId}`);
    button.click();
  },
  // animation frames wait until releaseFrames() runs them together
  holdFrames() {
    heldFrames = [];
  },
  releaseFrames(): number {
    const frames = heldFrames ?? [];
    heldFrames = null;
    for (const run of frames) run(performance.now());
    return frames.length;
  },
  setTheme(dark: boolean) {
    document.documentElement.classList.toggle("dark", dark);
  },
  resetRenders() {
    for (const key of Object.keys(renders)) delete renders[key];
  },
  snapshot() {
    const w = window as unknown as {
      __warns: string[];
      __errors: string[];
      __historyWrites: number;
    };
    return {
      href: location.href,
      historyLength: history.length,
      historyWrites: w.__historyWrites,
      search: router?.state.location.search ?? {},
      matches: router
        ? router.state.matches.map((m) => ({
            id: m.routeId,
            status: m.status,
            error: m.error ? String(m.error) : null,
          }))
        : [],
      apps: JSON.parse(
        JSON.stringify(apps, (key, value) =>
          key === "report" ? undefined : value,
        ),
      ),
      renders: { ...renders },
      warns: [...w.__warns],
      errors: [...w.__errors],
      text: document.body.innerText,
    };
  },
};

(window as unknown as { __harness: typeof harness }).__harness = harness;
