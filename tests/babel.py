"""JavaScript's own reading of TypeScript, for the cross-check of the layout
relation (SPEC 8): @babel/parser through tests/babel_trees.cjs, in one Bun
process for a whole list of pairs, and random layout edits to feed it.

A layout edit is one small change that a formatter or a person might make
and that may or may not be layout: whitespace or another character the
grammar skips put between two tokens, a gap between two tokens made one
space, parentheses added around an expression or a type or removed, a
string's quotes swapped, a number spelled otherwise, a semicolon dropped.
The relation decides which are layout; Babel checks those."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from tree_sitter import Node

from .node_tools import BIN, NODE_MODULES, require
from .perturb import root, walk

SCRIPT = Path(__file__).with_name("babel_trees.cjs")

# What may go between two tokens: spaces, tabs and line breaks, and
# characters the grammar also skips (JavaScript reads some as whitespace,
# refuses others).
GAPS = [b" ", b"\n", b"\t", b"\r\n", b"\n\n", b"\x0b", b"\x0c", *(c.encode() for c in "\u00a0\u2028\ufeff\u200b\u2060")]

# Nodes that parentheses may go around.
WRAPPABLE = frozenset(
    {
        "identifier", "member_expression", "call_expression", "binary_expression", "unary_expression", "string",
        "number", "arrow_function", "function_expression", "object", "array", "as_expression", "non_null_expression",
        "satisfies_expression", "await_expression", "ternary_expression", "new_expression", "template_string",
        "parenthesized_expression", "subscript_expression", "assignment_expression", "type_assertion", "regex",
        "this", "true", "false", "null", "undefined", "class", "jsx_element", "jsx_self_closing_element",
        "update_expression", "type_identifier", "generic_type", "union_type", "intersection_type", "predefined_type",
        "object_type", "array_type", "function_type", "literal_type", "lookup_type", "conditional_type",
        "parenthesized_type", "tuple_type", "type_query", "index_type_query", "template_literal_type",
    }
)


def layout_edits(data: bytes, path: str, rng: random.Random, count: int) -> list[tuple[str, bytes]]:
    """``count`` texts (fewer where an edit has no place), each ``data``
    with one random layout edit, named."""
    nodes = list(walk(root(data, path)))
    tokens = sorted((n for n in nodes if n.child_count == 0 and n.end_byte > n.start_byte), key=lambda n: n.start_byte)
    by_kind: dict[str, list[Node]] = {}
    for node in nodes:
        by_kind.setdefault(node.type, []).append(node)
    wrappable = [n for n in nodes if n.type in WRAPPABLE and n.is_named]
    parentheses = by_kind.get("parenthesized_expression", []) + by_kind.get("parenthesized_type", [])
    strings = [n for n in by_kind.get("string", []) if n.is_named and n.parent.type != "jsx_attribute"]
    out = []
    for _ in range(count):
        kind = rng.choice(["gap", "gap", "one space", "parentheses", "parentheses", "no parentheses", "quotes",
                           "number", "semicolon"])
        if kind == "gap":
            at = rng.choice(tokens[1:]).start_byte
            out.append((kind, data[:at] + rng.choice(GAPS) + data[at:]))
        elif kind == "one space":
            i = rng.randrange(1, len(tokens))
            start, end = tokens[i - 1].end_byte, tokens[i].start_byte
            if start < end and not data[start:end].strip():
                out.append((kind, data[:start] + b" " + data[end:]))
        elif kind == "parentheses":
            node = rng.choice(wrappable)
            out.append((kind, data[:node.start_byte] + b"(" + data[node.start_byte:node.end_byte] + b")" + data[node.end_byte:]))
        elif kind == "no parentheses" and parentheses:
            node = rng.choice(parentheses)
            inner = data[node.start_byte + 1:node.end_byte - 1]
            out.append((kind, data[:node.start_byte] + b" " + inner + b" " + data[node.end_byte:]))
        elif kind == "quotes" and strings:
            node = rng.choice(strings)
            inner = data[node.start_byte + 1:node.end_byte - 1]
            quote = b"'" if data[node.start_byte:node.start_byte + 1] == b'"' else b'"'
            if quote not in inner and b"\\" not in inner:
                out.append((kind, data[:node.start_byte] + quote + inner + quote + data[node.end_byte:]))
        elif kind == "number" and by_kind.get("number"):
            node = rng.choice(by_kind["number"])
            out.append((kind, data[:node.start_byte] + _respelled(data[node.start_byte:node.end_byte]) + data[node.end_byte:]))
        elif kind == "semicolon" and by_kind.get(";"):
            node = rng.choice([n for n in by_kind[";"] if not n.is_named] or by_kind[";"])
            out.append((kind, data[:node.start_byte] + data[node.end_byte:]))
    return out


def _respelled(number: bytes) -> bytes:
    """The same value written otherwise: an integer in hex or binary, or
    (not a BigInt) with a fraction or an exponent; a fraction with one zero
    more; a hex, octal or binary integer in decimal."""
    digits, big = (number[:-1], b"n") if number.endswith(b"n") else (number, b"")
    if digits.isdigit() and not digits.startswith(b"0"):
        value = int(digits)
        forms = [hex(value).encode(), bin(value).encode()] + ([] if big else [digits + b".0", digits + b"e0"])
        return forms[value % len(forms)] + big
    if digits[:2].lower() in (b"0x", b"0o", b"0b"):
        return str(int(digits.replace(b"_", b""), 0)).encode() + big
    return digits + b"0" if b"." in digits and b"e" not in digits.lower() else number


def babel_verdicts(pairs: list[tuple[bytes, bytes, bool]]) -> list[dict]:
    """For each pair (a, b, tsx): {"same": True}, or {"same": False, "a":
    tree, "b": tree, "where": path of the first difference} (a tree is
    {"error": message} when Babel refuses the text). One Bun process for
    all of them."""
    bun = require(BIN / "bun", "Bun")
    require(NODE_MODULES / "@babel" / "parser" / "package.json", "@babel/parser")
    request = [{"a": a.decode(), "b": b.decode(), "tsx": tsx} for a, b, tsx in pairs]
    result = subprocess.run(
        [str(bun), str(SCRIPT), str(NODE_MODULES)], input=json.dumps(request), capture_output=True, text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)
