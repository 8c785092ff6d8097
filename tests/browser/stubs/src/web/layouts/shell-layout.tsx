// Stub (ours) of a mesh-internal layout.
import { Outlet } from "@tanstack/react-router";

const ACTIONS = { setChatOpen: () => {}, openTab: () => {} };

export function usePanelActions() {
  return ACTIONS;
}

export default function ShellLayout() {
  return <Outlet />;
}
