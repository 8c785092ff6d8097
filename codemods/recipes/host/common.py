"""Snippets and helpers that several host recipes share."""

from __future__ import annotations

import posixpath
from types import MappingProxyType

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.statements import Form, FormChange, Item, Statement, form, statement
from ...engine.find import module_stem
from ...engine.find import squash
from ...engine.layout import dedent
from ...engine.outcome import AnchorMissing
from ...engine.specifiers import spell, spellings
from ..base import Context

APP_STATE_HELPERS = ("decodeAppState", "toAppStateParam")

# What every layer between the render site and the bridge passes along.
PROP_MEMBERS = (
    Item("appState", "appState?: unknown;"),
    Item("onAppStateChange", "onAppStateChange?: (state: unknown) => void;"),
)
PROP_NAMES = (Item("appState", "appState"), Item("onAppStateChange", "onAppStateChange"))

# The locals the render-site steps write or read; a team may rename them.
SITE_NAMES = frozenset(
    {"appStateParam", "appState", "handleAppStateChange", "next", "state", "prev", "search", "sourceId", "hasMCPApp"}
)

# The render site reads the param for its app key and writes it back when the
# app reports a new state (replace: no history entry per tick). It selects the
# one value it needs, so other search params never re-render it (rule 7).
def app_state_search(selected: str, comment: str = "") -> Statement:
    return statement(
        comment
        + "const appStateParam = useSearch({\n"
        "  strict: false,\n"
        f"  select: (search: {{ appState?: string }}) =>{selected},\n"
        "});",
        earlier=[SEARCH_0_1_0],
        names=SITE_NAMES,
    )


# 0.1.0 read the whole search object, so every change of the URL re-rendered
# every render site (rule 7); its value is `appStateSearch.appState`.
SEARCH_0_1_0 = form(
    "0.1.0", "const appStateSearch = useSearch({ strict: false }) as { appState?: string };", names={"appStateSearch"}
)
PARAM_0_1_0 = "appStateSearch.appState"


def decode_statement(text: str) -> Statement:
    """``const appState = ...`` from ``text``, which reads ``appStateParam``."""
    return statement(
        text,
        earlier=[form("0.1.0", text.replace("appStateParam", PARAM_0_1_0), names=SITE_NAMES | {"appStateSearch"})],
        names=SITE_NAMES,
    )


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
HOOK_NAMES = SITE_NAMES | {"onAppStateChange"}


def hook_statement(argument: str, key_may_be_null: bool, comment: str = "") -> Statement:
    """``const { appState, onAppStateChange } = useAppStateParam(argument)``:
    it takes the place of the three statements 0.1.0 to 0.4.0 wrote (the
    search read, the decode and the handler: the handler becomes it, the
    other two go, see :func:`remove_earlier_site_statements`)."""
    return statement(
        comment + f"const {{ appState, onAppStateChange }} = {HOOK}({argument});",
        role=f"{HOOK}($$$)",
        earlier=handler_forms(key_may_be_null),
        label="0.5.0 (the useAppStateParam hook)",
        names=HOOK_NAMES,
    )


def handler_forms(key_may_be_null: bool) -> list[Form]:
    """What 0.1.0 to 0.4.0 wrote for the handler of the app's reports (with
    the local bound to useNavigate() named ``navigate``)."""
    guard = "  if (!sourceId) return;\n" if key_may_be_null else ""

    def text(param: str) -> str:
        return (
            "const handleAppStateChange = (state: unknown) => {\n"
            + guard
            + "  const next = toAppStateParam(sourceId, state);\n"
            f"  if (next === {param}) return;\n"
            "  navigate({\n"
            '    to: ".",\n'
            "    search: (prev: Record<string, unknown>) => ({ ...prev, appState: next }),\n"
            "    replace: true,\n"
            "  });\n"
            "};"
        )

    names = SITE_NAMES | {"navigate"}
    return [
        form("0.2.0 to 0.4.0 (the render site's own read and write)", text("appStateParam"), names=names),
        form("0.1.0", text(PARAM_0_1_0), names=names | {"appStateSearch"}),
    ]


def site_forms(search: Statement, decode: Statement) -> list[Form]:
    """The search read and the decode that 0.1.0 to 0.4.0 wrote, which the
    hook replaces."""
    forms = []
    for wanted in (search, decode):
        forms.append(form("0.2.0 to 0.4.0 (the render site's own read and write)", wanted.snippet, names=wanted.names))
        forms.extend(wanted.earlier)
    return forms


def remove_earlier_site_statements(ed: FileEditor, body: Node, forms: list[Form]) -> bool:
    return remove_earlier_statements(ed, body, forms, "0.5.0 (the useAppStateParam hook)")


