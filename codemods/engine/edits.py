"""Edits as data: byte ranges of the original text and their replacement.

Modelled on rustfix: edits are kept sorted, overlapping ranges are
rejected, and so is a duplicate: the same edit planned twice is a bug of
the operation that planned it, reported rather than hidden. The new text
is built in one pass over the original bytes. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterator

from typing import NamedTuple


class Edit(NamedTuple):
    """Replace ``source[start:end]`` with ``text``; ``start == end`` inserts."""

    start: int
    end: int
    text: bytes


class OverlapError(ValueError):
    """Two edits claim the same bytes with different results."""

    def __init__(self, first: Edit, second: Edit) -> None:
        super().__init__(
            f"edits overlap: bytes {first.start}..{first.end} and "
            f"{second.start}..{second.end}"
        )
        self.first = first
        self.second = second


class DuplicateEdit(OverlapError):
    """The same edit was planned twice (an ensure operation that did not see
    its own earlier work)."""

    def __init__(self, edit: Edit) -> None:
        ValueError.__init__(
            self, f"the same edit was planned twice: bytes {edit.start}..{edit.end} -> {edit.text[:60]!r}"
        )
        self.first = self.second = edit


class EditSet:
    """An ordered, conflict-free collection of edits to one text.

    Insertions at the same offset are kept in the order they were added, so
    two ensure operations that both append to a list produce their items in
    call order.
    """

    def __init__(self) -> None:
        self._edits: list[tuple[int, int, int, Edit]] = []

    def __len__(self) -> int:
        return len(self._edits)

    def __bool__(self) -> bool:
        return bool(self._edits)

    def __iter__(self) -> Iterator[Edit]:
        """The edits in document order."""
        return (edit for _, _, _, edit in self._edits)

    def add(self, edit: Edit) -> None:
        if not 0 <= edit.start <= edit.end:
            raise ValueError(f"bad edit range {edit.start}..{edit.end}")
        for _, _, _, other in self._edits:
            if other == edit:
                raise DuplicateEdit(edit)
            if _overlaps(edit, other):
                raise OverlapError(other, edit)
        self._edits.append((edit.start, edit.end, len(self._edits), edit))
        self._edits.sort()

    def replace(self, start: int, end: int, text: str | bytes) -> None:
        self.add(Edit(start, end, text.encode() if isinstance(text, str) else text))

    def insert(self, offset: int, text: str | bytes) -> None:
        self.replace(offset, offset, text)

    def apply(self, source: bytes) -> bytes:
        out: list[bytes] = []
        cursor = 0
        for start, end, _, edit in self._edits:
            if end > len(source):
                raise ValueError(f"edit {start}..{end} is past the end of the text")
            out.append(source[cursor:start])
            out.append(edit.text)
            cursor = end
        out.append(source[cursor:])
        return b"".join(out)


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end and b.start == b.end:
        return False  # two insertions at one point: kept in call order
    if a.start == a.end:
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end
