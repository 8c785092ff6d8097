// Declaration stub (ours) for a mesh-internal module.
export declare function formatPinnedViewTabId(
  connectionId: string,
  toolName: string,
): string;
