// Stub (ours) of a mesh-internal layout: a chat thread with tool-call parts
// (two with apps, one without) and an app opened in the main panel, all
// rendered by the codemod's own output (GenericToolCallPart, AppViewContent).
import { memo, useSyncExternalStore } from "react";
import { Outlet, useRouter } from "@tanstack/react-router";
import { GenericToolCallPart } from "@/web/components/chat/message/parts/tool-call-part/generic.tsx";
import { AppViewContent } from "@/web/routes/project-app-view.tsx";
import {
  exposeRouter,
  PANEL_APP,
  remountKeys,
  remountListeners,
  THREAD_PARTS,
} from "#harness";

let version = 0;
function subscribeRemount(listener: () => void) {
  const onRemount = () => {
    version += 1;
    listener();
  };
  remountListeners.add(onRemount);
  return () => remountListeners.delete(onRemount);
}

// Memoized without props: it re-renders only through its own subscriptions,
// so the render counts measure the parts, not this layout.
const Thread = memo(function Thread() {
  useSyncExternalStore(subscribeRemount, () => version);
  return (
    <div id="thread">
      {THREAD_PARTS.map(({ part, toolMeta }) => (
        <div
          key={`${part.toolCallId}-${remountKeys[part.toolName] ?? 0}`}
          data-part={part.toolName}
        >
          <GenericToolCallPart part={part} toolMeta={toolMeta} />
        </div>
      ))}
      <div id="panel" data-part={PANEL_APP.toolName}>
        <AppViewContent
          connectionId={PANEL_APP.connectionId}
          toolName={PANEL_APP.toolName}
        />
      </div>
    </div>
  );
});

export default function AgentShellLayout() {
  exposeRouter(useRouter());
  return (
    <>
      <Thread />
      <Outlet />
    </>
  );
}
