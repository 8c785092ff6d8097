"""src/types.ts: the new type, schema and method constant in the re-export
blocks, and the notification in the app-to-host union (in 1.x the union is
the protocol's send type, so `sendStateChanged` type-checks only with it),
unless that union is deprecated (2.x keeps `AppNotification` for 1.x
callers only: nothing reads it, and a deprecated type gains no members)."""

from __future__ import annotations

from ...engine.editor import FileEditor
from ...engine.statements import Item
from ...engine.outcome import AnchorMissing
from ..base import Context
from .common import SIZE, SIZE_METHOD_CONST, SIZE_SCHEMA, STATE, rename

PATH = "src/types.ts"
_MIRRORED = {SIZE, SIZE_SCHEMA, SIZE_METHOD_CONST}


def transform(editor: FileEditor, ctx: Context) -> None:
    found = 0
    for node in editor.walk():
        if node.type in {"named_imports", "export_clause"}:
            for spec in editor.list_items(node):
                key = editor.item_key(spec)
                if key in _MIRRORED:
                    found += 1
                    editor.ensure_list_items(node, [Item(rename(key), rename(editor.text(spec)))], after=key)
        elif node.type == "union_type" and (node.parent is None or node.parent.type != "union_type"):
            if any(editor.text(m) == SIZE for m in editor.union_members(node)):
                if "@deprecated" in editor.doc_text(editor.enclosing_statement(node)):
                    editor.note("the deprecated app-to-host union is left as it is")
                    continue
                editor.ensure_union_member(node, STATE, after=SIZE)
    if not found:
        raise AnchorMissing(editor.path, f"a re-export of `{SIZE}` or `{SIZE_SCHEMA}`")
