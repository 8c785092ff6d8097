"""Tree-sitter grammars and parsing."""

from __future__ import annotations

from functools import cache
from pathlib import PurePath

import tree_sitter_typescript
from tree_sitter import Language, Parser, Tree

TYPESCRIPT = Language(tree_sitter_typescript.language_typescript())
TSX = Language(tree_sitter_typescript.language_tsx())


def language_for(path: str | PurePath) -> Language:
    """The TSX grammar for ``.tsx``/``.jsx`` files, TypeScript for the rest."""
    return TSX if PurePath(path).suffix in {".tsx", ".jsx"} else TYPESCRIPT


@cache
def _parser(language: Language) -> Parser:
    return Parser(language)


def parse(data: bytes, language: Language) -> Tree:
    return _parser(language).parse(data)


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
