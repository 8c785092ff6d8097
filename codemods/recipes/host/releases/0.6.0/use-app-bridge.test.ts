import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { readAppState, writeAppState } from "./app-state.ts";
import { BridgeStore } from "./use-app-bridge.ts";

// The stores run with the SDK's real AppBridge and App. Each app has a window
// of its own; postMessage delivers in a later task, as a browser does. Only
// what the stores read of the page is faked: the theme on <html>, its styles.
type Message = {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
};
type Listener = (event: { source: unknown; data: unknown }) => void;

class FakeWindow {
  readonly received: Message[] = [];
  private readonly listeners = new Set<Listener>();
  addEventListener(type: string, listener: Listener) {
    if (type === "message") this.listeners.add(listener);
  }
  removeEventListener(_type: string, listener: Listener) {
    this.listeners.delete(listener);
  }
  deliver(source: unknown, data: unknown) {
    setTimeout(() => {
      this.received.push(data as Message);
      for (const listener of [...this.listeners]) listener({ source, data });
    }, 0);
  }
  matchMedia() {
    return { matches: false, addEventListener() {}, removeEventListener() {} };
  }
}

let dark = false;
const themeObservers = new Set<() => void>();
const host = new FakeWindow();
// The page the stores live in, for this file's tests only: `bun test` runs
// every file in one process, so the globals are put back after them.
const page = {
  window: host,
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
};
const before = new Map<string, PropertyDescriptor | undefined>();
const debug = console.debug;
beforeAll(() => {
  for (const name of Object.keys(page)) {
    before.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
  }
  Object.assign(globalThis, page);
  // The SDK logs every message.
  console.debug = () => {};
});
afterAll(() => {
  for (const [name, descriptor] of before) {
    if (descriptor) Object.defineProperty(globalThis, name, descriptor);
    else Reflect.deleteProperty(globalThis, name);
  }
  console.debug = debug;
});

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
};

function setTheme(isDark: boolean) {
  dark = isDark;
  for (const onChange of [...themeObservers]) onChange();
}

/**
 * A page: the URL's appState param and the apps on it, each rendered with its
 * own slot (as useAppStateParam reads it) and writing its reports there.
 */
class Page {
  param: string | undefined;
  readonly apps: Mounted[] = [];
  constructor(param?: string) {
    this.param = param;
  }
  /** React renders every app with the URL as it is now. */
  render() {
    for (const app of this.apps) app.store.updateConfig(app.config());
  }
  /** A navigation the apps did not make: a link, back/forward. */
  navigate(param: string | undefined) {
    this.param = param;
    this.render();
  }
}

type Options = { keepsState?: boolean; panel?: boolean; held?: boolean };

class Mounted {
  readonly window = new FakeWindow();
  readonly store: BridgeStore;
  readonly app: App;
  toolInput: Record<string, unknown> = { q: 1 };
  private transport: PostMessageTransport | null = null;
  private readonly toHost = {
    postMessage: (data: unknown) => host.deliver(this.window, data),
  };

  constructor(
    private readonly page: Page,
    readonly key: string,
    private readonly options: Options,
  ) {
    Object.assign(this.window, {
      postMessage: (data: unknown) => this.window.deliver(host, data),
    });
    this.store = new BridgeStore(this.config());
    this.store.attach({
      contentWindow: this.window,
    } as unknown as HTMLIFrameElement);
    this.app = new App(
      { name: key, version: "1.0.0" },
      {},
      {
        autoResize: false,
      },
    );
  }

  config() {
    const keeps = this.options.keepsState !== false;
    return {
      client: null as unknown as Client,
      displayMode: "inline" as const,
      minHeight: 10,
      maxHeight: 100,
      toolInput: this.toolInput,
      appState: keeps
        ? readAppState(this.page.param, this.key, { panel: this.options.panel })
        : undefined,
      onAppStateChange: keeps
        ? (state: unknown) => {
            this.page.param = writeAppState(this.page.param, this.key, state);
          }
        : undefined,
    };
  }

  /** The View connects (ui/initialize, then initialized). */
  async connect() {
    this.transport = new PostMessageTransport(
      this.toHost as unknown as Window,
      host as unknown as Window,
    );
    // The View's transport listens on its own window.
    Object.assign(globalThis, { window: this.window });
    const connecting = this.app.connect(this.transport);
    Object.assign(globalThis, { window: host });
    await connecting;
    await settle();
  }

  /** The raw notification: no released SDK has a sender for it. */
  async report(state: unknown, params: Record<string, unknown> = { state }) {
    await this.transport?.send({
      jsonrpc: "2.0",
      method: "ui/notifications/state-changed",
      params,
    });
    await settle();
  }

  initialized(): Message["result"] {
    return this.window.received.find((m) => m.result?.hostContext)?.result;
  }

  /** The context changes the View heard (after it initialized). */
  contextChanges(): Record<string, unknown>[] {
    const init = this.window.received.findIndex((m) => m.result?.hostContext);
    return this.window.received
      .slice(init + 1)
      .filter((m) => m.method === "ui/notifications/host-context-changed")
      .map((m) => m.params ?? {});
  }

  pushes(): unknown[] {
    return this.contextChanges()
      .filter((p) => "appState" in p)
      .map((p) => p.appState);
  }
}

const mounted: Mounted[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) m.store.teardown();
  setTheme(false);
});

async function mount(page: Page, key: string, options: Options = {}) {
  const app = new Mounted(page, key, options);
  page.apps.push(app);
  mounted.push(app);
  if (!options.held) await app.connect();
  return app;
}

