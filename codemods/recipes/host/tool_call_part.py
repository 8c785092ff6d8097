"""generic.tsx: the chat tool-call part keeps its app's state in the URL.

The part's key is its tool call's id (SPEC 2): two calls of one tool are two
apps. It reads and writes its slot through the useAppStateParam hook and
threads both values through the local wrapper into the iframe renderer.
"Open in panel" starts the panel's app from the part's state: the part's
slot is copied to the panel's key (``<connectionId>:<toolName>`` as
``main`` addresses it) in the same navigation.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.statements import Form, Item
from ...engine.find import Finder
from ...engine.outcome import AnchorMissing, Conflict
from ..base import Context, Role
from . import iframe_renderer
from .common import (
    FLOOR,
    MODULE_PATH,
    PROP_MEMBERS,
    PROP_NAMES,
    RENDERER_ATTRIBUTES,
    earlier_import,
    ensure_import_like_neighbours,
    hook_statement,
    import_of,
    renderer_module,
    wire_render_site,
)
from .roles import candidates, imported, one_of, prop_keys, props_type_name, renders, top_functions

PATH = "apps/mesh/src/web/components/chat/message/parts/tool-call-part/generic.tsx"
WRAPPER = "MCPAppRenderer"

# Every part of a thread renders this component, most of them without an
# app: those read nothing, so a change of the URL never re-renders them
# (rule 7).
HOOK_CALL = hook_statement(
    "hasMCPApp ? part.toolCallId : null",
    earlier=[
        hook_statement(
            "hasMCPApp ? part.toolCallId : null",
            comment="// Only a part that shows an app follows its slot of the URL.\n",
            label=f"{FLOOR}, the part's hook",
        )
    ],
)
# "Open in panel" carries the part's slot to the panel's key (SPEC 2).
COPY = (
    "[APP_STATE_PARAM]: copyAppState({prev}[APP_STATE_PARAM] as string | undefined, "
    "part.toolCallId, `${{{connection}}}:${{{tool}}}`)"
)
COPY_070 = (
    "[APP_STATE_PARAM]: copyAppState(typeof {prev}[APP_STATE_PARAM] === \"string\" ? {prev}[APP_STATE_PARAM] : undefined, "
    "part.toolCallId, `${{{connection}}}:${{{tool}}}`)"
)
COPY_060 = "[APP_STATE_PARAM]: copyAppState({prev}[APP_STATE_PARAM], part.toolCallId, `${{{connection}}}:${{{tool}}}`)"


COMPONENT = "GenericToolCallPart"
# The part hands its wrapper the key it passes the hook.
PART_ATTRIBUTES = (*RENDERER_ATTRIBUTES[:-1], Item("appKey", "appKey={part.toolCallId}"))


def sites(f: Finder, renderer: set[str] | dict[str, str]) -> list[tuple[Node, str, Node | None, str]]:
    """The chat tool-call render sites of ``f``'s file, by role: each
    exported component that takes a tool-call ``part`` in its props and
    renders the iframe renderer (one of the local names ``renderer``),
    through a local component (the wrapper the transform threads the props
    through) or directly (no wrapper: None): (the component, its name, the
    wrapper, its name)."""
    functions = top_functions(f)
    wrappers = [(name, fn) for name, fn, _exported in functions if renders(f, fn, renderer)]
    found = []
    for name, fn, exported in functions:
        if not exported or "part" not in prop_keys(f, fn):
            continue
        via = [(w, node) for w, node in wrappers if w != name and f.jsx_elements(fn, w)]
        if via:
            # each wrapper is a candidate: two are a conflict, never a guess
            found.extend((fn, name, node, w) for w, node in via)
        elif any(w == name for w, _node in wrappers):
            found.append((fn, name, None, ""))
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
    "it renders the iframe renderer from a tool-call part",
    files,
    (iframe_renderer.site_needle({}),),
)


def _site(ed: FileEditor, renderer: str) -> tuple[Node, str, Node, str]:
    """The part component and its wrapper: by role, else by their names."""
    found_sites = sites(ed, {renderer})
    if len({item[1] for item in found_sites}) == 1 and len(found_sites) > 1:
        wrappers = ", ".join(f"`{item[3]}`" for item in found_sites)
        raise Conflict(
            ed.path, f"`{found_sites[0][1]}` renders `<{renderer}>` through more than one local component ({wrappers})"
        )
    found = one_of(ed, found_sites, f"exported component that renders `<{renderer}>` from a tool-call part")
    if found is not None and found[2] is not None:
        return found
    return ed.function(COMPONENT), COMPONENT, ed.function(WRAPPER), WRAPPER


def transform(ed: FileEditor, ctx: Context) -> None:
    iframe = iframe_renderer.renderer_local(ed, ctx)
    component, name, wrapper, wrapper_name = _site(ed, iframe)
    body = ed.body(component)
    if not ed.has_statement(body, HOOK_CALL):
        # The hook's argument reads it: only a part that shows an app has a key.
        ed.declaration_of(body, "hasMCPApp")
    wire_render_site(ed, ctx, component, HOOK_CALL, anchor="sourceId")
    ed.ensure_jsx_attributes(ed.jsx_element(component, wrapper_name, f"`{name}`"), PART_ATTRIBUTES)

    props = props_type_name(ed, wrapper) or f"{wrapper_name}Props"
    ed.ensure_members(ed.interface(props), PROP_MEMBERS)
    ed.ensure_list_items(ed.props_pattern(wrapper), PROP_NAMES)
    ed.ensure_jsx_attributes(ed.jsx_element(wrapper, iframe, f"the local `{wrapper_name}`"), RENDERER_ATTRIBUTES)
    carry_state_to_panel(ed, ctx, body)


def carry_state_to_panel(ed: FileEditor, ctx: Context, body: Node) -> None:
    """In the search updater of "Open in panel" (the one that sets ``main``
    with ``formatPinnedViewTabId(connectionId, toolName)``), the part's slot
    copied to the panel's key, ``<connectionId>:<toolName>`` as ``main``
    addresses the app."""
    where = "`formatPinnedViewTabId(...)` in the search updater of `handleOpenInPanel`"
    handler = ed.declaration_of(body, "handleOpenInPanel")
    calls = ed.calls(handler, "formatPinnedViewTabId")
    arguments = calls[0].child_by_field_name("arguments").named_children if len(calls) == 1 else []
    shape = calls[0].parent.parent if len(arguments) == 2 and calls[0].parent.type == "pair" else None
    updater = shape.parent.parent if shape is not None and shape.type == "object" and shape.parent else None
    if updater is None or updater.type != "arrow_function":
        raise AnchorMissing(ed.path, where)
    params = ed.entries(ed.parameters(updater)) if updater.child_by_field_name("parameters") else []
    prev = updater.child_by_field_name("parameter") or (params[0].child_by_field_name("pattern") if params else None)
    if prev is None or prev.type != "identifier":
        raise AnchorMissing(ed.path, f"the `prev` parameter of the search updater of {where}")
    values = {"prev": ed.text(prev), "connection": ed.text(arguments[0]), "tool": ed.text(arguments[1])}
    names = ["APP_STATE_PARAM", "copyAppState"]
    upgraded = ed.retire_list_item(shape, Form(f"{FLOOR}, Open in panel's copy", COPY_060.format(**values)))
    ed.retire_list_item(shape, Form("0.7.0, Open in panel's copy", COPY_070.format(**values)))
    ed.ensure_list_items(shape, [Item("[APP_STATE_PARAM]", COPY.format(**values))])
    # 0.6.0 wrote this release's import text in another place: it moves only
    # with 0.6.0's copy (this release's import stays where the team has it)
    module, _same = import_of(ed, ctx, MODULE_PATH, alias=True, anchor_suffix=renderer_module(ctx))
    earlier = [earlier_import(f"{FLOOR}, the part's import of app-state.ts", names, module)] if upgraded else []
    ensure_import_like_neighbours(ed, ctx, MODULE_PATH, names, alias=True, earlier=earlier)
