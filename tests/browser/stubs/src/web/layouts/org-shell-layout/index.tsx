// Stub (ours) of a mesh-internal layout.
import { Outlet } from "@tanstack/react-router";

export default function Layout() {
  return <Outlet />;
}
