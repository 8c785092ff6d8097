"""Tree-sitter grammars and parsing."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import PurePath

import tree_sitter_typescript
from tree_sitter import Language, Parser, Tree

from .edits import Edit

TYPESCRIPT = Language(tree_sitter_typescript.language_typescript())
TSX = Language(tree_sitter_typescript.language_tsx())


def language_for(path: str | PurePath) -> Language:
    """The TSX grammar for ``.tsx``/``.jsx`` files, TypeScript for the rest."""
    return TSX if PurePath(path).suffix in {".tsx", ".jsx"} else TYPESCRIPT


@cache
def _parser(language: Language) -> Parser:
    return Parser(language)


# The trees of the texts parsed lately, by text and grammar: a run parses
# the same bytes more than once (a file to edit it, then to key its nodes;
# a snippet in each step that writes it). A tree is never changed here
# (`reparse` edits a copy), so the same text has the same tree.
_TREES: dict[tuple[bytes, Language], Tree] = {}


def parse(data: bytes, language: Language) -> Tree:
    key = (data, language)
    tree = _TREES.get(key)
    if tree is None:
        if len(_TREES) >= 256:
            _TREES.clear()
        tree = _TREES[key] = _parser(language).parse(data)
    return tree


def reparse(tree: Tree, old: bytes, new: bytes, edits: Iterable[Edit]) -> Tree:
    """The tree of ``new``, which is ``old`` with ``edits`` applied, parsed
    incrementally: tree-sitter reuses every subtree of ``tree`` the edits do
    not touch, which gives the same tree as a full parse in a fraction of
    its time. ``tree`` itself is left as it was."""
    edited = tree.copy()
    # From the last edit back, so that each edit's offsets and points are
    # still those of ``old``: only the text after it has changed so far.
    for edit in reversed(list(edits)):
        start = _point(old, edit.start)
        text_lines = edit.text.count(b"\n")
        if text_lines:
            new_end = (start[0] + text_lines, len(edit.text) - edit.text.rfind(b"\n") - 1)
        else:
            new_end = (start[0], start[1] + len(edit.text))
        edited.edit(
            start_byte=edit.start,
            old_end_byte=edit.end,
            new_end_byte=edit.start + len(edit.text),
            start_point=start,
            old_end_point=_point(old, edit.end),
            new_end_point=new_end,
        )
    return _parser(tree.language).parse(new, edited)


def _point(data: bytes, offset: int) -> tuple[int, int]:
    """(row, byte column) of ``offset``, as tree-sitter counts them."""
    return data.count(b"\n", 0, offset), offset - data.rfind(b"\n", 0, offset) - 1


def first_error(tree: Tree) -> tuple[int, int] | None:
    """1-based (line, column) of the first syntax error, or None."""
    if not tree.root_node.has_error:
        return None
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return node.start_point[0] + 1, node.start_point[1] + 1
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    return tree.root_node.start_point[0] + 1, 1