const CHAT_1 = "call_1";
const CHAT_2 = "call_2";
const PANEL = "conn-1:my_tool";

describe("rule 1: the app's own slot in ui/initialize", () => {
  it("hands each app its slot, and no key without one", async () => {
    let param = writeAppState(undefined, CHAT_1, { page: 1 });
    param = writeAppState(param, PANEL, "panel");
    const page = new Page(param);
    const one = await mount(page, CHAT_1);
    const two = await mount(page, CHAT_2);
    const panel = await mount(page, PANEL, { panel: true });
    expect(one.app.getHostContext()?.appState).toEqual({ page: 1 });
    expect(panel.app.getHostContext()?.appState).toBe("panel");
    const context = (two.initialized()?.hostContext ?? {}) as object;
    expect("appState" in context).toBe(false);
  });
});

describe("rule 3: pushes only for navigations", () => {
  it("never pushes another app's report, or an app's own echo", async () => {
    const page = new Page();
    const one = await mount(page, CHAT_1);
    const two = await mount(page, CHAT_2);
    await one.report({ view: "a" });
    page.render();
    await two.report({ view: "b" });
    page.render();
    await one.report({ view: "c" });
    page.render();
    await settle();
    expect(one.pushes()).toEqual([]);
    expect(two.pushes()).toEqual([]);
    expect(readAppState(page.param, CHAT_1)).toEqual({ view: "c" });
    expect(readAppState(page.param, CHAT_2)).toEqual({ view: "b" });
  });

  it("does not push back a report the URL shows late", async () => {
    const page = new Page();
    const one = await mount(page, CHAT_1);
    await one.report("A");
    const afterA = page.param;
    await one.report("O");
    // A render still sees the URL with A after the app reported O.
    const latest = page.param;
    page.navigate(afterA);
    page.param = latest;
    page.render();
    await settle();
    expect(one.pushes()).toEqual([]);
  });

  it("pushes a navigation to each app whose slot it changed, once", async () => {
    const page = new Page();
    const one = await mount(page, CHAT_1);
    const two = await mount(page, CHAT_2);
    await one.report("one-a");
    await two.report("two-a");
    page.render();
    const before = page.param;
    await one.report("one-b");
    page.render();
    // back
    page.navigate(before);
    page.render();
    await settle();
    expect(one.pushes()).toEqual(["one-a"]);
    expect(two.pushes()).toEqual([]);
  });

  it("pushes null when a navigation removes the slot", async () => {
    const page = new Page(writeAppState(undefined, CHAT_1, { page: 2 }));
    const one = await mount(page, CHAT_1);
    page.navigate(undefined);
    await settle();
    expect(one.pushes()).toEqual([null]);
  });

  it("pushes nothing for a navigation to what the app shows now", async () => {
    const page = new Page();
    const one = await mount(page, CHAT_1);
    await one.report("x");
    page.navigate(writeAppState(undefined, CHAT_1, "x"));
    await settle();
    expect(one.pushes()).toEqual([]);
  });

  it("pushes nothing for a prop change, or where the site keeps no state", async () => {
    const page = new Page(writeAppState(undefined, CHAT_1, "x"));
    const kept = await mount(page, CHAT_1);
    const details = await mount(page, CHAT_2, { keepsState: false });
    kept.toolInput = { q: 2 };
    details.toolInput = { q: 2 };
    page.render();
    await details.report("y");
    page.navigate(writeAppState(undefined, CHAT_2, "z"));
    await settle();
    expect(kept.pushes()).toEqual([null]);
    expect(details.pushes()).toEqual([]);
    expect(readAppState(page.param, CHAT_2)).toBe("z");
  });
});

describe("rule 4: a torn down or replaced bridge", () => {
  it("ignores its reports", async () => {
    const page = new Page();
    const one = await mount(page, CHAT_1);
    one.store.teardown();
    await one.report("late");
    expect(page.param).toBeUndefined();
  });
});

describe("rules 5 and 6: theme and timing", () => {
  it("does not resend appState with a theme push", async () => {
    const page = new Page(writeAppState(undefined, CHAT_1, "start"));
    const one = await mount(page, CHAT_1);
    setTheme(true);
    await settle();
    const changes = one.contextChanges();
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.some((c) => "appState" in c)).toBe(false);
  });

  it("initializes an app that was loading with the newest state", async () => {
    const page = new Page(writeAppState(undefined, CHAT_1, "start"));
    const one = await mount(page, CHAT_1, { held: true });
    page.navigate(writeAppState(undefined, CHAT_1, "link"));
    setTheme(true);
    await one.connect();
    expect(one.app.getHostContext()?.appState).toBe("link");
    expect(one.app.getHostContext()?.theme).toBe("dark");
    expect(one.pushes()).toEqual([]);
  });

  it("pushes a link back to the state the app started from", async () => {
    const start = writeAppState(undefined, CHAT_1, "start");
    const page = new Page(start);
    const one = await mount(page, CHAT_1);
    await one.report("moved");
    page.render();
    page.navigate(start);
    await settle();
    expect(one.pushes()).toEqual(["start"]);
  });
});

describe("rule 8: the capability where state is kept", () => {
  it("is advertised with maxLength where the site keeps state only", async () => {
    const page = new Page();
    const kept = await mount(page, CHAT_1);
    const details = await mount(page, CHAT_2, { keepsState: false });
    const capabilities = (m: Mounted) =>
      m.initialized()?.hostCapabilities as Record<string, unknown>;
    expect(capabilities(kept).appState).toEqual({ maxLength: 1024 });
    expect("appState" in capabilities(details)).toBe(false);
  });
});
