"""Snippets and helpers that several host recipes share."""

from __future__ import annotations

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.statements import Item, Statement, form, statement

from ...engine.find import module_stem
from ...engine.outcome import AnchorMissing

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


def wire_render_site(
    ed: FileEditor,
    component: str,
    search: Statement,
    decode: Statement,
    key_may_be_null: bool,
) -> tuple[Node, str]:
    """Make ``component`` (which builds ``sourceId``, the app key) read the
    appState param and navigate when its app reports a new state. Returns
    the component and the local name of the iframe renderer it imports."""
    renderer = ed.imported_name(RENDERER_MODULE, "MCPAppRenderer")
    if renderer is None:
        raise AnchorMissing(ed.path, f"the import of `MCPAppRenderer` from `{RENDERER_MODULE}`")
    node = ed.function(component)
    body = ed.body(node)
    navigate, declare_navigate = ensure_navigate(ed, body)
    ed.ensure_import("@tanstack/react-router", (["useNavigate"] if declare_navigate else []) + ["useSearch"])
    ed.ensure_import(
        module_like(ed, RENDERER_MODULE, "@/mcp-apps/app-state", ".ts"),
        list(APP_STATE_HELPERS),
        after_module_suffix=module_stem(RENDERER_MODULE),
    )
    ed.ensure_statements_after(
        lambda: ed.declaration_of(body, "sourceId"),
        [*declare_navigate, search, decode, handle_app_state_change(key_may_be_null, navigate)],
        block=body,
    )
    return node, renderer


def render_site_attributes(ed: FileEditor) -> tuple[Item, Item]:
    """The render site's two attributes, valued by its locals as this file
    names them."""
    return (
        Item("appState", f"appState={{{ed.local_name('appState')}}}"),
        Item("onAppStateChange", f"onAppStateChange={{{ed.local_name('handleAppStateChange')}}}"),
    )


def handle_app_state_change(key_may_be_null: bool, navigate: str) -> Statement:
    guard = "  if (!sourceId) return;\n" if key_may_be_null else ""

    def text(param: str) -> str:
        return (
            "const handleAppStateChange = (state: unknown) => {\n"
            + guard
            + "  const next = toAppStateParam(sourceId, state);\n"
            f"  if (next === {param}) return;\n"
            f"  {navigate}({{\n"
            '    to: ".",\n'
            "    search: (prev: Record<string, unknown>) => ({ ...prev, appState: next }),\n"
            "    replace: true,\n"
            "  });\n"
            "};"
        )

    names = SITE_NAMES | {navigate}
    return statement(
        text("appStateParam"),
        earlier=[form("0.1.0", text(PARAM_0_1_0), names=names | {"appStateSearch"})],
        names=names,
    )


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

