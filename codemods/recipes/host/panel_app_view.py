"""project-app-view.tsx: the app opened in the main panel keeps its state.

This is the view (``main=app:<conn>:<tool>``) where a shared link most often
lands, so it reads and writes the param like the chat tool-call part.
"""

from __future__ import annotations

from ...engine.editor import FileEditor, Item
from ...engine.outcome import AnchorMissing
from ..base import Context
from .common import (
    APP_STATE_HELPERS,
    APP_STATE_SEARCH,
    ensure_navigate,
    handle_app_state_change,
    module_like,
)

PATH = "apps/mesh/src/web/routes/project-app-view.tsx"
RENDERER_MODULE = "mcp-app-renderer.tsx"

DECODE = (
    "const appState =",
    "const appState = decodeAppState(sourceId, appStateSearch.appState);",
)


def transform(ed: FileEditor, ctx: Context) -> None:
    renderer = ed.imported_name(RENDERER_MODULE, "MCPAppRenderer")
    if renderer is None:
        raise AnchorMissing(ed.path, f"the import of `MCPAppRenderer` from `{RENDERER_MODULE}`")

    app = ed.function("AppRenderer")
    body = ed.body(app)
    navigate, declare_navigate = ensure_navigate(ed, body)
    ed.ensure_import("@tanstack/react-router", (["useNavigate"] if declare_navigate else []) + ["useSearch"])
    ed.ensure_import(
        module_like(ed, RENDERER_MODULE, "@/mcp-apps/app-state", ".ts"),
        list(APP_STATE_HELPERS),
        after_module_suffix=RENDERER_MODULE.removesuffix(".tsx"),
    )
    ed.ensure_statements_after(
        ed.declaration_of(body, "sourceId"),
        [*declare_navigate, APP_STATE_SEARCH, DECODE, handle_app_state_change(False, navigate)],
    )
    ed.ensure_jsx_attributes(
        ed.jsx_element(app, renderer, "`AppRenderer`"),
        [Item("appState", "appState={appState}"), Item("onAppStateChange", "onAppStateChange={handleAppStateChange}")],
    )
