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
    APP_STATE,
    APP_STATE_DESCRIPTION,
    CAPABILITY,
    CAPABILITY_DESCRIPTION,
    HOST_CAPABILITIES,
    HOST_CONTEXT,
    SIZE,
    SIZE_METHOD_CONST,
    STATE,
    MAX_LENGTH,
    MAX_LENGTH_DESCRIPTION,
    STATE_DESCRIPTION,
    STATE_METHOD,
    STATE_METHOD_CONST,
    STATE_TYPE,
    jsdoc,
    rename,
)

STEP = "spec-types"
PATH = "src/spec.types.ts"
_DIRECTION = re.compile(r"\(([^()]*->[^()]*)\)")


def transform(editor: FileEditor, ctx: Context) -> None:
    ensure_notification(editor)
    ensure_app_state(editor)
    ensure_capability(editor)
    ensure_method_constant(editor)


def ensure_notification(editor: FileEditor) -> None:
    if editor.interfaces(STATE):
        return
    size = editor.interface(SIZE)
    body = size.child_by_field_name("body")
    indent = editor.style.indent
    quote = editor.style.quote
    lines = [
        *jsdoc(notification_doc(editor.doc_text(size)), width=editor.style.line_width),
        f"export interface {STATE} {{",
        f"{indent}method: {quote}{STATE_METHOD}{quote};",
        f"{indent}params: {{",
        f"{indent * 2}/** @description {STATE_DESCRIPTION} */",
        f"{indent * 2}state: {STATE_TYPE};",
        f"{indent}}};",
        "}",
    ]
    if body is not None and editor.text(body).count(",") > editor.text(body).count(";"):
        lines = [line.replace(";", ",") if line.endswith(";") else line for line in lines]
    editor.insert_after(editor.enclosing_statement(size), "\n".join(lines))


def notification_doc(size_doc: str) -> list[str]:
    """The new interface's doc lines, in the words of the size-changed one:
    its direction marker ("View -> Host") and its @see lines, renamed."""
    match = _DIRECTION.search(size_doc)
    direction = match.group(1).split(":")[-1].strip() if match else "View -> Host"
    if "<->" in direction:
        # size changes went both ways once; app state only goes to the host
        direction = "Guest UI -> Host" if "Guest" in direction else "View -> Host"
    lines = [
        f"@description Notification that the view's navigation state changed ({direction}).",
        "The state is a JSON value that lets the view show its current place again"
        " (which item is open, which tab is shown); `null` means no state, the initial"
        " view. `state` is required: the schema rejects a notification without it. A host that advertises the `appState` capability may keep it, for"
        f" example in its page URL, and hand it back in `hostContext.{APP_STATE}` when"
        " the same view loads again, so that a reload or a shared link shows that place."
        " It is not model context (see `ui/update-model-context`).",
    ]
    for line in size_doc.splitlines():
        content = line.strip().lstrip("*").strip()
        if content.startswith("@see"):
            lines.append(rename(content))
    return lines


def ensure_app_state(editor: FileEditor) -> None:
    body = editor.interface(HOST_CONTEXT).child_by_field_name("body")
    editor.ensure_entry_lines(
        body,
        APP_STATE,
        lambda indent: [f"{indent}/** @description {APP_STATE_DESCRIPTION} */", f"{indent}{APP_STATE}?: unknown"],
        separator=";",
    )


def ensure_capability(editor: FileEditor) -> None:
    """`appState?: {}` right after `downloadFile?: {}` (the capability it is
    documented like), else after the last member. A revision without the
    capabilities interface has nothing to declare it in."""
    found = editor.interfaces(HOST_CAPABILITIES)
    if not found:
        editor.note(f"no `{HOST_CAPABILITIES}` in this revision: the `{CAPABILITY}` capability is not declared")
        return
    body = found[0].child_by_field_name("body")
    members = editor.entries(body)
    if any(editor.item_key(m) == CAPABILITY for m in members):
        return
    doc = f"/** @description {CAPABILITY_DESCRIPTION} */"
    unit = editor.style.indent

    def lines(indent: str) -> list[str]:
        return [
            f"{indent}{doc}",
            f"{indent}{CAPABILITY}?: {{",
            f"{indent}{unit}/** @description {MAX_LENGTH_DESCRIPTION} */",
            f"{indent}{unit}{MAX_LENGTH}?: number;",
            f"{indent}}}",
        ]

    twin = next((m for m in members if editor.item_key(m) == "downloadFile"), None)
    if twin is None:
        editor.ensure_entry_lines(body, CAPABILITY, lines, separator=";")
        return
    indent = editor.source.indent_of(twin)
    editor.insert_after(twin, "\n".join(lines(indent)).removeprefix(indent) + ";", blank_line=False)


def ensure_method_constant(editor: FileEditor) -> None:
    """Only where the file has its method-constant block (later 1.x on)."""
    found = editor.variables(SIZE_METHOD_CONST)
    if not found or editor.variables(STATE_METHOD_CONST):
        return
    statement = editor.enclosing_statement(found[0])
    editor.insert_after(statement, rename(editor.text(statement)), blank_line=False)


def planned(data: bytes, config: FormatterConfig) -> bytes:
    """The file after this step (in the style ``config`` and the file give
    it, as the step writes it), for the steps that derive from it."""
    editor = FileEditor(parsed_or_refused(PATH, data, config))
    transform(editor, None)  # type: ignore[arg-type]
    return editor.result()
