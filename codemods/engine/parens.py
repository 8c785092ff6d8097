"""Which parentheses may be layout (SPEC 8): before the re-parse that
decides (`canonical`), the ones that are syntax whatever the tree says:
a statement's head, around an optional chain, a directive or a comment,
an operand JavaScript refuses bare, and what would read as other code
bare (an object as an arrow's body, a block at a statement's start)."""

from __future__ import annotations

from tree_sitter import Node

# Keywords whose parentheses are syntax (`if (a)`): never removed.
_HEADS = frozenset({"if", "while", "switch", "with"})

# The links of a chain: an optional one inside parentheses ends there.
_CHAIN = frozenset({"member_expression", "call_expression", "subscript_expression", "non_null_expression"})

# Operators JavaScript refuses to mix without parentheses (`a ?? b || c`),
# which the grammar accepts.
_UNMIXED = ({"??"}, {"||", "&&"})


def may_be_layout(node: Node, data: bytes, comment_starts: set[int], comment_ends: set[int]) -> bool:
    """Whether the parentheses ``node`` may be layout, before re-parsing:
    not syntax, not around an optional chain, a directive or a comment,
    nor around an operand JavaScript refuses bare or an expression that
    bare would be other code (a block, a declaration)."""
    inner = node.named_children
    if len(inner) != 1 or any(child.type == "comment" for child in node.children):
        return False
    inner = inner[0]
    before = node.prev_sibling
    if before is not None and not before.is_named and before.type in _HEADS:
        return False
    if _optional_chain(inner):
        return False
    if returns_what_follows(node, inner):
        return False  # `(() => void) | null`: bare, the return type would take `| null` in
    if _heads_a_statement_or_arrow_body(node) and data[inner.start_byte:inner.end_byte].startswith(_BARE_HEADS):
        return False  # `() => ({ a: 1 })`, `({ a } = b);`, `(function () {})()`: bare, they are other code
    parent = node.parent
    if inner.type == "string" and parent is not None and parent.type == "expression_statement":
        return False  # `("use strict")` is no directive
    if parent is not None and parent.type == "binary_expression" and inner.type in {"binary_expression", "unary_expression", "await_expression"}:
        outer = parent.child_by_field_name("operator")
        if outer is not None and outer.type == "**":
            return False
        operator = inner.child_by_field_name("operator")
        ops = {outer.type if outer is not None else "", operator.type if operator is not None else ""}
        if ops & _UNMIXED[0] and ops & _UNMIXED[1]:
            return False
    start = node.start_byte
    while start > 0 and data[start - 1 : start] in b" \t\r\n":
        start -= 1
    end = node.end_byte
    while end < len(data) and data[end : end + 1] in b" \t\r\n":
        end += 1
    return start not in comment_ends and end not in comment_starts


# What an expression statement or an arrow's body may not start with bare:
# JavaScript reads a block, a declaration or a `let` there instead.
_BARE_HEADS = (b"{", b"function", b"async function", b"class", b"let")


# The type operators that a function type's return type takes in when
# they follow it bare: `() => void | null` returns `void | null`.
_RETURN_TAKES = frozenset({"|", "&", "[", "extends"})


def returns_what_follows(node: Node, inner: Node) -> bool:
    """Whether the parentheses ``node`` hold a function type that a type
    operator follows (`(() => void) | null`, `(() => T)[]`): bare, its
    return type would take that in, another tree; the re-parse would say
    so, at the cost of re-parsing and printing the statement around it (an
    `asserts` return type takes nothing in, and is left to the re-parse)."""
    if inner.type != "function_type":
        return False
    returns = inner.child_by_field_name("return_type")
    if returns is None or returns.type == "asserts":
        return False
    after = node.next_sibling
    return after is not None and not after.is_named and after.type in _RETURN_TAKES


def _heads_a_statement_or_arrow_body(node: Node) -> bool:
    """Whether ``node`` starts an expression statement or an arrow
    function's expression body (it is the leftmost part of it)."""
    while node.parent is not None:
        parent = node.parent
        if parent.type == "expression_statement":
            return parent.start_byte == node.start_byte
        if parent.type == "arrow_function":
            return parent.child_by_field_name("body") == node
        if parent.start_byte != node.start_byte:
            return False
        node = parent
    return False


def _optional_chain(node: Node) -> bool:
    while node is not None and node.type in _CHAIN:
        if any(child.type in {"optional_chain", "?."} for child in node.children):
            return True
        node = node.named_children[0] if node.named_children else None
    return False
