// Stub (ours) of a mesh-internal module.
export function formatPinnedViewTabId(connectionId: string, toolName: string) {
  return `app:${connectionId}:${toolName}`;
}
