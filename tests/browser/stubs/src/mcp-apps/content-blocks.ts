// Stub (ours) of a mesh-internal module.
export function contentBlocksToTiptapDoc(content: unknown[]) {
  return { type: "doc", content: content.map(() => ({ type: "paragraph" })) };
}
