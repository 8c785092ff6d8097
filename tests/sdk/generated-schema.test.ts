// The generated schema module and JSON Schema the tool committed, run with
// Bun and the zod and MCP SDK of tools/node_modules (whole, not excerpts):
// a state-changed notification carries any JSON state, and `null` is a
// state report ("no state"); a notification without `state` (`params: {}`)
// is rejected, by zod as by the JSON Schema, which requires `state`; the
// host context carries `appState`, `null` included; the host capabilities
// keep `appState: { maxLength }` (a zod object drops undeclared keys, so a
// schema without the capability loses it). Run by
// tests/test_sdk_generated_schema.py, with ./generated/ the tool's output.
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";

import * as schemas from "./generated/schema";

const json = JSON.parse(readFileSync(new URL("./generated/schema.json", import.meta.url), "utf-8"));
const HAS_CAPABILITIES = "McpUiHostCapabilitiesSchema" in schemas;
const method = "ui/notifications/state-changed";

describe("the generated schemas", () => {
  it("a state-changed notification carries any JSON state, null as no state", () => {
    const parse = (params: unknown, name = method) =>
      schemas.McpUiStateChangedNotificationSchema.safeParse({ method: name, params });
    const cleared = parse({ state: null });
    expect(cleared.success).toBe(true);
    expect(cleared.data).toEqual({ method, params: { state: null } });
    const report = { tab: "invoices", page: 2, open: ["inv-2041"] };
    expect(parse({ state: report }).data).toEqual({ method, params: { state: report } });
    for (const state of [["inv-2041"], "invoices", 2, false]) {
      expect(parse({ state }).data).toEqual({ method, params: { state } });
    }
    expect(parse("not an object").success).toBe(false);
    expect(parse({ state: 1 }, "ui/notifications/size-changed").success).toBe(false);
  });

  it("a state-changed notification without state (params: {}) is rejected", () => {
    const missing = schemas.McpUiStateChangedNotificationSchema.safeParse({ method, params: {} });
    expect(missing.success).toBe(false);
    expect(missing.error?.issues.map((issue) => issue.path)).toEqual([["params", "state"]]);
    const undefinedState = schemas.McpUiStateChangedNotificationSchema.safeParse({
      method,
      params: { state: undefined },
    });
    expect(undefinedState.success).toBe(false);
  });

  it("the host context carries appState, null included", () => {
    for (const appState of [null, { tab: "invoices" }]) {
      const parsed = schemas.McpUiHostContextSchema.safeParse({ appState });
      expect(parsed.success).toBe(true);
      expect(parsed.data).toEqual({ appState });
    }
    expect(schemas.McpUiHostContextSchema.safeParse({}).success).toBe(true);
  });

  it.if(HAS_CAPABILITIES)("the host capabilities keep appState", () => {
    const capabilities = (schemas as any).McpUiHostCapabilitiesSchema;
    expect(capabilities.parse({ appState: {} })).toEqual({ appState: {} });
    expect(capabilities.parse({ appState: { maxLength: 1024 } })).toEqual({ appState: { maxLength: 1024 } });
    expect(capabilities.safeParse({ appState: { maxLength: "1024" } }).success).toBe(false);
    expect(capabilities.parse({ openLinks: {} })).toEqual({ openLinks: {} });
    expect(capabilities.safeParse({ appState: "yes" }).success).toBe(false);
  });

  it("schema.json has the notification, the context member and the capability", () => {
    const defs = json.$defs;
    const notification = defs.McpUiStateChangedNotification;
    expect(notification.properties.method.const).toBe(method);
    expect(notification.properties.params.required).toEqual(["state"]);
    expect(notification.properties.params.properties.state.anyOf).toContainEqual({ type: "null" });
    expect(Object.keys(defs.McpUiHostContext.properties ?? defs.McpUiHostContext.allOf?.[1]?.properties ?? {})).toContain("appState");
    if (HAS_CAPABILITIES) {
      expect(defs.McpUiHostCapabilities.properties.appState).toMatchObject({
        type: "object",
        properties: { maxLength: { type: "number" } },
      });
    }
  });
});
