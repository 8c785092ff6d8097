// The bridge store of the codemod's output (use-app-bridge.ts) with the
// released AppBridge and PostMessageTransport of @modelcontextprotocol/ext-apps:
// only the DOM is faked, just enough for the store (the theme on <html>, a
// window that carries postMessage) and an app that speaks raw JSON-RPC.
import { describe, expect, it } from "bun:test";

console.debug = () => {}; // the SDK logs every message it parses

let dark = false;
const themeObservers = new Set<() => void>();
const messageListeners = new Set<(event: unknown) => void>();
Object.assign(globalThis, {
  document: {
    documentElement: {
      getAttribute: () => null,
      classList: { contains: (name: string) => name === "dark" && dark },
    },
  },
  getComputedStyle: () => ({ getPropertyValue: () => "" }),
  MutationObserver: class {
    constructor(private readonly onChange: () => void) {}
    observe() {
      themeObservers.add(this.onChange);
    }
    disconnect() {
      themeObservers.delete(this.onChange);
    }
  },
  window: {
    addEventListener: (type: string, listener: (event: unknown) => void) => {
      if (type === "message") messageListeners.add(listener);
    },
    removeEventListener: (_type: string, listener: (event: unknown) => void) => {
      messageListeners.delete(listener);
    },
  },
});

// The store is the module's own class; the test copy exports it.
const { BridgeStore } = await import("./use-app-bridge.ts");

type Message = {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: {
    hostContext: Record<string, unknown>;
    hostCapabilities: Record<string, unknown>;
  };
};

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

function setTheme(isDark: boolean) {
  dark = isDark;
  for (const onChange of [...themeObservers]) onChange();
}

class FakeApp {
  readonly received: Message[] = [];
  readonly window = { postMessage: (m: Message) => this.received.push(m) };
  readonly iframe = { contentWindow: this.window } as unknown as HTMLIFrameElement;
  private nextId = 1;
  hostCapabilities: Record<string, unknown> = {};

  send(data: Record<string, unknown>) {
    for (const listener of [...messageListeners]) {
      listener({ source: this.window, data: { jsonrpc: "2.0", ...data } });
    }
  }

  /** ui/initialize, then initialized; the context the host answered with. */
  async initialize(): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    this.send({
      id,
      method: "ui/initialize",
      params: {
        protocolVersion: "2026-01-26",
        appInfo: { name: "demo", version: "1.0.0" },
        appCapabilities: {},
      },
    });
    await settle();
    const answer = this.received.find((m) => m.id === id);
    if (!answer?.result) throw new Error("no ui/initialize answer");
    this.hostCapabilities = answer.result.hostCapabilities;
    this.send({ method: "ui/notifications/initialized", params: {} });
    await settle();
    return answer.result.hostContext;
  }

  async report(state: unknown) {
    this.send({ method: "ui/notifications/state-changed", params: { state } });
    await settle();
  }

  /** What an older app's `{ state: undefined }` is on the wire. */
  async reportWithoutState() {
    this.send({ method: "ui/notifications/state-changed", params: {} });
    await settle();
  }

  contextPushes() {
    return this.received
      .filter((m) => m.method === "ui/notifications/host-context-changed")
      .map((m) => m.params ?? {});
  }

  statePushes() {
    return this.contextPushes()
      .filter((p) => "appState" in p)
      .map((p) => p.appState);
  }
}

/** A host: the URL's decoded state, re-decoded (a new object) on every render. */
function mount(urlState: unknown) {
  const reported: unknown[] = [];
  let url = urlState;
  const config = () => ({
    client: null as never,
    displayMode: "inline" as const,
    minHeight: 100,
    maxHeight: 600,
    appState: url === undefined ? undefined : structuredClone(url),
    onAppStateChange: (state: unknown) => {
      reported.push(state);
      url = state; // the host writes the param: the next render decodes it
    },
  });
  const store = new BridgeStore(config());
  const app = new FakeApp();
  store.attach(app.iframe);
  const render = async (next?: { url: unknown }) => {
    if (next) url = next.url;
    store.updateConfig(config());
    await settle();
  };
  return { store, app, render, reported };
}

