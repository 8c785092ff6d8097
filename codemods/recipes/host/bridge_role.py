"""The bridge store by role (SPEC 5a, "Recognition by role"; issue 30,
item 2): the class that constructs the SDK's `AppBridge` (under whatever
name its file imports it) and builds its host context (`buildHostContext`,
defined in the file or imported), whatever the class or its file is
called; its config and options interfaces by what they type (the class's
constructor parameter, the options of the exported hook that creates the
store), the usual names first; and `buildHostContext` where it is."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.files import files_containing
from ...engine.find import Finder, squash
from ...engine.outcome import AnchorMissing, Refused, parsed_or_refused
from ..base import Context, Role
from .roles import import_sources, one_of, parsed, props_type_name, top_functions

# The usual names: each the first choice where the file has it.
CLASS = "BridgeStore"
CONFIG = "BridgeStoreConfig"
OPTIONS = "UseAppBridgeOptions"
HOST_CONTEXT = "buildHostContext"
# The SDK's bridge, and the package that exports it (its app-bridge entry).
BRIDGE = "AppBridge"
PACKAGE = "@modelcontextprotocol/ext-apps"
# What a file constructing the bridge holds: the construction, or (under
# another local name) the import of the entry that exports it.
NEEDLES = (f"new {BRIDGE}(", "ext-apps/app-bridge")
STORE = f"class that constructs the SDK's `{BRIDGE}` and calls `{HOST_CONTEXT}`"


def bridge_constructors(f: Finder) -> set[str]:
    """How ``f``'s file names the SDK's `AppBridge` in a ``new``: the local
    name of its import (``AppBridge as Bridge``), or ``ns.AppBridge`` for a
    namespace import of the package."""
    names = {
        local for local, (exported, specifier) in import_sources(f).items()
        if exported == BRIDGE and (specifier == PACKAGE or specifier.startswith(PACKAGE + "/"))
    }
    for statement in f.imports():
        source = statement.child_by_field_name("source")
        specifier = f.text(source)[1:-1] if source is not None else ""
        if specifier != PACKAGE and not specifier.startswith(PACKAGE + "/"):
            continue
        for node in f.walk(statement):
            if node.type == "namespace_import":
                names.add(f"{f.text(node.named_children[-1])}.{BRIDGE}")
    return names


def host_context_names(f: Finder) -> set[str]:
    """The names ``f``'s file calls `buildHostContext` by: its own function,
    or the local name of its import of it."""
    names = {name for name, _fn, _exported in top_functions(f) if name == HOST_CONTEXT}
    return names | {local for local, (exported, _s) in import_sources(f).items() if exported == HOST_CONTEXT}


def constructions(f: Finder, scope: Node, constructors: set[str]) -> list[Node]:
    """The ``new AppBridge(...)`` expressions in ``scope``."""
    return [
        node for node in f.walk(scope)
        if node.type == "new_expression" and squash(f.text(node.child_by_field_name("constructor"))) in constructors
    ]


def stores(f: Finder) -> list[tuple[Node, str]]:
    """The classes of ``f``'s file that construct the SDK's bridge and call
    `buildHostContext`: (the class, its name)."""
    constructors = bridge_constructors(f)
    builders = host_context_names(f)
    if not constructors or not builders:
        return []
    return [
        (node, f.name_of(node) or "")
        for node in f.source.nodes("class_declaration")
        if constructions(f, node, constructors) and any(f.calls(node, name) for name in builders)
    ]


def files(repo: Path, located: Mapping[str, str]) -> list[str]:
    """The files of the checkout holding a bridge store: only those holding
    a needle are parsed."""
    paths = sorted({path for needle in NEEDLES for path in files_containing(repo, needle)})
    return [path for path in paths if (f := parsed(repo, path)) is not None and stores(f)]


ROLE = Role(f"it constructs the SDK's `{BRIDGE}` in a class that calls `{HOST_CONTEXT}`", files, NEEDLES)


def store_file(repo: Path, usual: str, defines: str) -> str | None:
    """The checkout's bridge store file: at its usual path, else the one
    file playing the role, else the one file holding ``defines``; None when
    there is none or more (as `plan.locate` finds the step's file)."""
    if os.path.lexists(repo / usual):
        return usual
    playing = files(repo, {})
    if playing:
        return playing[0] if len(playing) == 1 else None
    found = files_containing(repo, defines)
    return found[0] if len(found) == 1 else None


def store_class(f: Finder) -> tuple[Node, str]:
    """The store's class in ``f``'s file: `BridgeStore`, else the one class
    that plays its part; a Conflict naming their lines when several do."""
    if any(f.name_of(node) == CLASS for node in f.source.nodes("class_declaration")):
        return f.class_(CLASS), CLASS
    found = one_of(f, stores(f), STORE)
    if found is None:
        raise AnchorMissing(f.path, f"class `{CLASS}` (or a {STORE})")
    return found


def class_name(ctx: Context, step: str, usual: str) -> str:
    """The name of the store's class in this checkout: in its file as this
    run leaves it (the result of the store's ``step``), else as it is (at
    ``usual``, or where it was found); `BridgeStore` when there is no such
    class (the step names what is missing)."""
    planned = ctx.earlier.get(step)
    path, data = (planned.path, planned.data) if planned is not None and planned.data else (ctx.at(usual), None)
    try:
        data = data if data is not None else (Path(ctx.repo) / path).read_bytes()
        return store_class(Finder(parsed_or_refused(path, data)))[1]
    except (OSError, Refused):
        return CLASS


def _interface_of(f: Finder, node: Node | None) -> str | None:
    """The interface ``node``'s first parameter is typed with, when ``f``'s
    file declares it."""
    name = props_type_name(f, node) if node is not None else None
    return name if name is not None and f.interfaces(name) else None


def config_interface(f: Finder, store: Node, name: str) -> str:
    """The interface of the store's config: `BridgeStoreConfig`, else the
    type of the class's constructor parameter."""
    if f.interfaces(CONFIG):
        return CONFIG
    constructors = f.class_members(store, "constructor", "method_definition")
    found = _interface_of(f, constructors[0]) if len(constructors) == 1 else None
    if found is None:
        raise AnchorMissing(f.path, f"interface `{CONFIG}` (the type of `{name}`'s constructor parameter)")
    return found


def options_interface(f: Finder, name: str) -> str:
    """The interface of the bridge hook's options: `UseAppBridgeOptions`,
    else the type of the first parameter of the exported function that
    creates the store."""
    if f.interfaces(OPTIONS):
        return OPTIONS
    hooks = [fn for _n, fn, exported in top_functions(f) if exported and constructions(f, fn, {name})]
    found = _interface_of(f, hooks[0]) if len(hooks) == 1 else None
    if found is None:
        raise AnchorMissing(f.path, f"interface `{OPTIONS}` (the options of the exported hook that creates `{name}`)")
    return found


def host_context(ed: FileEditor) -> tuple[str, Node | None]:
    """The name the store calls `buildHostContext` by, and the function
    where the store's file defines it (None where the team moved it into a
    module the store imports it from: the store reads its result only)."""
    if any(name == HOST_CONTEXT for name, _fn, _exported in top_functions(ed)):
        return HOST_CONTEXT, ed.function(HOST_CONTEXT)
    imported = [local for local, (exported, _specifier) in import_sources(ed).items() if exported == HOST_CONTEXT]
    if len(imported) != 1:
        ed.function(HOST_CONTEXT)  # names what is missing
    return imported[0], None
