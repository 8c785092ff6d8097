// Declaration stub (ours) for a mesh-internal module.
export declare const MCP_APP_DISPLAY_MODES: {
  readonly fullscreen: {
    readonly minHeight: number;
    readonly maxHeight: number;
  };
};

export declare function getUIResourceUri(meta: unknown): string | undefined;
