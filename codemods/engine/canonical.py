"""The canonical tree of TypeScript: what is left of a syntax tree once
layout is set aside (see :mod:`.equivalence` for what layout is). Its
printed form is the layout key; patterns match against its groups."""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

from tree_sitter import Language, Node

from .parens import PARENTHESIZED, may_be_layout, removable_parens
from .parsing import TSX, TYPESCRIPT


# Punctuation that only separates or terminates: the named nodes around it
# carry the structure (an array's commas excepted: they make holes).
_SEPARATORS = frozenset({";", ","})


# Lists whose commas count: `[, a]` has a hole; only a comma after an
# element and before the closing bracket is a trailing comma.
_HOLED = frozenset({"array", "array_pattern"})


# Lists whose members a `;` or a `,` may end alike.
_MEMBER_LISTS = frozenset({"object_type", "interface_body", "enum_body"})


_CLOSERS = frozenset({")", "]", "}", ">"})


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


# Nodes of one modifier token.
_MODIFIERS = frozenset({"accessibility_modifier", "override_modifier"})


# Tokens before which a line break counts in some constructs only:
# TypeScript reads `Set\n<string>`, `T\n[]`, `A\nextends B ? C : D` and
# `x\nis T` otherwise.
_BREAK_BEFORE_IN = {
    "<": frozenset({"type_arguments", "type_parameters"}),
    "[": frozenset({"lookup_type", "array_type"}),
    "extends": frozenset({"conditional_type"}),
    "is": frozenset({"type_predicate"}),
}


_LINE_BREAK = re.compile(rb"[\n\r]|\xe2\x80[\xa8\xa9]")


# What layout may put between two tokens. The grammar also skips other
# characters there (a zero-width space, U+2060, a no-break space):
# JavaScript refuses some, a reader does not see them: meaning.
_ODD_GAP = re.compile(rb"[^ \t\r\n]")


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
    keyed = keying(node, data, comments)
    item = one(items_of(node, keyed) + keyed.gaps(keyed.end), node)
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
    """A leaf as one unambiguous token of a key: its text as it is when it
    has no space, quote or bracket of the key's own, else as a JSON
    string; after its kind, unless the kind is the text (a keyword, a
    punctuator) or a string (always a JSON string): a regex, a comment
    and a string of the same text differ."""
    text = leaf.text
    if leaf.kind == "string":
        return text
    token = text if _BARE_TOKEN.match(text) else json.dumps(text, ensure_ascii=False)
    return token if leaf.kind == text else f"{leaf.kind}:{token}"


class _Keying:
    """What keying one file's nodes needs: its bytes, whether comments
    count, its facts (:class:`_Facts`), and the odd gaps of the node being
    keyed not keyed yet (from ``at``, before ``end``)."""

    __slots__ = ("data", "comments", "bare", "breaks", "odd", "at", "end")

    def __init__(self, data: bytes, comments: bool, facts: "_Facts", node: Node) -> None:
        self.data = data
        self.comments = comments
        self.bare, self.breaks, self.odd = facts
        # a node's own: after its first token, up to its end (a file's: all)
        whole = node.parent is None
        self.at = 0 if whole else bisect_right(self.odd, (node.start_byte, "\U0010ffff"))
        self.end = len(data) + 1 if whole else node.end_byte

    def gaps(self, before: int) -> list[Item]:
        """The odd gaps up to ``before`` (a token's start) not keyed yet."""
        found = []
        while self.at < len(self.odd) and self.odd[self.at][0] <= before and self.odd[self.at][0] < self.end:
            found.append(Leaf("gap", self.odd[self.at][1]))
            self.at += 1
        return found


class _Facts(NamedTuple):
    """What a file's nodes are keyed with: the parentheses that are layout
    and the tokens beside a line break that counts (by start byte), and the
    odd gaps: the characters other than spaces, tabs and line breaks
    between two tokens, by the start of the token after them (the file's
    length after the last)."""

    bare: frozenset[int]
    breaks: frozenset[int]
    odd: tuple[tuple[int, str], ...]


def keying(node: Node, data: bytes, comments: bool) -> _Keying:
    root = node
    while root.parent is not None:
        root = root.parent
    return _Keying(data, comments, _facts(root, data), node)


# The facts of the files keyed lately (a run keys the same file's nodes many times).
_FACTS: dict[tuple[bytes, bool], _Facts] = {}


def _facts(root: Node, data: bytes) -> _Facts:
    tsx = root.kind_id == _TSX_PROGRAM
    found = _FACTS.get((data, tsx))
    if found is None:
        if len(_FACTS) >= 64:
            _FACTS.clear()
        found = _FACTS[(data, tsx)] = _find_facts(root, data, TSX if tsx else TYPESCRIPT)
    return found


