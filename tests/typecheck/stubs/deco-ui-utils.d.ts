// Declaration stub (ours) for mesh's @deco/ui/lib/utils.ts.
export function cn(...inputs: unknown[]): string;
