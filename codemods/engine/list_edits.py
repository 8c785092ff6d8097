"""Ensure operations on lists: parameters, arguments, object literals,
named imports, interface members, union members and JSX attributes, each
planned per container and laid out once (one line, or one entry a line)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from tree_sitter import Node
from . import layout
from .find import squash
from .outcome import AnchorMissing
from .parsing import TSX
from .snippet_printer import layout_snippet
from .editor_base import EditorBase, _Planned
from .statements import Ensured, Item


LIST_CONTAINERS = {
    "formal_parameters",
    "arguments",
    "object",
    "object_pattern",
    "named_imports",
    "export_clause",
    "array",
}


_PADDED = {"object", "object_pattern", "named_imports", "export_clause"}


MEMBER_CONTAINERS = {"interface_body", "object_type"}


class ListEdits(EditorBase):
    """Entries of a list, members of a body, attributes of an element."""

    def list_items(self, container: Node) -> list[Node]:
        if container.type not in LIST_CONTAINERS:
            raise ValueError(f"{container.type} is not a comma-separated list")
        return self.entries(container)

    def item_key(self, node: Node) -> str:
        """What identifies an entry of a list (or a member of an object
        type): its name, or its squashed text."""
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
        if kind in {"import_specifier", "export_specifier", "property_signature", "method_signature"}:
            return self.name_of(node) or squash(self.text(node))
        return squash(self.text(node))

    def ensure_list_items(self, container: Node, items: Sequence[Item], *, after: str = "") -> Ensured:
        """Add the items that are missing to a comma-separated list, laid out
        the way the list already is, breaking it one item per line when the
        line would grow past the line width (as Biome would print it). Items
        that an earlier call planned for the same list count as present;
        the list is laid out once, with all of them. ``after``: the key of
        the existing entry they go right after (default: at the end)."""
        present = {self.item_key(n) for n in self.list_items(container) if n.id not in self.retired}
        missing = self._plan("list", container, present, items, after)
        return self._record("list items", container.type, [i.text for i in missing])

    def _lay_out_list(self, planned: _Planned) -> None:
        container = planned.container
        current = [n for n in self.list_items(container) if n.id not in self.retired]
        groups = self._by_anchor(
            [self.item_key(n) for n in current], planned, [self._inline(i.text) for i in planned.items]
        )
        if self._is_multiline(container, current):
            for index, texts in groups.items():
                self._append_lines(container, current, index, texts, ",")
        else:
            self._append_inline(container, current, groups)

    def _is_multiline(self, container: Node, items: list[Node]) -> bool:
        if not items:
            return container.start_point[0] != container.end_point[0]
        return items[0].start_point[0] != container.start_point[0]

    def _append_inline(self, container: Node, items: list[Node], groups: dict[int, list[str]]) -> None:
        pad = " " if container.type in _PADDED and self.style.bracket_spacing else ""
        inserts = [
            (items[index].end_byte, "".join(", " + t for t in texts)) if index >= 0
            else (container.children[0].end_byte, pad + ", ".join(texts) + pad)
            for index, texts in groups.items()
        ]
        if container.start_point[0] != container.end_point[0]:
            fits = True  # a list that spans lines already: its items stay where they are
        else:
            grown = self.source.code_line(container.start_byte)
            start = self.source.line_start(container.start_byte)
            for offset, insertion in reversed(inserts):
                grown = grown[:offset - start] + insertion + grown[offset - start:]
            fits = layout.fits(grown, self.style)
        if fits:
            for offset, insertion in inserts:
                self.edits.insert(offset, insertion)
            return
        if self._relayout_statement(container, inserts):
            return
        texts = list(groups.get(-1, []))
        for index, node in enumerate(items):
            texts += [self.text(node), *groups.get(index, [])]
        self._explode(container, texts)

    def _relayout_statement(self, container: Node, inserts: list[tuple[int, str]]) -> bool:
        """Lay the whole statement that holds a grown list (``inserts``: the
        offsets and texts of its new items) out again, the way
        Biome would print it with the new items (which of its groups break
        depends on all of them). Only for a statement without comments
        whose constructs the layout printer knows."""
        stmt = self.enclosing_statement(container)
        if stmt.type not in {"lexical_declaration", "expression_statement", "return_statement"}:
            return False
        # Without semicolons a trailing `// comment` is part of the statement:
        # it is kept after the code (Biome does not count it towards the width).
        code_end, trailing = stmt.end_byte, ""
        children = [c for c in stmt.children if c.type != "comment"]
        if children and stmt.children[-1].type == "comment":
            code_end = children[-1].end_byte
            trailing = self.source.data[code_end:stmt.end_byte].decode()
            if "\n" in trailing.strip():
                return False
        if any(n.type == "comment" and n.end_byte <= code_end for n in self.walk(stmt)):
            return False
        data, pieces, cursor = self.source.data, [], stmt.start_byte
        for offset, insertion in inserts:
            pieces += [data[cursor:offset], insertion.encode()]
            cursor = offset
        text = b"".join([*pieces, data[cursor:code_end]]).decode()
        indent = self.source.indent_of(stmt)
        laid = layout_snippet(text, indent, self.style, tsx=self.source.language is TSX)
        if not laid.laid_out:
            return False
        self.edits.replace(stmt.start_byte, code_end, laid.text)
        return True

    def _explode(self, container: Node, texts: list[str]) -> None:
        """Rewrite a one-line list as one item per line (the "break" half of
        the rule, printed by the layout module)."""
        pad = container.type in _PADDED
        kind = "call" if container.type in {"arguments", "formal_parameters"} else "list"
        open_, close = self.text(container.children[0]), self.text(container.children[-1])
        doc = layout.delimited(open_, list(texts), close, self.style, pad=pad, kind=kind, broken=True)
        printed = layout.print_doc(doc, self.style, self.source.indent_of(container))
        self.edits.replace(container.children[0].start_byte, container.children[-1].end_byte, printed)

    def _append_lines(
        self, container: Node, items: list[Node], index: int, texts: list[str], separator: str
    ) -> None:
        """Add one line per text after the item ``index`` of a multi-line
        list (-1: the list is empty)."""
        if index < 0:
            indent = self.source.indent_of(container) + self.style.indent
            sep = separator
            self.edits.insert(
                container.children[0].end_byte,
                "".join(f"{self.style.eol}{indent}{t}{sep}" for t in texts),
            )
            return
        anchor, last = items[index], index == len(items) - 1
        indent = (
            self.source.indent_of(anchor)
            if self.source.starts_line(anchor)
            else self.source.indent_of(container) + self.style.indent
        )
        follower = anchor.next_sibling
        has_sep = follower is not None and follower.type == separator
        end = follower.end_byte if has_sep else anchor.end_byte
        if not has_sep and separator and last:
            # The list's own style has no separator after its last item:
            # the old last item gets one, the new last item does not.
            self.edits.insert(end, separator)
        separators = [separator] * (len(texts) - 1) + [separator if has_sep or not last else ""]
        point = self._end_of_line_after(end, container)
        self.edits.insert(
            point,
            "".join(
                f"{self.style.eol}{indent}{self._entry(t, indent, sep, container)}{sep}"
                for t, sep in zip(texts, separators)
            ),
        )

    def _entry(self, text: str, indent: str, separator: str, container: Node) -> str:
        """An object entry on its own line, broken as Biome would print it
        when it does not fit the line (the printer lays it out inside an
        object at ``indent``); any other entry as it is."""
        if container.type != "object" or layout.fits(f"{indent}{text}{separator}", self.style):
            return text
        outer = indent[: -len(self.style.indent)] if indent.endswith(self.style.indent) else indent
        printed = self.render(f"const entry = {{\n{text},\n}};", outer)
        lines = printed.split(self.style.eol)
        if len(lines) < 3 or not lines[-1].strip().startswith("}"):
            return text
        return self.style.eol.join(lines[1:-1]).strip().removesuffix(",")

    def _end_of_line_after(self, offset: int, container: Node) -> int:
        """Where a new line can start after ``offset``: after a trailing
        comment on the same line, but never past the list's closing token."""
        line_end = self.source.line_end(offset)
        rest = self.source.data[offset:line_end].decode()
        stripped = rest.strip()
        if not stripped:
            # trailing blanks stay on their line (a CR stays before its LF)
            return line_end if rest and "\r" not in rest else offset
        if stripped.startswith("//") or (stripped.startswith("/*") and stripped.endswith("*/")):
            close = container.children[-1].start_byte
            return min(line_end, close) if close > offset else offset
        return offset

    def ensure_entry_lines(
        self, container: Node, key: str, lines: Callable[[str], list[str]], *, separator: str
    ) -> Ensured:
        """An entry ``key`` written as whole lines (a member with a doc
        comment above it, say) after the last entry of a multi-line list or
        member container, past a comment on the last entry's line (as
        :meth:`_append_lines` does). ``lines(indent)`` gives them at the
        entries' indentation, without the separator that ends the entry: the
        one that follows the last entry; when none does, the old last entry
        gets ``separator`` and the new one, now last, none."""
        entries = self.entries(container)
        if any(self.item_key(e) == key for e in entries):
            return self._record("entry", key, [])
        if not entries:
            where = self._label(container.parent or container)
            raise AnchorMissing(self.path, f"an entry of `{where}` to add `{key}` after")
        last = entries[-1]
        new = lines(self.source.indent_of(last))
        follower, eol = last.next_sibling, self.style.eol
        if follower is not None and follower.type in {";", ","}:
            end, ending = follower.end_byte, follower.type
        else:
            if separator:
                self.edits.insert(last.end_byte, separator)
            end, ending = last.end_byte, ""
        self.edits.insert(self._end_of_line_after(end, container), eol + eol.join(new) + ending)
        return self._record("entry", key, [new[-1].strip()])

    def ensure_union_member(self, union: Node, member: str, *, after: str) -> Ensured:
        """``| member`` right after the member ``after`` of a union type, on
        its own line when the union has one member per line."""
        members = self.union_members(union)
        if any(squash(self.text(m)) == squash(member) for m in members):
            return self._record("union member", after, [])
        anchor = next((m for m in members if squash(self.text(m)) == squash(after)), None)
        if anchor is None:
            raise AnchorMissing(self.path, f"`{after}` in the union `{squash(self.text(union))[:40]}`")
        lead = self.source.data[self.source.line_start(anchor.start_byte):anchor.start_byte].decode()
        if lead.strip() == "|":
            self.edits.insert(self._end_of_line_after(anchor.end_byte, union), f"{self.style.eol}{lead}{member}")
        else:
            self.edits.insert(anchor.end_byte, f" | {member}")
        return self._record("union member", after, [f"| {member}"])

    def ensure_members(self, body: Node, items: Sequence[Item], *, after: str = "") -> Ensured:
        """Append missing members (``name?: Type;``) to an interface body or
        an object type (``after``: right after the member of that name)."""
        if body.type == "interface_declaration":
            body = body.child_by_field_name("body")
        if body is None or body.type not in MEMBER_CONTAINERS:
            raise ValueError("ensure_members needs an interface or object type body")
        members = self.entries(body)
        missing = self._plan("members", body, {self.name_of(m) for m in members}, items, after)
        return self._record("members", self._label(body.parent or body), [i.text for i in missing])

    def _lay_out_members(self, planned: _Planned) -> None:
        body = planned.container
        members = self.entries(body)
        separators = [c.type for c in body.children if c.type in {";", ","}]
        if separators:
            separator = max(set(separators), key=separators.count)
        else:
            # No member has one: Biome without semicolons leaves them off.
            separator = ";" if self.style.semicolons or not members else ""
        groups = self._by_anchor(
            [self.name_of(m) for m in members], planned, [self._inline(i.text).rstrip(";,") for i in planned.items]
        )
        multiline = self._is_multiline(body, members)
        for index, texts in groups.items():
            if multiline:
                self._append_lines(body, members, index, texts, separator)
            elif index >= 0:
                follower = members[index].next_sibling
                lead = "" if follower is not None and follower.type in {";", ","} else separator
                point = follower.end_byte if lead == "" else members[index].end_byte
                self.edits.insert(point, lead + "".join(f" {t}{separator}" for t in texts))
            else:
                self.edits.insert(body.children[0].end_byte, " " + " ".join(f"{t}{separator}" for t in texts) + " ")

    def ensure_jsx_attributes(self, element: Node, items: Sequence[Item]) -> Ensured:
        """Append missing ``name={value}`` attributes to a JSX element."""
        attributes = [c for c in element.named_children if c.type == "jsx_attribute"]
        present = {self.text(a.named_children[0]) for a in attributes if a.named_children}
        missing = self._plan("jsx", element, present, items)
        return self._record("JSX attributes", self.text(element.child_by_field_name("name")), [i.text for i in missing])

    def _lay_out_jsx(self, planned: _Planned) -> None:
        element = planned.container
        attributes = [c for c in element.named_children if c.type == "jsx_attribute"]
        texts = [self._inline(i.text) for i in planned.items]
        name = element.child_by_field_name("name")
        multiline = bool(attributes) and attributes[0].start_point[0] != name.start_point[0]
        if multiline:
            last = attributes[-1]
            indent = self.source.indent_of(last)
            self.edits.insert(last.end_byte, "".join(f"{self.style.eol}{indent}{t}" for t in texts))
            return
        anchor = attributes[-1].end_byte if attributes else name.end_byte
        insertion = "".join(" " + t for t in texts)
        line = self.source.code_line(element.start_byte)
        column = anchor - self.source.line_start(anchor)
        single_line = element.start_point[0] == element.end_point[0]
        if not single_line or layout.fits(line[:column] + insertion + line[column:], self.style):
            self.edits.insert(anchor, insertion)
            return
        # From the tag (and type arguments) up to `/>` or `>`, broken.
        type_args = element.child_by_field_name("type_arguments")
        head = self.source.data[element.start_byte:(type_args if type_args is not None else name).end_byte].decode()
        close = self.text(element.children[-1])
        doc = layout.jsx_attributes(head, [self.text(a) for a in attributes] + texts, close, broken=True)
        printed = layout.print_doc(doc, self.style, self.source.indent_of(element))
        self.edits.replace(element.start_byte, element.end_byte, printed)
