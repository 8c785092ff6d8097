"""project-app-view.tsx: the app opened in the main panel keeps its state.

This is the view (``main=app:<conn>:<tool>``) where a shared link most often
lands, so it reads and writes the param like the chat tool-call part.
"""

from __future__ import annotations

from ...engine.editor import FileEditor
from ..base import Context
from .common import app_state_search, decode_statement, render_site_attributes, wire_render_site

PATH = "apps/mesh/src/web/routes/project-app-view.tsx"

SEARCH = app_state_search(" search.appState")

DECODE = decode_statement(
    "const appState = decodeAppState(sourceId, appStateParam);",
)


def transform(ed: FileEditor, ctx: Context) -> None:
    app, renderer = wire_render_site(ed, "AppRenderer", SEARCH, DECODE, key_may_be_null=False)
    ed.ensure_jsx_attributes(ed.jsx_element(app, renderer, "`AppRenderer`"), render_site_attributes(ed))
