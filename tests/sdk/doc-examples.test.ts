// The doc examples the SDK recipes write, run for real on the complete
// shape-C fixture as the change leaves it (tests/test_sdk_complete_fixture.py):
// the host's (the capability advertised, the kept state handed back from the
// page URL, reports kept there) and the View's (restore a validated state,
// report a new one where the host keeps it), as ./examples.ts holds their
// regions, over the MCP SDK's InMemoryTransport. A reload is a new bridge and
// a new App on the same page URL.
import { expect, it } from "bun:test";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { App } from "./app";
import { host, view } from "./examples";

const start = "https://host.example/chat/1";
const page = { href: start };
(globalThis as any).window = {
  location: page,
  history: {
    replaceState: (_state: unknown, _title: string, url: URL | string) => {
      page.href = String(url);
    },
  },
};

/** One page load: the tabs the View showed, once it reported a state. */
async function load() {
  const bridge = host({ name: "TestHost", version: "1.0.0" });
  const [appTransport, bridgeTransport] = InMemoryTransport.createLinkedPair();
  const app = new App({ name: "TestApp", version: "1.0.0" }, {}, { autoResize: false });
  await bridge.connect(bridgeTransport);
  await app.connect(appTransport);
  // heard after the host example's own listener, which keeps it in the URL
  const reported = new Promise((resolve) => bridge.addEventListener("statechange", resolve));
  const shown: unknown[] = [];
  view(app, (tab) => shown.push(tab));
  await reported;
  return shown;
}

it("the View example shows again, after a reload, the tab it reported", async () => {
  expect(await load()).toEqual([null]);
  expect(page.href).not.toBe(start);
  expect(await load()).toEqual(["invoices"]);
});
