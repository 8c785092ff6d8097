"""project-app-view.tsx: the app opened in the main panel keeps its state.

This is the view (``main=app:<conn>:<tool>``) where a shared link most often
lands. Its key is ``<connectionId>:<toolName>`` exactly as ``main`` addresses
it (SPEC 2), which AppViewContent has and hands to AppRenderer as ``appKey``;
AppRenderer reads and writes its slot through the useAppStateParam hook,
with ``panel: true`` (a hand-made link's state is the panel app's).
"""

from __future__ import annotations

from ...engine.editor import FileEditor

from ...engine.statements import Item
from ...engine.outcome import AnchorMissing
from ..base import Context
from .common import (
    app_state_search,
    decode_statement,
    drop_earlier_imports,
    hook_statement,
    render_site_attributes,
    site_forms,
    wire_render_site,
)

PATH = "apps/mesh/src/web/routes/project-app-view.tsx"

HOOK_CALL = hook_statement("appKey, { panel: true }", key_may_be_null=False)

# What 0.2.0 to 0.4.0 wrote (keyed by the tool's name as listed), which the
# hook replaces.
EARLIER = site_forms(
    app_state_search(" search.appState"),
    decode_statement("const appState = decodeAppState(sourceId, appStateParam);"),
)

APP_KEY = Item("appKey", "appKey={`${connectionId}:${toolName}`}")


def transform(ed: FileEditor, ctx: Context) -> None:
    app, renderer = wire_render_site(ed, ctx, "AppRenderer", HOOK_CALL, EARLIER, anchor="sourceId")
    render_site_attributes(ed, ed.body(app), ed.jsx_element(app, renderer, "`AppRenderer`"))

    props = ed.entries(ed.parameters(app))
    annotation = props[0].child_by_field_name("type") if props else None
    shape = annotation.named_children[0] if annotation is not None and annotation.named_children else None
    if shape is None or shape.type != "object_type":
        raise AnchorMissing(ed.path, "the props type `{ ... }` of `AppRenderer`")
    ed.ensure_members(shape, [Item("appKey", "appKey: string;")])
    ed.ensure_list_items(ed.props_pattern(app), [Item("appKey", "appKey")])
    content = ed.function("AppViewContent")
    ed.ensure_jsx_attributes(ed.jsx_element(content, "AppRenderer", "`AppViewContent`"), [APP_KEY])
    drop_earlier_imports(ed, ctx)
