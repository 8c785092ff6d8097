import {
  type AnyRouter,
  useLocation,
  useRouter,
  useSearch,
} from "@tanstack/react-router";
import {
  APP_STATE_PARAM,
  droppedAppStates,
  readAppState,
  writeAppState,
} from "@/mcp-apps/app-state.ts";

// The states of this history entry's apps that its URL could not keep: slots
// evicted by the cap, a state over the cap, a hand-made link's state once
// another app wrote. Those apps still show them, so for them nothing changed
// (no push); kept in the entry's history state, back/forward finds them too.
const KEPT = "appStatesKept";

type Kept = Record<string, unknown>;

function keptIn(historyState: unknown): Kept {
  if (typeof historyState !== "object" || historyState === null) return {};
  const kept = (historyState as Record<string, unknown>)[KEPT];
  return typeof kept === "object" && kept !== null ? (kept as Kept) : {};
}

function paramIn(search: Record<string, unknown>): string | undefined {
  const param = search[APP_STATE_PARAM];
  return typeof param === "string" ? param : undefined;
}

// The param and the kept states after the app `appKey` reports `state`.
function written(
  param: string | undefined,
  kept: Kept,
  appKey: string,
  state: unknown,
): { param: string | undefined; kept: Kept } {
  const next = writeAppState(param, appKey, state);
  const others = Object.entries({
    ...kept,
    ...droppedAppStates(param, next),
  }).filter(([key]) => key !== appKey);
  // Over the cap: the app shows this state, which the URL does not hold.
  if (state != null && readAppState(next, appKey) === undefined) {
    others.push([appKey, state]);
  }
  return { param: next, kept: Object.fromEntries(others) };
}

/** What a report needs of the router: where it is now, and how to go on. */
type AppStateRouter = Pick<AnyRouter, "latestLocation" | "navigate">;

/**
 * Writes the report `state` of the app `appKey` into the router's URL: its
 * slot of the appState param, with replace, composed on the location as it is
 * now, not as it was when the caller rendered (reports may come faster than
 * renders, and the URL ends at the last one). Other params and other apps'
 * slots stay as they are; a report that changes nothing navigates nowhere.
 */
export function writeAppStateReport(
  router: AppStateRouter,
  appKey: string,
  state: unknown,
): void {
  const { search, state: historyState } = router.latestLocation;
  const current = paramIn(search);
  const next = written(current, keptIn(historyState), appKey, state);
  if (
    next.param === current &&
    JSON.stringify(next.kept) === JSON.stringify(keptIn(historyState))
  ) {
    return;
  }
  router.navigate({
    to: ".",
    search: (prev: Record<string, unknown>) => ({
      ...prev,
      [APP_STATE_PARAM]: written(paramIn(prev), {}, appKey, state).param,
    }),
    // The history state's updater reads the router's latest location itself:
    // it does not rely on the router calling the search updater first.
    state: (prev) => {
      const from = paramIn(router.latestLocation.search);
      const { kept } = written(from, keptIn(prev), appKey, state);
      return { ...prev, [KEPT]: kept };
    },
    replace: true,
  });
}

interface AppStateParam {
  appState: unknown;
  onAppStateChange: ((state: unknown) => void) | undefined;
}

/**
 * The state of the app `appKey` kept in the URL, and the callback that writes
 * the app's reports there. A null key (no app) reads and writes nothing; the
 * main panel's app (`panel: true`) also gets a hand-made link's state.
 */
export function useAppStateParam(
  appKey: string | null,
  options?: { panel?: boolean },
): AppStateParam {
  const panel = options?.panel === true;
  const router = useRouter();
  // JSON text: the same state decoded anew is the same value, so a change of
  // another app's slot or of another param does not re-render this one.
  const inUrl = useSearch({
    strict: false,
    select: (search: Record<string, unknown>) =>
      appKey === null
        ? undefined
        : JSON.stringify(readAppState(paramIn(search), appKey, { panel })),
  });
  const kept = useLocation({
    select: (location) => {
      if (appKey === null) return undefined;
      const states = keptIn(location.state);
      return JSON.stringify(states[appKey] ?? (panel ? states[""] : undefined));
    },
  });
  const json = inUrl ?? kept;
  const appState: unknown = json === undefined ? undefined : JSON.parse(json);

  if (appKey === null) return { appState, onAppStateChange: undefined };
  return {
    appState,
    onAppStateChange: (state: unknown) =>
      writeAppStateReport(router, appKey, state),
  };
}
