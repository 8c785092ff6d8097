// Stub (ours) of a mesh-internal page the harness never shows.
export default function Page() {
  return null;
}
