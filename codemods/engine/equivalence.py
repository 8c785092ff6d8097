"""Equal modulo layout: one comparison for every "is this still ours?".

Two pieces of TypeScript are the same modulo layout when they differ only
in what SPEC 8 calls layout, and in nothing else:

- spaces, tabs and line breaks between tokens, where no line break changes
  meaning (a break after ``return``, ``throw``, ``async``, ``abstract``,
  ``interface``, ``type``, ``using``, a modifier and the other restricted
  places, or before ``=>``, ``++``, ``as``, ``!``, and in a type before
  ``<``, ``[``, ``extends`` or ``is``, counts); any other character there
  (a zero-width space, a no-break space) counts, where it is;
- the quote character of a string with the same value (its content as
  written: a line break the grammar skips inside it counts), and the
  quotes of an object key that is an identifier;
- trailing commas (an array's last comma after a hole is a hole, not
  layout), and the semicolons the language inserts anyway (the syntax tree
  is the same without them);
- the spelling of a number with the same value, compared exactly, never
  rounded (``1.50`` is ``1.5``, ``0xff`` is ``255``; ``.0e5`` is ``0``,
  never the name ``e5``; two BigInts of 29 digits differ by their value);
- parentheses whose removal re-parses to the same tree, found by removing
  them and parsing again, never around an optional chain (``(a?.b).c`` is
  not ``a?.b.c``), a directive (``("use strict")``), a comment, an
  operand whose removal JavaScript refuses (``a ?? (b || c)``,
  ``(-1) ** 2``), nor where tree-sitter's grammar reads JavaScript
  otherwise: a relational or equality operand (``a <= (b < c)``), the
  expression after ``export default``, a type assertion or its operand
  (``as``, ``<T>``, ``!``, ``satisfies``), a string, an arrow function
  where JavaScript refuses it bare (``(async () => {})()``), a function
  type in a union, an arrow's return type, the operand of ``readonly``
  and ``implements``; and those around an arrow function's single
  parameter;
- JSX text compared by the value JSX gives it (re-wrapped lines and a
  ``{" "}`` are layout; a U+3000, a doubled space, an entity are not).

Everything else is meaning: every other token and its kind (a regex, a
comment and a string of the same text differ), array holes, and comments,
their text (up to the indentation of a block comment's lines) and their
place in the token stream. Where tree-sitter's grammar could part from
JavaScript's, the relation takes meaning; tests/test_equivalence_properties.py
checks a sample of what it calls equal against @babel/parser.

The key is a canonical text of the tree, so it can be stored (a digest of
it stands for an earlier release's output) and compared cheaply. Markers,
earlier forms, "edited since", and the check that a formatter changed
layout only all go through :func:`layout_key`. Finding a statement present
by role (:class:`Pattern` without comments) is a more tolerant relation:
it only stops a second insertion.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from pathlib import PurePath
from textwrap import dedent

from tree_sitter import Language, Node

from typing import NamedTuple
from .parsing import TSX, TYPESCRIPT, language_for, parse
from .canonical import _ANY, _SEQUENCE, Group, Item, Leaf, canonical_tree, flatten, items_of, keying, one


class LayoutKeyError(ValueError):
    """The text does not parse: it has no layout-free form to compare."""


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
    keyed = keying(node, data, comments)
    items = items_of(node, keyed) + keyed.gaps(keyed.end)  # and those after its last token
    return " ".join(token for item in items for token in flatten(item))


def same_modulo_layout(a: str | bytes, b: str | bytes, grammar: Language | str | PurePath = TYPESCRIPT) -> bool:
    """Whether ``a`` and ``b`` are the same code in any layout (False when
    either does not parse)."""
    try:
        return layout_key(a, grammar) == layout_key(b, grammar)
    except LayoutKeyError:
        return False


class PatternError(ValueError):
    """A pattern that does not parse, or is not one statement or expression."""


# Identifier-like tokens a renamed name can stand in (a local's, a member's).
_LOCAL_KINDS = frozenset({"identifier"})


_MEMBER_KINDS = frozenset({"property_identifier"})


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
    statement matches that expression anywhere, inside larger code too.
    ``comments``: the comments inside the piece count (match it against
    trees made with comments), as they do when the match decides to
    replace code; without, comments are set aside, as finding code
    present by role may."""

    __slots__ = ("text", "root", "kind", "words")

    def __init__(
        self,
        text: str,
        grammar: Language | str | PurePath = TYPESCRIPT,
        names: frozenset[str] = frozenset(),
        comments: bool = False,
    ):
        language = grammar if isinstance(grammar, Language) else language_for(grammar)
        data = dedent(text).strip("\n").encode("utf-8")
        tree = parse(data, language)
        statements = [c for c in tree.root_node.named_children if c.type not in {"comment", "empty_statement"}]
        if tree.root_node.has_error or len(statements) != 1:
            raise PatternError(f"a pattern is one statement or expression that parses: {text!r}")
        node = statements[0]
        if node.type == "expression_statement" and node.named_children:
            node = node.named_children[0]
        self.text = text
        self.root = _holes(one(items_of(node, keying(node, data, comments)), None), names)
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


@lru_cache(maxsize=None)
def compile_pattern(
    text: str, tsx: bool = False, names: frozenset[str] = frozenset(), comments: bool = False
) -> Pattern:
    """A :class:`Pattern`, compiled once per text, grammar, names and
    whether comments count."""
    return Pattern(text, TSX if tsx else TYPESCRIPT, names, comments)


def _holes(item: Item | None, names: frozenset[str]):
    """The compiled form of a canonical tree: holes for metavariables and names."""
    if item is None:
        return None
    if isinstance(item, Leaf):
        if item.kind == "comment":
            return item
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


def _taken(env: dict[str, str], key: str, text: str) -> bool:
    """Whether another name of ``key``'s kind (a member, a local) is bound
    to ``text`` already."""
    member = key.startswith("this.")
    return any(v == text and k != key and not k.startswith("$") and k.startswith("this.") == member for k, v in env.items())


def _match(pattern, item: Item, env: dict[str, str]) -> bool:
    if isinstance(pattern, Leaf):
        return isinstance(item, Leaf) and item.kind == pattern.kind and item.text == pattern.text
    if isinstance(pattern, _Hole):
        if pattern.kind == _ANY:
            if isinstance(item, Leaf) and item.kind == "comment":
                return False  # a comment is never the code a metavariable stands for
            text = " ".join(flatten(item))
        elif pattern.kind == "local" and isinstance(item, Leaf) and item.kind in _LOCAL_KINDS:
            text = item.text
        elif pattern.kind == "member" and isinstance(item, Leaf) and item.kind in _MEMBER_KINDS:
            text = item.text
        else:
            return False
        bound = env.get(pattern.key)
        if bound is None:
            if pattern.kind != _ANY and _taken(env, pattern.key, text):
                return False  # a rename is one to one: two names stay two
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


__all__ = [
    "Group",
    "Leaf",
    "Pattern",
    "PatternError",
    "TSX",
    "TYPESCRIPT",
    "LayoutKeyError",
    "layout_key",
    "node_key",
    "same_modulo_layout",
    "canonical_tree",
    "compile_pattern",
    "groups_by_kind",
]
