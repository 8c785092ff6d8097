"""The feature by other hands (SPEC 5a; SPEC 10): what the tool would write
into the bridge store, written by the team, found by role whoever wrote it.

Every registration of the state-changed method, with any schema, name or
form: ``setNotificationHandler`` with the method's name or a schema whose
``method`` is that literal (declared in the file, in a module it imports,
or the SDK's own), ``fallbackNotificationHandler`` checking the method's
name, and the SDK's own API (its ``on*`` accessor, ``addEventListener``).
The tool's handler reaches the store's ``onAppStateChange`` (0.6.0's
through ``reportAppState``); any other registration is the team's, and the
steps that would register the method, give it a schema or test the tool's
handler stand down. Likewise the context field in what
``buildHostContext`` returns, and the capability in the host capabilities
the bridge is constructed with."""

from __future__ import annotations

import os
from pathlib import Path

from tree_sitter import Node

from ...engine.equivalence import canonical_tree, compile_pattern
from ...engine.find import Finder, squash
from ..base import Context, Notice
from ..names import Names
from . import bridge_role, sdk_api
from .roles import import_sources, module_file, parsed, top_variables

_SETTER = compile_pattern("$B.setNotificationHandler($$$)", True)
_FALLBACK = compile_pattern("$B.fallbackNotificationHandler = $H", True)
# What the tool's handler calls, in every release since the floor.
TOOLS_CALLBACKS = ("onAppStateChange", "reportAppState")


def _strings(f: Finder, node: Node) -> set[str]:
    """The values of the plain string literals inside ``node``."""
    return {
        f.text(n)[1:-1] for n in f.walk(node)
        if n.type == "string" or (n.type == "template_string" and not any(c.type == "template_substitution" for c in n.named_children))
    }


def _namespaces(f: Finder) -> dict[str, str]:
    """Each namespace ``f``'s file imports (``import * as ns``): ns -> its
    module specifier."""
    found = {}
    for statement in f.imports():
        source = statement.child_by_field_name("source")
        for node in f.walk(statement):
            if node.type == "namespace_import" and source is not None and node.named_children:
                found[f.text(node.named_children[-1])] = f.text(source)[1:-1]
    return found


def _names_method(f: Finder, repo: Path, node: Node, names: Names) -> bool:
    """Whether the first argument ``node`` of ``setNotificationHandler``
    stands for ``names.method``: the method's name, or a schema whose
    declaration (here, in the module it is imported from) holds it, or the
    SDK's own schema of it."""
    if node.type in {"string", "template_string"}:
        return names.method in _strings(f, node)
    if node.type == "member_expression":  # `types.Schema`, of `import * as types`
        namespace, member = node.child_by_field_name("object"), node.child_by_field_name("property")
        exported, specifier = f.text(member), _namespaces(f).get(f.text(namespace), "")
    elif node.type == "identifier":
        name = f.text(node)
        declared = {n: d for n, d, _exported in top_variables(f)}
        if name in declared:
            return names.method in _strings(f, declared[name])
        exported, specifier = import_sources(f).get(name, ("", ""))
    else:
        return False
    if specifier == bridge_role.PACKAGE or specifier.startswith(bridge_role.PACKAGE + "/"):
        return exported == names.schema
    source = module_file(repo, f.path, specifier) if specifier else None
    other = parsed(repo, source) if source is not None else None
    found = [d for n, d, x in top_variables(other) if n == exported and x] if other is not None else []
    return bool(found) and names.method in _strings(other, found[0])


