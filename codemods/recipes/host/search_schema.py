"""index.tsx: the unified chat route accepts the appState search param.

``.catch(undefined)``: a malformed value is dropped, never an error screen.
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
from .common import FLOOR, MODULE_PATH, earlier_import, ensure_import_like_neighbours, import_of
from .roles import candidates, import_sources, is_call_of, module_file, one_of, parsed, top_variables

PATH = "apps/mesh/src/web/index.tsx"
SCHEMA = "unifiedChatSearchSchema"
VALUE = "z.string().optional().catch(undefined)"
# The key is the constant the hook and the module use (SPEC 2).
ENTRY = Item("[APP_STATE_PARAM]", f"[APP_STATE_PARAM]: {VALUE}")


VALIDATES = "validateSearch"
# The param the panel's app is addressed by (`main=app:<conn>:<tool>`): the
# render sites' route has it.
PANEL_KEY = "main"


def is_schema(f: Finder, declarator: Node) -> bool:
    """Whether ``declarator`` declares a zod object schema (``x.object({...})``)
    with the panel's ``main`` key."""
    value = declarator.child_by_field_name("value")
    if not is_call_of(f, value, "object"):
        return False
    arguments = value.child_by_field_name("arguments")
    shape = next((a for a in arguments.named_children if a.type == "object"), None) if arguments else None
    return shape is not None and any(
        entry.type == "pair" and f.text(entry.child_by_field_name("key")).strip("\"'") == PANEL_KEY
        for entry in shape.named_children
    )


def validated(f: Finder) -> set[str]:
    """The names ``f``'s routes validate their search with
    (``validateSearch: name``)."""
    names = set()
    for node in f.walk():
        if node.type != "pair":
            continue
        key, value = node.child_by_field_name("key"), node.child_by_field_name("value")
        if key is not None and f.text(key) == VALIDATES and value is not None and value.type == "identifier":
            names.add(f.text(value))
    return names


def schemas(f: Finder) -> list[tuple[Node, str]]:
    """The search schemas of ``f``'s file, by role: each top-level zod
    object schema with the panel's key that a route of the file validates
    its search with, or that the file exports (for a route elsewhere)."""
    routes = validated(f)
    return [(d, name) for name, d, exported in top_variables(f) if (exported or name in routes) and is_schema(f, d)]


def files(repo: Path, located: Mapping[str, str]) -> list[str]:
    """The files declaring a schema a route validates its search with:
    the route's own file, or the one it imports the schema from."""
    found = set()
    for path, f in candidates(repo, VALIDATES):
        declared = {name: d for name, d, _exported in top_variables(f)}
        imports = import_sources(f)
        for name in validated(f):
            if name in declared:
                if is_schema(f, declared[name]):
                    found.add(path)
                continue
            if name not in imports:
                continue
            exported, specifier = imports[name]
            source = module_file(repo, path, specifier)
            other = parsed(repo, source) if source is not None else None
            if other is not None and any(n == exported and x for n, _d, x in top_variables(other)) and any(
                n == exported for _d, n in schemas(other)
            ):
                found.add(source)
    return sorted(found)


ROLE = Role("it declares the zod schema a route validates its search with", files, (VALIDATES, f"{PANEL_KEY}: z."))


def _schema_name(ed: FileEditor) -> str:
    if ed.variables(SCHEMA):
        return SCHEMA
    found = one_of(ed, schemas(ed), "route search schema with a `main` key")
    if found is None:
        raise AnchorMissing(
            ed.path,
            f"`const {SCHEMA} = z.object({{...}})`, the unified chat route's search schema",
            "mesh has it since 2026-04-21; older revisions are not supported",
        )
    return found[1]


def transform(ed: FileEditor, ctx: Context) -> None:
    name = _schema_name(ed)
    value = ed.variable(name).child_by_field_name("value")
    callee = value.child_by_field_name("function") if value is not None and value.type == "call_expression" else None
    if callee is None or not ed.text(callee).endswith(".object"):
        found = ed.text(value).split("(")[0] + "(...)" if value is not None else "nothing"
        raise AnchorMissing(ed.path, f"`{name} = z.object({{...}})` (it is `{name} = {found}`)")
    shape = ed.object_argument(value)
    # an `appState` key, however written, is the param's
    if not any(ed.item_key(entry) == "appState" for entry in ed.entries(shape)):
        ed.ensure_list_items(shape, [ENTRY])
    module, _same = import_of(ed, ctx, MODULE_PATH, alias=True)
    earlier = [earlier_import(f"{FLOOR}, the schema's import of app-state.ts", ["APP_STATE_PARAM"], module)]
    ensure_import_like_neighbours(ed, ctx, MODULE_PATH, ["APP_STATE_PARAM"], alias=True, earlier=earlier)
