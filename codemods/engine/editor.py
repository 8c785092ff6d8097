"""Find anchors in a parsed file and *ensure* things exist next to them.

Every ``ensure_*`` operation first looks for its result and records no edit
when it is already there, which is what makes every recipe idempotent and
lets a partly applied tree be completed instead of duplicated. Edits are
recorded on the original bytes and applied in one pass by :meth:`result`.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

from tree_sitter import Node

from .edits import EditSet
from .outcome import AnchorMissing, Conflict, SyntaxProblem
from .parsing import first_error, parse
from .source import LINE_WIDTH, SourceFile

_WS = re.compile(r"\s+")
_DOUBLE_QUOTED = re.compile(r'"((?:[^"\\\n]|\\.)*)"')

FUNCTION_TYPES = {
    "function_declaration",
    "function_expression",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
}
LIST_CONTAINERS = {
    "formal_parameters",
    "arguments",
    "object",
    "object_pattern",
    "named_imports",
    "array",
}
MEMBER_CONTAINERS = {"interface_body", "object_type"}
JSX_TAGS = ("jsx_self_closing_element", "jsx_opening_element")


def squash(text: str) -> str:
    """Text with all whitespace removed, for comparing code by content."""
    return _WS.sub("", text)


class Item(NamedTuple):
    """One entry to ensure in a list: ``key`` identifies it, ``text`` is inserted."""

    key: str
    text: str


class FileEditor:
    """Collects edits for one :class:`SourceFile`."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.edits = EditSet()
        self.added: list[str] = []

    # ------------------------------------------------------------------
    # Finding anchors
    # ------------------------------------------------------------------

    @property
    def path(self) -> str:
        return self.source.path

    def text(self, node: Node) -> str:
        return self.source.text(node)

    def walk(self, node: Node | None = None) -> Iterator[Node]:
        stack = [node or self.source.root]
        while stack:
            current = stack.pop()
            yield current
            stack.extend(reversed(current.children))

    def _only(self, nodes: list[Node], what: str) -> Node:
        if not nodes:
            raise AnchorMissing(self.path, what)
        if len(nodes) > 1:
            lines = ", ".join(str(n.start_point[0] + 1) for n in nodes)
            raise Conflict(self.path, f"{what} is defined more than once (lines {lines})")
        return nodes[0]

    def _name(self, node: Node) -> str | None:
        name = node.child_by_field_name("name")
        return self.text(name) if name is not None else None

    def _named(self, kinds: tuple[str, ...], scope: Node | None, name: str) -> list[Node]:
        """Indexed nodes of ``kinds`` inside ``scope`` whose name is ``name``
        (for a call, its squashed callee)."""
        found = []
        for kind in kinds:
            for node in self.source.nodes(kind):
                if scope is not None and not (scope.start_byte <= node.start_byte < scope.end_byte):
                    continue
                label = node.child_by_field_name("function" if kind == "call_expression" else "name")
                if label is not None and squash(self.text(label)) == name:
                    found.append(node)
        return sorted(found, key=lambda n: n.start_byte)

    def function(self, name: str, scope: Node | None = None) -> Node:
        """A function declaration, or a ``const name = (...) => {}``."""
        found = self._named(("function_declaration",), scope, name)
        for declarator in self.variables(name, scope):
            value = declarator.child_by_field_name("value")
            if value is not None and value.type in FUNCTION_TYPES:
                found.append(value)
        return self._only(found, f"function `{name}`")

    def interface(self, name: str) -> Node:
        found = self._named(("interface_declaration",), None, name)
        return self._only(found, f"interface `{name}`")

    def class_(self, name: str) -> Node:
        found = self._named(("class_declaration",), None, name)
        return self._only(found, f"class `{name}`")

    def method(self, cls: Node, name: str) -> Node:
        """A method, or an arrow-function field, of a class: the function node."""
        body = cls.child_by_field_name("body")
        found = []
        for member in body.named_children if body else []:
            if self._name(member) != name:
                continue
            if member.type == "method_definition":
                found.append(member)
            elif member.type == "public_field_definition":
                value = member.child_by_field_name("value")
                if value is not None and value.type in FUNCTION_TYPES:
                    found.append(value)
        return self._only(found, f"method `{name}` of class `{self._name(cls)}`")

    def class_member(self, cls: Node, name: str) -> Node:
        body = cls.child_by_field_name("body")
        found = [m for m in body.named_children if self._name(m) == name]
        return self._only(found, f"member `{name}` of class `{self._name(cls)}`")

    def variables(self, name: str, scope: Node | None = None) -> list[Node]:
        return self._named(("variable_declarator",), scope, name)

    def variable(self, name: str, scope: Node | None = None) -> Node:
        """The declarator of ``const name = ...``."""
        return self._only(self.variables(name, scope), f"variable `{name}`")

    def body(self, function: Node) -> Node:
        body = function.child_by_field_name("body")
        if body is None or body.type != "statement_block":
            raise AnchorMissing(self.path, f"a block body for `{self._label(function)}`")
        return body

    def parameters(self, function: Node) -> Node:
        params = function.child_by_field_name("parameters")
        if params is None:
            raise AnchorMissing(self.path, f"the parameters of `{self._label(function)}`")
        return params

    def _label(self, node: Node) -> str:
        name = self._name(node)
        if name is None and node.parent is not None:
            name = self._name(node.parent)
        return name or node.type

    def calls(self, scope: Node, callee: str) -> list[Node]:
        return self._named(("call_expression",), scope, callee)

    def call(self, scope: Node, callee: str, where: str) -> Node:
        return self._only(self.calls(scope, callee), f"call `{callee}(...)` in {where}")

    def jsx_elements(self, scope: Node, tag: str) -> list[Node]:
        return self._named(JSX_TAGS, scope, tag)

    def jsx_element(self, scope: Node, tag: str, where: str) -> Node:
        return self._only(self.jsx_elements(scope, tag), f"JSX element `<{tag}>` in {where}")

    def statement(self, block: Node, predicate: Callable[[str], bool], what: str) -> Node:
        found = [s for s in self._statements(block) if predicate(squash(self.text(s)))]
        if not found:
            raise AnchorMissing(self.path, what)
        return found[0]

    def declaration_of(self, block: Node, name: str) -> Node:
        """The statement in ``block`` that declares ``name``."""
        for stmt in self._statements(block):
            if stmt.type in {"lexical_declaration", "variable_declaration"}:
                for declarator in stmt.named_children:
                    if declarator.type == "variable_declarator" and name in self._bound_names(declarator):
                        return stmt
        raise AnchorMissing(self.path, f"the declaration of `{name}`")

    def _bound_names(self, declarator: Node) -> set[str]:
        target = declarator.child_by_field_name("name")
        if target is None:
            return set()
        if target.type == "identifier":
            return {self.text(target)}
        return {
            self.text(n) for n in self.walk(target)
            if n.type in {"shorthand_property_identifier_pattern", "identifier"}
        }

    def imports(self) -> list[Node]:
        return [n for n in self.source.root.named_children if n.type == "import_statement"]

    def imported_name(self, module_suffix: str, exported: str) -> str | None:
        """The local name under which ``exported`` is imported from a module."""
        for node in self.imports():
            source = node.child_by_field_name("source")
            if source is None or not self.text(source)[1:-1].endswith(module_suffix):
                continue
            for spec in self.walk(node):
                if spec.type == "import_specifier" and self._name(spec) == exported:
                    alias = spec.child_by_field_name("alias")
                    return self.text(alias if alias is not None else spec.child_by_field_name("name"))
        return None

    def has_statement(self, block: Node, marker: str) -> bool:
        return self._statement_with(block, marker) is not None

    def enclosing_statement(self, node: Node) -> Node:
        """The statement of a block (or of the file) that contains ``node``."""
        current = node
        while current.parent is not None and current.parent.type not in {"statement_block", "program"}:
            current = current.parent
        return current

    def destructuring_of(self, scope: Node, value: str, binds: str) -> Node:
        """The ``{ ... }`` pattern of ``const { binds, ... } = value`` in scope."""
        for declarator in self.walk(scope):
            if declarator.type != "variable_declarator":
                continue
            pattern = declarator.child_by_field_name("name")
            init = declarator.child_by_field_name("value")
            if (
                pattern is not None and pattern.type == "object_pattern"
                and init is not None and squash(self.text(init)) == squash(value)
                and binds in self._bound_names(declarator)
            ):
                return pattern
        raise AnchorMissing(self.path, f"`const {{ {binds}, ... }} = {value}` in `{self._label(scope)}`")

    def props_pattern(self, function: Node) -> Node:
        """The destructured props of a component: its first parameter's pattern."""
        params = [p for p in self.parameters(function).named_children if p.type != "comment"]
        pattern = params[0].child_by_field_name("pattern") if params else None
        if pattern is None or pattern.type != "object_pattern":
            raise AnchorMissing(self.path, f"destructured props `({{ ... }})` of `{self._label(function)}`")
        return pattern

    def object_argument(self, call: Node) -> Node:
        """The first ``{ ... }`` argument of a call."""
        arguments = call.child_by_field_name("arguments")
        for argument in arguments.named_children if arguments else []:
            if argument.type == "object":
                return argument
        callee = self.text(call.child_by_field_name("function"))
        raise AnchorMissing(self.path, f"the object argument of `{callee}(...)`")

    def _statements(self, block: Node) -> list[Node]:
        return [c for c in block.named_children if c.type != "comment"]

    # ------------------------------------------------------------------
    # Snippets
    # ------------------------------------------------------------------

    def render(self, snippet: str, indent: str) -> str:
        """A snippet dedented, re-indented to ``indent`` in the file's unit and
        quote style, with the file's line endings (first line not indented)."""
        body = textwrap.dedent(snippet).strip("\n")
        unit = self.source.indent_unit
        lines = []
        for line in body.split("\n"):
            stripped = line.lstrip(" ")
            if not stripped:
                lines.append("")
                continue
            depth, extra = divmod(len(line) - len(stripped), 2)
            lines.append(indent + unit * depth + " " * extra + stripped)
        text = self.source.eol.join(lines)[len(indent):]
        if self.source.quote == "'":
            text = _DOUBLE_QUOTED.sub(_to_single_quotes, text)
        return text

    def _inline(self, snippet: str) -> str:
        return self.render(snippet, "")

    # ------------------------------------------------------------------
    # Ensure: imports
    # ------------------------------------------------------------------

    def ensure_import(
        self,
        module: str,
        names: Sequence[str],
        *,
        after_module_suffix: str | None = None,
    ) -> None:
        """``import { names } from "module"``: add missing names to an existing
        value import of the module, or add the statement after the import of
        ``after_module_suffix`` (or the last import)."""
        existing = None
        for node in self.imports():
            source = node.child_by_field_name("source")
            if source is None or module_stem(self.text(source)[1:-1]) != module_stem(module):
                continue
            if node.children[1].type == "type":
                continue  # `import type { ... }` cannot carry values
            named = next((n for n in self.walk(node) if n.type == "named_imports"), None)
            if named is not None:
                existing = named
                break
        if existing is not None:
            self.ensure_list_items(existing, [Item(n, n) for n in names])
            return
        anchor = None
        if after_module_suffix is not None:
            anchor = next(
                (
                    n for n in self.imports()
                    if module_stem(self.text(n.child_by_field_name("source"))[1:-1]).endswith(
                        module_stem(after_module_suffix)
                    )
                ),
                None,
            )
        if anchor is None:
            imports = self.imports()
            if not imports:
                raise AnchorMissing(self.path, "an import statement to insert after")
            anchor = imports[-1]
        quote = self.source.quote
        statement = f"import {{ {', '.join(names)} }} from {quote}{module}{quote};"
        self._insert_after(anchor, [statement], "")
        self.added.append(f"import {{ {', '.join(names)} }} from {module}")

    # ------------------------------------------------------------------
    # Ensure: comma-separated lists (parameters, arguments, objects, patterns)
    # ------------------------------------------------------------------

    def list_items(self, container: Node) -> list[Node]:
        if container.type not in LIST_CONTAINERS:
            raise ValueError(f"{container.type} is not a comma-separated list")
        return [c for c in container.named_children if c.type != "comment"]

    def item_key(self, node: Node) -> str:
        """What identifies an entry of a list: its name, or its squashed text."""
        kind = node.type
        if kind in {"required_parameter", "optional_parameter"}:
            pattern = node.child_by_field_name("pattern")
            return self.text(pattern) if pattern is not None else squash(self.text(node))
        if kind in {"shorthand_property_identifier", "shorthand_property_identifier_pattern", "identifier"}:
            return self.text(node)
        if kind in {"pair", "pair_pattern"}:
            key = self.text(node.child_by_field_name("key"))
            return key.strip("\"'")
        if kind == "object_assignment_pattern":
            return self.text(node.child_by_field_name("left"))
        if kind == "spread_element":
            ident = next((n for n in self.walk(node) if n.type in {"identifier", "shorthand_property_identifier"}), None)
            return "..." + (self.text(ident) if ident is not None else squash(self.text(node)))
        if kind == "import_specifier":
            return self._name(node) or squash(self.text(node))
        return squash(self.text(node))

    def ensure_list_items(self, container: Node, items: Sequence[Item]) -> None:
        """Append the items that are missing to a comma-separated list, laid out
        the way the list already is, breaking it one item per line when the
        line would grow past the line width (as Biome would print it)."""
        present = {self.item_key(n) for n in self.list_items(container)}
        missing = [i for i in items if i.key not in present]
        if not missing:
            return
        self.added.extend(i.text for i in missing)
        current = self.list_items(container)
        if self._is_multiline(container, current):
            self._append_lines(container, current, [self._inline(i.text) for i in missing], ",")
            return
        self._append_inline(container, current, [self._inline(i.text) for i in missing])

    def _is_multiline(self, container: Node, items: list[Node]) -> bool:
        if not items:
            return container.start_point[0] != container.end_point[0]
        return items[0].start_point[0] != container.start_point[0]

    def _append_inline(self, container: Node, items: list[Node], texts: list[str]) -> None:
        pad = " " if container.type in {"object", "object_pattern", "named_imports"} else ""
        if items:
            anchor = items[-1].end_byte
            insertion = "".join(", " + t for t in texts)
        else:
            anchor = container.children[0].end_byte
            insertion = pad + ", ".join(texts) + pad
        line = self.source.code_line(container.start_byte)
        start = self.source.line_start(container.start_byte)
        column = anchor - start
        grown = line[:column] + insertion + line[column:] if container.end_point[0] == container.start_point[0] else line
        fits = self.source.column_width(grown) <= LINE_WIDTH
        if fits or container.start_point[0] != container.end_point[0]:
            self.edits.insert(anchor, insertion)
            return
        if self._break_after_assignment(container, anchor, insertion):
            return
        self._explode(container, [self.text(n) for n in items] + texts)

    def _break_after_assignment(self, container: Node, anchor: int, insertion: str) -> bool:
        """``const { a, b } =\\n  value;``: how Biome breaks a destructuring
        declaration whose pattern still fits on the first line."""
        declarator = container.parent
        if container.type != "object_pattern" or declarator is None or declarator.type != "variable_declarator":
            return False
        value = declarator.child_by_field_name("value")
        equals = next((c for c in declarator.children if c.type == "="), None)
        if value is None or equals is None:
            return False
        head_start = self.source.line_start(container.start_byte)
        head = self.source.data[head_start:anchor].decode() + insertion + self.source.data[anchor:equals.end_byte].decode()
        if "\n" in head or self.source.column_width(head) > LINE_WIDTH:
            return False
        indent = self.source.indent_of(declarator.parent or declarator) + self.source.indent_unit
        self.edits.insert(anchor, insertion)
        self.edits.replace(equals.end_byte, value.start_byte, self.source.eol + indent)
        return True

    def _explode(self, container: Node, texts: list[str]) -> None:
        """Rewrite a one-line list as one item per line with trailing commas."""
        indent = self.source.indent_of(container)
        inner = indent + self.source.indent_unit
        eol = self.source.eol
        body = "".join(f"{eol}{inner}{t}," for t in texts) + eol + indent
        self.edits.replace(container.children[0].end_byte, container.children[-1].start_byte, body)

    def _append_lines(self, container: Node, items: list[Node], texts: list[str], separator: str) -> None:
        """Add one line per text after the last item of a multi-line list."""
        if not items:
            indent = self.source.indent_of(container) + self.source.indent_unit
            sep = separator
            self.edits.insert(
                container.children[0].end_byte,
                "".join(f"{self.source.eol}{indent}{t}{sep}" for t in texts),
            )
            return
        last = items[-1]
        indent = (
            self.source.indent_of(last)
            if self.source.starts_line(last)
            else self.source.indent_of(container) + self.source.indent_unit
        )
        follower = last.next_sibling
        has_sep = follower is not None and follower.type == separator
        end = follower.end_byte if has_sep else last.end_byte
        if not has_sep:
            # The list's own style has no separator after its last item:
            # the old last item gets one, the new last item does not.
            self.edits.insert(end, separator)
        separators = [separator] * (len(texts) - 1) + [separator if has_sep else ""]
        point = self._end_of_line_after(end, container)
        self.edits.insert(
            point, "".join(f"{self.source.eol}{indent}{t}{sep}" for t, sep in zip(texts, separators))
        )

    def _end_of_line_after(self, offset: int, container: Node) -> int:
        """Where a new line can start after ``offset``: after a trailing
        comment on the same line, but never past the list's closing token."""
        line_end = self.source.line_end(offset)
        rest = self.source.data[offset:line_end].decode()
        stripped = rest.strip()
        if not stripped:
            return offset
        if stripped.startswith("//") or (stripped.startswith("/*") and stripped.endswith("*/")):
            close = container.children[-1].start_byte
            return min(line_end, close) if close > offset else offset
        return offset

    # ------------------------------------------------------------------
    # Ensure: members of interfaces and object types
    # ------------------------------------------------------------------

    def ensure_members(self, body: Node, items: Sequence[Item]) -> None:
        """Append missing members (``name?: Type;``) to an interface body."""
        if body.type == "interface_declaration":
            body = body.child_by_field_name("body")
        if body is None or body.type not in MEMBER_CONTAINERS:
            raise ValueError("ensure_members needs an interface or object type body")
        members = [c for c in body.named_children if c.type != "comment"]
        present = {self._name(m) for m in members}
        missing = [i for i in items if i.key not in present]
        if not missing:
            return
        self.added.extend(i.text for i in missing)
        separators = [c.type for c in body.children if c.type in {";", ","}]
        separator = ";" if not separators else max(set(separators), key=separators.count)
        texts = [self._inline(i.text).rstrip(";,") for i in missing]
        if not self._is_multiline(body, members):
            if members:
                last = members[-1]
                follower = last.next_sibling
                lead = "" if follower is not None and follower.type in {";", ","} else separator
                point = follower.end_byte if lead == "" else last.end_byte
                self.edits.insert(point, lead + "".join(f" {t}{separator}" for t in texts))
            else:
                self.edits.insert(body.children[0].end_byte, " " + " ".join(f"{t}{separator}" for t in texts) + " ")
            return
        self._append_lines(body, members, texts, separator)

    # ------------------------------------------------------------------
    # Ensure: JSX attributes
    # ------------------------------------------------------------------

    def ensure_jsx_attributes(self, element: Node, items: Sequence[Item]) -> None:
        """Append missing ``name={value}`` attributes to a JSX element."""
        attributes = [c for c in element.named_children if c.type == "jsx_attribute"]
        present = {self.text(a.named_children[0]) for a in attributes if a.named_children}
        missing = [i for i in items if i.key not in present]
        if not missing:
            return
        self.added.extend(i.text for i in missing)
        texts = [self._inline(i.text) for i in missing]
        name = element.child_by_field_name("name")
        multiline = bool(attributes) and attributes[0].start_point[0] != name.start_point[0]
        if multiline:
            last = attributes[-1]
            indent = self.source.indent_of(last)
            self.edits.insert(last.end_byte, "".join(f"{self.source.eol}{indent}{t}" for t in texts))
            return
        anchor = attributes[-1].end_byte if attributes else name.end_byte
        insertion = "".join(" " + t for t in texts)
        line = self.source.code_line(element.start_byte)
        column = anchor - self.source.line_start(anchor)
        single_line = element.start_point[0] == element.end_point[0]
        if not single_line or self.source.column_width(line[:column] + insertion + line[column:]) <= LINE_WIDTH:
            self.edits.insert(anchor, insertion)
            return
        indent = self.source.indent_of(element)
        inner = indent + self.source.indent_unit
        eol = self.source.eol
        all_attrs = [self.text(a) for a in attributes] + texts
        body = "".join(f"{eol}{inner}{a}" for a in all_attrs) + eol + indent
        # From after the tag name (and type arguments) up to `/>` or `>`.
        type_args = element.child_by_field_name("type_arguments")
        start = (type_args if type_args is not None else name).end_byte
        self.edits.replace(start, element.children[-1].start_byte, body)

    # ------------------------------------------------------------------
    # Ensure: statements and class members
    # ------------------------------------------------------------------

    def ensure_statements_after(
        self,
        anchor: Node,
        snippets: Sequence[tuple[str, str]],
    ) -> None:
        """Insert each ``(marker, snippet)`` after ``anchor`` unless a statement
        of the same block already contains ``marker``. In a partly applied
        block a missing statement goes after its present predecessor, so the
        sequence keeps its order."""
        # An anchor set apart by blank lines on both sides (one of a list of
        # handlers, say): the new statements get blank lines too.
        before, after = self._neighbours(anchor)
        spaced = (
            before is not None and after is not None
            and anchor.start_point[0] - before.end_point[0] > 1
            and after.start_point[0] - anchor.end_point[0] > 1
        )
        indent = self.source.indent_of(anchor)
        cursor, pending = anchor, []
        for marker, snippet in snippets:
            found = self._statement_with(anchor.parent, marker)
            if found is None:
                pending.append(snippet)
                self.added.append(textwrap.dedent(snippet).strip())
                continue
            if pending:
                self._insert_after(cursor, pending, indent, spaced)
            cursor, pending = found, []
        if pending:
            self._insert_after(cursor, pending, indent, spaced)

    def _neighbours(self, anchor: Node) -> tuple[Node | None, Node | None]:
        """The siblings before and after ``anchor``, not counting a comment
        that shares a line with it (that comment belongs to the anchor)."""
        before, after = anchor.prev_named_sibling, anchor.next_named_sibling
        if before is not None and before.type == "comment" and before.end_point[0] == anchor.start_point[0]:
            before = before.prev_named_sibling
        if after is not None and after.type == "comment" and after.start_point[0] == anchor.end_point[0]:
            after = after.next_named_sibling
        return before, after

    def _statement_with(self, block: Node, marker: str) -> Node | None:
        key = squash(marker)
        return next((s for s in self._statements(block) if key in squash(self.text(s))), None)

    def ensure_statements_at_end(self, block: Node, snippets: Sequence[tuple[str, str]]) -> None:
        missing = self._missing_statements(block, snippets)
        if not missing:
            return
        statements = self._statements(block)
        if statements:
            self._insert_after(statements[-1], missing, self.source.indent_of(statements[-1]))
        else:
            indent = self.source.indent_of(block) + self.source.indent_unit
            text = "".join(self.source.eol + indent + self.render(s, indent) for s in missing)
            self.edits.insert(block.children[0].end_byte, text)

    def ensure_class_member(
        self, cls: Node, name: str, snippet: str, *, after: Node, spaced: bool = False
    ) -> None:
        """A class field or method named ``name``, placed after ``after``
        (``spaced``: set apart by a blank line, as methods are)."""
        body = cls.child_by_field_name("body")
        if any(self._name(m) == name for m in body.named_children):
            return
        anchor = after
        follower = anchor.next_sibling
        if follower is not None and follower.type == ";":
            anchor = follower
        self.added.append(snippet.strip())
        self._insert_after(anchor, [snippet], self.source.indent_of(after), spaced)

    def _missing_statements(self, block: Node, snippets: Sequence[tuple[str, str]]) -> list[str]:
        missing = [snippet for marker, snippet in snippets if self._statement_with(block, marker) is None]
        self.added.extend(textwrap.dedent(snippet).strip() for snippet in missing)
        return missing

    def _insert_after(self, anchor: Node, snippets: Iterable[str], indent: str, spaced: bool = False) -> None:
        point = self._end_of_line_after(anchor.end_byte, anchor.parent or anchor)
        gap = self.source.eol if spaced else ""
        text = "".join(gap + self.source.eol + indent + self.render(s, indent) for s in snippets)
        self.edits.insert(point, text)

    # ------------------------------------------------------------------
    # Result
    # ------------------------------------------------------------------

    def result(self) -> bytes:
        """The edited bytes (BOM restored); refuses output that does not parse."""
        data = self.edits.apply(self.source.data)
        if data != self.source.data:
            tree = parse(data, self.source.language)
            error = first_error(tree)
            if error:
                raise SyntaxProblem(
                    self.path,
                    f"the edited file would not parse (line {error[0]}, column {error[1]})",
                )
        return self.source.to_bytes(data)


def module_stem(module: str) -> str:
    """A module specifier without its file extension: `./a.ts` is `./a`."""
    return re.sub(r"\.(tsx?|jsx?)$", "", module)


def _to_single_quotes(match: re.Match[str]) -> str:
    inner = match.group(1)
    if "'" in inner:
        return match.group(0)
    return "'" + inner.replace('\\"', '"') + "'"
