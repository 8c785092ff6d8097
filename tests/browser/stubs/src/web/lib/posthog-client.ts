// Stub (ours) of a mesh-internal module.
export function track(_event: string, _properties?: unknown): void {}
