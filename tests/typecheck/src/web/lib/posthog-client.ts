// Declaration stub (ours) for a mesh-internal module.
export declare function track(
  event: string,
  properties?: Record<string, unknown>,
): void;
