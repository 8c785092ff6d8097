import { type AnyRouter, useRouter, useSearch } from "@tanstack/react-router";
import {
  APP_STATE_PARAM,
  readAppState,
  writeAppState,
} from "@/mcp-apps/app-state.ts";

// The apps' reports not yet in the URL: the last one of each app, in the
// order they came. One navigation per animation frame writes them all.
const reports = new Map<string, unknown>();

// The param of a location's search; anything but a string is none.
const paramOf = (search: Record<string, unknown>) => {
  const param = search[APP_STATE_PARAM];
  return typeof param === "string" ? param : undefined;
};

function writeReports(router: AnyRouter) {
  // Composed on the location as it is now, not as it was at render.
  const param = paramOf(router.latestLocation.search);
  let next = param;
  for (const [appKey, state] of reports) {
    next = writeAppState(next, appKey, state);
  }
  reports.clear();
  if (next === param) return;
  router.navigate({
    to: ".",
    search: (prev: Record<string, unknown>) => ({
      ...prev,
      [APP_STATE_PARAM]: next,
    }),
    replace: true,
  });
}

/**
 * The state the URL keeps for the app `appKey`, and the callback that keeps
 * the app's reports there. A null key (no app shown) reads and writes nothing.
 */
export function useAppStateParam(appKey: string | null): {
  appState: unknown;
  onAppStateChange: ((state: unknown) => void) | undefined;
} {
  const router = useRouter();
  const appState = useSearch({
    strict: false,
    select: (search: Record<string, unknown>) =>
      appKey === null ? undefined : readAppState(paramOf(search), appKey),
  });
  if (appKey === null) return { appState, onAppStateChange: undefined };
  return {
    appState,
    onAppStateChange: (state) => {
      if (reports.size === 0) requestAnimationFrame(() => writeReports(router));
      reports.delete(appKey);
      reports.set(appKey, state);
    },
  };
}
