"""Recognition by role (SPEC 5a): the files of a checkout that play a
step's part, found by what their syntax trees hold (what the step's
transform anchors on), never by their path or their components' names.

Candidates are found cheaply, as the files holding a needle (`git grep`,
:func:`codemods.engine.files.files_containing`); only those are parsed.
The same predicates serve the transforms, which find their anchors in the
file by role where the usual names are gone."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator, Mapping
from pathlib import Path

from tree_sitter import Node

from ...engine.files import files_containing
from ...engine.find import FUNCTION_TYPES, Finder, module_stem, squash
from ...engine.outcome import Conflict
from ...engine.source import SourceError, SourceFile
from ...engine.specifiers import resolve, workspace_aliases
from .common import ALIASES

_EXTENSIONS = ("", ".ts", ".tsx", "/index.ts", "/index.tsx")


def parsed(repo: Path, path: str) -> Finder | None:
    """The file at ``path`` parsed, None when it cannot be (not UTF-8, not
    TypeScript, gone)."""
    try:
        return Finder(SourceFile.from_bytes(path, (repo / path).read_bytes()))
    except (OSError, SourceError):
        return None


def candidates(repo: Path, needle: str) -> Iterator[tuple[str, Finder]]:
    """Each file of the checkout holding ``needle``, parsed."""
    for path in files_containing(repo, needle):
        finder = parsed(repo, path)
        if finder is not None:
            yield path, finder


def module_file(repo: Path, importer: str, specifier: str) -> str | None:
    """The file of the checkout an import of ``importer`` names (through
    the checkout's path aliases and workspace packages too)."""
    target = resolve(importer, specifier, workspace_aliases(repo, ALIASES))
    if target is None:
        return None
    for extension in _EXTENSIONS:
        candidate = target + extension
        if os.path.isfile(repo / candidate):
            return posixpath.normpath(candidate)
    return None


def imported(f: Finder, target: str, aliases: Mapping[str, str] = ALIASES) -> dict[str, str]:
    """The names ``f``'s file imports from the file ``target``, however the
    import spells it (relative, through an alias or a workspace package's
    name, with or without an extension): local name -> exported name."""
    names = {}
    for local, (exported, specifier) in import_sources(f).items():
        named = resolve(f.path, specifier, aliases)
        if named is not None and module_stem(named) == module_stem(target):
            names[local] = exported
    return names


def top_functions(f: Finder) -> list[tuple[str, Node, bool]]:
    """The file's top-level functions, ``function name()`` or ``const name =
    () => {}``: (name, the function node, whether it is exported)."""
    found = []
    for node in f.source.root.named_children:
        exported = node.type == "export_statement"
        inner = node.child_by_field_name("declaration") if exported else node
        if inner is None:
            continue
        if inner.type == "function_declaration" and f.name_of(inner):
            found.append((f.name_of(inner), inner, exported))
        elif inner.type in {"lexical_declaration", "variable_declaration"}:
            for declarator in inner.named_children:
                value = declarator.child_by_field_name("value")
                name = declarator.child_by_field_name("name")
                if value is not None and value.type in FUNCTION_TYPES and name is not None and name.type == "identifier":
                    found.append((f.text(name), value, exported))
    return found


def top_variables(f: Finder) -> list[tuple[str, Node, bool]]:
    """The file's top-level ``const name = value`` declarators: (name, the
    declarator, whether it is exported)."""
    found = []
    for node in f.source.root.named_children:
        exported = node.type == "export_statement"
        inner = node.child_by_field_name("declaration") if exported else node
        if inner is None or inner.type not in {"lexical_declaration", "variable_declaration"}:
            continue
        for declarator in inner.named_children:
            name = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
            if name is not None and name.type == "identifier":
                found.append((f.text(name), declarator, exported))
    return found


def renders(f: Finder, scope: Node, tags: set[str] | dict[str, str]) -> bool:
    """Whether ``scope`` renders a JSX element named one of ``tags``."""
    return any(f.jsx_elements(scope, tag) for tag in tags)


def prop_keys(f: Finder, function: Node) -> set[str]:
    """The keys a component destructures from its props (its first
    parameter's ``{ ... }`` pattern)."""
    params = function.child_by_field_name("parameters")
    first = params.named_children[0] if params is not None and params.named_children else None
    pattern = first.child_by_field_name("pattern") if first is not None else None
    if pattern is None or pattern.type != "object_pattern":
        return set()
    keys = set()
    for entry in pattern.named_children:
        if entry.type == "shorthand_property_identifier_pattern":
            keys.add(f.text(entry))
        elif entry.type in {"pair_pattern", "object_assignment_pattern"}:
            key = entry.child_by_field_name("key") or entry.child_by_field_name("left")
            if key is not None:
                keys.add(f.text(key))
    return keys


def props_type_name(f: Finder, function: Node) -> str | None:
    """The name of the type a component's props are annotated with
    (``}: MCPAppRendererProps)``), None when they are not named."""
    params = function.child_by_field_name("parameters")
    first = params.named_children[0] if params is not None and params.named_children else None
    annotation = first.child_by_field_name("type") if first is not None else None
    shape = annotation.named_children[0] if annotation is not None and annotation.named_children else None
    return f.text(shape) if shape is not None and shape.type == "type_identifier" else None


def one_of(f: Finder, found: list, what: str):
    """The one node pair ``found``; a Conflict naming their lines when there
    are more; None when there is none."""
    if len(found) > 1:
        lines = ", ".join(str(item[0].start_point[0] + 1) for item in found)
        raise Conflict(f.path, f"more than one {what} (lines {lines})")
    return found[0] if found else None


def is_call_of(f: Finder, node: Node | None, method: str) -> bool:
    """Whether ``node`` is a call of ``<something>.method(...)``."""
    callee = node.child_by_field_name("function") if node is not None and node.type == "call_expression" else None
    return callee is not None and squash(f.text(callee)).endswith("." + method)


def import_sources(f: Finder) -> dict[str, tuple[str, str]]:
    """Each name ``f``'s file imports by name: local name -> (exported name,
    module specifier)."""
    names: dict[str, tuple[str, str]] = {}
    for statement in f.imports():
        source = statement.child_by_field_name("source")
        if source is None:
            continue
        for spec in f.walk(statement):
            if spec.type == "import_specifier":
                alias = spec.child_by_field_name("alias")
                exported = f.name_of(spec) or ""
                names[f.text(alias) if alias is not None else exported] = (exported, f.text(source)[1:-1])
    return names


def has_jsx(f: Finder, scope: Node) -> bool:
    """Whether ``scope`` renders any JSX element."""
    return any(
        scope.start_byte <= node.start_byte < scope.end_byte
        for kind in ("jsx_self_closing_element", "jsx_opening_element")
        for node in f.source.nodes(kind)
    )
