// A bridge store whose team handles ui/notifications/state-changed itself,
// after the codemod's apply, with the released AppBridge: the bridge
// constructs (one registration of the method) and an app's report reaches
// the team's callback once. Only the DOM is faked, as in bridge-store.test.ts.
import { expect, it } from "bun:test";

console.debug = () => {}; // the SDK logs every message it parses

const messageListeners = new Set<(event: unknown) => void>();
Object.assign(globalThis, {
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
  window: {
    addEventListener: (type: string, listener: (event: unknown) => void) => {
      if (type === "message") messageListeners.add(listener);
    },
    removeEventListener: (_type: string, listener: (event: unknown) => void) => {
      messageListeners.delete(listener);
    },
  },
});

const { BridgeStore } = await import("./use-app-bridge.ts");

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

it("constructs the bridge and hands a report to the team's handler once", async () => {
  const reports: unknown[] = [];
  const received: { id?: number; result?: unknown }[] = [];
  const app = { postMessage: (m: { id?: number }) => received.push(m) };
  const send = (data: Record<string, unknown>) => {
    for (const listener of [...messageListeners]) {
      listener({ source: app, data: { jsonrpc: "2.0", ...data } });
    }
  };
  const store = new BridgeStore({
    client: null as never,
    displayMode: "inline",
    minHeight: 100,
    maxHeight: 600,
    onViewReport: (state: unknown) => reports.push(state),
  });
  store.attach({ contentWindow: app } as unknown as HTMLIFrameElement);
  expect(store.getSnapshot().error).toBeNull();

  send({
    id: 1,
    method: "ui/initialize",
    params: {
      protocolVersion: "2026-01-26",
      appInfo: { name: "demo", version: "1.0.0" },
      appCapabilities: {},
    },
  });
  await settle();
  expect(received.find((m) => m.id === 1)?.result).toBeDefined();
  send({ method: "ui/notifications/initialized", params: {} });
  send({
    method: "ui/notifications/state-changed",
    params: { state: { tab: "b" } },
  });
  await settle();
  expect(reports).toEqual([{ tab: "b" }]);
  expect(store.getSnapshot().error).toBeNull();
  store.teardown();
});
