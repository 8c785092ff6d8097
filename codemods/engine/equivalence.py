"""Equal modulo layout: one comparison for every "is this still ours?".

Two pieces of TypeScript are the same modulo layout when their syntax trees
are the same once the things a formatter may change are ignored:
whitespace and line breaks, the quote character of a string, optional
semicolons, separators (so trailing commas), optional parentheses (around
an expression, a type, or an arrow function's single parameter), a leading
``|`` or ``&`` in a type, the quotes of an object key that needs none, and
the spelling of a number. Everything else counts: names, operators,
keywords, the content of strings, templates and comments, and the nesting
of expressions (``(a + b) * c`` is not ``a + b * c``: the tree differs).

The key is a canonical text of the tree, so it can be stored (a digest of
it stands for an earlier release's output) and compared cheaply. Markers,
earlier forms, "edited since", and the check that a formatter changed
layout only all go through :func:`layout_key`.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePath

from tree_sitter import Language, Node

from .parsing import TSX, TYPESCRIPT, language_for, parse

# Punctuation that only separates or terminates: the named nodes around it
# carry the structure.
_SEPARATORS = frozenset({";", ","})
# Wrappers a formatter may add or remove; the tree inside says the nesting.
_TRANSPARENT = frozenset({"parenthesized_expression", "parenthesized_type"})
# Types whose members a formatter may lead with an operator (`| A | B`).
_FLAT = frozenset({"union_type", "intersection_type"})
# Keys that may be written quoted or bare.
_KEY_PARENTS = frozenset({"pair", "property_signature", "method_signature", "public_field_definition", "method_definition"})
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_ESCAPES = {"\\'": "'", '\\"': '"'}


class LayoutKeyError(ValueError):
    """The text does not parse: it has no layout-free form to compare."""


def grammar_for(path: str | PurePath) -> Language:
    """The grammar a file is read with (TSX for .tsx/.jsx)."""
    return language_for(path)


def layout_key(text: str | bytes, grammar: Language | str | PurePath = TYPESCRIPT, *, comments: bool = True) -> str:
    """The canonical text of ``text``'s syntax tree (a whole file, or any
    sequence of statements), the same for every layout of the same code.

    ``grammar`` is a Language or a path whose extension picks one.
    ``comments=False`` leaves comments out (for code compared by what it
    does). Raises :class:`LayoutKeyError` on a syntax error."""
    language = grammar if isinstance(grammar, Language) else language_for(grammar)
    data = text.encode("utf-8") if isinstance(text, str) else text
    data = data.removeprefix(b"\xef\xbb\xbf")
    tree = parse(data, language)
    if tree.root_node.has_error:
        raise LayoutKeyError("not valid TypeScript: it has no layout-free form")
    return node_key(tree.root_node, data, comments=comments)


def node_key(node: Node, data: bytes, *, comments: bool = True) -> str:
    """The canonical text of one node of a parsed file (``data`` is the
    file's bytes without BOM): a statement, a class member, an expression."""
    out: list[str] = []
    _emit(node, data, out, comments)
    return " ".join(out)


def same_modulo_layout(a: str | bytes, b: str | bytes, grammar: Language | str | PurePath = TYPESCRIPT) -> bool:
    """Whether ``a`` and ``b`` are the same code in any layout (False when
    either does not parse)."""
    try:
        return layout_key(a, grammar) == layout_key(b, grammar)
    except LayoutKeyError:
        return False


def layout_digest(text: str | bytes, grammar: Language | str | PurePath = TYPESCRIPT) -> str:
    """sha256 of :func:`layout_key`, in hex: what an earlier release's output
    is recorded as, so that a reformatted copy is still recognised."""
    return hashlib.sha256(layout_key(text, grammar).encode("utf-8")).hexdigest()


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")


def _emit(node: Node, data: bytes, out: list[str], comments: bool) -> None:
    kind = node.type
    if kind == "comment":
        if comments:
            out.append("//" + " ".join(_text(node, data).split()))
        return
    if kind == "empty_statement":
        return
    if kind in _TRANSPARENT:
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) == 1:
            _emit(inner[0], data, out, comments)
            return
    if kind == "string":
        out.append(_string_key(node, data))
        return
    if kind == "number":
        out.append(_number_key(_text(node, data)))
        return
    if kind in {"template_string", "regex", "jsx_text"} or node.child_count == 0:
        text = _text(node, data)
        if kind == "jsx_text":
            text = " ".join(text.split())
            if not text:
                return
        elif node.child_count == 0 and not node.is_named and text in _SEPARATORS and node.parent is not None:
            if node.parent.type != "for_statement":
                return
        out.append(text if kind != "template_string" else "`" + text + "`")
        return
    out.append("⟨" + kind)
    if kind == "arrow_function":
        parameter = node.child_by_field_name("parameter")
        if parameter is not None:
            # `x => ...` is `(x) => ...`.
            out.extend(["⟨formal_parameters", "(", "⟨required_parameter"])
            _emit(parameter, data, out, comments)
            out.extend(["⟩", ")", "⟩"])
            for child in node.children:
                if child.id != parameter.id:
                    _emit(child, data, out, comments)
            out.append("⟩")
            return
    if kind in _FLAT:
        for member in _flat_members(node, kind):
            _emit(member, data, out, comments)
        out.append("⟩")
        return
    for child in node.children:
        if child.type == "string" and node.type in _KEY_PARENTS and child == node.child_by_field_name("name") or (
            child.type == "string" and node.type == "pair" and child == node.child_by_field_name("key")
        ):
            value = _string_value(child, data)
            if _IDENTIFIER.match(value):
                out.append(value)
                continue
        _emit(child, data, out, comments)
    out.append("⟩")


def _flat_members(node: Node, kind: str) -> list[Node]:
    members: list[Node] = []
    for child in node.named_children:
        if child.type == kind:
            members.extend(_flat_members(child, kind))
        elif child.type in _TRANSPARENT and len(child.named_children) == 1 and child.named_children[0].type == kind:
            members.extend(_flat_members(child.named_children[0], kind))
        else:
            members.append(child)
    return members


def _string_value(node: Node, data: bytes) -> str:
    """A string literal's content with only quote escapes undone (the one
    escape a change of quote character adds or removes)."""
    parts = []
    for child in node.named_children:
        text = _text(child, data)
        parts.append(_ESCAPES.get(text, text) if child.type == "escape_sequence" else text)
    return "".join(parts)


def _string_key(node: Node, data: bytes) -> str:
    value = _string_value(node, data)
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _number_key(text: str) -> str:
    """A number as formatters print it: lower case, no trailing zeros or
    dot in the fraction, a leading zero."""
    number = text.lower()
    if number.startswith(("0x", "0o", "0b")) or "n" in number:
        return number
    mantissa, e, exponent = number.partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
        if mantissa.startswith("."):
            mantissa = "0" + mantissa
    exponent = exponent.lstrip("+")
    return mantissa + (e + exponent if e else "")


__all__ = [
    "TSX",
    "TYPESCRIPT",
    "LayoutKeyError",
    "grammar_for",
    "layout_digest",
    "layout_key",
    "node_key",
    "same_modulo_layout",
]
