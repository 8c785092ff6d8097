import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps";
import { APP_STATE_PARAM, readAppState, writeAppState } from "./app-state.ts";
import { BridgeStore } from "./use-app-bridge.ts";

// The stores run with the SDK's AppBridge and App over in-memory windows
// (postMessage delivers in a later task, as in a browser). Faked: what the
// store reads of the page (theme, styles) and its history's navigations.
type Listener = (event: { source: unknown; data: unknown }) => void;
const windowOf = (post?: (data: unknown) => void) => {
  const listeners = new Set<Listener>();
  const received: { result?: Record<string, Record<string, unknown>> }[] = [];
  const deliver = (source: unknown, data: unknown) =>
    setTimeout(() => {
      received.push(data as (typeof received)[number]);
      for (const listener of listeners) listener({ source, data });
    });
  return {
    ...{ received, deliver, postMessage: post },
    addEventListener: (_: string, l: Listener) => listeners.add(l),
    removeEventListener: (_: string, l: Listener) => listeners.delete(l),
    matchMedia: () => ({ matches: false, addEventListener() {} }),
  };
};
const host = windowOf();
const navigation = new EventTarget();
const page = {
  window: host,
  navigation,
  document: {
    documentElement: {
      getAttribute: () => null,
      classList: { contains: () => false },
    },
  },
  getComputedStyle: () => ({ getPropertyValue: () => "" }),
  MutationObserver: class {
    observe() {}
    disconnect() {}
  },
};
const debug = console.debug;
beforeAll(() => {
  Object.assign(globalThis, page);
  console.debug = () => {}; // the SDK logs every message
});
afterAll(() => {
  for (const name of Object.keys(page))
    Reflect.deleteProperty(globalThis, name);
  console.debug = debug;
});
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r));
};

// The URL, and the apps rendered from it as the render sites do.
type Config = Parameters<BridgeStore["updateConfig"]>[0];
type Rendered = { store: BridgeStore; config: (p?: string) => Config };
class Page {
  readonly apps: (Rendered & { pushes: unknown[] })[] = [];
  readonly reports: [string, unknown][] = [];
  displayMode: "inline" | "fullscreen" = "inline";
  constructor(public param?: string) {}
  render(param = this.param) {
    for (const app of this.apps) app.store.updateConfig(app.config(param));
  }
  /** The reports so far, written in one navigation replacing the entry. */
  write() {
    for (const [key, state] of this.reports.splice(0)) {
      this.param = writeAppState(this.param, key, state);
    }
    this.navigate(this.param, "replace");
  }
  /** A navigation: "traverse" for back/forward, "push" for a link. */
  navigate(param: string | undefined, navigationType = "traverse") {
    this.go(param, navigationType);
    this.render();
  }
  /** A navigation to a route that still loads: it renders later. */
  go(param: string | undefined, navigationType = "traverse") {
    this.param = param;
    const url = new URL("https://studio.test/thread");
    if (param) url.searchParams.set(APP_STATE_PARAM, param);
    Object.assign(navigation, { currentEntry: { url: url.href } });
    const event = new Event("currententrychange");
    navigation.dispatchEvent(Object.assign(event, { navigationType }));
  }
}

function mount(page: Page, key: string, keepsState = true) {
  const frame = windowOf((data) => frame.deliver(host, data));
  const config = (param: string | undefined) => ({
    ...{ client: null as never, minHeight: 10, maxHeight: 100 },
    displayMode: page.displayMode,
    appState: keepsState ? readAppState(param, key) : undefined,
    onAppStateChange: keepsState
      ? (state: unknown) => page.reports.push([key, state])
      : undefined,
    appKey: keepsState ? key : undefined,
  });
  const store = new BridgeStore(config(page.param));
  store.attach({ contentWindow: frame } as never);
  const app = {
    ...{ store, frame, config, pushes: [] as unknown[] },
    view: new App({ name: key, version: "1" }, {}, {}),
    transport: new PostMessageTransport(
      windowOf((data) => host.deliver(frame, data)) as never,
      host as never,
    ),
    /** The app loads in the frame (again, after a first load), then hears pushes. */
    async load() {
      Object.assign(globalThis, { window: frame });
      void app.view.close();
      app.view = new App({ name: key, version: "1" }, {}, {});
      const connecting = app.view.connect(app.transport);
      Object.assign(globalThis, { window: host });
      await connecting;
      await settle();
      app.view.onhostcontextchanged = (params) => {
        if ("{{context_field}}" in params) app.pushes.push(params.{{context_field}});
      };
      return app;
    },
    /** The raw notification: no released SDK sends it yet. */
    async report(params: Record<string, unknown>) {
      const method = "{{method}}";
      await app.transport.send({ jsonrpc: "2.0", method, params });
      await settle();
    },
  };
  page.apps.push(app);
  return app;
}
const open = (page: Page, key: string, keepsState?: boolean) =>
  mount(page, key, keepsState).load();

