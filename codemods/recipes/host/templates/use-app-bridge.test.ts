import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps";
import { APP_STATE_PARAM, readAppState, writeAppState } from "./app-state.ts";
import { BridgeStore } from "./use-app-bridge.ts";

// The stores run with the SDK's AppBridge and App over in-memory windows
// (postMessage delivers in a later task, as in a browser). Faked: what the
// store reads of the page (theme, styles) and its history's navigations.
type Listener = (event: { source: unknown; data: unknown }) => void;
function fakeWindow(post?: (data: unknown) => void) {
  const listeners = new Set<Listener>();
  return {
    postMessage: post,
    deliver(source: unknown, data: unknown) {
      setTimeout(() => {
        for (const listener of listeners) listener({ source, data });
      });
    },
    addEventListener: (_: string, l: Listener) => listeners.add(l),
    removeEventListener: (_: string, l: Listener) => listeners.delete(l),
    matchMedia: () => ({ matches: false, addEventListener() {} }),
  };
}
const host = fakeWindow();
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
class Page {
  readonly renders: ((param?: string) => void)[] = [];
  readonly reports: [string, unknown][] = [];
  displayMode: "inline" | "fullscreen" = "inline";
  constructor(public param?: string) {
    this.navigate(param, "push", false);
  }
  render(param = this.param) {
    for (const render of this.renders) render(param);
  }
  /** The reports so far, written in one navigation replacing the entry. */
  write() {
    for (const [key, state] of this.reports.splice(0)) {
      this.param = writeAppState(this.param, key, state);
    }
    this.navigate(this.param, "replace");
  }
  /** "traverse" is back/forward, "push" a link; a slow route renders later. */
  navigate(param?: string, navigationType = "traverse", render = true) {
    this.param = param;
    const url = new URL("https://studio.test/thread");
    if (param) url.searchParams.set(APP_STATE_PARAM, param);
    Object.assign(navigation, { currentEntry: { url: url.href } });
    const event = new Event("currententrychange");
    navigation.dispatchEvent(Object.assign(event, { navigationType }));
    if (render) this.render();
  }
  /** An app's frame and store; `load()` loads the app in the frame (again). */
  open(key: string, keepsState = true) {
    const sent: { result?: Record<string, Record<string, unknown>> }[] = [];
    const frame = fakeWindow((data) => {
      sent.push(data as (typeof sent)[number]);
      frame.deliver(host, data);
    });
    const config = (param: string | undefined) => ({
      client: null as never,
      minHeight: 10,
      maxHeight: 100,
      displayMode: this.displayMode,
      appState: keepsState ? readAppState(param, key) : undefined,
      onAppStateChange: keepsState
        ? (state: unknown) => this.reports.push([key, state])
        : undefined,
      appKey: key,
    });
    const store = new BridgeStore(config(this.param));
    store.attach({ contentWindow: frame } as never);
    const transport = new PostMessageTransport(
      fakeWindow((data) => host.deliver(frame, data)) as never,
      host as never,
    );
    const app = {
      store,
      pushes: [] as unknown[],
      view: new App({ name: key, version: "1" }, {}, {}),
      capability: () =>
        sent.find((m) => m.result)?.result?.hostCapabilities?.{{capability}},
      async load() {
        Object.assign(globalThis, { window: frame });
        void app.view.close();
        app.view = new App({ name: key, version: "1" }, {}, {});
        const connecting = app.view.connect(transport);
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
        await transport.send({ jsonrpc: "2.0", method, params });
        await settle();
      },
    };
    this.renders.push((param) => store.updateConfig(config(param)));
    return app;
  }
}

