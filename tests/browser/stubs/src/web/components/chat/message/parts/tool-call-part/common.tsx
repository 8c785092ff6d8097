// Stub (ours) of a mesh-internal module. Counts its renders by title: the
// tool-call part renders it on every render of its own (rule 7's witness).
import { countRender } from "#harness";

export function ToolCallShell({ title }: { title: string; state?: string }) {
  countRender(title);
  return <div className="tool-call-title">{title}</div>;
}
