// Declaration stub (ours) for a mesh-internal module.
import type { McpUiMessageRequest } from "@modelcontextprotocol/ext-apps";

export interface TiptapDoc {
  type: "doc";
  content: Array<Record<string, unknown>>;
}

export declare function contentBlocksToTiptapDoc(
  content: McpUiMessageRequest["params"]["content"],
): TiptapDoc;
