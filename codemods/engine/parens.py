"""Which parentheses are layout (SPEC 8): those whose removal re-parses
to the same tree (:func:`removable_parens`), less the ones that are
meaning whatever the tree says (:func:`may_be_layout`, before the
re-parse): a statement's head, around an optional chain, a directive or
a comment, an operand JavaScript refuses bare, what would read as other
code bare (an object as an arrow's body, a block at a statement's
start), and where tree-sitter's grammar is not JavaScript's."""

from __future__ import annotations

from bisect import bisect_left

from tree_sitter import Language, Node, Tree

from .edits import Edit
from .parsing import parse, reparse

PARENTHESIZED = frozenset({"parenthesized_expression", "parenthesized_type"})

# Keywords whose parentheses are syntax (`if (a)`): never removed.
_HEADS = frozenset({"if", "while", "switch", "with"})

# The links of a chain: an optional one inside parentheses ends there.
_CHAIN = frozenset({"member_expression", "call_expression", "subscript_expression", "non_null_expression"})

# Operators JavaScript refuses to mix without parentheses (`a ?? b || c`),
# which the grammar accepts.
_UNMIXED = ({"??"}, {"||", "&&"})

# Where tree-sitter's grammar reads JavaScript otherwise, parentheses are
# meaning: around a relational or equality operand (the grammar reads
# `a <= b < c` as `a <= (b < c)`), around a type assertion's operand
# (`a ?? b!` reads as `(a ?? b)!`) and around an assertion (`x as T .s` as
# `(x as T).s`), after `export default` (`(function () {})` is no
# declaration), after `readonly` and `implements` (TypeScript refuses
# `readonly (T[])` and `implements (I)`).
_RELATIONAL = frozenset({"<", ">", "<=", ">=", "==", "!=", "===", "!==", "instanceof", "in"})
_ASSERTIONS = frozenset({"as_expression", "satisfies_expression", "non_null_expression", "type_assertion"})
_HOLDERS = frozenset({"export_statement", "readonly_type", "implements_clause"})

# Where an arrow function stands bare (where JavaScript takes an assignment
# expression): elsewhere it refuses `async () => {} ()` and `a ?? () => b`,
# which the grammar reads.
_ARROW_PLACES = frozenset(
    {"arguments", "variable_declarator", "assignment_expression", "return_statement", "pair", "array",
     "arrow_function", "parenthesized_expression", "public_field_definition"}
)

# A function type in a union or an intersection needs its parentheses
# (`A | ((x: T) => B)`), last member or not.
_FUNCTION_TYPES = frozenset({"function_type", "constructor_type"})
_COMBINED_TYPES = frozenset({"union_type", "intersection_type"})


def may_be_layout(node: Node, data: bytes, comment_starts: set[int], comment_ends: set[int]) -> bool:
    """Whether the parentheses ``node`` may be layout, before re-parsing:
    not syntax, not around an optional chain, a directive or a comment,
    nor around an operand JavaScript refuses bare, an expression that bare
    would be other code (a block, a declaration), or where the grammar
    reads JavaScript otherwise."""
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
    if _returned_by_an_arrow(node):
        return False  # `(x): (T) => {}`: TypeScript reads `(T) => {}` as a function type
    if _heads_a_statement_or_arrow_body(node) and data[inner.start_byte:inner.end_byte].startswith(_BARE_HEADS):
        return False  # `() => ({ a: 1 })`, `({ a } = b);`, `(function () {})()`: bare, they are other code
    if inner.type == "string":
        return False  # `("use strict")` is no directive; `with { type: ("json") }`, `import(("x"))` in a type are refused
    parent = node.parent  # never None: a file is not in parentheses
    if inner.type in _ASSERTIONS or parent.type in _HOLDERS:
        return False
    if parent.type in _ASSERTIONS and node.type == "parenthesized_expression":
        return False
    if inner.type == "arrow_function" and parent.type not in _ARROW_PLACES:
        return False
    if inner.type in _FUNCTION_TYPES and parent.type in _COMBINED_TYPES:
        return False
    outer = parent.child_by_field_name("operator") if parent.type == "binary_expression" else None
    if outer is not None and outer.type in _RELATIONAL:
        return False
    if outer is not None and inner.type in {"binary_expression", "unary_expression", "await_expression"}:
        if outer.type == "**":
            return False
        operator = inner.child_by_field_name("operator")
        ops = {outer.type, operator.type if operator is not None else ""}
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


def _returned_by_an_arrow(node: Node) -> bool:
    annotation = node.parent
    return (
        annotation is not None and annotation.type == "type_annotation" and annotation.parent is not None
        and annotation.parent.type == "arrow_function" and annotation.parent.child_by_field_name("return_type") == annotation
    )


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


def removable_parens(root: Node, data: bytes, language: Language, candidates: list[Node]) -> frozenset[int]:
    """The candidates whose removal, together, re-parses to the same tree
    (less those parentheses): all at once, else halves, down to one."""
    if not candidates:
        return frozenset()
    tree = parse(data, language)  # the re-parses reuse what they do not touch
    accepted: list[Node] = []
    pending = [candidates]
    while pending:
        group = pending.pop()
        if _same_without(tree, root, data, accepted + group):
            accepted += group
        elif len(group) > 1:
            half = len(group) // 2
            pending += [group[half:], group[:half]]
    return frozenset(p.start_byte for p in accepted)


def _same_without(tree: Tree, root: Node, data: bytes, parens: list[Node]) -> bool:
    cuts = []
    for paren in parens:
        inner = paren.named_children[0]
        cuts += [Edit(paren.start_byte, inner.start_byte, b" "), Edit(inner.end_byte, paren.end_byte, b" ")]
    cuts.sort()
    pieces, at = [], 0
    for cut in cuts:
        pieces += [data[at : cut.start], cut.text]
        at = cut.end
    pieces.append(data[at:])
    changed = b"".join(pieces)
    tree = reparse(tree, data, changed, cuts)
    if tree.root_node.has_error:
        return False
    # The grammar's own print of a tree (its node types and fields, in C):
    # the tokens are the same by construction (only parentheses went, each
    # for a space), so the same print is the same tree.
    # Statements without a cut are the same text, parsed from the same
    # place: their kinds suffice; those with one are printed in full.
    starts = sorted(p.start_byte for p in parens)
    before, after = root.children, tree.root_node.children
    if len(before) != len(after):
        return False
    for old, new in zip(before, after):
        at = bisect_left(starts, old.start_byte)
        if at < len(starts) and starts[at] < old.end_byte:
            if str(new) != _print_without(old, starts):
                return False
        elif old.type != new.type or old.child_count != new.child_count:
            return False
    return True


def _print_without(node: Node, starts: list[int]) -> str:
    """The grammar's print of ``node`` with the parentheses that start at
    ``starts`` (sorted) left out; only the nodes that hold one are printed
    here, the rest by the grammar."""
    at = bisect_left(starts, node.start_byte)
    if at == len(starts) or starts[at] >= node.end_byte:
        return str(node)
    if node.type in PARENTHESIZED and starts[at] == node.start_byte:
        return _print_without(node.named_children[0], starts)
    parts = []
    for i, child in enumerate(node.children):
        if child.is_named or child.is_missing:
            text = _print_without(child, starts)
            field = node.field_name_for_child(i)
            parts.append(f"{field}: {text}" if field else text)
    return "(" + " ".join([node.type, *parts]) + ")"
