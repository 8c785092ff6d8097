"""src/app.ts: `sendStateChanged(params)` on App, beside `sendSizeChanged`:
the same method renamed, under a doc comment in the style of its doc, and
guarded by `this._assertInitialized("sendStateChanged")` where the revision
has that guard (as `sendMessage`, `openLink` and `updateModelContext` are)."""

from __future__ import annotations

from pathlib import Path

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.outcome import AnchorMissing
from ..base import Context
from .common import (
    APP_STATE,
    CAPABILITY,
    SIZE_SENDER,
    STATE,
    STATE_SENDER,
    DocStyle,
    companion,
    insert_documented,
    region_name,
    rename,
    tag_paragraph,
)
from .imports import ensure_imported_beside_twins

PATH = "src/app.ts"
CLASS = "App"
GUARD = "_assertInitialized"


def transform(editor: FileEditor, ctx: Context) -> None:
    cls = editor.class_(CLASS)
    sender = editor.method(cls, SIZE_SENDER)
    member = sender if sender.type == "method_definition" else sender.parent
    copy = rename(editor.text(member))
    if editor.class_members(cls, GUARD):
        copy = guarded(editor, member, copy)
    if not editor.class_members(cls, STATE_SENDER):
        twin_doc = editor.doc_text(member)
        returns = tag_paragraph(twin_doc, "@returns")
        fence = sender_fence(ctx, twin_doc)
        insert_documented(editor, member, member, sender_doc(DocStyle.of(twin_doc), returns, fence), copy)
    ensure_imported_beside_twins(editor, [copy])


def guarded(editor: FileEditor, member: Node, copy: str) -> str:
    """The renamed copy of ``member`` with the guard as its first statement,
    at the indentation of the statements of its body."""
    method = member if member.type == "method_definition" else next(
        c for c in member.named_children if c.type == "method_definition"
    )
    body = method.child_by_field_name("body")
    first = body.named_children[0] if body is not None and body.named_children else None
    if first is None:
        raise AnchorMissing(editor.path, f"a statement in the body of `{SIZE_SENDER}`")
    at = first.start_byte - member.start_byte
    indent = editor.source.indent_of(first)
    quote = editor.style.quote
    line = f"this.{GUARD}({quote}{STATE_SENDER}{quote});"
    data = editor.text(member).encode()
    head = rename(data[:at].decode())
    return head + line + editor.style.eol + indent + rename(data[at:].decode())


EXAMPLES_PATH = "src/app.examples.ts"


def sender_example() -> list[str]:
    """The sender's example, in the doc and in the companion region."""
    return [
        f'app.{STATE_SENDER}({{ state: {{ itemId: "42", tab: "details" }} }});',
        "// back at the initial view: no state",
        f"app.{STATE_SENDER}({{ state: null }});",
    ]


def sender_region(twin_region: str) -> str:
    return region_name(twin_region, STATE_SENDER, "reportView", "reportViewState")


def sender_fence(ctx: Context | None, twin_doc: str) -> str:
    style = DocStyle.of(twin_doc)
    found = companion(twin_doc)
    if found is None or ctx is None:
        return style.fence
    try:
        text = (Path(ctx.repo) / "src" / found[0]).read_text(encoding="utf-8")
    except OSError:
        return style.fence
    if f"//#region {found[1]}" not in text:
        return style.fence
    return f'{style.fence} source="./{found[0]}#{sender_region(found[1])}"'


def sender_doc(style: DocStyle, returns: str, fence: str = "") -> list[str]:
    """The new method's doc; its @returns is the twin's (a revision words it
    its own way), left out where the twin has none."""
    return [
        "Notify the host that the app's view state changed.",
        "",
        "Call this whenever the app's own navigation changes (which item is open,"
        " which tab is shown). The host may keep the state, for example in its page"
        f" URL, and hand it back in `hostContext.{APP_STATE}` when the app loads again, so"
        " that a reload or a shared link restores the same view. The state is any"
        " JSON value; keep it small, and leave out anything secret (it may end up in a"
        " URL). Send `null` when the app is back at its initial view. Debounce fast"
        " changes; there is no need to report a state the host has just handed back."
        f" Check `hostCapabilities.{CAPABILITY}` first: a host without it does not keep"
        " the state (keep it in `localStorage` instead).",
        "",
        "@param params - The new view state, as `{ state }`",
        "",
        "@example Report the item the user opened, then the initial view",
        fence or style.fence,
        *sender_example(),
        "```",
        "",
        *([returns, ""] if returns else []),
        f"@see {style.link(STATE)} for the notification's shape",
    ]
