"""src/app.ts: `sendStateChanged(params)` on App, beside `sendSizeChanged`:
the same method renamed, under a doc comment in the style of its doc, and
guarded by `this._assertInitialized("sendStateChanged")` where the revision
has that guard (as `sendMessage`, `openLink` and `updateModelContext` are)."""

from __future__ import annotations

import re
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
        style = DocStyle.of(twin_doc)
        guard = ""
        if editor.class_members(cls, GUARD):
            guard = guard_doc(style, re.search(r"\bstrict\?\s*:", editor.text(editor.source.root)) is not None)
        example = sender_example(*getters(editor.text(editor.source.root)))
        insert_documented(editor, member, member, sender_doc(style, returns, fence, guard, example), copy)
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


def sender_example(context: bool = True, capabilities: bool = True) -> list[str]:
    """The sender's example, in the doc and in the companion region: a kept
    state validated before use (it may come from a link), the capability
    checked before reporting, a small state, `null` for the initial view;
    each part only where the revision's `App` has the getter it needs."""
    lines = []
    if context:
        lines += [
            f"const kept = app.getHostContext()?.{APP_STATE};",
            "// untrusted (it may come from a link): accept only a known tab",
            'const tab = kept === "details" || kept === "invoices" ? kept : null;',
            "showTab(tab);",
            "",
        ]
    sends = [f'app.{STATE_SENDER}({{ state: "details" }});', f"app.{STATE_SENDER}({{ state: null }});"]
    lines.append("// later, as the user moves: a small state, or null for the initial view")
    if capabilities:
        return lines + [f"if (app.getHostCapabilities()?.{CAPABILITY}) {{", *[f"  {line}" for line in sends], "}"]
    return lines + sends


def example_parameters(context: bool) -> str:
    """The example region's parameters."""
    return "app: App, showTab: (tab: string | null) => void" if context else "app: App"


def getters(text: str) -> tuple[bool, bool]:
    """Whether the revision's `App` has `getHostContext` and `getHostCapabilities`."""
    return (
        re.search(r"\bgetHostContext\s*\(", text) is not None,
        re.search(r"\bgetHostCapabilities\s*\(", text) is not None,
    )


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


def sender_doc(
    style: DocStyle, returns: str, fence: str = "", guard: str = "", example: list[str] | None = None
) -> list[str]:
    """The new method's doc; its @returns is the twin's (a revision words it
    its own way), left out where the twin has none. ``guard`` says what an
    early call does, where the revision guards the method."""
    return [
        f"Notify the host that the {style.party}'s navigation state changed.",
        "",
        f"Call this whenever the {style.party}'s own navigation changes (which item is open,"
        " which tab is shown), with a JSON value it can show that place from, or `null` when"
        " it is back at its initial view; `state` is required. The host may keep the state,"
        " for example in its page URL, and hand it back in"
        f" `hostContext.{APP_STATE}` when the same {style.party} loads again, so that a reload"
        " or a shared link restores it. Keep it small (within the capability's `maxLength`),"
        " never put secrets in it and avoid personal data: it may end up in a URL. Debounce"
        " fast changes; there is no need to report a state the host has just handed back."
        f" Check {style.link('getHostCapabilities')}`()?.{CAPABILITY}` first: a host without it"
        " keeps nothing (keep the state in `localStorage` instead). A state handed back is"
        " untrusted (it may come from a link): validate it before use.",
        *(["", guard] if guard else []),
        "",
        "@param params - The new navigation state, as `{ state }`",
        "",
        "@example Restore a validated state, report another one",
        fence or style.fence,
        *(example if example is not None else sender_example()),
        "```",
        "",
        *([returns, ""] if returns else []),
        f"@see {style.link(STATE)} for the notification's shape",
    ]


def guard_doc(style: DocStyle, strict: bool) -> str:
    """What calling the sender before the handshake does, as the revision's
    `_assertInitialized` does it."""
    connect = style.link("connect")
    if strict:
        return (
            f"Like the other host-bound methods, calling this before {connect} has finished the"
            " `ui/initialize` handshake logs a warning, or throws with the `strict` option."
        )
    return f"Like the other host-bound methods, calling this before {connect} has finished the handshake throws."