def registrations(f: Finder, repo: Path, names: Names) -> list[Node]:
    """The statements of ``f``'s file that register ``names.method``, in
    document order."""
    accessors = dict.fromkeys((names.accessor, *sdk_api.ACCESSORS))
    events = dict.fromkeys((names.event, *sdk_api.EVENT_KEYS))
    words = ("setNotificationHandler", "fallbackNotificationHandler", *accessors, *events)
    if not any(word.encode() in f.source.data for word in words):
        return []  # nothing to match: the tree is not built
    tree = canonical_tree(f.source.root, f.source.data)
    found = []
    for group, _env in _SETTER.search(tree):
        arguments = group.node.child_by_field_name("arguments") if group.node is not None else None
        if arguments is not None and arguments.named_children and _names_method(f, repo, arguments.named_children[0], names):
            found.append(group.node)
    for group, _env in _FALLBACK.search(tree):
        if group.node is not None and names.method in _strings(f, group.node):
            found.append(group.node)
    api = [f"$B.{name} = $H" for name in accessors] + [f'$B.addEventListener("{name}", $$$)' for name in events]
    for role in api:
        found += [group.node for group, _env in compile_pattern(role, True).search(tree) if group.node is not None]
    statements = {f.enclosing_statement(node).id: f.enclosing_statement(node) for node in found}
    return sorted(statements.values(), key=lambda node: node.start_byte)


def is_the_tools(f: Finder, node: Node) -> bool:
    """Whether the registration ``node`` is the tool's (edited or not): its
    handler reaches the store's ``onAppStateChange``."""
    text = squash(f.text(node))
    return any(name in text for name in TOOLS_CALLBACKS)


def teams(f: Finder, repo: Path, names: Names) -> Node | None:
    """The first registration of the method in ``f``'s file that is not the
    tool's: the team hears state-changed itself."""
    return next((node for node in registrations(f, repo, names) if not is_the_tools(f, node)), None)


def where(f: Finder, node: Node) -> str:
    return f"{f.path}:{node.start_point[0] + 1}"


def handled_by_the_team(f: Finder, node: Node, ctx: Context) -> Notice:
    """What a step that stands down for the team's registration says."""
    return Notice(
        f"mesh handles {ctx.names.method} itself at {where(f, node)}: "
        "no second registration, and no schema of the tool's for it"
    )


def in_store(ctx: Context, usual: str) -> tuple[Finder, Node] | None:
    """The team's registration in the checkout's bridge store (its file at
    ``usual``, or wherever it was moved), as the file is now."""
    path = bridge_role.store_file(Path(ctx.repo), ctx.at(usual), f"function {bridge_role.HOST_CONTEXT}(")
    f = parsed(Path(ctx.repo), path) if path is not None and os.path.isfile(Path(ctx.repo) / path) else None
    node = teams(f, Path(ctx.repo), ctx.names) if f is not None else None
    return (f, node) if node is not None else None


def _unwrapped(node: Node | None) -> Node | None:
    while node is not None and node.type in {"as_expression", "satisfies_expression", "parenthesized_expression"}:
        node = node.named_children[0] if node.named_children else None
    return node


def _keyed(f: Finder, node: Node | None, key: str) -> Node | None:
    """The entry of the object ``node`` keyed ``key`` (``key: x``, ``key``),
    or a spread of an object holding one (``...(x && { key })``)."""
    node = _unwrapped(node)
    if node is None or node.type != "object":
        return None
    for entry in node.named_children:
        if entry.type == "pair" and f.text(entry.child_by_field_name("key")).strip("\"'") == key:
            return entry
        if entry.type == "shorthand_property_identifier" and f.text(entry) == key:
            return entry
        if entry.type == "spread_element" and any(
            _keyed(f, inner, key) is not None
            for inner in f.walk(entry)
            if inner.type == "object" and inner.parent is not None and inner.parent.type != "pair"
        ):
            return entry
    return None


def context_entry(f: Finder, build: Node, field: str) -> Node | None:
    """The team's ``field`` in the host context ``build`` (the store's
    ``buildHostContext``) returns."""
    for node in f.walk(build):
        if node.type == "return_statement" and node.named_children:
            found = _keyed(f, node.named_children[0], field)
            if found is not None:
                return found
    return None


def capability_entry(f: Finder, argument: Node, key: str) -> Node | None:
    """The team's ``key`` in the host capabilities ``argument`` the bridge is
    constructed with: the object passed, or the constant's declaration."""
    if argument.type == "identifier":
        declared = [d for n, d, _exported in top_variables(f) if n == f.text(argument)]
        return _keyed(f, declared[0].child_by_field_name("value"), key) if declared else None
    return _keyed(f, argument, key)
