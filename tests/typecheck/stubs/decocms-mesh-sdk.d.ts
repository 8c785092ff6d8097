// Declaration stub (ours) for mesh's workspace package @decocms/mesh-sdk:
// only what the files the codemod touches import from it.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type {
  CallToolResult,
  ReadResourceResult,
  Tool,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";

export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
}

export function useMCPClient(options: {
  connectionId: string;
  orgId: string;
  orgSlug: string;
}): Client;

export function useMCPReadResource(options: { client: Client; uri: string }): {
  data: ReadResourceResult | undefined;
};

export function useMCPToolsList(options: { client: Client }): {
  data: { tools: Tool[] };
};

export function useMCPToolCall(options: {
  client: Client;
  toolName: string;
  toolArguments: Record<string, unknown>;
}): { data: CallToolResult | undefined };

export function useProjectContext(): {
  org: { id: string; slug: string };
};
