"""src/spec.types.ts: the McpUiStateChangedNotification interface after
McpUiSizeChangedNotification (`state` required, `null` = no state),
`appState` on McpUiHostContext, the `appState?: { maxLength?: number }`
capability in McpUiHostCapabilities (after `downloadFile`, documented like
it), and a
STATE_CHANGED_METHOD constant beside SIZE_CHANGED_METHOD where that block
exists. These interfaces are the source that ts-to-zod generates from."""

from __future__ import annotations

import re

from ...engine.editor import FileEditor
from ...engine.outcome import parsed_or_refused
from ...engine.style import FormatterConfig
from ..base import Context
from .common import (
    HOST_CAPABILITIES,
    HOST_CONTEXT,
    MAX_LENGTH,
    SIZE,
    SIZE_METHOD_CONST,
    Words,
    jsdoc,
    words,
    words_of,
)
from ..names import Names

STEP = "spec-types"
PATH = "src/spec.types.ts"
_DIRECTION = re.compile(r"\(([^()]*->[^()]*)\)")


# `state`'s type: a JSON value, `null` included, never `undefined`, so that
# ts-to-zod's schema rejects `params: {}` (`unknown` would accept it). No
# `object` (it admits functions and class instances): an index signature,
# which ts-to-zod makes a record of unknown values.
STATE_TYPE = "{ [key: string]: unknown } | unknown[] | string | number | boolean | null"


STATE_DESCRIPTION = "The view's navigation state, a JSON value; null for its initial view."


def app_state_description(w: Words) -> str:
    return (
        f"The state the host hands back to the view: the view's last {w.method} report, or one from a link"
        " (untrusted: validate it). Absent and null both mean the initial view."
    )


def capability_description(w: Words) -> str:
    return f"Host keeps the view's navigation state ({w.method}) and hands it back in hostContext.{w.field}."


MAX_LENGTH_DESCRIPTION = "Largest state the host keeps, in UTF-8 bytes of its JSON text; 1024 when absent."


def transform(editor: FileEditor, ctx: Context | None) -> None:
    w = words_of(ctx)
    ensure_notification(editor, w)
    ensure_app_state(editor, w)
    ensure_capability(editor, w)
    ensure_method_constant(editor, w)


def ensure_notification(editor: FileEditor, w: Words) -> None:
    if editor.interfaces(w.state):
        return
    size = editor.interface(SIZE)
    body = size.child_by_field_name("body")
    indent = editor.style.indent
    quote = editor.style.quote
    lines = [
        *jsdoc(notification_doc(editor.doc_text(size), w), width=editor.style.line_width),
        f"export interface {w.state} {{",
        f"{indent}method: {quote}{w.method}{quote};",
        f"{indent}params: {{",
        f"{indent * 2}/** @description {STATE_DESCRIPTION} */",
        *_state_member(indent * 2, indent, editor.style.line_width),
        f"{indent}}};",
        "}",
    ]
    if body is not None and editor.text(body).count(",") > editor.text(body).count(";"):
        lines = [line.replace(";", ",") if line.endswith(";") else line for line in lines]
    editor.insert_after(editor.enclosing_statement(size), "\n".join(lines))


def _state_member(at: str, unit: str, width: int) -> list[str]:
    """`state: A | B | ...;` on one line where it fits, else one member of
    the union per line (as Prettier breaks a union)."""
    line = f"{at}state: {STATE_TYPE};"
    if len(line) <= width:
        return [line]
    members = STATE_TYPE.split(" | ")
    return [f"{at}state:", *[f"{at}{unit}| {m}" for m in members[:-1]], f"{at}{unit}| {members[-1]};"]


def notification_doc(size_doc: str, w: Words) -> list[str]:
    """The new interface's doc lines, in the words of the size-changed one:
    its direction marker ("View -> Host") and its @see lines, renamed."""
    match = _DIRECTION.search(size_doc)
    direction = match.group(1).split(":")[-1].strip() if match else "View -> Host"
    if "<->" in direction:
        # size changes went both ways once; the state only goes to the host
        direction = "Guest UI -> Host" if "Guest" in direction else "View -> Host"
    lines = [
        f"@description Notification that the view's navigation state changed ({direction}).",
        "`state` is a JSON value the view can show its place from again, or `null` for its initial"
        f" view; it is never missing. A host that advertises the `{w.capability}` capability may keep it"
        f" and hand it back in `hostContext.{w.field}` when the same view loads again. Not model context"
        " (see `ui/update-model-context`).",
    ]
    for line in size_doc.splitlines():
        content = line.strip().lstrip("*").strip()
        if content.startswith("@see"):
            lines.append(w.rename(content))
    return lines


def ensure_app_state(editor: FileEditor, w: Words) -> None:
    body = editor.interface(HOST_CONTEXT).child_by_field_name("body")
    editor.ensure_entry_lines(
        body,
        w.field,
        lambda indent: [f"{indent}/** @description {app_state_description(w)} */", f"{indent}{w.field}?: unknown"],
        separator=";",
    )


def ensure_capability(editor: FileEditor, w: Words) -> None:
    """`appState?: {}` right after `downloadFile?: {}` (the capability it is
    documented like), else after the last member. A revision without the
    capabilities interface has nothing to declare it in."""
    found = editor.interfaces(HOST_CAPABILITIES)
    if not found:
        editor.note(f"no `{HOST_CAPABILITIES}` in this revision: the `{w.capability}` capability is not declared")
        return
    body = found[0].child_by_field_name("body")
    members = editor.entries(body)
    if any(editor.item_key(m) == w.capability for m in members):
        return
    doc = f"/** @description {capability_description(w)} */"
    unit = editor.style.indent

    def lines(indent: str) -> list[str]:
        return [
            f"{indent}{doc}",
            f"{indent}{w.capability}?: {{",
            f"{indent}{unit}/** @description {MAX_LENGTH_DESCRIPTION} */",
            f"{indent}{unit}{MAX_LENGTH}?: number;",
            f"{indent}}}",
        ]

    twin = next((m for m in members if editor.item_key(m) == "downloadFile"), None)
    if twin is None:
        editor.ensure_entry_lines(body, w.capability, lines, separator=";")
        return
    indent = editor.source.indent_of(twin)
    editor.insert_after(twin, "\n".join(lines(indent)).removeprefix(indent) + ";", blank_line=False)


def ensure_method_constant(editor: FileEditor, w: Words) -> None:
    """Only where the file has its method-constant block (later 1.x on)."""
    found = editor.variables(SIZE_METHOD_CONST)
    if not found or editor.variables(w.method_const):
        return
    statement = editor.enclosing_statement(found[0])
    editor.insert_after(statement, w.rename(editor.text(statement)), blank_line=False)


def planned(data: bytes, config: FormatterConfig, names: Names) -> bytes:
    """The file after this step (in the style ``config`` and the file give
    it, as the step writes it), for the steps that derive from it."""
    editor = FileEditor(parsed_or_refused(PATH, data, config))
    for ensure in (ensure_notification, ensure_app_state, ensure_capability, ensure_method_constant):
        ensure(editor, words(names))
    return editor.result()
