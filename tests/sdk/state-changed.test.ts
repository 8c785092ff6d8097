// What the SDK recipes add, run for real: the released SDK (1.7.1 for the
// 1.x shape B, 2.0.4 for the 2.x shape C) extended with exactly the members
// the recipes wrote into the fixture of that shape (./double.ts, made by
// tests/test_sdk_behaviour.py), connected over the MCP SDK's real
// InMemoryTransport. These are the cases the PR's tests cover.
import { describe, expect, it } from "bun:test";
import { InMemoryTransport } from "./in-memory";
import {
  ACCESSOR,
  App,
  AppBridge,
  GUARDED,
  McpUiStateChangedNotificationSchema,
} from "./double";

const hostInfo = { name: "TestHost", version: "1.0.0" };
const appInfo = { name: "TestApp", version: "1.0.0" };

async function connected(hostContext: Record<string, unknown> = {}) {
  const [appTransport, bridgeTransport] = InMemoryTransport.createLinkedPair();
  const bridge = new AppBridge(null, hostInfo, { appState: {} }, { hostContext });
  const app = new App(appInfo, {}, { autoResize: false });
  await bridge.connect(bridgeTransport);
  await app.connect(appTransport);
  return { app, bridge };
}

/** The next `count` values a subscription delivers. */
function next(count: number, subscribe: (push: (value: unknown) => void) => void) {
  const values: unknown[] = [];
  return new Promise<unknown[]>((resolve) =>
    subscribe((value) => {
      values.push(value);
      if (values.length === count) resolve(values);
    }),
  );
}

describe("ui/notifications/state-changed", () => {
  it("sendStateChanged reaches statechange listeners, null included", async () => {
    const { app, bridge } = await connected();
    const received = next(2, (push) =>
      bridge.addEventListener("statechange", ({ state }: { state: unknown }) => push(state)),
    );
    await app.sendStateChanged({ state: { tab: "invoices", selected: "inv-2041" } });
    await app.sendStateChanged({ state: null });
    expect(await received).toEqual([{ tab: "invoices", selected: "inv-2041" }, null]);
  });

  it.if(ACCESSOR !== null)("sendStateChanged reaches the 1.x accessor", async () => {
    const { app, bridge } = await connected();
    const received = next(1, (push) => {
      (bridge as any)[ACCESSOR!] = ({ state }: { state: unknown }) => push(state);
    });
    await app.sendStateChanged({ state: { tab: "details" } });
    expect(await received).toEqual([{ tab: "details" }]);
  });

  it("hands the initial appState to the app in getHostContext()", async () => {
    const { app } = await connected({ theme: "dark", appState: { tab: "invoices" } });
    expect(app.getHostContext()?.appState).toEqual({ tab: "invoices" });
  });

  it("has no appState in the host context when there is no state", async () => {
    const { app } = await connected({ theme: "dark" });
    expect(app.getHostContext()).not.toHaveProperty("appState");
  });

  it("setHostContext({ appState }) reaches the app, and null clears it", async () => {
    const { app, bridge } = await connected({ theme: "dark" });
    const changes = next(2, (push) =>
      app.addEventListener("hostcontextchanged", (params: Record<string, unknown>) => push(params.appState)),
    );
    bridge.setHostContext({ theme: "dark", appState: { tab: "details" } });
    await Promise.resolve();
    bridge.setHostContext({ theme: "dark", appState: null });
    expect(await changes).toEqual([{ tab: "details" }, null]);
    expect(app.getHostContext()?.appState).toBeNull();
  });

  it.if(GUARDED)("sendStateChanged before connect() is refused by the guard", () => {
    const app = new App(appInfo, {}, { autoResize: false });
    expect(() => app.sendStateChanged({ state: 1 })).toThrow();
  });

  it("the schema takes any JSON state, null as no state", () => {
    const method = "ui/notifications/state-changed";
    const parse = (params: unknown, name = method) =>
      McpUiStateChangedNotificationSchema.safeParse({ method: name, params }).success;
    expect(parse({ state: null })).toBe(true);
    expect(parse({ state: { tab: "invoices" } })).toBe(true);
    expect(parse({ state: "a string is JSON too" })).toBe(true);
    expect(parse("not an object")).toBe(false);
    expect(parse({ state: null }, "ui/notifications/size-changed")).toBe(false);
  });
});
