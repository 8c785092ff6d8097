// Stub (ours) of a mesh-internal module.
export const MCP_APP_DISPLAY_MODES = {
  fullscreen: { minHeight: 300, maxHeight: 600 },
} as const;

export function getUIResourceUri(meta: unknown): string | undefined {
  const ui = (meta as { ui?: { resourceUri?: unknown } } | undefined)?.ui;
  return typeof ui?.resourceUri === "string" ? ui.resourceUri : undefined;
}
