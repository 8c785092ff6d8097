"""src/spec.types.ts: the McpUiStateChangedNotification interface after
McpUiSizeChangedNotification, `appState` on McpUiHostContext, and a
STATE_CHANGED_METHOD constant beside SIZE_CHANGED_METHOD where that block
exists. These interfaces are the source that ts-to-zod generates from."""

from __future__ import annotations

import re

from ...engine.editor import FileEditor
from ...engine.mirror import doc_comment, insert_after
from ...engine.outcome import AnchorMissing
from ...engine.source import SourceFile
from ..base import Context
from .common import (
    APP_STATE,
    APP_STATE_DESCRIPTION,
    HOST_CONTEXT,
    SIZE,
    SIZE_METHOD_CONST,
    STATE,
    STATE_DESCRIPTION,
    STATE_METHOD,
    STATE_METHOD_CONST,
    jsdoc,
    rename,
)

PATH = "src/spec.types.ts"
_DIRECTION = re.compile(r"\(([^()]*->[^()]*)\)")


def transform(editor: FileEditor, ctx: Context) -> None:
    ensure_notification(editor)
    ensure_app_state(editor)
    ensure_method_constant(editor)


def ensure_notification(editor: FileEditor) -> None:
    if any(editor._name(n) == STATE for n in editor.source.nodes("interface_declaration")):
        return
    size = editor.interface(SIZE)
    doc = doc_comment(editor, size)
    anchor = size.parent if size.parent is not None and size.parent.type == "export_statement" else size
    body = size.child_by_field_name("body")
    indent = editor.source.indent_unit
    quote = editor.source.quote
    lines = [
        *jsdoc(notification_doc(editor.text(doc) if doc is not None else "")),
        f"export interface {STATE} {{",
        f"{indent}method: {quote}{STATE_METHOD}{quote};",
        f"{indent}params: {{",
        f"{indent * 2}/** @description {STATE_DESCRIPTION} */",
        f"{indent * 2}state: unknown;",
        f"{indent}}};",
        "}",
    ]
    if body is not None and editor.text(body).count(",") > editor.text(body).count(";"):
        lines = [line.replace(";", ",") if line.endswith(";") else line for line in lines]
    insert_after(editor, anchor, "\n".join(lines))


def notification_doc(size_doc: str) -> list[str]:
    """The new interface's doc lines, in the words of the size-changed one:
    its direction marker ("View -> Host") and its @see lines, renamed."""
    match = _DIRECTION.search(size_doc)
    direction = match.group(1).split(":")[-1].strip() if match else "View -> Host"
    if "<->" in direction:
        # size changes went both ways once; app state only goes to the host
        direction = "Guest UI -> Host" if "Guest" in direction else "View -> Host"
    lines = [
        f"@description Notification that the app's view state changed ({direction}).",
        "The state is any JSON value that lets the app restore its current view"
        " (which item is open, which tab is shown). The host may keep it, for"
        f" example in its page URL, and hand it back in `hostContext.{APP_STATE}` when"
        " the app loads again, so that a reload or a shared link shows the same view.",
    ]
    for line in size_doc.splitlines():
        content = line.strip().lstrip("*").strip()
        if content.startswith("@see"):
            lines.append(rename(content))
    return lines


def ensure_app_state(editor: FileEditor) -> None:
    host = editor.interface(HOST_CONTEXT)
    body = host.child_by_field_name("body")
    members = [c for c in body.named_children if c.type != "comment"]
    if any(editor._name(m) == APP_STATE for m in members):
        return
    if not members:
        raise AnchorMissing(editor.path, f"a member of interface `{HOST_CONTEXT}` to add `{APP_STATE}` after")
    last = members[-1]
    indent = editor.source.indent_of(last)
    follower = last.next_sibling
    has_separator = follower is not None and follower.type in {";", ","}
    separator = follower.type if has_separator else ";"
    eol = editor.source.eol
    text = f"{eol}{indent}/** @description {APP_STATE_DESCRIPTION} */{eol}{indent}{APP_STATE}?: unknown{separator}"
    if has_separator:
        editor.edits.insert(follower.end_byte, text)
    else:
        editor.edits.insert(last.end_byte, separator + text[:-len(separator)])
    editor.note(f"{APP_STATE}?: unknown")


def ensure_method_constant(editor: FileEditor) -> None:
    """Only where the file has its method-constant block (later 1.x on)."""
    found = editor.variables(SIZE_METHOD_CONST)
    if not found or editor.variables(STATE_METHOD_CONST):
        return
    statement = editor.enclosing_statement(found[0])
    insert_after(editor, statement, rename(editor.text(statement)), blank_line=False)


def planned(data: bytes) -> bytes:
    """The file after this step, for the steps that derive from it."""
    editor = FileEditor(SourceFile.from_bytes(PATH, data))
    transform(editor, None)  # type: ignore[arg-type]
    return editor.result()
