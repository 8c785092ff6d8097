"""src/app.ts: `sendStateChanged(params)` on App, beside `sendSizeChanged`:
the same method renamed, under a doc comment in the style of its doc, and
guarded by `this._assertInitialized("sendStateChanged")` where the revision
has that guard. The doc says which of the revision's notification senders
are guarded and which are not (in 2.0.4 `sendToolListChanged` is,
`sendSizeChanged` is not), as the revision's own source shows."""

from __future__ import annotations

import re
from pathlib import Path

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.outcome import AnchorMissing
from ..base import Context
from .common import (
    SIZE_SENDER,
    DocStyle,
    Words,
    companion,
    insert_documented,
    region_name,
    tag_paragraph,
    words_of,
)
from .imports import ensure_imported_beside_twins

PATH = "src/app.ts"
CLASS = "App"
GUARD = "_assertInitialized"
# The state the examples report, and the size a host keeps without saying
# (the capability without `maxLength`: SPEC 6).
DEFAULT_MAX_LENGTH = 1024


def transform(editor: FileEditor, ctx: Context) -> None:
    w = words_of(ctx)
    cls = editor.class_(CLASS)
    sender = editor.method(cls, SIZE_SENDER)
    member = sender if sender.type == "method_definition" else sender.parent
    copy = w.rename(editor.text(member))
    guards = editor.class_members(cls, GUARD)
    if guards:
        copy = guarded(editor, member, copy, w)
    if not editor.class_members(cls, w.sender):
        twin_doc = editor.doc_text(member)
        returns = tag_paragraph(twin_doc, "@returns")
        fence = sender_fence(ctx, twin_doc, w)
        style = DocStyle.of(twin_doc, w)
        guard = ""
        if guards:
            source = editor.text(editor.source.root)
            guard = guard_doc(style, re.search(r"\bstrict\?\s*:", source) is not None, notification_senders(editor, cls))
        context, capabilities = getters(editor.text(editor.source.root))
        example = sender_example(w, context, capabilities)
        doc = sender_doc(style, w, returns, fence, guard, example)
        insert_documented(editor, member, member, doc, copy)
    ensure_imported_beside_twins(editor, [copy], w)


def guarded(editor: FileEditor, member: Node, copy: str, w: Words) -> str:
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
    line = f"this.{GUARD}({quote}{w.sender}{quote});"
    data = editor.text(member).encode()
    head = w.rename(data[:at].decode())
    return head + line + editor.style.eol + indent + w.rename(data[at:].decode())


def notification_senders(editor: FileEditor, cls: Node) -> dict[str, bool]:
    """The revision's methods of ``cls`` that send a notification
    (`this.notification(...)`), each with whether it calls the guard."""
    found: dict[str, bool] = {}
    body = cls.child_by_field_name("body")
    for method in body.named_children if body is not None else []:
        if method.type != "method_definition":
            continue
        name, text = editor.text(method.child_by_field_name("name")), editor.text(method)
        # `connect` sends the handshake's own `initialized`: not a sender
        if name != "connect" and re.search(r"\bthis\.notification\s*\(", text):
            found[name] = f"this.{GUARD}(" in text
    return found


EXAMPLES_PATH = "src/app.examples.ts"


def sender_example(w: Words, context: bool = True, capabilities: bool = True) -> list[str]:
    """The sender's example, in the doc and in the companion region: a kept
    state validated before use (it may come from a link), then one new
    state of the same shape, so a state handed back is one the example
    restores, reported where the host keeps states and within the size it
    keeps (UTF-8 bytes of the JSON text); each part only where the
    revision's `App` has the getter it needs."""
    lines = []
    if context:
        lines += [
            "// untrusted (it may come from a link): accept only a known tab",
            f"const kept = app.getHostContext()?.{w.field};",
            'showTab(kept === "details" || kept === "invoices" ? kept : null);',
            "",
        ]
    lines += [
        "// later, when the user opens another tab",
        'const state = "invoices";',
        "const bytes = new TextEncoder().encode(JSON.stringify(state)).length;",
    ]
    if capabilities:
        return lines + [
            f"const keeps = app.getHostCapabilities()?.{w.capability};",
            f"if (keeps && bytes <= (keeps.maxLength ?? {DEFAULT_MAX_LENGTH})) {{",
            f"  app.{w.sender}({{ state }});",
            "}",
        ]
    return lines + [f"if (bytes <= {DEFAULT_MAX_LENGTH}) {{", f"  app.{w.sender}({{ state }});", "}"]


def example_parameters(context: bool) -> str:
    """The example region's parameters."""
    return "app: App, showTab: (tab: string | null) => void" if context else "app: App"


def getters(text: str) -> tuple[bool, bool]:
    """Whether the revision's `App` has `getHostContext` and `getHostCapabilities`."""
    return (
        re.search(r"\bgetHostContext\s*\(", text) is not None,
        re.search(r"\bgetHostCapabilities\s*\(", text) is not None,
    )


def sender_region(twin_region: str, w: Words) -> str:
    return region_name(twin_region, w.sender, "reportView", "reportViewState")


def sender_fence(ctx: Context | None, twin_doc: str, w: Words) -> str:
    style = DocStyle.of(twin_doc, w)
    found = companion(twin_doc)
    if found is None or ctx is None:
        return style.fence
    try:
        text = (Path(ctx.repo) / "src" / found[0]).read_text(encoding="utf-8")
    except OSError:
        return style.fence
    if f"//#region {found[1]}" not in text:
        return style.fence
    return f'{style.fence} source="./{found[0]}#{sender_region(found[1], w)}"'


def sender_doc(
    style: DocStyle,
    w: Words,
    returns: str,
    fence: str = "",
    guard: str = "",
    example: list[str] | None = None,
) -> list[str]:
    """The new method's doc, as short as its twin's (the spec says the
    rules); its @returns is the twin's (a revision words it its own way),
    left out where the twin has none. ``guard`` says what an early call
    does, where the revision guards the method."""
    party = style.party
    return [
        f"Notify the host that the {party}'s navigation state changed.",
        "",
        f"Call it when the {party}'s own navigation changes, with a small JSON value, or `null` for its initial"
        f" view. Hosts that advertise the `{w.capability}` capability hand it back to the same {party} in"
        f" `hostContext.{w.field}`.",
        *(["", guard] if guard else []),
        "",
        "@param params - The new navigation state, as `{ state }`",
        "",
        "@example Restore a validated state, report a new one",
        fence or style.fence,
        *(example if example is not None else sender_example(w)),
        "```",
        "",
        *([returns, ""] if returns else []),
        f"@see {style.link(w.state)} for the notification's shape",
    ]


def guard_doc(style: DocStyle, strict: bool, senders: dict[str, bool]) -> str:
    """What calling the sender before the handshake does, as the revision's
    `_assertInitialized` does it, and which of the revision's other
    notification senders check the same (``senders``: name -> guarded)."""
    connect = style.link("connect")
    alike = [f"`{name}`" for name, on in senders.items() if on]
    unlike = [f"`{name}`" for name, on in senders.items() if not on]
    lead = ""
    if alike:
        lead = "Like " + _listed(alike) + (f" (and unlike {_listed(unlike)})" if unlike else "")
    elif unlike:
        lead = "Unlike " + _listed(unlike)
    what = "logs a warning, or throws with the `strict` option" if strict else "throws"
    if not lead:
        return f"Calling this before {connect} has finished the `ui/initialize` handshake {what}."
    return f"{lead}, this checks the handshake: calling it before {connect} has finished `ui/initialize` {what}."


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
