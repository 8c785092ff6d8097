"""The canonical tree of TypeScript: what is left of a syntax tree once
layout is set aside (see :mod:`.equivalence` for what layout is). Its
printed form is the layout key; patterns match against its groups."""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Iterator

from tree_sitter import Language, Node, Tree

from typing import NamedTuple
from .edits import Edit
from .parens import may_be_layout
from .parsing import TSX, TYPESCRIPT, parse, reparse


# Punctuation that only separates or terminates: the named nodes around it
# carry the structure (an array's commas excepted: they make holes).
_SEPARATORS = frozenset({";", ","})


# Lists whose commas count: `[, a]` has a hole; only a comma after an
# element and before the closing bracket is a trailing comma.
_HOLED = frozenset({"array", "array_pattern"})


# Lists whose members a `;` or a `,` may end alike.
_MEMBER_LISTS = frozenset({"object_type", "interface_body", "enum_body"})


_CLOSERS = frozenset({")", "]", "}", ">"})


# Parentheses that may be layout, when removing them re-parses to the same tree.
_PARENTHESIZED = frozenset({"parenthesized_expression", "parenthesized_type"})


# Types whose members a formatter may lead with an operator (`| A | B`).
_FLAT = frozenset({"union_type", "intersection_type"})


# Keys that may be written quoted or bare.
_KEY_PARENTS = frozenset({"pair", "property_signature", "method_signature", "public_field_definition", "method_definition"})


_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


_ESCAPES = {"\\'": "'", '\\"': '"'}


# Tokens after which a line break changes the parse or inserts a semicolon
# (`return\nx`, `async\n(x) => x`, `abstract\nclass`, `interface\nA`,
# `type\nA`, `using\nx`, `private\nx` in a class), and tokens before which
# one does (`(c)\n=> x`, `a\n++b`, `a\nas T`). The grammar reads most of
# these as if on one line; JavaScript and TypeScript do not.
_BREAK_AFTER = frozenset(
    {
        "return", "throw", "break", "continue", "yield", "async", "abstract", "declare", "interface", "type",
        "namespace", "module", "using", "get", "set", "static", "public", "private", "protected", "readonly",
        "override", "accessor", "asserts",
    }
)


_BREAK_BEFORE = frozenset({"=>", "++", "--", "as", "satisfies", "!"})


_LINE_BREAK = re.compile(rb"[\n\r]|\xe2\x80[\xa8\xa9]")


_BREAK = "\u23ce"


# JSX children: text runs are read from the bytes between the others.
_JSX_PARENTS = frozenset({"jsx_element", "jsx_fragment"})


_JSX_TEXT = frozenset({"jsx_text", "html_character_reference", "comment"})


_LINES = re.compile(r"\r\n|\n|\r")


# A token printed as it is in a key; any other is printed as a JSON string.
_BARE_TOKEN = re.compile(r'[^\s"\\\u27e8\u27e9]+\Z')


_TSX_PROGRAM = TSX.id_for_node_kind("program", True)


_ANY, _SEQUENCE = "any", "sequence"


