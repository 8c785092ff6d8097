"""Markdown (and MDX prose) read with the tree-sitter Markdown grammar.

Headings, the sections they open, paragraphs and fenced code blocks are
found as nodes of the block grammar; the start of a paragraph (does it open
with a code span?) is read with the inline grammar. Nothing here knows any
one document. The grammar package is imported on first use, so that
importing this module costs nothing for a run that never reads Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from tree_sitter import Language, Node, Parser, Tree

from typing import NamedTuple

_SPACES = re.compile(r"\s+")
# Blocks whose children are inline text or content, not further blocks.
_LEAF_BLOCKS = frozenset(
    {
        "paragraph",
        "atx_heading",
        "setext_heading",
        "fenced_code_block",
        "indented_code_block",
        "html_block",
        "pipe_table",
        "thematic_break",
        "link_reference_definition",
    }
)


@cache
def _parser(inline: bool) -> Parser:
    import tree_sitter_markdown

    grammar = tree_sitter_markdown.inline_language() if inline else tree_sitter_markdown.language()
    return Parser(Language(grammar))


def parse(data: bytes) -> Tree:
    """The block tree of a Markdown document."""
    return _parser(False).parse(data)


class Fence(NamedTuple):
    """A fenced code block: its node, info string and the content's byte range."""

    node: Node
    info: str
    start: int
    end: int


class Document:
    """A Markdown document's bytes and block tree, with read-only finders."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.tree = parse(data)

    @property
    def root(self) -> Node:
        return self.tree.root_node

    def text(self, node: Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode()

    def walk(self, node: Node | None = None) -> Iterator[Node]:
        """Every block and container in document order: a leaf block
        (paragraph, heading, code block, table, ...) is yielded without
        its inline and content nodes, which no finder here needs."""
        stack = [node or self.root]
        while stack:
            current = stack.pop()
            yield current
            if current.type not in _LEAF_BLOCKS:
                stack.extend(reversed(current.named_children))

    def has_error(self) -> bool:
        return self.root.has_error

    def edited(self, new: bytes, edits) -> "Document":
        """The document ``new``, which is this one with ``edits`` (an
        EditSet of its bytes) applied, parsed incrementally."""
        from .parsing import reparse

        doc = Document.__new__(Document)
        doc.data, doc.tree = new, reparse(self.tree, self.data, new, edits)
        return doc

    # ---- sections ----

    def heading_text(self, heading: Node) -> str:
        """A heading's text without its markers, whitespace collapsed."""
        inline = next((c for c in heading.named_children if c.type == "inline"), None)
        return _SPACES.sub(" ", self.text(inline)).strip() if inline is not None else ""

    def sections(self) -> Iterator[tuple[Node, str]]:
        """Every section with its heading's text, in document order."""
        for node in self.walk():
            if node.type == "section":
                heading = next((c for c in node.named_children if c.type in {"atx_heading", "setext_heading"}), None)
                if heading is not None:
                    yield node, self.heading_text(heading)

    @staticmethod
    def blocks(section: Node) -> list[Node]:
        """The section's own blocks: not its heading, not its subsections."""
        return [c for c in section.named_children if c.type not in {"atx_heading", "setext_heading", "section"}]

    # ---- paragraphs ----

    def leading_code_span(self, paragraph: Node) -> tuple[str, str] | None:
        """For a paragraph that opens with a code span: the span's content
        and the text after it on the paragraph's first line."""
        if paragraph.type != "paragraph":
            return None
        inline = next((c for c in paragraph.named_children if c.type == "inline"), None)
        if inline is None:
            return None
        text = self.data[inline.start_byte:inline.end_byte]
        if not text.startswith(b"`"):
            return None  # the common case, without an inline parse
        span = _parser(True).parse(text).root_node.named_children
        if not span or span[0].type != "code_span" or span[0].start_byte != 0:
            return None
        first = span[0]
        delimiters = [c for c in first.children if c.type == "code_span_delimiter"]
        inner_start = delimiters[0].end_byte if delimiters else first.start_byte
        inner_end = delimiters[-1].start_byte if len(delimiters) > 1 else first.end_byte
        rest = text[first.end_byte:].split(b"\n", 1)[0]
        return text[inner_start:inner_end].decode().strip(), rest.decode().rstrip("\r")

    # ---- code blocks ----

    def fence(self, node: Node) -> Fence | None:
        """The fenced code block ``node`` as a Fence (None for another node)."""
        if node.type != "fenced_code_block":
            return None
        info = next((c for c in node.named_children if c.type == "info_string"), None)
        content = next((c for c in node.named_children if c.type == "code_fence_content"), None)
        opener = node.children[0]
        start = content.start_byte if content is not None else self.data.index(b"\n", opener.end_byte) + 1
        end = content.end_byte if content is not None else start
        return Fence(node, self.text(info).strip() if info is not None else "", start, end)

    def fences(self) -> Iterator[Fence]:
        for node in self.walk():
            found = self.fence(node)
            if found is not None:
                yield found