def remove_earlier_statements(ed: FileEditor, body: Node, forms: list[Form], now: str) -> bool:
    """Remove each statement of ``body`` whose code is one of ``forms`` (as
    written: an edited one stays), with the comment lines above it that the
    form has. Whether any was removed."""
    removed = False
    for earlier in forms:
        node = ed.find_statement(body, earlier)
        if node is None or not ed.same_code(node, earlier.snippet, earlier.names):
            continue
        start = node
        comments = [
            line.strip() for line in dedent(earlier.snippet).strip("\n").split("\n") if line.lstrip().startswith("//")
        ]
        above = node.prev_named_sibling
        for comment in reversed(comments):
            if above is None or above.type != "comment" or ed.text(above).strip() != comment:
                break
            start, above = above, above.prev_named_sibling
        remove_lines(ed, start, node)
        first, last = start.start_point[0] + 1, node.end_point[0] + 1
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        ed.form_changes.append(FormChange("upgrade", where, earlier.label, now))
        removed = True
    return removed


def remove_lines(ed: FileEditor, first: Node, last: Node) -> None:
    """Remove the lines from ``first`` to ``last`` (whole lines: they hold
    nothing else)."""
    start = ed.source.line_start(first.start_byte)
    newline = ed.source.data.find(b"\n", last.end_byte)
    ed.edits.replace(start, len(ed.source.data) if newline < 0 else newline + 1, "")


def unused_after_edits(ed: FileEditor, scope: Node, name: str, declaration: Node) -> bool:
    """Whether nothing in ``scope`` but ``declaration`` names ``name`` once
    the planned replacements are made."""
    replaced = [(e.start, e.end) for e in ed.edits if e.end > e.start]
    for node in ed.walk(scope):
        if node.type != "identifier" or ed.text(node) != name:
            continue
        if declaration.start_byte <= node.start_byte and node.end_byte <= declaration.end_byte:
            continue
        if not any(start <= node.start_byte and node.end_byte <= end for start, end in replaced):
            return False
    return True


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


def wire_render_site(
    ed: FileEditor,
    ctx: Context,
    node: Node,
    hook: Statement,
    earlier: list[Form],
    anchor: str,
) -> Node:
    """Make the component ``node`` (found by role) read and write its app's
    slot through the hook (statement ``hook``, after the declaration of
    ``anchor``), replacing what 0.1.0 to 0.4.0 wrote there (``earlier``).
    Returns the component."""
    body = ed.body(node)
    hook_module, same = import_of(ed, ctx, HOOK_PATH, alias=True)
    ed.ensure_import(hook_module, [HOOK], after_module_suffix=module_stem(renderer_module(ctx)), same=same)
    ed.ensure_statements_after(lambda: ed.declaration_of(body, anchor), [hook], block=body)
    if remove_earlier_site_statements(ed, body, earlier):
        # 0.2.0 to 0.4.0 declared the navigate the handler used where the
        # component had none: it goes with the handler.
        declared = ed.declaration_in(body, "navigate")
        if (
            declared is not None
            and ed.same_code(declared, "const navigate = useNavigate();")
            and unused_after_edits(ed, body, "navigate", declared)
        ):
            remove_lines(ed, declared, declared)
    return node


def drop_earlier_imports(ed: FileEditor, ctx: Context) -> None:
    """The imports only 0.1.0 to 0.4.0's statements used (after every other
    edit of the file is planned)."""
    why = "the useAppStateParam hook reads and writes the param now"
    module, same = import_of(ed, ctx, MODULE_PATH, alias=True)
    ed.drop_unused_imports(module, list(APP_STATE_HELPERS), why, same=same)
    ed.drop_unused_imports("@tanstack/react-router", ["useSearch", "useNavigate"], why)


def render_site_attributes(ed: FileEditor, body: Node, element: Node) -> None:
    """The iframe renderer's two attributes. 0.1.0 to 0.4.0 passed their own
    ``handleAppStateChange``: where this run replaces it with the hook, the
    attribute passes the hook's callback."""
    ed.ensure_jsx_attributes(
        element,
        (Item("appState", "appState={appState}"), Item("onAppStateChange", "onAppStateChange={onAppStateChange}")),
    )
    handler = ed.declaration_in(body, "handleAppStateChange")
    if handler is None or not any(e.start <= handler.start_byte and handler.end_byte <= e.end for e in ed.edits):
        return
    for attribute in element.named_children:
        if attribute.type != "jsx_attribute" or len(attribute.named_children) < 2:
            continue
        name, value = attribute.named_children[0], attribute.named_children[-1]
        if ed.text(name) == "onAppStateChange" and squash(ed.text(value)) == "{handleAppStateChange}":
            ed.edits.replace(value.start_byte, value.end_byte, "{onAppStateChange}")


def ensure_navigate(ed: FileEditor, body) -> tuple[str, list[Statement]]:
    """The name bound to ``useNavigate()`` in a component body, and the
    statement that declares it when there is none yet."""
    for call in ed.calls(body, "useNavigate"):
        declarator = call.parent
        if declarator is not None and declarator.type == "variable_declarator":
            return ed.text(declarator.child_by_field_name("name")), []
    return "navigate", [statement("const navigate = useNavigate();")]


def module_like(ed: FileEditor, anchor_suffix: str, bare: str, extension: str) -> str:
    """``bare`` spelled like the import it goes next to: with an extension
    when that import has one (mesh mixes both styles)."""
    anchor = ed.import_ending_with(anchor_suffix)
    if anchor is None:
        return bare + extension
    source = ed.text(anchor.child_by_field_name("source"))[1:-1]
    return bare + extension if source != module_stem(source) else bare

