"""src/app.ts: `sendStateChanged(params)` on App, beside `sendSizeChanged`:
the same method renamed, under a doc comment in the style of its doc."""

from __future__ import annotations

from ...engine.editor import FileEditor
from ..base import Context
from .common import APP_STATE, STATE, DocStyle, insert_documented, rename, tag_paragraph
from .imports import ensure_imported_beside_twins

PATH = "src/app.ts"
CLASS = "App"
SIZE_SENDER = "sendSizeChanged"
STATE_SENDER = "sendStateChanged"


def transform(editor: FileEditor, ctx: Context) -> None:
    cls = editor.class_(CLASS)
    sender = editor.method(cls, SIZE_SENDER)
    member = sender if sender.type == "method_definition" else sender.parent
    copy = rename(editor.text(member))
    if not editor.class_members(cls, STATE_SENDER):
        twin_doc = editor.doc_text(member)
        returns = tag_paragraph(twin_doc, "@returns")
        insert_documented(editor, member, member, sender_doc(DocStyle.of(twin_doc), returns), copy)
    ensure_imported_beside_twins(editor, [copy])


def sender_doc(style: DocStyle, returns: str) -> list[str]:
    """The new method's doc; its @returns is the twin's (a revision words it
    its own way), left out where the twin has none."""
    return [
        "Notify the host that the app's view state changed.",
        "",
        "Call this whenever the app's own navigation changes (which item is open,"
        " which tab is shown). The host may keep the state, for example in its page"
        f" URL, and hand it back in `hostContext.{APP_STATE}` when the app loads again, so"
        " that a reload or a shared link restores the same view. The state is any"
        " JSON value; keep it small.",
        "",
        "@param params - The new view state, as `{ state }`",
        "",
        "@example Report the item the user opened",
        style.fence,
        "app.sendStateChanged({",
        '  state: { itemId: "42", tab: "details" },',
        "});",
        "```",
        "",
        *([returns, ""] if returns else []),
        f"@see {style.link(STATE)} for the notification's shape",
    ]
