// Declaration stub (ours) for a mesh-internal module.
import type { ReactNode } from "react";

export declare function ToolCallShell(props: {
  title: string;
  latency?: number;
  state?: string;
}): ReactNode;
