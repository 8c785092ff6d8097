// Declaration stub (ours) for a mesh-internal lazy route component.
import type { ReactNode } from "react";

declare function Page(): ReactNode;
export default Page;