def _find_facts(root: Node, data: bytes, language: Language) -> _Facts:
    tokens: list[Node] = []
    parents: list[Node | None] = []  # each token's parent, known on the way down (`.parent` walks from the root)
    parens: list[Node] = []
    comment_starts: set[int] = set()
    comment_ends: set[int] = set()
    spans: list[tuple[int, int]] = []  # the tokens' and comments', in order
    stack: list[tuple[Node, Node | None]] = [(root, None)]
    while stack:
        node, above = stack.pop()
        kind = node.type
        if kind == "comment":
            comment_starts.add(node.start_byte)
            comment_ends.add(node.end_byte)
            spans.append((node.start_byte, node.end_byte))
            continue
        if node.child_count == 0:
            tokens.append(node)
            parents.append(above)
            spans.append((node.start_byte, node.end_byte))
            continue
        if kind in PARENTHESIZED:
            parens.append(node)
        stack.extend([(child, node) for child in reversed(node.children)])
    breaks = set()
    for i, token in enumerate(tokens):
        parent = parents[i]
        if parent is None or token.is_named:
            continue
        kind = token.type
        # Only a break inside the construct counts: `return;` is `return\n}`
        # (a modifier's construct is what it modifies: `private\nx` in a constructor's parameters).
        if kind in _BREAK_AFTER or kind == "await" and i + 1 < len(tokens) and tokens[i + 1].type == "using":
            after = tokens[i + 1] if i + 1 < len(tokens) else None
            construct = parent.parent if parent.type in _MODIFIERS and parent.parent is not None else parent
            if after is not None and after.start_byte < construct.end_byte:
                if _LINE_BREAK.search(data, token.end_byte, after.start_byte):
                    breaks.add(token.start_byte)
        elif kind in _BREAK_BEFORE or parent.type in _BREAK_BEFORE_IN.get(kind, ()):
            # in the construct: `Set\n<string>` inside a type, `(\n<T>(x: T) => x)` before an arrow
            construct = parent.parent if kind == "<" and parent.parent is not None else parent
            if i > 0 and tokens[i - 1].end_byte > construct.start_byte:
                if _LINE_BREAK.search(data, tokens[i - 1].end_byte, token.start_byte):
                    breaks.add(token.start_byte)
    candidates = [p for p in parens if may_be_layout(p, data, comment_starts, comment_ends)]
    return _Facts(removable_parens(root, data, language, candidates), frozenset(breaks), _odd_gaps(data, spans))


def _odd_gaps(data: bytes, spans: list[tuple[int, int]]) -> tuple[tuple[int, str], ...]:
    """The odd gaps between the tokens and comments ``spans``: (the start
    of what follows, the characters)."""
    if not _ODD_GAP.search(data.translate(None, _PRINTABLE)):
        return ()  # only spaces, tabs, line breaks and printable ASCII: no gap holds anything else
    odd = []
    at = 0
    for start, end in [*spans, (len(data), len(data))]:
        if start > at and _ODD_GAP.search(data, at, start):
            odd.append((start, data[at:start].decode("utf-8", "surrogateescape")))
        at = max(at, end)
    return tuple(odd)


_PRINTABLE = bytes(range(0x21, 0x7F))


def items_of(node: Node, keying: _Keying) -> list[Item]:
    """The canonical items of ``node``: usually one, none for a separator
    or a comment left out, and a comment beside the node's own item when it
    sits before the node's first or after its last token (so that where
    the grammar attaches it does not count, only where it is)."""
    if keying.at < len(keying.odd) and (node.child_count == 0 or node.type in _TOKENS):
        gaps = keying.gaps(node.start_byte)
        if gaps:
            return gaps + _items(node, keying)
    return _items(node, keying)


# Nodes keyed from their bytes as one token or text, not token by token.
_TOKENS = frozenset({"string", "template_string", "regex"})


def _items(node: Node, keying: _Keying) -> list[Item]:
    kind = node.type
    data = keying.data
    if kind == "comment":
        return [Leaf(kind, _comment_key(node_text(node, data)))] if keying.comments else []
    if kind == "empty_statement":
        return []
    if kind in PARENTHESIZED and node.start_byte in keying.bare:
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
            before = kind in _BREAK_BEFORE or kind in _BREAK_BEFORE_IN
            return [Leaf("break", _BREAK), leaf] if before else [leaf, Leaf("break", _BREAK)]
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
    """A string literal's content as written, with only quote escapes
    undone (the one escape a change of quote character adds or removes; a
    JSX attribute has no escapes). As written: what the grammar skips in a
    string (a line break before the closing quote) is content."""
    end = node.end_byte - 1
    if node.parent is not None and node.parent.type == "jsx_attribute":
        return data[node.start_byte + 1 : end].decode("utf-8", "surrogateescape")
    parts, at = [], node.start_byte + 1
    for child in node.named_children:
        if child.type == "escape_sequence":
            text = node_text(child, data)
            parts += [data[at : child.start_byte].decode("utf-8", "surrogateescape"), _ESCAPES.get(text, text)]
            at = child.end_byte
    parts.append(data[at:end].decode("utf-8", "surrogateescape"))
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
    """A number by its exact value (``1.50``, ``1.5`` and ``15e-1`` alike;
    hex, octal and binary by their value too; never rounded: two numbers
    JavaScript reads as different values differ), so that only equal
    numbers are equal; a spelling it cannot read keeps its text, marked so
    that it never reads as a name."""
    number = text.lower().replace("_", "")
    big = number.endswith("n")
    number = number.removesuffix("n")
    if len(number) > 1 and number[0] == "0" and number[1].isdigit():
        return "#" + text  # legacy octal, or a decimal with a leading zero
    try:
        value = Decimal(int(number, 0)) if number.startswith(("0x", "0o", "0b")) else Decimal(number)
    except (ValueError, InvalidOperation):
        return "#" + text
    # Trailing zeros into the exponent, exactly (`normalize` would round to its context's precision).
    sign, digits, exponent = value.as_tuple()
    kept = len(digits)
    while kept > 1 and digits[kept - 1] == 0:
        kept -= 1
    exponent = 0 if digits[:kept] == (0,) else exponent + len(digits) - kept
    return str(Decimal((sign, digits[:kept], exponent))) + ("n" if big else "")
