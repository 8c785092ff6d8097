"""A parsed source file and the facts about its style that edits must match."""

from __future__ import annotations

from functools import cached_property

from tree_sitter import Language, Node, Tree

from .parsing import first_error, language_for, parse
from .style import FormatterConfig, Style, style_for

BOM = b"\xef\xbb\xbf"

# The node kinds that anchors are found by, indexed in one walk of the tree.
# (A tree-sitter query would do the same, but compiling one costs several
# milliseconds per grammar and process; the walk costs under one per file.)
INDEXED_KINDS = frozenset(
    {
        "function_declaration",
        "interface_declaration",
        "class_declaration",
        "variable_declarator",
        "call_expression",
        "string",
        "jsx_self_closing_element",
        "jsx_opening_element",
    }
)


class SourceError(ValueError):
    """The file cannot be edited: not UTF-8, or not valid TypeScript."""

    def __init__(self, message: str, syntax: bool) -> None:
        super().__init__(message)
        self.syntax = syntax


class SourceFile:
    """One file's bytes (without BOM), its syntax tree and its style.

    Offsets everywhere are byte offsets into ``data``; the BOM, when present,
    is kept aside and restored on output so edits never have to know it.
    """

    def __init__(self, path: str, data: bytes, bom: bool = False, config: FormatterConfig | None = None) -> None:
        self.path = path
        self.data = data
        self.bom = bom
        self.config = config or FormatterConfig()
        self.language: Language = language_for(path)
        self.tree: Tree = parse(data, self.language)

    @classmethod
    def from_bytes(cls, path: str, raw: bytes, config: FormatterConfig | None = None) -> "SourceFile":
        bom = raw.startswith(BOM)
        data = raw[len(BOM):] if bom else raw
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise SourceError(f"{path}: not UTF-8 (byte {err.start})", syntax=False) from None
        source = cls(path, data, bom, config)
        error = first_error(source.tree)
        if error:
            raise SourceError(f"{path}:{error[0]}:{error[1]}: syntax error", syntax=True)
        return source

    def to_bytes(self, data: bytes | None = None) -> bytes:
        body = self.data if data is None else data
        return (BOM + body) if self.bom else body

    @property
    def root(self) -> Node:
        return self.tree.root_node

    def text(self, node: Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode()

    @cached_property
    def _index(self) -> dict[str, list[Node]]:
        """Every node of an indexed kind by kind, in document order (a
        pre-order walk visits them by start offset)."""
        index: dict[str, list[Node]] = {}
        cursor = self.tree.walk()
        while True:
            node = cursor.node
            if node.type in INDEXED_KINDS:
                index.setdefault(node.type, []).append(node)
            if cursor.goto_first_child():
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return index

    def nodes(self, kind: str) -> list[Node]:
        """Every node of an indexed kind, in document order."""
        return self._index.get(kind, [])

    # ---- style ----

    @cached_property
    def style(self) -> Style:
        """The file's one Style: the repository's formatter configuration,
        and the file itself where that is silent or disagrees."""
        strings = [
            self.data[n.start_byte:n.start_byte + 1] for n in self.nodes("string")
            # a JSX attribute's quotes are not the file's (Prettier's jsxSingleQuote)
            if n.parent is None or n.parent.type != "jsx_attribute"
        ]
        return style_for(self.data, self.config, strings)

    # ---- positions ----

    def line_start(self, offset: int) -> int:
        return self.data.rfind(b"\n", 0, offset) + 1

    def line_end(self, offset: int) -> int:
        """Offset of the line break ending the line that holds ``offset``."""
        end = self.data.find(b"\n", offset)
        if end == -1:
            return len(self.data)
        return end - 1 if end > 0 and self.data[end - 1:end] == b"\r" else end

    def indent_of(self, node: Node) -> str:
        """The leading whitespace of the line on which ``node`` starts."""
        start = self.line_start(node.start_byte)
        line = self.data[start:node.start_byte]
        return line[:len(line) - len(line.lstrip())].decode()

    def starts_line(self, node: Node) -> bool:
        start = self.line_start(node.start_byte)
        return not self.data[start:node.start_byte].strip()

    def code_line(self, offset: int) -> str:
        """The line holding ``offset`` without a comment that ends it: Biome
        does not count a trailing comment towards the line width."""
        start, end = self.line_start(offset), self.line_end(offset)
        last = self.data[start:end].rstrip()
        if not last:
            return ""
        node = self.root.descendant_for_byte_range(start + len(last) - 1, start + len(last))
        if node is not None and node.type == "comment" and node.start_byte > start:
            code = self.data[start:node.start_byte].rstrip()
            if code.strip():
                return code.decode()
        return self.data[start:end].decode()
