import { describe, expect, test } from "bun:test";
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
} from "@tanstack/react-router";
import {
  APP_STATE_MAX_LENGTH,
  APP_STATE_PARAM,
  readAppState,
  writeAppState,
} from "@/mcp-apps/app-state.ts";
import { writeAppStateReport } from "./use-app-state-param.ts";

// A router on mesh's chat route over an in-memory history at `search`, as
// the app has it when a report arrives: writeAppStateReport is what
// useAppStateParam's callback runs.
async function routerAt(search: Record<string, string> = {}) {
  const query = new URLSearchParams(search).toString();
  const rootRoute = createRootRoute();
  const chatRoute = createRoute({
    getParentRoute: () => rootRoute,
    path: "$org/chat",
  });
  const router = createRouter({
    routeTree: rootRoute.addChildren([chatRoute]),
    history: createMemoryHistory({
      initialEntries: [`/acme/chat${query ? `?${query}` : ""}`],
    }),
  });
  await router.load();
  return router;
}

type TestRouter = Awaited<ReturnType<typeof routerAt>>;

function param(router: TestRouter): string | undefined {
  const value = (router.latestLocation.search as Record<string, unknown>)[
    APP_STATE_PARAM
  ];
  return typeof value === "string" ? value : undefined;
}

function stateOf(router: TestRouter, appKey: string): unknown {
  return readAppState(param(router), appKey);
}

// The states the URL could not hold, kept in the history entry's state.
function keptOf(router: TestRouter): Record<string, unknown> {
  const { appStatesKept } = router.latestLocation.state as {
    appStatesKept?: Record<string, unknown>;
  };
  return appStatesKept ?? {};
}

describe("writeAppStateReport", () => {
  test("writes the app's slot and keeps the other params", async () => {
    const router = await routerAt({
      main: "app:conn_1:show_view",
      tab: "files",
    });
    writeAppStateReport(router, "call_1", { page: "/settings" });
    expect(stateOf(router, "call_1")).toEqual({ page: "/settings" });
    const search = router.latestLocation.search as Record<string, unknown>;
    expect(search.main).toBe("app:conn_1:show_view");
    expect(search.tab).toBe("files");
    // the page stays where it is: only its search changes
    expect(router.latestLocation.pathname).toBe("/acme/chat");
  });

  test("replaces the history entry instead of adding one", async () => {
    const router = await routerAt();
    const length = router.history.length;
    writeAppStateReport(router, "call_1", { page: 1 });
    writeAppStateReport(router, "call_1", { page: 2 });
    expect(router.history.length).toBe(length);
  });

  test("keeps the other apps' slots: each report composes on the URL as it is now", async () => {
    const router = await routerAt();
    writeAppStateReport(router, "call_1", { page: "a" });
    writeAppStateReport(router, "call_2", { page: "b" });
    writeAppStateReport(router, "conn_1:show_view", { tab: "c" });
    expect(stateOf(router, "call_1")).toEqual({ page: "a" });
    expect(stateOf(router, "call_2")).toEqual({ page: "b" });
    expect(stateOf(router, "conn_1:show_view")).toEqual({ tab: "c" });
  });

  test("ends at the last of reports that come faster than renders", async () => {
    // The URL holds "/"; the app goes to "/a" and back before any render.
    const start = writeAppState(undefined, "call_1", { page: "/" });
    const router = await routerAt(start ? { [APP_STATE_PARAM]: start } : {});
    writeAppStateReport(router, "call_1", { page: "/a" });
    writeAppStateReport(router, "call_1", { page: "/" });
    expect(stateOf(router, "call_1")).toEqual({ page: "/" });
  });

  test("a report equal to the URL's navigates nowhere", async () => {
    const start = writeAppState(undefined, "call_1", { page: 1 });
    const router = await routerAt(start ? { [APP_STATE_PARAM]: start } : {});
    const before = router.latestLocation;
    writeAppStateReport(router, "call_1", { page: 1 });
    expect(router.latestLocation).toBe(before);
  });

  test("a null report clears only the app's own slot", async () => {
    const router = await routerAt();
    writeAppStateReport(router, "call_1", { page: "a" });
    writeAppStateReport(router, "call_2", { page: "b" });
    writeAppStateReport(router, "call_1", null);
    expect(stateOf(router, "call_1")).toBeUndefined();
    expect(stateOf(router, "call_2")).toEqual({ page: "b" });
  });

  test("a state over the cap stays out of the URL and is kept in the entry", async () => {
    const router = await routerAt();
    writeAppStateReport(router, "call_2", { page: "b" });
    const big = { text: "x".repeat(APP_STATE_MAX_LENGTH) };
    writeAppStateReport(router, "call_1", big);
    expect(stateOf(router, "call_1")).toBeUndefined();
    expect(stateOf(router, "call_2")).toEqual({ page: "b" });
    expect(keptOf(router).call_1).toEqual(big);
    expect((param(router) ?? "").length).toBeLessThanOrEqual(
      APP_STATE_MAX_LENGTH,
    );
  });

  test("an app's slot evicted by the cap is kept in the entry", async () => {
    const router = await routerAt();
    const half = "y".repeat(Math.floor(APP_STATE_MAX_LENGTH / 2));
    writeAppStateReport(router, "call_1", { text: half });
    writeAppStateReport(router, "call_2", { text: half });
    expect(stateOf(router, "call_2")).toEqual({ text: half });
    expect(stateOf(router, "call_1")).toBeUndefined();
    expect(keptOf(router).call_1).toEqual({ text: half });
  });
});
