"""Snippets and helpers that several host recipes share."""

from __future__ import annotations

import posixpath
from types import MappingProxyType

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.statements import Item, Statement, statement
from ...engine.find import module_stem
from ...engine.specifiers import spell, spellings
from ..base import Context

# What every layer between the render site and the bridge passes along.
PROP_MEMBERS = (
    Item("appState", "appState?: unknown;"),
    Item("onAppStateChange", "onAppStateChange?: (state: unknown) => void;"),
)
PROP_NAMES = (Item("appState", "appState"), Item("onAppStateChange", "onAppStateChange"))

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


def hook_statement(argument: str, comment: str = "") -> Statement:
    """``const { appState, onAppStateChange } = useAppStateParam(argument)``."""
    return statement(
        comment + f"const {{ appState, onAppStateChange }} = {HOOK}({argument});",
        role=f"{HOOK}($$$)",
        names=HOOK_NAMES,
    )


def import_of(
    ed: FileEditor, ctx: Context, usual: str, *, alias: bool, anchor_suffix: str | None = None
) -> tuple[str, tuple[str, ...]]:
    """How ``ed``'s file imports the step file usually at ``usual``, from
    where each of them is (SPEC 5a: found by role, wherever the team moved
    it): the specifier to add (through the `@/` alias when ``alias`` and it
    reaches the file, else relative; with the extension when the import
    ending with ``anchor_suffix`` has one, mesh mixing both styles), and
    every spelling of the module, under any of which an import is present."""
    target = ctx.at(usual)
    bare = spell(ed.path, target, ctx.aliases or ALIASES, alias=alias, extension=False)
    extension = target[len(module_stem(target)):]
    specifier = module_like(ed, anchor_suffix, bare, extension) if anchor_suffix else bare
    return specifier, spellings(ed.path, target, ctx.aliases or ALIASES)


def wire_render_site(ed: FileEditor, ctx: Context, node: Node, hook: Statement, anchor: str) -> None:
    """Make the component ``node`` (found by role) read and write its app's
    slot through the hook (statement ``hook``, after the declaration of
    ``anchor``)."""
    body = ed.body(node)
    hook_module, same = import_of(ed, ctx, HOOK_PATH, alias=True)
    ed.ensure_import(hook_module, [HOOK], after_module_suffix=module_stem(renderer_module(ctx)), same=same)
    ed.ensure_statements_after(lambda: ed.declaration_of(body, anchor), [hook], block=body)


# The iframe renderer's two attributes, at a render site and in a wrapper.
RENDERER_ATTRIBUTES = (
    Item("appState", "appState={appState}"),
    Item("onAppStateChange", "onAppStateChange={onAppStateChange}"),
)


def module_like(ed: FileEditor, anchor_suffix: str, bare: str, extension: str) -> str:
    """``bare`` spelled like the import it goes next to: with an extension
    when that import has one (mesh mixes both styles)."""
    anchor = ed.import_ending_with(anchor_suffix)
    if anchor is None:
        return bare + extension
    source = ed.text(anchor.child_by_field_name("source"))[1:-1]
    return bare + extension if source != module_stem(source) else bare

