// The test harness inside the host page (ours): the thread's parts, the fake
// server's answers, the hold/release gate for the demo app's initialization,
// render counters and `window.__harness`, which run.mjs drives.
import type { DynamicToolUIPart } from "ai";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyRouter } from "@tanstack/react-router";
import { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";

interface AppRecord {
  uri: string;
  initialized: boolean;
  view: unknown;
  hasView: boolean;
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

export const THREAD_PARTS = [
  part("call-notes", "show_notes", {
    connectionId: "conn-notes",
    ui: { resourceUri: "ui://notes/app.html" },
  }),
  part("call-map", "show_map", {
    connectionId: "conn-map",
    ui: { resourceUri: "ui://map/app.html" },
  }),
  // a tool call that shows no app
  part("call-search", "search_docs", { connectionId: "conn-search" }),
];

export const PANEL_APP = { connectionId: "conn-board", toolName: "show_board" };

export const DEMO_TOOLS: Tool[] = [
  {
    name: "show_board",
    inputSchema: { type: "object" },
    _meta: { ui: { resourceUri: "ui://board/app.html" } },
  },
];

export function demoAppHtml(uri: string): string {
  return `<!doctype html><html><body><div id="view">loading</div><script>window.APP_URI = ${JSON.stringify(uri)};</script><script src="/demo-app.js"></script></body></html>`;
}

const renders: Record<string, number> = {};
export function countRender(title: string) {
  renders[title] = (renders[title] ?? 0) + 1;
}

let router: AnyRouter | null = null;
let navigations = 0;
export function exposeRouter(r: AnyRouter) {
  if (router === r) return;
  router = r;
  r.history.subscribe(() => {
    navigations += 1;
  });
}

const apps: Record<string, AppRecord> = {};
function app(uri: string): AppRecord {
  apps[uri] ??= {
    uri,
    initialized: false,
    view: undefined,
    hasView: false,
    log: [],
  };
  return apps[uri];
}

// Apps whose initialization waits for release(): sessionStorage survives the
// reload that starts a scenario.
const held = new Set<string>(
  JSON.parse(sessionStorage.getItem("harness.hold") ?? "[]") as string[],
);
const waiting = new Map<string, () => void>();

// Every state-changed handler a bridge registers, with the part it serves,
// so that a test can call the handler of a bridge that was torn down.
const bridgeParts = new WeakMap<object, string>();
const stateHandlers: Array<{
  bridge: AppBridge;
  handler: (n: unknown) => void;
}> = [];
// AppBridge's own `setNotificationHandler` is an instance field that calls
// the base Protocol's method, so the methods are wrapped where they live.
function owner(name: string): Record<string, (...args: unknown[]) => unknown> {
  let proto: object | null = AppBridge.prototype;
  while (proto && !Object.hasOwn(proto, name))
    proto = Object.getPrototypeOf(proto);
  if (!proto) throw new Error(`AppBridge has no ${name}`);
  return proto as Record<string, (...args: unknown[]) => unknown>;
}
const connectOwner = owner("connect");
const originalConnect = connectOwner.connect!;
connectOwner.connect = function (this: AppBridge, transport: unknown) {
  const target = (transport as { eventTarget?: Window }).eventTarget;
  for (const frame of document.querySelectorAll("iframe")) {
    if (frame.contentWindow === target) {
      const part = frame.closest<HTMLElement>("[data-part]")?.dataset.part;
      if (part) bridgeParts.set(this, part);
    }
  }
  return originalConnect.call(this, transport);
};
const handlerOwner = owner("setNotificationHandler");
const originalSetNotificationHandler = handlerOwner.setNotificationHandler!;
// Every form reaches the base Protocol's method: 1.x `(schema, handler)`,
// whose handler takes the notification; 2.x `(method, { params }, handler)`,
// whose handler takes the params (the 1.x form is turned into it); and the
// events of a bridge that declares state-changed (addEventListener or an
// on* accessor), which register like 1.x.
handlerOwner.setNotificationHandler = function (this: object, ...args: unknown[]) {
  const [first] = args;
  const method =
    typeof first === "string"
      ? first
      : (first as { shape?: { method?: { value?: unknown } } }).shape?.method
          ?.value;
  if (
    method === "ui/notifications/state-changed" &&
    this instanceof AppBridge
  ) {
    const handler = args[args.length - 1] as (n: unknown) => void;
    stateHandlers.push({
      bridge: this,
      handler:
        typeof first === "string"
          ? (n) => handler((n as { params: unknown }).params)
          : handler,
    });
  }
  return originalSetNotificationHandler.apply(this, args);
};

const harness = {
  // called by the demo app in the iframe
  register(
    uri: string,
    report: (params: Record<string, unknown>) => Promise<void>,
  ) {
    app(uri).report = report;
  },
  event(uri: string, event: Record<string, unknown>) {
    const record = app(uri);
    record.log.push(event);
    if (event.type === "init") record.initialized = true;
    if (event.type === "view") {
      record.view = event.state;
      record.hasView = true;
    }
  },
  gate(uri: string): Promise<void> {
    if (!held.has(uri)) return Promise.resolve();
    app(uri).log.push({ type: "held" });
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
  async report(uri: string, state: unknown) {
    const record = apps[uri];
    if (!record?.report) throw new Error(`app ${uri} has not registered`);
    await record.report({ state });
  },
  async reportParams(uri: string, params: Record<string, unknown>) {
    const record = apps[uri];
    if (!record?.report) throw new Error(`app ${uri} has not registered`);
    await record.report(params);
  },
  navigate(search: Record<string, unknown>) {
    if (!router) throw new Error("no router");
    return router.navigate({
      to: ".",
      search: (prev: Record<string, unknown>) => ({ ...prev, ...search }),
    } as never);
  },
  setTheme(dark: boolean) {
    document.documentElement.classList.toggle("dark", dark);
  },
  resetRenders() {
    for (const key of Object.keys(renders)) delete renders[key];
  },
  // the part's wrapper is re-keyed by remount(): the old part unmounts
  remount(partName: string) {
    remountKeys[partName] = (remountKeys[partName] ?? 0) + 1;
    for (const listener of remountListeners) listener();
  },
  // call the state-changed handler of every bridge of `partName` that is no
  // longer its store's current bridge (it was torn down or replaced)
  notifyStaleBridges(partName: string, state: unknown): number {
    let called = 0;
    for (const entry of stateHandlers) {
      if (bridgeParts.get(entry.bridge) !== partName) continue;
      const transport = (entry.bridge as unknown as { transport?: unknown })
        .transport;
      if (transport) continue; // still connected
      entry.handler({
        method: "ui/notifications/state-changed",
        params: { state },
      });
      called += 1;
    }
    return called;
  },
  // reports faster than renders: the live bridge of `partName` hears each
  // state, one after the other in this one task, before React renders again
  burst(partName: string, states: unknown[]): number {
    const live = stateHandlers.filter(
      (e) =>
        bridgeParts.get(e.bridge) === partName &&
        (e.bridge as unknown as { transport?: unknown }).transport,
    );
    for (const state of states) {
      for (const entry of live) {
        entry.handler({
          method: "ui/notifications/state-changed",
          params: { state },
        });
      }
    }
    return live.length;
  },
  snapshot() {
    return {
      href: location.href,
      search: location.search,
      historyLength: history.length,
      navigations,
      matches: router
        ? router.state.matches.map((m) => ({
            id: m.routeId,
            status: m.status,
            error: m.error ? String(m.error) : null,
          }))
        : [],
      apps: JSON.parse(
        JSON.stringify(apps, (key, value) =>
          key === "report"
            ? undefined
            : value === undefined
              ? "<undefined>"
              : value,
        ),
      ),
      renders: { ...renders },
      bridges: stateHandlers.map((e) => ({
        part: bridgeParts.get(e.bridge) ?? null,
        connected: Boolean(
          (e.bridge as unknown as { transport?: unknown }).transport,
        ),
      })),
      warns: [...(window as unknown as { __warns: string[] }).__warns],
      errors: [...(window as unknown as { __errors: string[] }).__errors],
      text: document.body.innerText,
    };
  },
};

export const remountKeys: Record<string, number> = {};
export const remountListeners = new Set<() => void>();

(window as unknown as { __harness: typeof harness }).__harness = harness;
