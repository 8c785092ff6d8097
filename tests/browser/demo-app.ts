// The demo MCP app (ours) that runs in the host's iframe, built on the
// released SDK's `App`. Its view is the state it shows (null: its initial
// view). It reports through `ui/notifications/state-changed` when the test
// asks, restores from `hostContext.appState` on init and applies
// `appState` from `host-context-changed`. Initialization waits for the
// harness's gate, so a test can hold it while the host is already mounted.
import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps";

interface Harness {
  register(
    uri: string,
    report: (params: Record<string, unknown>) => Promise<void>,
  ): void;
  event(uri: string, event: Record<string, unknown>): void;
  gate(uri: string): Promise<void>;
}

const uri = (window as unknown as { APP_URI: string }).APP_URI;
const harness = (window.parent as unknown as { __harness: Harness }).__harness;
const viewElement = document.getElementById("view") as HTMLElement;

let initialized = false;

function show(state: unknown) {
  viewElement.textContent = JSON.stringify(state ?? null);
  harness.event(uri, { type: "view", state: state ?? null });
}

const app = new App(
  { name: "demo-app", version: "1.0.0" },
  {},
  { autoResize: false },
);

app.onhostcontextchanged = (params) => {
  harness.event(uri, {
    type: "context",
    initialized,
    keys: Object.keys(params),
    params: JSON.parse(JSON.stringify(params)),
    // the pushed state as it came: `undefined` is no state on JSON wires
    ...("appState" in params && {
      appState: params.appState === undefined ? "<undefined>" : params.appState,
    }),
  });
  if ("appState" in params) show((params as { appState?: unknown }).appState);
};

// The params as given: a report without `state` changes no view.
harness.register(uri, async (params: Record<string, unknown>) => {
  if ("state" in params) show(params.state);
  await app.notification({
    method: "ui/notifications/state-changed",
    params,
  } as never);
});

// The host's capabilities as they arrive, before the SDK's App parses them
// (an SDK that does not declare a capability drops it).
window.addEventListener("message", (event: MessageEvent) => {
  const result = (event.data as { result?: Record<string, unknown> } | null)
    ?.result;
  if (result && typeof result === "object" && "hostCapabilities" in result) {
    harness.event(uri, {
      type: "capabilities",
      hostCapabilities: JSON.parse(JSON.stringify(result.hostCapabilities)),
    });
  }
});

async function main() {
  await harness.gate(uri);
  await app.connect(new PostMessageTransport(window.parent, window.parent));
  initialized = true;
  const context = (app.getHostContext() ?? {}) as Record<string, unknown>;
  harness.event(uri, {
    type: "init",
    hasAppState: "appState" in context,
    appState: context.appState,
    theme: context.theme,
  });
  show(context.appState);
}

main().catch((error: unknown) => {
  harness.event(uri, { type: "error", error: String(error) });
});