describe("BridgeStore app state", () => {
  it("starts each app from its own slot, advertised where state is kept", async () => {
    const page = new Page(writeAppState(undefined, "call_1", { view: 1 }));
    const one = await open(page, "call_1");
    const details = await open(page, "call_2", false);
    expect(one.view.getHostContext()?.{{context_field}}).toEqual({ view: 1 });
    expect("{{context_field}}" in (details.view.getHostContext() ?? {})).toBe(false);
    const capability = ({ frame }: typeof one) =>
      frame.received.find((m) => m.result)?.result?.hostCapabilities?.{{capability}};
    expect(capability(one)).toEqual({{capability_value}});
    expect(capability(details)).toBe(undefined);
  });

  it("another app's report pushes nothing, nor its own when reports come faster than renders", async () => {
    const page = new Page();
    const one = await open(page, "call_1");
    const two = await open(page, "call_2");
    await one.report({ state: "a" });
    await two.report({ state: "b" });
    page.write();
    const firstWrite = page.param;
    await one.report({ state: "c" });
    page.write(); // the URL holds c when the render of the first write comes
    page.render(firstWrite);
    page.render();
    await settle();
    expect([one.pushes, two.pushes]).toEqual([[], []]);
    expect(readAppState(page.param, "call_1")).toBe("c");
  });

  it("a quick burst then Back pushes the entry's state", async () => {
    const page = new Page(writeAppState(undefined, "call_1", "B"));
    const one = await open(page, "call_1");
    const entry = page.param;
    page.navigate(entry, "push");
    for (const state of ["A", "B", "A"]) await one.report({ state });
    page.write();
    page.navigate(entry);
    await one.report({ state: "C" }); // a link to what it shows: nothing
    page.navigate(writeAppState(undefined, "call_1", "C"));
    page.navigate(undefined);
    await settle();
    expect(one.pushes).toEqual(["B", null]);
  });

  it("an over-cap app then an unrelated navigation pushes nothing, nor does a cap eviction", async () => {
    const page = new Page(writeAppState(undefined, "call_1", "small"));
    const keys = ["call_1", "call_2", "call_3", "call_4"];
    const [one, two, three, four] = await Promise.all(
      keys.map((key) => open(page, key)),
    );
    await two?.report({ state: "b".repeat(500) });
    await three?.report({ state: "c".repeat(500) });
    await one?.report({ state: "x".repeat(3000) }); // over the cap on its own
    page.write();
    await four?.report({ state: "d".repeat(500) }); // its write evicts call_2
    page.write();
    page.navigate(page.param, "push"); // another tab, the same slots
    await settle();
    const kept = keys.map((key) => readAppState(page.param, key) !== undefined);
    expect(kept).toEqual([false, false, true, true]);
    expect(page.apps.map((app) => app.pushes)).toEqual([[], [], [], []]);
  });

  it("Back to a slow route pushes the slot it removed, though another app's report lands first", async () => {
    const page = new Page(writeAppState(undefined, "call_2", "other"));
    const [one, two] = [await open(page, "call_1"), await open(page, "call_2")];
    const entry = page.param;
    page.navigate(entry, "push"); // another tab
    await one.report({ state: "x" });
    page.write();
    page.go(entry); // Back, to a route that still loads
    await two.report({ state: "moved" });
    page.write(); // on the entry Back reached, before its render
    await settle();
    expect([one.pushes, two.pushes]).toEqual([[null], []]);
  });

  it("after a link or Back, a later eviction or over-cap state pushes nothing", async () => {
    const page = new Page(writeAppState(undefined, "call_1", "a"));
    const [one, two] = [await open(page, "call_1"), await open(page, "call_2")];
    page.navigate(page.param, "push"); // another tab, the same slots
    await two.report({ state: "b".repeat(1510) }); // its write evicts call_1
    page.write();
    expect(readAppState(page.param, "call_1")).toBe(undefined);
    page.navigate(undefined); // Back to no state: call_2 hears it
    await two.report({ state: "c" });
    page.write();
    await two.report({ state: "x".repeat(3000) }); // over the cap on its own
    page.write();
    await settle();
    expect([one.pushes, two.pushes]).toEqual([[], [null]]);
  });

  it("a report without state is ignored, as are a torn-down bridge's", async () => {
    const page = new Page(writeAppState(undefined, "call_1", "x"));
    const one = await open(page, "call_1");
    await one.report({});
    await one.report({ state: undefined });
    expect(page.reports).toEqual([]);
    await one.report({ state: null }); // the initial view: no slot
    page.write();
    expect(page.param).toBe(undefined);
    one.store.teardown();
    await one.report({ state: "late" });
    expect(page.reports).toEqual([]);
  });

  it("starts a loading app from the newest state, whatever the display mode does; pushes a link back once", async () => {
    const start = writeAppState(writeAppState(null, "call_1", "start"), "b", 2);
    const page = new Page(start);
    const [one, two] = [mount(page, "call_1"), mount(page, "b")];
    page.navigate(writeAppState(start, "call_1", "link"));
    await one.load();
    Object.assign(page, { displayMode: "fullscreen" }).render();
    await two.load();
    expect(one.view.getHostContext()?.{{context_field}}).toBe("link");
    expect(two.view.getHostContext()).toMatchObject({
      {{context_field}}: 2,
      displayMode: "fullscreen",
    });
    await one.report({ state: "moved" });
    page.write();
    Object.assign(page, { displayMode: "inline" }).render(); // resends no state
    page.navigate(start);
    await settle();
    expect(one.pushes).toEqual(["start"]);
    // Loaded again over the same bridge, it starts where the bridge started it.
    expect((await one.load()).view.getHostContext()?.{{context_field}}).toBe("link");
  });
});