def node_text(node: Node, data: bytes) -> str:
    return data[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")


class Leaf(NamedTuple):
    """A token of the canonical tree: ``kind`` is its node type."""

    kind: str
    text: str


class Group:
    """A node of the canonical tree: its type, its canonical items, and the
    syntax node it stands for (None for a wrapper the key adds)."""

    __slots__ = ("kind", "items", "node")

    def __init__(self, kind: str, items: list, node: Node | None) -> None:
        self.kind = kind
        self.items = items
        self.node = node

    def walk(self) -> Iterator["Group"]:
        """This group and every group inside it, in document order."""
        stack = [self]
        pop, push = stack.pop, stack.append
        while stack:
            group = pop()
            yield group
            for item in reversed(group.items):
                if type(item) is Group:
                    push(item)


Item = Leaf | Group


def canonical_tree(node: Node, data: bytes, *, comments: bool = False) -> Group | None:
    """The canonical tree of ``node`` (what :func:`node_key` prints), for
    matching :class:`Pattern` s; None when the node has no canonical form
    (an empty statement, a separator). With ``comments``, a comment inside
    the node before its first or after its last token (before its
    semicolon, say) is kept beside the node's tree, in a wrapper: it is
    part of the node's text."""
    item = one(items_of(node, keying(node, data, comments)), node)
    return item if isinstance(item, Group) else (Group("", [item], node) if item is not None else None)


def one(items: list[Item], node: Node | None) -> Item | None:
    """The one item of a node's tree; a wrapper when comments sit beside it."""
    if len(items) > 1:
        return Group("", items, node)
    return items[0] if items else None


def flatten(item: Item) -> Iterator[str]:
    if isinstance(item, Leaf):
        yield _token(item)
        return
    stack: list = [item]
    while stack:
        current = stack.pop()
        if isinstance(current, Leaf):
            yield _token(current)
        elif isinstance(current, str):
            yield current
        else:
            yield "\u27e8" + current.kind
            stack.append("\u27e9")
            stack.extend(reversed(current.items))


def _token(leaf: Leaf) -> str:
    """A leaf as one unambiguous token of a key: as it is when it has no
    space, quote or bracket of the key's own, else as a JSON string."""
    text = leaf.text
    if _BARE_TOKEN.match(text) or leaf.kind == "string" and text.startswith('"'):
        return text
    return json.dumps(text, ensure_ascii=False)


class _Keying:
    """What keying one file's nodes needs: its bytes, whether comments
    count, the parentheses that are layout and the tokens beside a line
    break that counts (by start byte)."""

    __slots__ = ("data", "comments", "bare", "breaks")

    def __init__(self, data: bytes, comments: bool, bare: frozenset[int], breaks: frozenset[int]) -> None:
        self.data = data
        self.comments = comments
        self.bare = bare
        self.breaks = breaks


def keying(node: Node, data: bytes, comments: bool) -> _Keying:
    root = node
    while root.parent is not None:
        root = root.parent
    bare, breaks = _facts(root, data)
    return _Keying(data, comments, bare, breaks)


# The facts of the files keyed lately (a run keys the same file's nodes many times).
_FACTS: dict[tuple[bytes, bool], tuple[frozenset[int], frozenset[int]]] = {}


def _facts(root: Node, data: bytes) -> tuple[frozenset[int], frozenset[int]]:
    tsx = root.kind_id == _TSX_PROGRAM
    found = _FACTS.get((data, tsx))
    if found is None:
        if len(_FACTS) >= 64:
            _FACTS.clear()
        found = _FACTS[(data, tsx)] = _find_facts(root, data, TSX if tsx else TYPESCRIPT)
    return found


def _find_facts(root: Node, data: bytes, language: Language) -> tuple[frozenset[int], frozenset[int]]:
    """(parentheses that are layout, tokens whose line break counts) of a
    file, by start byte."""
    tokens: list[Node] = []
    parents: list[Node | None] = []  # each token's parent, known on the way down (`.parent` walks from the root)
    parens: list[Node] = []
    comment_starts: set[int] = set()
    comment_ends: set[int] = set()
    stack: list[tuple[Node, Node | None]] = [(root, None)]
    while stack:
        node, above = stack.pop()
        kind = node.type
        if kind == "comment":
            comment_starts.add(node.start_byte)
            comment_ends.add(node.end_byte)
            continue
        if node.child_count == 0:
            tokens.append(node)
            parents.append(above)
            continue
        if kind in _PARENTHESIZED:
            parens.append(node)
        stack.extend([(child, node) for child in reversed(node.children)])
    breaks = set()
    for i, token in enumerate(tokens):
        parent = parents[i]
        if parent is None or token.is_named:
            continue
        kind = token.type
        # Only a break inside the construct counts: `return;` is `return\n}`.
        if kind in _BREAK_AFTER or kind == "await" and i + 1 < len(tokens) and tokens[i + 1].type == "using":
            after = tokens[i + 1] if i + 1 < len(tokens) else None
            if after is not None and after.start_byte < parent.end_byte:
                if _LINE_BREAK.search(data, token.end_byte, after.start_byte):
                    breaks.add(token.start_byte)
        elif kind in _BREAK_BEFORE and i > 0 and tokens[i - 1].end_byte > parent.start_byte:
            if _LINE_BREAK.search(data, tokens[i - 1].end_byte, token.start_byte):
                breaks.add(token.start_byte)
    candidates = [p for p in parens if may_be_layout(p, data, comment_starts, comment_ends)]
    return _removable_parens(root, data, language, candidates), frozenset(breaks)


def _removable_parens(root: Node, data: bytes, language: Language, candidates: list[Node]) -> frozenset[int]:
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
    if node.type in _PARENTHESIZED and starts[at] == node.start_byte:
        return _print_without(node.named_children[0], starts)
    parts = []
    for i, child in enumerate(node.children):
        if child.is_named or child.is_missing:
            text = _print_without(child, starts)
            field = node.field_name_for_child(i)
            parts.append(f"{field}: {text}" if field else text)
    return "(" + " ".join([node.type, *parts]) + ")"


def items_of(node: Node, keying: _Keying) -> list[Item]:
    """The canonical items of ``node``: usually one, none for a separator
    or a comment left out, and a comment beside the node's own item when it
    sits before the node's first or after its last token (so that where
    the grammar attaches it does not count, only where it is)."""
    kind = node.type
    data = keying.data
    if kind == "comment":
        return [Leaf(kind, _comment_key(node_text(node, data)))] if keying.comments else []
    if kind == "empty_statement":
        return []
    if kind in _PARENTHESIZED and node.start_byte in keying.bare:
        return items_of(node.named_children[0], keying)
    if kind == "string":
        return [Leaf(kind, _string_key(node, data))]
    if kind == "number":
        return [Leaf(kind, _number_key(node_text(node, data)))]
    if kind == "template_string":
        return _group(kind, _template(node, keying), node, keying)
    if kind == "regex" or node.child_count == 0:
        text = node_text(node, data)
        if node.child_count == 0 and not node.is_named and text in _SEPARATORS and _separates(node, keying.comments):
            return []
        leaf = Leaf(kind, text)
        if node.start_byte in keying.breaks and not node.is_named:
            return [Leaf("break", _BREAK), leaf] if kind in _BREAK_BEFORE else [leaf, Leaf("break", _BREAK)]
        return [leaf]
    if kind in _JSX_PARENTS:
        return _group(kind, _jsx_children(node, keying), node, keying)
    items: list[Item] = []
    if kind == "arrow_function":
        parameter = node.child_by_field_name("parameter")
        if parameter is not None:
            # `x => ...` is `(x) => ...`.
            # In its place: `async x => ...` is `async (x) => ...`.
            for child in node.children:
                if child.id == parameter.id:
                    wrapped = Group("required_parameter", items_of(parameter, keying), None)
                    items.append(Group("formal_parameters", [Leaf("(", "("), wrapped, Leaf(")", ")")], None))
                else:
                    items += items_of(child, keying)
            return _group(kind, items, node, keying)
    if kind in _FLAT:
        for member in _flat_members(node, kind):
            items += items_of(member, keying)
        return _group(kind, items, node, keying)
    name = node.child_by_field_name("key" if kind == "pair" else "name") if kind in _KEY_PARENTS else None
    for child in node.children:
        if name is not None and child.type == "string" and child == name:
            value = _string_value(child, data)
            if _IDENTIFIER.match(value):
                items.append(Leaf("property_identifier", value))
                continue
        if child.type == ";" and items and isinstance(items[-1], Leaf) and items[-1].kind == "comment":
            # `a /* @__PURE__ */; f()` is not `a; /* @__PURE__ */ f()`: the
            # semicolon a comment precedes keeps it in its statement
            items.append(Leaf(";", ";"))
            continue
        items += items_of(child, keying)
    return _group(kind, items, node, keying)


def _group(kind: str, items: list[Item], node: Node, keying: _Keying) -> list[Item]:
    """``Group(kind, items)``, the comments at either end of ``items`` moved
    out beside it."""
    if not keying.comments or not items:
        return [Group(kind, items, node)]
    first, last = 0, len(items)
    while first < last and isinstance(items[first], Leaf) and items[first].kind == "comment":
        first += 1
    while last > first and isinstance(items[last - 1], Leaf) and items[last - 1].kind == "comment":
        last -= 1
    if first == 0 and last == len(items):
        return [Group(kind, items, node)]
    return [*items[:first], Group(kind, items[first:last], node), *items[last:]]


def _separates(node: Node, comments: bool) -> bool:
    """Whether the separator ``node`` is left out of the key: a semicolon
    the language would insert, a trailing comma, a member separator of a
    type (``;`` and ``,`` alike); not one in a `for` head, nor an array's
    comma other than a trailing one after an element (the others make
    holes). Other commas are implied by the tree, and kept only when
    comments count: a comment's place is before or after its comma."""
    parent = node.parent
    if parent is None or parent.type == "for_statement":
        return False
    if node.type != "," or parent.type in _MEMBER_LISTS:
        return True
    after = node.next_sibling
    while after is not None and after.type == "comment":
        after = after.next_sibling
    before = node.prev_sibling
    while before is not None and before.type == "comment":
        before = before.prev_sibling
    trailing = after is not None and after.type in _CLOSERS and before is not None and before.type not in {",", "["}
    if parent.type in _HOLED:
        return trailing
    return trailing or not comments


def _flat_members(node: Node, kind: str) -> list[Node]:
    members: list[Node] = []
    for child in node.children:
        if child.type == kind:
            members.extend(_flat_members(child, kind))
        elif child.is_named or child.type == "comment":
            members.append(child)
    return members


def _template(node: Node, keying: _Keying) -> list[Item]:
    """A template's characters as written, its substitutions keyed."""
    data = keying.data
    items: list[Item] = []
    at = node.start_byte
    for child in node.named_children:
        if child.type == "template_substitution":
            items.append(Leaf("template_chars", data[at : child.start_byte].decode("utf-8", "surrogateescape")))
            items += items_of(child, keying)
            at = child.end_byte
    items.append(Leaf("template_chars", data[at : node.end_byte].decode("utf-8", "surrogateescape")))
    return items


def _jsx_children(node: Node, keying: _Keying) -> list[Item]:
    """An element's children, its text by the value JSX gives it: each run
    of text cleaned as JSX cleans it (the line breaks and the spaces and
    tabs around them), a ``{" "}`` one space, adjacent text joined."""
    data = keying.data
    items: list[Item] = []
    text = ""
    after: int | None = None
    for child in node.children:
        if child.type in _JSX_TEXT:
            continue
        if after is not None:
            text += _jsx_text_value(data[after : child.start_byte].decode("utf-8", "surrogateescape"))
        after = child.end_byte
        if _is_jsx_space(child, data):
            text += " "
            continue
        if text:
            items.append(Leaf("jsx_text", text))
            text = ""
        items += items_of(child, keying)
    if text:
        items.append(Leaf("jsx_text", text))
    return items


def _jsx_text_value(raw: str) -> str:
    """What JSX makes of a run of text between two children: lines joined
    by one space, the spaces and tabs at a line break dropped, blank lines
    dropped (Babel's and TypeScript's reading, less any other white space:
    a U+3000 stays)."""
    lines = _LINES.split(raw)
    last_text = max((i for i, line in enumerate(lines) if line.strip(" \t")), default=0)
    out = []
    for i, line in enumerate(lines):
        if i > 0:
            line = line.lstrip(" \t")
        if i < len(lines) - 1:
            line = line.rstrip(" \t")
        if line:
            out.append(line if i == last_text else line + " ")
    return "".join(out)


def _is_jsx_space(node: Node, data: bytes) -> bool:
    """``{" "}``: one space, as a formatter writes it to keep a space at a
    line break."""
    if node.type != "jsx_expression" or any(child.type == "comment" for child in node.children):
        return False
    inner = node.named_children
    return len(inner) == 1 and inner[0].type == "string" and _string_value(inner[0], data) == " "


def _string_value(node: Node, data: bytes) -> str:
    """A string literal's content with only quote escapes undone (the one
    escape a change of quote character adds or removes; a JSX attribute
    has no escapes)."""
    jsx = node.parent is not None and node.parent.type == "jsx_attribute"
    if jsx:
        return data[node.start_byte + 1 : node.end_byte - 1].decode("utf-8", "surrogateescape")
    parts = []
    for child in node.named_children:
        text = node_text(child, data)
        parts.append(_ESCAPES.get(text, text) if child.type == "escape_sequence" else text)
    return "".join(parts)


def _string_key(node: Node, data: bytes) -> str:
    return json.dumps(_string_value(node, data), ensure_ascii=False)


def _comment_key(text: str) -> str:
    """A comment's text, less the spaces and tabs that end its lines and
    that indent the lines of a block comment after its first (a formatter
    re-indents those)."""
    lines = _LINES.split(text)
    return "\n".join([lines[0].rstrip(" \t")] + [line.strip(" \t") for line in lines[1:]])


def _number_key(text: str) -> str:
    """A number by its value (``1.50``, ``1.5`` and ``15e-1`` alike; hex,
    octal and binary by their value too), so that only equal numbers are
    equal; a spelling it cannot read keeps its text, marked so that it
    never reads as a name."""
    number = text.lower().replace("_", "")
    big = number.endswith("n")
    number = number.removesuffix("n")
    try:
        if number.startswith(("0x", "0o", "0b")):
            value = str(int(number, 0))
        elif len(number) > 1 and number[0] == "0" and number[1].isdigit():
            return "#" + text  # legacy octal, or a decimal with a leading zero
        elif number.isascii() and number.isdigit() and len(number) <= _EXACT_DIGITS:
            value = integer_key(number)
        else:
            from decimal import Decimal, InvalidOperation  # only here: its import costs a run milliseconds

            try:
                value = str(Decimal(number).normalize())
            except InvalidOperation:
                return "#" + text
    except ValueError:
        return "#" + text
    return value + ("n" if big else "")


# Digits that decimal's default context (28) normalizes without rounding.
_EXACT_DIGITS = 28


def integer_key(digits: str) -> str:
    """``str(Decimal(digits).normalize())`` for decimal digits (no leading
    zero, at most 28 of them), without importing decimal: trailing zeros
    become an exponent (``200`` is ``2E+2``, ``1200`` is ``1.2E+3``)."""
    kept = digits.rstrip("0") or "0"
    zeros = len(digits) - len(kept) if kept != "0" else 0
    if not zeros:
        return kept
    fraction = "." + kept[1:] if len(kept) > 1 else ""
    return f"{kept[0]}{fraction}E+{zeros + len(kept) - 1}"
