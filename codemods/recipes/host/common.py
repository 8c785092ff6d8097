"""Snippets and helpers that several host recipes share."""

from __future__ import annotations

from ...engine.editor import FileEditor, Item, module_stem

APP_STATE_MODULE = "@/mcp-apps/app-state.ts"
APP_STATE_HELPERS = ("decodeAppState", "toAppStateParam")

# What every layer between the render site and the bridge passes along.
PROP_MEMBERS = (
    Item("appState", "appState?: unknown;"),
    Item("onAppStateChange", "onAppStateChange?: (state: unknown) => void;"),
)
PROP_NAMES = (Item("appState", "appState"), Item("onAppStateChange", "onAppStateChange"))

# The render site reads the param for its app key and writes it back when the
# app reports a new state (replace: no history entry per tick).
APP_STATE_SEARCH = (
    "const appStateSearch =",
    "const appStateSearch = useSearch({ strict: false }) as { appState?: string };",
)


def handle_app_state_change(key_may_be_null: bool, navigate: str) -> tuple[str, str]:
    guard = "  if (!sourceId) return;\n" if key_may_be_null else ""
    return (
        "const handleAppStateChange =",
        "const handleAppStateChange = (state: unknown) => {\n"
        + guard
        + "  const next = toAppStateParam(sourceId, state);\n"
        "  if (next === appStateSearch.appState) return;\n"
        f"  {navigate}({{\n"
        '    to: ".",\n'
        "    search: (prev: Record<string, unknown>) => ({ ...prev, appState: next }),\n"
        "    replace: true,\n"
        "  });\n"
        "};",
    )


def ensure_navigate(ed: FileEditor, body) -> tuple[str, list[tuple[str, str]]]:
    """The name bound to ``useNavigate()`` in a component body, and the
    statement that declares it when there is none yet."""
    for call in ed.calls(body, "useNavigate"):
        declarator = call.parent
        if declarator is not None and declarator.type == "variable_declarator":
            return ed.text(declarator.child_by_field_name("name")), []
    return "navigate", [("const navigate = useNavigate()", "const navigate = useNavigate();")]


def module_like(ed: FileEditor, anchor_suffix: str, bare: str, extension: str) -> str:
    """``bare`` spelled like the import it goes next to: with an extension
    when that import has one (mesh mixes both styles)."""
    for node in ed.imports():
        source = ed.text(node.child_by_field_name("source"))[1:-1]
        if module_stem(source).endswith(module_stem(anchor_suffix)):
            return bare + extension if source != module_stem(source) else bare
    return bare + extension

