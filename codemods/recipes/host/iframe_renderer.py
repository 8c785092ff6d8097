"""mcp-app-renderer.tsx: the iframe renderer passes appState to the bridge.

By role (SPEC 5a), the renderer is the exported component that renders
the app and hands its props to the bridge store's hook (`useAppBridge`),
whatever its file or its name; the render sites are the files that import
it and render it."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.find import Finder, module_stem
from ...engine.outcome import AnchorMissing
from ..base import Context, Role
from .common import ALIASES, PROP_MEMBERS, PROP_NAMES, RENDERER_MODULE, RENDERER_PATH
from .roles import candidates, has_jsx, imported, one_of, props_type_name, top_functions

PATH = RENDERER_PATH
COMPONENT = "MCPAppRenderer"
BRIDGE_HOOK = "useAppBridge"


def components(f: Finder) -> list[tuple[Node, str]]:
    """The exported components of ``f``'s file that call the bridge hook."""
    return [
        (fn, name) for name, fn, exported in top_functions(f)
        if exported and f.calls(fn, BRIDGE_HOOK) and has_jsx(f, fn)
    ]


def files(repo: Path, located: Mapping[str, str]) -> list[str]:
    return [path for path, f in candidates(repo, BRIDGE_HOOK) if components(f)]


ROLE = Role("it renders an app through the bridge hook (`useAppBridge`)", files, (BRIDGE_HOOK,))


def renderer_names(f: Finder, ctx: Context) -> dict[str, str]:
    """What ``f``'s file imports from the iframe renderer's file, wherever
    that is: local name -> exported name."""
    return imported(f, ctx.at(PATH), ctx.aliases or ALIASES)


def renderer_local(f: Finder, ctx: Context) -> str:
    """The local name of the iframe renderer in a render site: its import of
    `MCPAppRenderer`, or the one name it imports from the renderer's file
    and renders (the component renamed)."""
    names = renderer_names(f, ctx)
    for local, exported in names.items():
        if exported == COMPONENT:
            return local
    rendered = [local for local in names if f.jsx_elements(f.source.root, local)]
    if len(rendered) == 1:
        return rendered[0]
    raise AnchorMissing(f.path, f"the import of `{COMPONENT}` from `{RENDERER_MODULE}`")


def site_needle(located: Mapping[str, str]) -> str:
    """What every importer of the renderer's file holds: its name."""
    return posixpath.basename(module_stem(located.get(PATH, PATH)))


def transform(ed: FileEditor, ctx: Context) -> None:
    if any(name == COMPONENT for name, _fn, _exported in top_functions(ed)):
        props, renderer, name = f"{COMPONENT}Props", None, COMPONENT
    else:
        found = one_of(ed, components(ed), "exported component that calls `useAppBridge`")
        if found is None:
            raise AnchorMissing(ed.path, f"function `{COMPONENT}`")
        renderer, name = found
        props = props_type_name(ed, renderer) or f"{name}Props"
    ed.ensure_members(ed.interface(props), PROP_MEMBERS)
    renderer = renderer if renderer is not None else ed.function(COMPONENT)
    ed.ensure_list_items(ed.props_pattern(renderer), PROP_NAMES)
    bridge_call = ed.call(renderer, BRIDGE_HOOK, f"`{name}`")
    ed.ensure_list_items(ed.object_argument(bridge_call), PROP_NAMES)
