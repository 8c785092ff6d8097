// Declaration stub (ours) for a mesh-internal module.
import type { ReactNode } from "react";

export declare function ErrorBoundary(props: {
  fallback: (props: { error: unknown; resetError: () => void }) => ReactNode;
  children?: ReactNode;
}): ReactNode;
