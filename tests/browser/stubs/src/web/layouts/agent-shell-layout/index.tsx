// Stub (ours) of a mesh-internal layout: a chat thread of tool-call parts
// (eight with apps, one without), a render site that keeps no state (as the
// tool details view), and the main panel's app when `main` addresses one
// (`app:<connectionId>:<toolName>`), all rendered by the codemod's own output
// (GenericToolCallPart, MCPAppRenderer, AppViewContent).
import { memo } from "react";
import { Outlet, useRouter, useSearch } from "@tanstack/react-router";
import { useMCPClient } from "@decocms/mesh-sdk";
import { MCPAppRenderer } from "@/mcp-apps/mcp-app-renderer.tsx";
import { GenericToolCallPart } from "@/web/components/chat/message/parts/tool-call-part/generic.tsx";
import { AppViewContent } from "@/web/routes/project-app-view.tsx";
import { DETAILS_URI, exposeRouter, THREAD_PARTS } from "#harness";

// Memoized without props: the thread re-renders only through the parts' own
// subscriptions, so the render counts measure the parts.
const Thread = memo(function Thread() {
  const client = useMCPClient({ connectionId: "conn", orgId: "", orgSlug: "" });
  return (
    <div id="thread">
      {THREAD_PARTS.map(({ part, toolMeta }) => (
        <div key={part.toolCallId} data-part={part.toolCallId}>
          <GenericToolCallPart part={part} toolMeta={toolMeta} />
        </div>
      ))}
      <div data-part="details">
        <MCPAppRenderer resourceURI={DETAILS_URI} client={client} />
      </div>
    </div>
  );
});

function Panel() {
  const main = useSearch({
    strict: false,
    select: (search: Record<string, unknown>) => search.main,
  });
  const [kind, connectionId, toolName] =
    typeof main === "string" ? main.split(":") : [];
  if (kind !== "app" || !connectionId || !toolName) return null;
  return (
    <div data-part="panel">
      <AppViewContent
        key={main as string}
        connectionId={connectionId}
        toolName={toolName}
      />
    </div>
  );
}

export default function AgentShellLayout() {
  exposeRouter(useRouter());
  return (
    <>
      <Thread />
      <Panel />
      <Outlet />
    </>
  );
}
