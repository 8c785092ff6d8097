"""src/app-bridge.examples.ts and src/app.examples.ts: the regions that the
new doc examples are synced from (`source="./app.examples.ts#Region"`,
`npm run sync:snippets`), where the revision keeps its examples there.

Each region is a function of its own, after the function that holds the
size-changed twin's region, with the same lines as the doc example (so
the sync changes nothing). The bridge's shows the `onstatechange`
accessor on the 1.x shapes; on 2.x, which gets no accessor, it shows a
listener, and no doc comment shows it."""

from __future__ import annotations

from pathlib import Path

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.outcome import AnchorMissing
from ...engine.source import SourceFile
from ..base import Context
from . import app, app_bridge
from .common import SIZE_ACCESSOR, SIZE_SENDER, companion, read_text, words_of

BRIDGE_ABSENT = f"no {app_bridge.EXAMPLES_PATH} in this revision: its examples are inline"
APP_ABSENT = f"no {app.EXAMPLES_PATH} in this revision: its examples are inline"


def _twin_doc(ctx: Context, path: str, cls: str, member: str) -> str:
    """The doc comment of ``member`` of ``cls`` in ``path`` as it is in the checkout."""
    try:
        data = (Path(ctx.repo) / path).read_bytes()
    except OSError:
        return ""
    editor = FileEditor(SourceFile.from_bytes(path, data))
    found = editor.class_members(editor.class_(cls), member)
    return editor.doc_text(found[0] if found[0].type == "method_definition" else found[0].parent) if found else ""


def transform_bridge(editor: FileEditor, ctx: Context) -> None:
    w = words_of(ctx)
    bridge_text = read_text(Path(ctx.repo) / app_bridge.PATH)
    found = companion(_twin_doc(ctx, app_bridge.PATH, app_bridge.CLASS, SIZE_ACCESSOR))
    if found is None or Path(found[0]).name != Path(editor.path).name:
        editor.note(f"the `{SIZE_ACCESSOR}` example is not synced from this file: nothing to add")
        return
    if "eventSchemas" in bridge_text and "ProtocolWithEvents" not in bridge_text:
        # 2.x: no accessor, so the host's example is a listener
        _ensure_region(
            editor, found[1], app_bridge.bridge_region(found[1], w, listener=True),
            "hostInfo: { name: string; version: string }",
            "the capability advertised, the kept state handed back, reports kept in the page URL.",
            app_bridge.listener_example(w),
        )
        return
    _ensure_region(
        editor, found[1], app_bridge.bridge_region(found[1], w), "bridge: AppBridge",
        "the view's state kept in the page URL, within the size the host keeps; null clears it.",
        app_bridge.bridge_example(w),
    )


def transform_app(editor: FileEditor, ctx: Context) -> None:
    w = words_of(ctx)
    found = companion(_twin_doc(ctx, app.PATH, app.CLASS, SIZE_SENDER))
    if found is None or Path(found[0]).name != Path(editor.path).name:
        editor.note(f"the `{SIZE_SENDER}` example is not synced from this file: nothing to add")
        return
    context, capabilities = app.getters(read_text(Path(ctx.repo) / app.PATH))
    _ensure_region(
        editor, found[1], app.sender_region(found[1], w), app.example_parameters(context),
        "a kept state restored after validation; a new one reported where the host keeps it."
        if context else "the view's state reported, within the size a host keeps.",
        app.sender_example(w, context, capabilities),
    )


def _ensure_region(
    editor: FileEditor, twin: str, region: str, parameter: str, what: str, lines: list[str]
) -> None:
    if f"//#region {region}" in editor.text(editor.source.root):
        return
    marker = next(
        (n for n in editor.walk() if n.type == "comment" and editor.text(n).strip() == f"//#region {twin}"), None
    )
    if marker is None:
        raise AnchorMissing(editor.path, f"the region `{twin}` (`//#region {twin}`)")
    function = _top_level(marker)
    unit = editor.style.indent
    body = [f"{unit}//#region {region}", *[f"{unit}{line}" if line else line for line in lines], f"{unit}//#endregion {region}"]
    text = "\n".join(["/**", f" * Example: {what}", " */", f"function {region}({parameter}) {{", *body, "}"])
    editor.insert_after(function, text)


def _top_level(node: Node) -> Node:
    while node.parent is not None and node.parent.type != "program":
        node = node.parent
    return node