describe("bridge store with the released AppBridge", () => {
  it("answers ui/initialize without an appState key when there is no state", async () => {
    setTheme(false);
    const { app, store } = mount(undefined);
    const context = await app.initialize();
    expect(Object.hasOwn(context, "appState")).toBe(false);
    store.teardown();
  });

  it("does not echo the app's own report, nor resend it with a theme change", async () => {
    setTheme(false);
    const { app, store, render } = mount({ t: 0 });
    expect((await app.initialize()).appState).toEqual({ t: 0 });
    await app.report({ t: 1 });
    setTheme(true); // right after the report, before the URL changed
    await settle();
    await render(); // the URL now holds the reported state
    setTheme(false); // and a theme change after that
    await settle();
    await render();
    expect(app.statePushes()).toEqual([]);
    expect(app.contextPushes().map((p) => p.theme)).toEqual(["dark", "light"]);
    store.teardown();
  });

  it("pushes an outside change after initialization once", async () => {
    setTheme(false);
    const { app, store, render } = mount({ t: 0 });
    await app.initialize();
    await render({ url: { t: 5 } });
    await render();
    await render();
    expect(app.statePushes()).toEqual([{ t: 5 }]);
    store.teardown();
  });

  it("pushes a link back to the state the app started from", async () => {
    setTheme(false);
    const { app, store, render } = mount({ t: 0 });
    await app.initialize();
    await app.report({ t: 1 });
    await render();
    await render({ url: { t: 0 } });
    await render();
    expect(app.statePushes()).toEqual([{ t: 0 }]);
    store.teardown();
  });

  it("initializes the app with a link followed while it was loading", async () => {
    setTheme(false);
    const { app, store, render } = mount({ id: "a" });
    await render({ url: { id: "b" } });
    expect((await app.initialize()).appState).toEqual({ id: "b" });
    await render();
    expect(app.statePushes().slice(1)).toEqual([]);
    store.teardown();
  });

  it("keeps the state through a theme change while the app is loading", async () => {
    setTheme(false);
    const { app, store } = mount({ id: "a" });
    setTheme(true);
    await settle();
    const context = await app.initialize();
    expect(context.appState).toEqual({ id: "a" });
    expect(context.theme).toBe("dark");
    store.teardown();
  });

  it("takes null, and a report without a state, for no state", async () => {
    setTheme(false);
    const { app, store, render, reported } = mount({ t: 0 });
    await app.initialize();
    await app.report({ t: 1 });
    await render();
    await app.reportWithoutState();
    await render();
    await app.report({ t: 2 });
    await render();
    await app.report(null);
    await render();
    // the host removes the param for both (undefined), and echoes nothing
    expect(reported).toEqual([{ t: 1 }, undefined, { t: 2 }, undefined]);
    expect(app.statePushes()).toEqual([]);
    store.teardown();
  });

  it("pushes appState: null when the param goes away while the app is mounted", async () => {
    setTheme(false);
    const { app, store, render } = mount({ t: 0 });
    await app.initialize();
    await render({ url: undefined });
    await render();
    expect(app.statePushes()).toEqual([null]);
    // and a state after that is pushed as usual
    await render({ url: { t: 3 } });
    expect(app.statePushes()).toEqual([null, { t: 3 }]);
    store.teardown();
  });

  it("pushes appState: null to an app that started without a state", async () => {
    setTheme(false);
    const { app, store, render } = mount(undefined);
    const context = await app.initialize();
    expect(Object.hasOwn(context, "appState")).toBe(false);
    await app.report({ t: 1 });
    await render();
    await render({ url: undefined });
    await render();
    expect(app.statePushes()).toEqual([null]);
    store.teardown();
  });

  it("advertises the appState capability", async () => {
    setTheme(false);
    const { app, store } = mount(undefined);
    await app.initialize();
    expect(app.hostCapabilities.appState).toEqual({ maxLength: 1024 });
    expect(app.hostCapabilities.openLinks).toEqual({});
    store.teardown();
  });
});
