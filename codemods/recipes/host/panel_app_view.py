"""project-app-view.tsx: the app opened in the main panel keeps its state.

This is the view (``main=app:<conn>:<tool>``) where a shared link most often
lands. Its key is ``<connectionId>:<toolName>`` exactly as ``main`` addresses
it (SPEC 2), which AppViewContent has and hands to AppRenderer as ``appKey``
(AppRenderer's own ``sourceId`` is not it: ``tool.name`` is the tool's name
without the ``mcp__<server>__`` prefix and decoded, where ``main`` holds the
chat part's raw tool name); AppRenderer reads and writes its slot through
the useAppStateParam hook.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.find import Finder

from ...engine.statements import Item
from ...engine.outcome import AnchorMissing
from ..base import Context, Role
from . import iframe_renderer
from .common import FLOOR, RENDERER_ATTRIBUTES, hook_statement, wire_render_site
from .roles import candidates, imported, one_of, prop_keys, renders, top_functions

PATH = "apps/mesh/src/web/routes/project-app-view.tsx"

HOOK_CALL = hook_statement(
    "appKey", earlier=[hook_statement("appKey, { panel: true }", label=f"{FLOOR}, the panel's hook")]
)

APP_KEY = Item("appKey", "appKey={`${connectionId}:${toolName}`}")


CONTENT, APP = "AppViewContent", "AppRenderer"
# What ``main=app:<conn>:<tool>`` hands the view: the app's address.
ADDRESS = {"connectionId", "toolName"}


def sites(f: Finder, renderer: set[str] | dict[str, str]) -> list[tuple[Node, str, Node, str]]:
    """The panel's app views of ``f``'s file, by role: each exported
    component that takes the app's address (``connectionId`` and
    ``toolName``) in its props and renders a local component that renders
    the iframe renderer (one of the local names ``renderer``): (the view,
    its name, the local component, its name)."""
    functions = top_functions(f)
    apps = [(name, fn) for name, fn, _exported in functions if renders(f, fn, renderer)]
    found = []
    for name, fn, exported in functions:
        if not exported or not ADDRESS <= prop_keys(f, fn):
            continue
        found.extend(
            (fn, name, app, app_name) for app_name, app in apps if app_name != name and f.jsx_elements(fn, app_name)
        )
    return found


def files(repo: Path, located: Mapping[str, str]) -> list[str]:
    renderer = located.get(iframe_renderer.PATH, iframe_renderer.PATH)
    found = []
    for path, f in candidates(repo, iframe_renderer.site_needle(located)):
        names = imported(f, renderer) if path != renderer else {}
        if names and sites(f, names):
            found.append(path)
    return found


ROLE = Role(
    "it renders the iframe renderer for the app `main` addresses (`connectionId`, `toolName`)",
    files,
    (iframe_renderer.site_needle({}),),
)


def transform(ed: FileEditor, ctx: Context) -> None:
    iframe = iframe_renderer.renderer_local(ed, ctx)
    found = one_of(ed, sites(ed, {iframe}), f"exported component that renders `<{iframe}>` for the app `main` addresses")
    if found is None:
        content, content_name, app, app_name = None, CONTENT, ed.function(APP), APP
    else:
        content, content_name, app, app_name = found
    wire_render_site(ed, ctx, app, HOOK_CALL, anchor="sourceId")
    ed.ensure_jsx_attributes(ed.jsx_element(app, iframe, f"`{app_name}`"), RENDERER_ATTRIBUTES)

    props = ed.entries(ed.parameters(app))
    annotation = props[0].child_by_field_name("type") if props else None
    shape = annotation.named_children[0] if annotation is not None and annotation.named_children else None
    if shape is None or shape.type != "object_type":
        raise AnchorMissing(ed.path, f"the props type `{{ ... }}` of `{app_name}`")
    ed.ensure_members(shape, [Item("appKey", "appKey: string;")])
    ed.ensure_list_items(ed.props_pattern(app), [Item("appKey", "appKey")])
    content = content if content is not None else ed.function(CONTENT)
    ed.ensure_jsx_attributes(ed.jsx_element(content, app_name, f"`{content_name}`"), [APP_KEY])
