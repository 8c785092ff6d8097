// Declaration stub (ours) for a mesh-internal module.
import type { McpUiUpdateModelContextRequest } from "@modelcontextprotocol/ext-apps";
import type { TiptapDoc } from "@/mcp-apps/content-blocks.ts";

export interface ChatPrefs {
  selectedVirtualMcp?: { id: string } | null;
  setAppContext: (
    sourceId: string,
    params: McpUiUpdateModelContextRequest["params"],
  ) => void;
  clearAppContext: (sourceId: string) => void;
}

export declare function useOptionalChatPrefs(): ChatPrefs | null;
export declare function useChatPrefs(): ChatPrefs;
export declare function useOptionalChatStream(): {
  sendMessage: (doc: TiptapDoc) => void;
} | null;
export declare function useChatBridge(): {
  sendMessage: (message: { tiptapDoc: TiptapDoc }) => void;
};
