"""Earlier forms that become nothing: what a release since the floor wrote
and the current release no longer writes (a member, a statement, a list
entry) is removed while its code is still what was written, modulo layout
and the step's renamable names; changed since, it is refused, named."""

from __future__ import annotations

from textwrap import dedent
from tree_sitter import Node
from .equivalence import node_key
from .outcome import Conflict
from .parsing import TSX, TYPESCRIPT, parse
from .statement_edits import StatementEdits, _leading_comments
from .statements import Form, FormChange

# How an entry of each kind of list is parsed on its own, to be compared
# with one of the file: the entry goes where ``{}`` is.
_WRAPPERS = {
    "class_body": "class C {{\n{}\n}}",
    "formal_parameters": "function f({}) {{}}",
    "arguments": "f({});",
    "object": "({{{}}});",
    "object_pattern": "const {{{}}} = x;",
}


class RetireEdits(StatementEdits):
    """Statements, class members and list entries of earlier releases,
    removed with their lines."""

    def retire_statement(self, block: Node, form: Form, scope: Node | None = None) -> bool:
        """Remove the statement of ``block`` (anywhere in ``scope`` when
        given) that ``form`` is, with the comment lines above it that the
        form has; False when there is none."""
        node = self.find_statement(block, form, scope)
        return node is not None and self._retire(node, form, self.same_code(node, form.snippet, form.names, comments=True))

    def retire_member(self, cls: Node, name: str, form: Form) -> bool:
        """Remove the member ``name`` of the class ``cls`` (under the name
        this file gives it) that ``form`` is, with its comment lines."""
        body = cls.child_by_field_name("body")
        found = [m for m in body.named_children if self.name_of(m) == self.member_name(name)] if body else []
        if not found:
            return False
        lines = dedent(form.snippet).strip("\n").split("\n")
        code = "\n".join(lines[len(_leading_comments(form.snippet)):])
        same = node_key(found[0], self.source.data) == _wrapped_key("class_body", code, self.source.language is TSX)
        return self._retire(found[0], form, same)

    def retire_list_item(self, container: Node, form: Form) -> bool:
        """Remove the entry of the list ``container`` that is ``form``'s
        snippet modulo layout (an entry is compared as its list holds it;
        names are not renamed here), with its separator."""
        wanted = _wrapped_key(container.type, dedent(form.snippet).strip(), self.source.language is TSX)
        entries = self.entries(container)
        found = [e for e in entries if node_key(e, self.source.data) == wanted]
        if not found:
            return False
        self.drop_list_item(container, found[0])
        self._changed(found[0], found[0], form)
        return True

    def drop_list_item(self, container: Node, node: Node) -> None:
        """Remove the entry ``node`` of the list ``container`` with its
        separator (its line, in a list of one entry a line)."""
        entries = self.entries(container)
        self.retired.add(node.id)
        multiline = entries[0].start_point[0] != container.start_point[0]
        index = entries.index(node)
        if multiline and self.source.starts_line(node):
            follower = node.next_sibling
            end = follower.end_byte if follower is not None and follower.type == "," else node.end_byte
            start = self.source.line_start(node.start_byte)
            self.edits.replace(start, self._line_after(end), "")
        elif index + 1 < len(entries):
            self.edits.replace(node.start_byte, entries[index + 1].start_byte, "")
        else:
            previous = entries[index - 1] if index else None
            self.edits.replace(previous.end_byte if previous is not None else node.start_byte, node.end_byte, "")

    def _retire(self, node: Node, form: Form, same: bool) -> bool:
        first, last = node.start_point[0] + 1, node.end_point[0] + 1
        if not same:
            raise Conflict(
                self.path,
                f"{self.path} lines {first}-{last} hold {form.label}, changed since mesh-codemod wrote it: "
                "not removed; restore the written form or remove it by hand",
            )
        start = self._comments_above(node, _leading_comments(form.snippet)) or node
        self.retired.add(node.id)
        begin, end = self.source.line_start(start.start_byte), self._line_after(node.end_byte)
        # set apart by blank lines on both sides (or last in its block): the
        # blank line it was inserted with goes too
        before = self.source.data[:begin].rstrip(b" \t\r\n")
        blank_above = self.source.data[len(before):begin].count(b"\n") > 1
        rest = self.source.data[end:].lstrip(b" \t")
        if blank_above and (rest.startswith((b"\n", b"\r\n")) or rest.startswith(b"}")):
            begin = self.source.data.index(b"\n", len(before)) + 1
        self.edits.replace(begin, end, "")
        self._changed(start, node, form)
        return True

    def remove_lines(self, first: Node, last: Node) -> None:
        """Remove the lines from ``first``'s to ``last``'s (a statement the
        step moves elsewhere)."""
        self.edits.replace(self.source.line_start(first.start_byte), self._line_after(last.end_byte), "")

    def _line_after(self, offset: int) -> int:
        """The start of the line after the one ``offset`` is on."""
        newline = self.source.data.find(b"\n", offset)
        return len(self.source.data) if newline < 0 else newline + 1

    def _changed(self, first: Node, last: Node, form: Form) -> None:
        a, b = first.start_point[0] + 1, last.end_point[0] + 1
        where = f"line {a}" if a == b else f"lines {a}-{b}"
        self.form_changes.append(FormChange(form.kind, where, form.label, "the current form"))


def _wrapped_key(container: str, text: str, tsx: bool) -> str:
    """The layout key of ``text`` as an entry of a container of kind
    ``container`` (a list, a class body)."""
    wrapper = _WRAPPERS.get(container, "f({});")
    prefix = wrapper[: wrapper.index("{}")].replace("{{", "{").replace("}}", "}")
    source = wrapper.format(text).encode()
    tree = parse(source, TSX if tsx else TYPESCRIPT)
    # a class field's `;` is the class body's token, not the field's
    start, end = len(prefix.encode()), len(prefix.encode()) + len(text.rstrip().removesuffix(";").encode())
    node = tree.root_node.named_descendant_for_byte_range(start, end)
    while node is not None and node.parent is not None and (node.parent.start_byte, node.parent.end_byte) == (start, end):
        node = node.parent
    return node_key(node, source) if node is not None else ""
