"""Snippets and helpers that several host recipes share."""

from __future__ import annotations

import posixpath
from functools import cache
from pathlib import Path
from types import MappingProxyType

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.find import module_stem
from ...engine.specifiers import prefixes, resolve, spell, spellings
from ...engine.statements import Form, Item, Statement, as_form, form, statement
from ..base import Context
from ..names import NAMES, Names
from ..names import fill as fill_names
from .releases import FLOOR

# What every layer between the render site and the bridge passes along.
PROP_MEMBERS = (
    Item("appState", "appState?: unknown;"),
    Item("onAppStateChange", "onAppStateChange?: (state: unknown) => void;"),
    Item("appKey", "appKey?: string;"),
)
PROP_NAMES = (Item("appState", "appState"), Item("onAppStateChange", "onAppStateChange"), Item("appKey", "appKey"))

RENDERER_MODULE = "mcp-app-renderer.tsx"
RENDERER_PATH = "apps/mesh/src/mcp-apps/" + RENDERER_MODULE


def renderer_module(ctx: Context) -> str:
    """The iframe renderer's file name where it is (the team may have
    renamed it): the import a render site's new imports go after."""
    return posixpath.basename(ctx.at(RENDERER_PATH))

# mesh's path alias (apps/mesh/tsconfig.json): `@/x` is apps/mesh/src/x.
ALIASES = MappingProxyType({"@/": "apps/mesh/src/"})
# The created module every layer imports the format from.
MODULE_PATH = "apps/mesh/src/mcp-apps/app-state.ts"

# The hook both render sites read and write their app's slot with (SPEC 4).
HOOK_PATH = "apps/mesh/src/web/hooks/use-app-state-param.ts"
HOOK = "useAppStateParam"
# The locals the hook's statement declares or reads; a team may rename them.
HOOK_NAMES = frozenset({"appState", "onAppStateChange", "hasMCPApp"})


def hook_statement(argument: str, comment: str = "", *, earlier: list[Statement] = (), label: str = "") -> Statement:
    """``const { appState, onAppStateChange } = useAppStateParam(argument)``;
    ``earlier``: the forms of it that become it (as statements: written
    with :func:`hook_statement` and a ``label``)."""
    return statement(
        comment + f"const {{ appState, onAppStateChange }} = {HOOK}({argument});",
        role=f"{HOOK}($$$)",
        names=HOOK_NAMES,
        label=label,
        earlier=[as_form(e, "upgrade") for e in earlier],
    )


@cache
def fragment_statements(name: str) -> tuple[str, ...]:
    """The statements of the fragment ``name`` (fragments/, package data,
    its ``{{holes}}`` open), each with the comment lines above it: a
    statement ends at a line of its own level that ends it."""
    found, lines, depth = [], [], 0
    for line in (Path(__file__).parent / "fragments" / name).read_text(encoding="utf-8").splitlines():
        lines.append(line)
        depth += line.count("{") - line.count("}")
        if depth == 0 and not line.lstrip().startswith("//") and line.rstrip().endswith((";", "}")):
            found.append("\n".join(lines) + "\n")
            lines = []
    return tuple(found)


def fill(template: str, names: Names = NAMES, **more: str) -> str:
    """``template`` with each ``{{hole}}`` filled: the run's names
    (``{{method}}``, ``{{context_field}}``, ``{{capability}}``,
    ``{{event}}``, ``{{accessor}}``; ``ctx.names``), or ``more``; a hole
    neither fills is an error."""
    return fill_names(template, names, **more)


def import_of(
    ed: FileEditor, ctx: Context, usual: str, *, alias: bool, anchor_suffix: str | None = None
) -> tuple[str, tuple[str, ...]]:
    """How 0.6.0 spelled ``ed``'s import of the step file usually at
    ``usual``, from where each of them is: through the `@/` alias when
    ``alias`` and it reaches the file, else relative; with the extension
    when the import ending with ``anchor_suffix`` has one; and every
    spelling of the module, under any of which an import is present."""
    target = ctx.at(usual)
    bare = spell(ed.path, target, ctx.aliases or ALIASES, alias=alias, extension=False)
    extension = target[len(module_stem(target)):]
    specifier = module_like(ed, anchor_suffix, bare, extension) if anchor_suffix else bare
    return specifier, spellings(ed.path, target, ctx.aliases or ALIASES)


