// Stub (ours) of mesh's @deco/ui/lib/utils.ts.
export function cn(...inputs: unknown[]): string {
  return inputs.filter((v) => typeof v === "string" && v).join(" ");
}
