"""A statement or a node kept as written, in the style: what the printer
of :mod:`.snippet_printer` does with the constructs it does not lay out
(its strings' quotes, braces on one line, an arrow's one bare parameter,
its lines re-indented), without moving a line break."""

from __future__ import annotations

from tree_sitter import Node

from . import layout as L
from .style import Style

# Braces that the style's bracket spacing pads: `{ a }` or `{a}`.
_BRACES = {"object", "object_pattern", "named_imports", "export_clause", "object_type"}


def as_written(data: bytes, node: Node, style: Style) -> list:
    """A statement's own lines, restyled (:func:`restyled`), each
    re-indented from its depth as written (two spaces a level) to the
    style's; the lines inside a template string stay as they are."""
    lines = restyled(data, node, style).split("\n")
    start = data.rfind(b"\n", 0, node.start_byte) + 1
    base = len(data[start:node.start_byte]) - len(data[start:node.start_byte].lstrip())
    literal = {
        line for d in descendants(node) if d.type == "template_string"
        for line in range(d.start_point[0] + 1, d.end_point[0] + 1)
    }
    out: list = [L.restyle_line(lines[0], lines[1:], style)]
    for number, line in enumerate(lines[1:], node.start_point[0] + 1):
        stripped = line.lstrip(" ")
        if number in literal:
            out.append("\n" + line)  # not re-indented: the string's own text
            continue
        depth, extra = divmod(max(len(line) - len(stripped) - base, 0), L.WRITTEN_STEP)
        if stripped and not stripped.startswith(("//", "*", "/*")):
            stripped = L.restyle_line(stripped, lines[number - node.start_point[0] + 1:], style)
        out += [L.HARD, style.indent * depth + " " * extra + stripped if stripped else ""]
    return out


def restyled(data: bytes, node: Node, style: Style) -> str:
    """A node's text in the style: its strings in the style's quotes (a
    JSX attribute's as written), braces on one line padded or not, an
    arrow's one plain parameter in parentheses or not."""
    edits: list[tuple[int, int, str]] = []
    for d in descendants(node):
        if d.type == "string" and (d.parent is None or d.parent.type != "jsx_attribute"):
            edits.append((d.start_byte, d.end_byte, L.requote(_text(data, d), style.quote)))
        elif d.type in _BRACES and d.start_point[0] == d.end_point[0] and len(d.children) > 2:
            inner = " " if style.bracket_spacing else ""
            first, last = d.children[0], d.children[-1]
            if _text(data, first) == "{" and _text(data, last) == "}":
                edits.append((first.end_byte, d.children[1].start_byte, inner))
                edits.append((d.children[-2].end_byte, last.start_byte, inner))
        elif d.type == "arrow_function" and not style.arrow_parens and plain_parameter(d) is not None:
            params = d.child_by_field_name("parameters")
            edits.append((params.start_byte, params.end_byte, _text(data, plain_parameter(d))))
    out, cursor = [], node.start_byte
    for start, end, text in sorted(edits):
        out += [data[cursor:start].decode(), text]
        cursor = end
    return "".join(out) + data[cursor:node.end_byte].decode()


def descendants(node: Node):
    """``node`` and every node below it, in document order, but nothing
    inside a string (its quotes and escapes are its own)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current.type != "string":
            stack.extend(reversed(current.children))


def plain_parameter(arrow: Node) -> Node | None:
    """The one parameter of an arrow that may go without parentheses: a
    bare name with no type, default or rest, the arrow with no type
    parameters or return type (Prettier's ``arrowParens: "avoid"``)."""
    params = arrow.child_by_field_name("parameters")
    if params is None or arrow.child_by_field_name("return_type") is not None:
        return None
    if arrow.child_by_field_name("type_parameters") is not None or len(params.named_children) != 1:
        return None
    param = params.named_children[0]
    pattern = param.child_by_field_name("pattern")
    if param.type != "required_parameter" or len(param.named_children) != 1 or pattern is None:
        return None
    return pattern if pattern.type == "identifier" else None


def _text(data: bytes, node: Node) -> str:
    return data[node.start_byte:node.end_byte].decode()
