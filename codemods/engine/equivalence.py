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

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import PurePath

from tree_sitter import Language, Node

from .record import NamedTuple
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
    item = _tree(node, data, comments)
    return " ".join(_flatten(item)) if item is not None else ""


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
    import hashlib  # here: its import costs every start of the tool, and few runs need it

    return hashlib.sha256(layout_key(text, grammar).encode("utf-8")).hexdigest()


class PatternError(ValueError):
    """A pattern that does not parse, or is not one statement or expression."""


# Identifier-like tokens a renamed name can stand in (a local's, a member's).
_LOCAL_KINDS = frozenset({"identifier"})
_MEMBER_KINDS = frozenset({"property_identifier"})
_ANY, _SEQUENCE = "any", "sequence"


class _Hole(NamedTuple):
    """A place of a pattern that matches more than its own text: ``$X`` (one
    item, the same wherever ``X`` recurs), ``$$$`` (any run of items), or a
    name the step wrote (``name``: any name of the same kind, the same
    throughout the match and the bindings it is given)."""

    kind: str
    key: str


class Pattern:
    """A piece of TypeScript with metavariables, matched on canonical trees:
    layout does not count (see :func:`layout_key`), everything else does.

    ``$X`` matches any one expression, argument or statement (the same
    text wherever ``$X`` recurs); ``$$$`` matches any run of them (arguments,
    statements). ``names`` are the local names (``appStateJson``) and
    members (``this.appStateJson``) that the code that wrote this piece
    chose: each matches any name of its kind, consistently, so a renamed
    local is still the same code. A pattern that is one expression
    statement matches that expression anywhere, inside larger code too."""

    __slots__ = ("text", "root", "kind", "words")

    def __init__(self, text: str, grammar: Language | str | PurePath = TYPESCRIPT, names: frozenset[str] = frozenset()):
        language = grammar if isinstance(grammar, Language) else language_for(grammar)
        data = dedent_text(text).encode("utf-8")
        tree = parse(data, language)
        statements = [c for c in tree.root_node.named_children if c.type not in {"comment", "empty_statement"}]
        if tree.root_node.has_error or len(statements) != 1:
            raise PatternError(f"a pattern is one statement or expression that parses: {text!r}")
        node = statements[0]
        if node.type == "expression_statement" and node.named_children:
            node = node.named_children[0]
        self.text = text
        self.root = _holes(_tree(node, data, False), names)
        # The node type every match has (None: a hole matches anything), and
        # the names every match spells out: a quick "cannot be here".
        self.kind = self.root[0] if isinstance(self.root, tuple) else None
        self.words = frozenset(_words(self.root))

    def match(self, item: Item, bindings: dict[str, str] | None = None) -> dict[str, str] | None:
        """The bindings of a match of the whole ``item`` (extending
        ``bindings``), or None."""
        env = dict(bindings or {})
        return env if _match(self.root, item, env) else None

    def search(
        self, group: Group, bindings: dict[str, str] | None = None, by_kind: dict[str, list[Group]] | None = None
    ) -> Iterator[tuple[Group, dict[str, str]]]:
        """Every group inside ``group`` (itself included) that the pattern
        matches, in document order, with its bindings (``by_kind``: the
        groups of ``group`` by node type, see :func:`groups_by_kind`)."""
        if by_kind is not None and self.kind is not None:
            candidates = by_kind.get(self.kind, ())
        else:
            candidates = group.walk()
        for candidate in candidates:
            found = self.match(candidate, bindings)
            if found is not None:
                yield candidate, found


def groups_by_kind(group: Group) -> dict[str, list[Group]]:
    """Every group inside ``group`` (itself included), by node type, each
    list in document order."""
    out: dict[str, list[Group]] = {}
    for item in group.walk():
        out.setdefault(item.kind, []).append(item)
    return out


def _words(compiled) -> Iterator[str]:
    """The identifier-like texts a compiled pattern spells out."""
    if isinstance(compiled, Leaf):
        if compiled.kind in _LOCAL_KINDS or compiled.kind in _MEMBER_KINDS:
            yield compiled.text
    elif isinstance(compiled, tuple):
        for item in compiled[1]:
            yield from _words(item)


def dedent_text(text: str) -> str:
    lines = text.strip("\n").split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] for line in lines)


@lru_cache(maxsize=None)
def compile_pattern(text: str, tsx: bool = False, names: frozenset[str] = frozenset()) -> Pattern:
    """A :class:`Pattern`, compiled once per text, grammar and names."""
    return Pattern(text, TSX if tsx else TYPESCRIPT, names)


def _holes(item: Item | None, names: frozenset[str]):
    """The compiled form of a canonical tree: holes for metavariables and names."""
    if item is None:
        return None
    if isinstance(item, Leaf):
        if item.text.startswith("$$$"):
            return _Hole(_SEQUENCE, "")
        if item.text.startswith("$") and len(item.text) > 1:
            return _Hole(_ANY, item.text)
        if item.kind in _LOCAL_KINDS and item.text in names:
            return _Hole("local", item.text)
        if item.kind in _MEMBER_KINDS and "this." + item.text in names:
            return _Hole("member", "this." + item.text)
        return item
    items = [h for h in (_holes(i, names) for i in item.items) if h is not None]
    if item.kind == "expression_statement" and len(items) == 1 and isinstance(items[0], _Hole):
        return items[0]
    return (item.kind, tuple(items))


