"""generic.tsx: the chat tool-call part keeps its app's state in the URL.

The part renders a local wrapper component that renders the iframe
renderer, so the two values are threaded through the wrapper's props.
"""

from __future__ import annotations

from ...engine.editor import FileEditor, Item
from ...engine.outcome import AnchorMissing
from ..base import Context
from .common import (
    APP_STATE_HELPERS,
    APP_STATE_MODULE,
    APP_STATE_SEARCH,
    PROP_MEMBERS,
    PROP_NAMES,
    ensure_navigate,
    handle_app_state_change,
    module_like,
)

PATH = "apps/mesh/src/web/components/chat/message/parts/tool-call-part/generic.tsx"
RENDERER_MODULE = "mcp-app-renderer.tsx"

# The model-context source id is null without a connection: then there is no
# app key, no state and no navigation.
DECODE = (
    "const appState =",
    """
    const appState = sourceId
      ? decodeAppState(sourceId, appStateSearch.appState)
      : undefined;
    """,
)


def transform(ed: FileEditor, ctx: Context) -> None:
    iframe_renderer = ed.imported_name(RENDERER_MODULE, "MCPAppRenderer")
    if iframe_renderer is None:
        raise AnchorMissing(ed.path, f"the import of `MCPAppRenderer` from `{RENDERER_MODULE}`")

    part = ed.function("GenericToolCallPart")
    body = ed.body(part)
    navigate, declare_navigate = ensure_navigate(ed, body)
    router_imports = (["useNavigate"] if declare_navigate else []) + ["useSearch"]
    ed.ensure_import("@tanstack/react-router", router_imports)
    ed.ensure_import(
        module_like(ed, RENDERER_MODULE, "@/mcp-apps/app-state", ".ts"),
        list(APP_STATE_HELPERS),
        after_module_suffix=RENDERER_MODULE.removesuffix(".tsx"),
    )
    ed.ensure_statements_after(
        ed.declaration_of(body, "sourceId"),
        [*declare_navigate, APP_STATE_SEARCH, DECODE, handle_app_state_change(True, navigate)],
    )

    wrapper = ed.function("MCPAppRenderer")
    ed.ensure_jsx_attributes(
        ed.jsx_element(part, "MCPAppRenderer", "`GenericToolCallPart`"),
        [Item("appState", "appState={appState}"), Item("onAppStateChange", "onAppStateChange={handleAppStateChange}")],
    )
    ed.ensure_members(ed.interface("MCPAppRendererProps"), PROP_MEMBERS)
    ed.ensure_list_items(ed.props_pattern(wrapper), PROP_NAMES)
    ed.ensure_jsx_attributes(
        ed.jsx_element(wrapper, iframe_renderer, "the local `MCPAppRenderer`"),
        [Item("appState", "appState={appState}"), Item("onAppStateChange", "onAppStateChange={onAppStateChange}")],
    )
