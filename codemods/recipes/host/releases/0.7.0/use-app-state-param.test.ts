import { afterAll, beforeAll, describe, expect, it, spyOn } from "bun:test";
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  RouterProvider,
} from "@tanstack/react-router";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { writeAppState } from "@/mcp-apps/app-state.ts";
import { useAppStateParam } from "./use-app-state-param.ts";

// Animation frames run when the test says so.
const frames: FrameRequestCallback[] = [];
const frame = () => {
  for (const run of frames.splice(0)) run(0);
};
const saved = globalThis.requestAnimationFrame;
beforeAll(() => {
  globalThis.requestAnimationFrame = (run) => frames.push(run);
});
afterAll(() => {
  globalThis.requestAnimationFrame = saved;
});

// A chat page on a memory history: its route renders one hook per key.
async function chatPage(keys: (string | null)[], search = "") {
  const results: ReturnType<typeof useAppStateParam>[] = [];
  const rootRoute = createRootRoute();
  const chatRoute = createRoute({
    getParentRoute: () => rootRoute,
    path: "$org/$taskId",
    component: () => {
      for (const key of keys) results.push(useAppStateParam(key));
      return null;
    },
  });
  const router = createRouter({
    routeTree: rootRoute.addChildren([chatRoute]),
    history: createMemoryHistory({ initialEntries: [`/acme/t1${search}`] }),
  });
  // Each history write loads the location, as the router's provider does.
  let writes = 0;
  router.history.subscribe(() => {
    writes++;
    router.load();
  });
  const render = async () => {
    await router.load();
    results.length = 0;
    renderToString(createElement(RouterProvider, { router }));
    return [...results];
  };
  return { router, render, writes: () => writes };
}

const two = writeAppState(writeAppState(null, "call_1", 1), "c:t", "p");

describe("useAppStateParam", () => {
  it("reads each app's slot, decoded once for the page, across navigations", async () => {
    const page = await chatPage(["call_1", "c:t", null], `?appState=${two}`);
    const atob = spyOn(globalThis, "atob");
    const apps = await page.render();
    expect(apps.map((app) => app.appState)).toEqual([1, "p", undefined]);
    expect(apps[2]?.onAppStateChange).toBe(undefined);
    const appState = writeAppState(two, "call_1", 2);
    await page.router.navigate({ to: ".", search: { appState } });
    const [next] = await page.render();
    expect(next?.appState).toBe(2);
    expect(atob).toHaveBeenCalledTimes(2);
    atob.mockRestore();
  });

  it("writes a frame's reports in one navigation on the current location, replacing the entry, and nothing the slot holds", async () => {
    const page = await chatPage(["call_1", "c:t"], "?main=app:c:t");
    const [one, panel] = await page.render();
    for (let i = 1; i <= 30; i++) {
      one?.onAppStateChange?.({ i });
      panel?.onAppStateChange?.(i);
    }
    await page.router.navigate({ to: ".", search: { main: "0" } });
    const [length, before] = [page.router.history.length, page.writes()];
    frame();
    await page.router.load();
    expect(page.writes() - before).toBe(1);
    expect(page.router.history.length).toBe(length);
    const states = (await page.render()).map((app) => app.appState);
    expect(states).toEqual([{ i: 30 }, 30]);
    expect(page.router.state.location.search).toMatchObject({ main: "0" });
    one?.onAppStateChange?.({ i: 30 }); // what the slot holds
    frame();
    expect(page.writes() - before).toBe(1);
  });
});