def _match(pattern, item: Item, env: dict[str, str]) -> bool:
    if isinstance(pattern, Leaf):
        return isinstance(item, Leaf) and item.text == pattern.text
    if isinstance(pattern, _Hole):
        if pattern.kind == _ANY:
            text = " ".join(_flatten(item))
        elif pattern.kind == "local" and isinstance(item, Leaf) and item.kind in _LOCAL_KINDS:
            text = item.text
        elif pattern.kind == "member" and isinstance(item, Leaf) and item.kind in _MEMBER_KINDS:
            text = item.text
        else:
            return False
        bound = env.get(pattern.key)
        if bound is None:
            env[pattern.key] = text
            return True
        return bound == text
    kind, items = pattern
    return isinstance(item, Group) and item.kind == kind and _match_items(items, 0, item.items, 0, env)


def _match_items(patterns: tuple, i: int, items: list, j: int, env: dict[str, str]) -> bool:
    if i == len(patterns):
        return j == len(items)
    pattern = patterns[i]
    saved = dict(env)
    if isinstance(pattern, _Hole) and pattern.kind == _SEQUENCE:
        for end in range(j, len(items) + 1):
            if _match_items(patterns, i + 1, items, end, env):
                return True
            env.clear()
            env.update(saved)
        return False
    if j < len(items) and _match(pattern, items[j], env) and _match_items(patterns, i + 1, items, j + 1, env):
        return True
    env.clear()
    env.update(saved)
    return False


def _text(node: Node, data: bytes) -> str:
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
    (an empty statement, a separator)."""
    item = _tree(node, data, comments)
    return item if isinstance(item, Group) else (Group("", [item], node) if item is not None else None)


def _flatten(item: Item) -> Iterator[str]:
    if isinstance(item, Leaf):
        yield item.text
        return
    stack: list = [item]
    while stack:
        current = stack.pop()
        if isinstance(current, Leaf):
            yield current.text
        elif isinstance(current, str):
            yield current
        else:
            yield "⟨" + current.kind
            stack.append("⟩")
            stack.extend(reversed(current.items))


def _tree(node: Node, data: bytes, comments: bool) -> Item | None:
    kind = node.type
    if kind == "comment":
        return Leaf(kind, "//" + " ".join(_text(node, data).split())) if comments else None
    if kind == "empty_statement":
        return None
    if kind in _TRANSPARENT:
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) == 1:
            return _tree(inner[0], data, comments)
    if kind == "string":
        return Leaf(kind, _string_key(node, data))
    if kind == "number":
        return Leaf(kind, _number_key(_text(node, data)))
    if kind in {"template_string", "regex", "jsx_text"} or node.child_count == 0:
        text = _text(node, data)
        if kind == "jsx_text":
            text = " ".join(text.split())
            if not text:
                return None
        elif node.child_count == 0 and not node.is_named and text in _SEPARATORS and node.parent is not None:
            if node.parent.type != "for_statement":
                return None
        return Leaf(kind, text if kind != "template_string" else "`" + text + "`")
    items: list[Item] = []
    if kind == "arrow_function":
        parameter = node.child_by_field_name("parameter")
        if parameter is not None:
            # `x => ...` is `(x) => ...`.
            # In its place: `async x => ...` is `async (x) => ...`.
            for child in node.children:
                if child.id == parameter.id:
                    inner = _tree(parameter, data, comments)
                    wrapped = Group("required_parameter", [inner] if inner is not None else [], None)
                    items.append(Group("formal_parameters", [Leaf("(", "("), wrapped, Leaf(")", ")")], None))
                else:
                    _extend(items, (child,), data, comments)
            return Group(kind, items, node)
    if kind in _FLAT:
        _extend(items, _flat_members(node, kind), data, comments)
        return Group(kind, items, node)
    name = node.child_by_field_name("key" if kind == "pair" else "name") if kind in _KEY_PARENTS else None
    for child in node.children:
        if name is not None and child.type == "string" and child == name:
            value = _string_value(child, data)
            if _IDENTIFIER.match(value):
                items.append(Leaf("property_identifier", value))
                continue
        item = _tree(child, data, comments)
        if item is not None:
            items.append(item)
    return Group(kind, items, node)


def _extend(items: list, children, data: bytes, comments: bool) -> None:
    for child in children:
        item = _tree(child, data, comments)
        if item is not None:
            items.append(item)


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
    "Group",
    "Leaf",
    "Pattern",
    "PatternError",
    "TSX",
    "TYPESCRIPT",
    "LayoutKeyError",
    "grammar_for",
    "layout_digest",
    "layout_key",
    "node_key",
    "same_modulo_layout",
    "canonical_tree",
    "compile_pattern",
    "groups_by_kind",
]
