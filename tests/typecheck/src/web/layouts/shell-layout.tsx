// Declaration stub (ours) for a mesh-internal module.
import type { ReactNode } from "react";

export declare function usePanelActions(): {
  setChatOpen: (open: boolean) => void;
  openTab: (id: string) => void;
};

declare function ShellLayout(): ReactNode;
export default ShellLayout;