describe("BridgeStore app state", () => {
  it("starts each app from its own slot, advertised where state is kept", async () => {
    const page = new Page(writeAppState(undefined, "call_1", { view: 1 }));
    const one = await page.open("call_1").load();
    const details = await page.open("call_2", false).load();
    expect(one.view.getHostContext()?.{{context_field}}).toEqual({ view: 1 });
    expect("{{context_field}}" in (details.view.getHostContext() ?? {})).toBe(false);
    expect(one.capability()).toEqual({{capability_value}});
    expect(details.capability()).toBe(undefined);
  });

  it("another app's report pushes nothing, nor its own when reports come faster than renders, nor Open in panel's write", async () => {
    const page = new Page();
    const one = await page.open("call_1").load();
    const two = await page.open("call_2").load();
    await one.report({ state: "a" });
    await two.report({ state: "b" });
    page.write();
    const firstWrite = page.param;
    await one.report({ state: "c" });
    page.write(); // the URL holds c when the render of the first write comes
    page.render(firstWrite);
    page.render();
    expect(readAppState(page.param, "call_1")).toBe("c");
    page.reports.push(["c:t", "q"]); // Open in panel, before the panel opens
    page.write();
    const panel = await page.open("c:t").load();
    page.reports.push(["c:t", null]); // and again, from a part without state
    page.write();
    await settle();
    expect([one.pushes, two.pushes, panel.pushes]).toEqual([[], [], []]);
  });

  it("a quick burst then Back pushes the entry's state", async () => {
    const page = new Page(writeAppState(undefined, "call_1", "B"));
    const one = await page.open("call_1").load();
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

  it("Back to a slow route pushes the slot it removed, though another app's report lands first", async () => {
    const page = new Page(writeAppState(undefined, "call_2", "other"));
    const one = await page.open("call_1").load();
    const two = await page.open("call_2").load();
    const entry = page.param;
    page.navigate(entry, "push"); // another tab
    await one.report({ state: "x" });
    page.write();
    page.navigate(entry, "traverse", false); // Back, its route still loading
    await two.report({ state: "moved" });
    page.write(); // on the entry Back reached, before its render
    await settle();
    expect([one.pushes, two.pushes]).toEqual([[null], []]);
  });

  it("after a link or Back, a later eviction or over-cap state pushes nothing, nor does an unrelated navigation", async () => {
    const page = new Page(writeAppState(undefined, "call_1", "a"));
    const one = await page.open("call_1").load();
    const two = await page.open("call_2").load();
    page.navigate(page.param, "push"); // another tab, the same slots
    await two.report({ state: "b".repeat(1510) }); // its write evicts call_1
    page.write();
    expect(readAppState(page.param, "call_1")).toBe(undefined);
    page.navigate(undefined); // Back to no state: call_2 hears it
    await two.report({ state: "c" });
    page.write();
    await two.report({ state: "x".repeat(3000) }); // over the cap on its own
    page.write();
    expect(page.param).toBe(undefined);
    page.navigate(page.param, "push"); // another tab, the same slots
    await settle();
    expect([one.pushes, two.pushes]).toEqual([[], [null]]);
  });

  it("a report without state is ignored", async () => {
    const page = new Page(writeAppState(undefined, "call_1", "x"));
    const one = await page.open("call_1").load();
    await one.report({});
    await one.report({ state: undefined });
    expect(page.reports).toEqual([]);
    await one.report({ state: null }); // the initial view: no slot
    page.write();
    expect(page.param).toBe(undefined);
  });

  it("starts a loading app from the newest state, whatever the display mode does; pushes a link back once", async () => {
    const start = writeAppState(writeAppState(null, "call_1", "start"), "b", 2);
    const page = new Page(start);
    const one = page.open("call_1");
    const two = page.open("b");
    page.navigate(writeAppState(start, "call_1", "link"));
    await one.load();
    page.displayMode = "fullscreen";
    page.render();
    await two.load();
    expect(one.view.getHostContext()?.{{context_field}}).toBe("link");
    expect(two.view.getHostContext()).toMatchObject({
      {{context_field}}: 2,
      displayMode: "fullscreen",
    });
    await one.report({ state: "moved" });
    page.write();
    page.displayMode = "inline";
    page.render(); // resends no state
    page.navigate(start);
    await settle();
    expect(one.pushes).toEqual(["start"]);
    // Loaded again over the same bridge, it starts from the state pushed last.
    await one.load();
    expect(one.view.getHostContext()?.{{context_field}}).toBe("start");
  });
});
