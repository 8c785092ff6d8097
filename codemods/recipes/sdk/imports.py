"""Imports for the names that mirrored code uses, beside their size-changed twins."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ...engine.editor import FileEditor
from ...engine.outcome import AnchorMissing
from ...engine.statements import Item
from .common import Words


def ensure_imported_beside_twins(editor: FileEditor, texts: Iterable[str], w: Words) -> None:
    """Every name of the new notification's type (and its schema) that the
    given code uses is imported right after its size-changed twin, with
    the twin's `type` modifier."""
    pattern = re.compile(rf"\b{re.escape(w.state)}\w*")
    wanted = sorted({name for text in texts for name in pattern.findall(text)})
    clauses = [c for statement in editor.imports() for c in editor.walk(statement) if c.type == "named_imports"]
    imported = {editor.item_key(spec) for clause in clauses for spec in editor.list_items(clause)}
    for name in wanted:
        if name in imported:
            continue  # already imported, wherever that is
        twin = w.twin(name)
        beside = [(c, s) for c in clauses for s in editor.list_items(c) if editor.item_key(s) == twin]
        if not beside:
            raise AnchorMissing(editor.path, f"an import of `{twin}` to import `{name}` beside")
        clause, spec = beside[0]
        editor.ensure_list_items(clause, [Item(name, w.rename(editor.text(spec)))], after=twin)
