"""Ensure operations that place a new construct right beside an existing one.

A recipe that mirrors an existing feature (a notification that already has
a type, a schema, a setter, an export) says "next to this, make sure that
exists". Each operation first looks for its result and records nothing when
it is there; otherwise it inserts the new text after its anchor, in the
anchor's own layout (one per line or inline, with or without a trailing
separator). Operations work on a :class:`FileEditor` and only add edits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from tree_sitter import Node

from . import layout
from .editor import FileEditor, squash


_SPECIFIERS = {"import_specifier", "export_specifier"}


def renamed(text: str, renames: Sequence[tuple[str, str]]) -> str:
    """``text`` with each whole word of ``renames`` replaced, in one pass
    (so a replacement is never renamed again)."""
    table = dict(renames)
    pattern = re.compile(
        r"(?<![\w$])(" + "|".join(re.escape(old) for old in sorted(table, key=len, reverse=True)) + r")(?![\w$])"
    )
    return pattern.sub(lambda m: table[m.group(1)], text)


def doc_comment(editor: FileEditor, node: Node) -> Node | None:
    """The ``/** ... */`` comment right before ``node`` (or before the
    export statement that holds it), if there is one."""
    target = node.parent if node.parent is not None and node.parent.type == "export_statement" else node
    before = target.prev_sibling
    if before is not None and before.type == "comment" and editor.text(before).startswith("/**"):
        if target.start_point[0] - before.end_point[0] <= 1:
            return before
    return None


def entries(container: Node) -> list[Node]:
    """The entries of a comma- or semicolon-separated container."""
    return [c for c in container.named_children if c.type != "comment"]


def entry_key(editor: FileEditor, node: Node) -> str:
    """An entry's name: a specifier's imported name, a pair's or member's key."""
    if node.type in _SPECIFIERS:
        name = node.child_by_field_name("name")
        return editor.text(name) if name is not None else squash(editor.text(node))
    for field in ("key", "name"):
        label = node.child_by_field_name(field)
        if label is not None:
            return editor.text(label).strip("\"'")
    return squash(editor.text(node))


def ensure_entry_after(editor: FileEditor, container: Node, after: str, key: str, text: str) -> bool:
    """An entry named ``key`` (inserted as ``text``) right after the entry
    ``after`` of a list, object, specifier clause or object type. Returns
    False, changing nothing, when ``after`` is not in the container."""
    present = entries(container)
    if any(entry_key(editor, n) == key for n in present):
        return True
    anchor = next((n for n in present if entry_key(editor, n) == after), None)
    if anchor is None:
        return False
    editor.note(text)
    follower = anchor.next_sibling
    separator = follower.type if follower is not None and follower.type in {",", ";"} else None
    own = separator or _separator_of(container)
    multiline = present[0].start_point[0] != container.start_point[0]
    eol = editor.source.eol
    if multiline:
        indent = editor.source.indent_of(anchor)
        if separator is not None:
            editor.edits.insert(follower.end_byte, f"{eol}{indent}{text}{own}")
        else:
            # the list's last entry has no separator: it gets one, the new one not
            editor.edits.insert(anchor.end_byte, f"{own}{eol}{indent}{text}")
        return True
    point = follower.end_byte if separator is not None else anchor.end_byte
    insertion = f" {text}{own}" if separator is not None else f"{own} {text}"
    line_start = editor.source.line_start(point)
    line = editor.source.data[line_start:editor.source.line_end(point)].decode()
    column = point - line_start
    if not layout.fits(line[:column] + insertion + line[column:], editor.style) and own == ",":
        texts = []
        for entry in present:
            texts.append(editor.text(entry))
            if entry == anchor:
                texts.append(text)
        editor._explode(container, texts)
        return True
    editor.edits.insert(point, insertion)
    return True


def _separator_of(container: Node) -> str:
    kinds = [c.type for c in container.children if c.type in {",", ";"}]
    if kinds:
        return max(set(kinds), key=kinds.count)
    return ";" if container.type in {"object_type", "interface_body"} else ","


def union_members(node: Node) -> list[Node]:
    """The members of a (nested) union type, in order."""
    if node.type != "union_type":
        return [node]
    members: list[Node] = []
    for child in node.named_children:
        if child.type != "comment":
            members.extend(union_members(child))
    return members


def ensure_union_member_after(editor: FileEditor, union: Node, after: str, member: str) -> bool:
    """``| member`` right after the member ``after`` of a union type, on its
    own line when the union has one member per line. False when ``after``
    is not a member."""
    members = union_members(union)
    if any(squash(editor.text(m)) == squash(member) for m in members):
        return True
    anchor = next((m for m in members if squash(editor.text(m)) == squash(after)), None)
    if anchor is None:
        return False
    editor.note(f"| {member}")
    line_start = editor.source.line_start(anchor.start_byte)
    lead = editor.source.data[line_start:anchor.start_byte].decode()
    if lead.strip() == "|":
        point = editor._end_of_line_after(anchor.end_byte, union)
        editor.edits.insert(point, f"{editor.source.eol}{lead}{member}")
    else:
        editor.edits.insert(anchor.end_byte, f" | {member}")
    return True


def insert_after(editor: FileEditor, anchor: Node, text: str, *, blank_line: bool = True) -> None:
    """Insert ``text`` (its first line unindented, its other lines already
    indented) after ``anchor`` and a ``;`` that ends it, on a new line at the
    anchor's indentation, set apart by a blank line when asked."""
    end = anchor
    follower = anchor.next_sibling
    if follower is not None and follower.type == ";":
        end = follower
    point = editor._end_of_line_after(end.end_byte, anchor.parent or anchor)
    eol = editor.source.eol
    indent = editor.source.indent_of(anchor)
    body = text.replace("\r\n", "\n")
    if eol != "\n":
        body = body.replace("\n", eol)
    editor.edits.insert(point, (eol if blank_line else "") + eol + indent + body)
    editor.note(text.splitlines()[0] if text else text)


def source_span(editor: FileEditor, first: Node, last: Node) -> str:
    """The text from the start of ``first`` to the end of ``last``."""
    return editor.source.data[first.start_byte:last.end_byte].decode()


def indented(lines: Iterable[str], indent: str) -> str:
    """Lines joined for :func:`insert_after`: the first bare, the rest at ``indent``."""
    out = []
    for index, line in enumerate(lines):
        out.append(line if index == 0 or not line else indent + line)
    return "\n".join(out)
