// Stub (ours) of mesh's workspace package @decocms/mesh-sdk: the hooks the
// render sites call, answered synchronously from the harness's fake server.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { DEMO_TOOLS, demoAppHtml } from "#harness";

export interface ToolDefinition {
  name: string;
  inputSchema: Record<string, unknown>;
  annotations?: { destructiveHint?: boolean };
  _meta?: Record<string, unknown>;
}

// The AppBridge accepts `null` for "no MCP server to forward to".
export function useMCPClient(_options: {
  connectionId: string;
  orgId: string;
  orgSlug: string;
}): Client {
  return null as unknown as Client;
}

export function useMCPReadResource({ uri }: { client: Client; uri: string }) {
  return {
    data: {
      contents: [{ uri, mimeType: "text/html", text: demoAppHtml(uri) }],
    },
  };
}

export function useMCPToolsList(_options: { client: Client }): {
  data: { tools: Tool[] };
} {
  return { data: { tools: DEMO_TOOLS } };
}

export function useMCPToolCall(_options: unknown) {
  return { data: undefined };
}

const PROJECT = { org: { id: "org-1", slug: "acme" } };

export function useProjectContext() {
  return PROJECT;
}
