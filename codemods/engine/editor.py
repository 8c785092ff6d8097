"""Ensure operations: make sure things exist next to the anchors that
:mod:`.find` locates.

Every ``ensure_*`` operation first looks for its result and records no edit
when it is already there, which is what makes every recipe idempotent and
lets a partly applied tree be completed instead of duplicated. It sees what
earlier operations of the same run planned for the same container (a list,
an import) and merges with it. Edits are recorded on the original bytes and
applied in one pass by :meth:`FileEditor.result`; layout is asked of
:mod:`.layout` and :mod:`.snippet_printer` for the file's
:class:`~.style.Style`.
"""

from __future__ import annotations

from .outcome import SyntaxProblem
from .parsing import first_error, reparse
from .import_edits import ImportEdits
from .list_edits import ListEdits
from .retire_edits import RetireEdits


class FileEditor(ImportEdits, ListEdits, RetireEdits):
    """Collects edits for one :class:`SourceFile`."""

    def _lay_out_planned(self) -> None:
        lay_out = {"list": self._lay_out_list, "members": self._lay_out_members, "jsx": self._lay_out_jsx}
        for planned in self._planned.values():
            lay_out[planned.kind](planned)
        self._planned.clear()

    def result(self) -> bytes:
        """The edited bytes (BOM restored); refuses output that does not parse.
        Planned lists and imports are laid out here, once each."""
        self._lay_out_planned()
        self._lay_out_imports()
        self._imports.clear()
        data = self.edits.apply(self.source.data)
        if data != self.source.data:
            error = first_error(reparse(self.source.tree, self.source.data, data, self.edits))
            if error:
                raise SyntaxProblem(
                    self.path,
                    f"the edited file would not parse (line {error[0]}, column {error[1]})",
                )
        return self.source.to_bytes(data)
