"""src/types.ts: the new type, schema and method constant in the re-export
blocks, and the notification in the app-to-host union (in 1.x the union is
the protocol's send type, so `sendStateChanged` type-checks only with it),
unless that union is deprecated (2.x keeps `AppNotification` for 1.x
callers only: nothing reads it, and a deprecated type gains no members).
The type is imported beside its twin only where the union uses it."""

from __future__ import annotations

from ...engine.editor import FileEditor
from ...engine.outcome import AnchorMissing
from ...engine.statements import Item
from ..base import Context
from .common import SIZE, SIZE_METHOD_CONST, SIZE_SCHEMA, words_of

PATH = "src/types.ts"
_MIRRORED = {SIZE, SIZE_SCHEMA, SIZE_METHOD_CONST}


def transform(editor: FileEditor, ctx: Context) -> None:
    w = words_of(ctx)
    unions = [
        node for node in editor.walk()
        if node.type == "union_type" and (node.parent is None or node.parent.type != "union_type")
        and any(editor.text(m) == SIZE for m in editor.union_members(node))
    ]
    extended = False
    for union in unions:
        if "@deprecated" in editor.doc_text(editor.enclosing_statement(union)):
            editor.note("the deprecated app-to-host union is left as it is")
            continue
        editor.ensure_union_member(union, w.state, after=SIZE)
        extended = True
    found = 0
    for node in editor.walk():
        if node.type not in {"named_imports", "export_clause"}:
            continue
        for spec in editor.list_items(node):
            key = editor.item_key(spec)
            if key not in _MIRRORED:
                continue
            found += 1
            # an import only for the union's new member: nothing else here reads it
            if node.type == "export_clause" or extended and key == SIZE:
                editor.ensure_list_items(node, [Item(w.rename(key), w.rename(editor.text(spec)))], after=key)
    if not found:
        raise AnchorMissing(editor.path, f"a re-export of `{SIZE}` or `{SIZE_SCHEMA}`")
