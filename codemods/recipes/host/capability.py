"""use-app-bridge.ts: the host capabilities the bridge store advertises.

The capability goes in only where the render site keeps state (SPEC 3,
rule 8), under the run's name and in the shape the installed SDK's
``McpUiHostCapabilities`` declares for it (sdk_api.capability_value); a
shape the tool cannot fill is left out, said in the report. Another name
set's or shape's statement, as written, becomes the run's (a migration).
"""

from __future__ import annotations

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.find import squash
from ...engine.outcome import AnchorMissing
from ...engine.statements import Statement, form, statement
from ..base import Context, Notice
from ..names import KNOWN, Names
from . import bridge_role, by_other_hands, sdk_api
from .common import fill

# The capability only where the render site keeps state (SPEC 3, rule 8),
# in the shape the installed SDK declares (sdk_api.capability_value).
CAPABILITIES = """
// Where the render site keeps the app's state, the app may restore it.
const capabilities = onAppStateChange
  ? { ...{constant}, {{capability}}: {{capability_value}} }
  : {constant};
"""
# The shapes written for other SDKs (a change of shape is a migration).
SHAPES = (sdk_api.DEFAULT_CAPABILITY, f"{{ maxBytes: {sdk_api.CAPABILITY_SIZE} }}", "true")


def capabilities_statement(constant: str, names: Names, value: str) -> Statement:
    """``const capabilities = ...`` with the capability ``value`` under
    ``names``; what another SDK's names or shape wrote becomes it."""
    def text(names: Names, value: str) -> str:
        return fill(CAPABILITIES.replace("{constant}", constant), names, capability_value=value)

    wanted = text(names, value)
    earlier = [
        form(f"the capability `{other.capability}: {shape}`", text(other, shape), kind="migrate")
        for other in dict.fromkeys((names, *KNOWN)) for shape in SHAPES
        if text(other, shape) != wanted
    ]
    return statement(wanted, earlier=earlier, label=f"the capability `{names.capability}: {value}`")


# 0.6.0's capabilities argument spread its own constant.
SPREAD_CAPABILITY_060 = "...appStateCapability"


def ensure_capability(ed: FileEditor, attach: Node, context: Node, store: str, ctx: Context) -> None:
    """The host capabilities ``new AppBridge(client, hostInfo, capabilities,
    ...)`` takes (under whatever name the file imports the SDK's bridge),
    with the capability where the site keeps state: a constant becomes
    ``capabilities`` (declared after the host context), 0.6.0's spread of
    its own constant too. The capability in the shape the installed SDK
    declares; one it cannot fill is left out, said."""
    api = ctx.sdk_api
    value = api.capability if api is not None else sdk_api.DEFAULT_CAPABILITY
    if not value:
        ed.note(Notice(api.capability_note))
        return
    where = f"the host capabilities passed to `new AppBridge(...)` in `attach()` of `{store}`"
    news = bridge_role.constructions(ed, attach, bridge_role.bridge_constructors(ed))
    arguments = news[0].child_by_field_name("arguments").named_children if len(news) == 1 else []
    if len(arguments) < 3:
        raise AnchorMissing(ed.path, where)
    argument = arguments[2]
    advertised = by_other_hands.capability_entry(ed, argument, ctx.names.capability)
    if advertised is not None:
        line = advertised.start_point[0] + 1
        ed.note(Notice(f"mesh advertises the {ctx.names.capability} capability itself at {ed.path}:{line}: kept as it is"))
        return
    constant = ed.text(argument)
    spread = _spread_060(ed, argument)
    if spread is not None:
        constant = spread
    elif argument.type != "identifier":
        raise AnchorMissing(ed.path, f"{where}, a constant")
    if constant == "capabilities":  # written already: in this SDK's names and shape
        written = _written_constant(ed, attach)
        if written is not None:
            declaration, constant = written
            ed.ensure_statements_after(declaration, [capabilities_statement(constant, ctx.names, value)])
        return
    ed.ensure_statements_after(context, [capabilities_statement(constant, ctx.names, value)])
    if spread is None:
        ed.edits.replace(argument.start_byte, argument.end_byte, "capabilities")
        return
    # 0.6.0 broke the construction over lines around its spread: laid out anew
    bridge = ed.enclosing_statement(news[0])
    before = ed.source.data[bridge.start_byte:argument.start_byte].decode()
    after = ed.source.data[argument.end_byte:bridge.end_byte].decode()
    laid = ed.laid_out(f"{before}capabilities{after}", ed.source.indent_of(bridge))
    ed.edits.replace(bridge.start_byte, bridge.end_byte, laid if laid is not None else f"{before}capabilities{after}")


def _written_constant(ed: FileEditor, attach: Node) -> tuple[Node, str] | None:
    """The declaration ``const capabilities = onAppStateChange ? {...} :
    CONSTANT`` in ``attach()``, and the constant it extends."""
    for node in ed.walk(ed.body(attach)):
        if node.type == "variable_declarator" and ed.text(node.child_by_field_name("name")) == "capabilities":
            value = node.child_by_field_name("value")
            if value is not None and value.type == "ternary_expression":
                alternative = value.child_by_field_name("alternative")
                if alternative is not None and alternative.type == "identifier":
                    return ed.enclosing_statement(node), ed.text(alternative)
    return None


def _spread_060(ed: FileEditor, node: Node) -> str | None:
    """The constant of 0.6.0's capabilities argument, ``{ ...CONSTANT,
    ...appStateCapability }``, when ``node`` is that argument."""
    entries = ed.entries(node) if node.type == "object" else []
    if len(entries) != 2 or len(node.named_children) != 2 or any(e.type != "spread_element" for e in entries):
        return None
    first, second = (e.named_children[0] if e.named_children else None for e in entries)
    if first is None or first.type != "identifier" or squash(ed.text(entries[1])) != SPREAD_CAPABILITY_060:
        return None
    return ed.text(first)