def folder_import(ed: FileEditor, ctx: Context, usual: str, *, alias: bool) -> tuple[str, tuple[str, ...], Node | None]:
    """How ``ed``'s file imports the step file usually at ``usual`` (where
    it is): spelled as the file already spells its imports from that
    folder, else with the extension (mesh mixes both styles); through the
    `@/` alias when ``alias`` and it reaches the file, else relative. Then
    every spelling of the module (an import under any of them is present)
    and the import it goes after: the file's last from that folder, else
    its last from the folder nearest it (spelled through an alias like it,
    where there is one)."""
    aliases = ctx.aliases or ALIASES
    target = ctx.at(usual)
    folder = posixpath.dirname(target).split("/")
    best: tuple[tuple[int, int], Node] | None = None
    bare = False
    for node in ed.imports():
        source = node.child_by_field_name("source")
        specifier = ed.text(source)[1:-1] if source is not None else ""
        named = resolve(ed.path, specifier, aliases)
        if named is None or node.id in ed.retired:
            continue
        other = posixpath.dirname(named).split("/")
        same_folder = other == folder
        if same_folder:
            bare = module_stem(specifier) == specifier
        depth = next((i for i, (a, b) in enumerate(zip(folder, other)) if a != b), min(len(folder), len(other)))
        spelled_alike = any(specifier.startswith(prefix) for prefix in prefixes(ed.path, aliases)) == alias
        rank = (len(folder) + 1 if same_folder else depth, spelled_alike)
        if best is None or rank >= best[0]:
            best = (rank, node)
    extension = target[len(module_stem(target)):]
    specifier = spell(ed.path, target, aliases, alias=alias, extension=False) + ("" if bare else extension)
    return specifier, spellings(ed.path, target, aliases), best[1] if best is not None else None


def earlier_import(label: str, names: list[str], specifier: str) -> Form:
    """An import a release since the floor wrote: replaced while it is as
    written (it goes where this release puts it, spelled as it spells it)."""
    text = f'import {{ {", ".join(names)} }} from "{specifier}";'
    return form(label, text, role=text)


def ensure_import_like_neighbours(
    ed: FileEditor, ctx: Context, usual: str, names: list[str], *, alias: bool, earlier: list[Form] = ()
) -> None:
    """``names`` imported from the step file usually at ``usual``, as
    :func:`folder_import` spells and places it; an ``earlier`` import
    statement still as written goes (this one takes its place)."""
    for was in earlier:
        ed.retire_statement(ed.source.root, was)
    specifier, same, anchor = folder_import(ed, ctx, usual, alias=alias)
    ed.ensure_import(specifier, names, after=anchor, same=same)


def wire_render_site(ed: FileEditor, ctx: Context, node: Node, hook: Statement, anchor: str) -> None:
    """Make the component ``node`` (found by role) read and write its app's
    slot through the hook (statement ``hook``, after the declaration of
    ``anchor``)."""
    body = ed.body(node)
    hook_module, _same = import_of(ed, ctx, HOOK_PATH, alias=True)
    earlier = [earlier_import(f"{FLOOR}, the hook's import", [HOOK], hook_module)]
    ensure_import_like_neighbours(ed, ctx, HOOK_PATH, [HOOK], alias=True, earlier=earlier)
    ed.ensure_statements_after(lambda: ed.declaration_of(body, anchor), [hook], block=body)


# The iframe renderer's two attributes, at a render site and in a wrapper.
RENDERER_ATTRIBUTES = (
    Item("appState", "appState={appState}"),
    Item("onAppStateChange", "onAppStateChange={onAppStateChange}"),
    Item("appKey", "appKey={appKey}"),
)


def module_like(ed: FileEditor, anchor_suffix: str, bare: str, extension: str) -> str:
    """``bare`` spelled like the import it goes next to: with an extension
    when that import has one (mesh mixes both styles)."""
    anchor = ed.import_ending_with(anchor_suffix)
    if anchor is None:
        return bare + extension
    source = ed.text(anchor.child_by_field_name("source"))[1:-1]
    return bare + extension if source != module_stem(source) else bare

