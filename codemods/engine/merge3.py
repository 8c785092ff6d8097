"""A line-based three-way merge, as ``git merge-file`` does it.

``base`` is the text both sides were made from, ``ours`` the team's copy,
``theirs`` the new one. A region only one side changed takes that side's
lines; a region both changed the same way takes them once; a region both
changed differently is a conflict (the merge then has no result: the
caller leaves the file alone and names the conflict's lines in ``ours``).

One difference from ``git merge-file``: changes of the two sides that
touch different lines, even adjacent ones (a license header above an
import the new release drops, an edited constant right above a schema it
removes), are both applied instead of being a conflict; lines both sides
added at one place go ours first, except at the end of the file, where
the team's lines stay last. Only changes to the same lines conflict.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from typing import NamedTuple


class Merged(NamedTuple):
    """The merged text, or the conflicts: ``(first, last)`` line numbers
    (1-based, inclusive) of each region of ``ours`` whose change collides
    with one in ``theirs`` (``first > last`` for a collision at an
    insertion point: before line ``first``)."""

    text: str
    conflicts: tuple[tuple[int, int], ...]


def _matches(a: list[str], b: list[str]) -> list[tuple[int, int, int]]:
    return [tuple(m) for m in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()]


def differing_lines(a: str, b: str) -> int:
    """How many lines of ``a`` and ``b`` are not common to both (the size
    of their line diff)."""
    left, right = a.splitlines(), b.splitlines()
    same = sum(size for _i, _j, size in _matches(left, right))
    return len(left) + len(right) - 2 * same


def merge3(base: str, ours: str, theirs: str) -> Merged:
    """Merge ``theirs``' changes to ``base`` into ``ours``, line by line."""
    b, o, t = (text.splitlines(keepends=True) for text in (base, ours, theirs))
    with_ours, with_theirs = _matches(b, o), _matches(b, t)
    # the base lines both sides kept, with where they are in each
    syncs = []
    i = j = 0
    while i < len(with_ours) and j < len(with_theirs):
        b1, o1, n1 = with_ours[i]
        b2, t2, n2 = with_theirs[j]
        low, high = max(b1, b2), min(b1 + n1, b2 + n2)
        if low < high:
            syncs.append((low, high, o1 + low - b1, t2 + low - b2))
        if b1 + n1 < b2 + n2:
            i += 1
        else:
            j += 1
    syncs.append((len(b), len(b), len(o), len(t)))
    out: list[str] = []
    conflicts = []
    at_base = at_ours = at_theirs = 0
    for start, end, ours_start, theirs_start in syncs:
        was, mine, new = b[at_base:start], o[at_ours:ours_start], t[at_theirs:theirs_start]
        if mine == was:
            out += new
        elif not was and start == len(b) and new:
            out += new + mine  # both added at the end of the file: the team's lines stay last
        elif new == was or new == mine:
            out += mine
        elif (both := _side_by_side(was, mine, new)) is not None:
            out += both
        else:
            conflicts.append((at_ours + 1, ours_start))
        out += b[start:end]
        size = end - start
        at_base, at_ours, at_theirs = end, ours_start + size, theirs_start + size
    return Merged("".join(out), tuple(conflicts))


def _side_by_side(was: list[str], mine: list[str], new: list[str]) -> list[str] | None:
    """Both sides' changes to ``was`` applied together when they touch
    different lines of it (an insertion at the edge of the other's change
    included, ours first); None when they overlap."""
    edits = []
    for side, lines in ((0, mine), (1, new)):
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, was, lines, autojunk=False).get_opcodes():
            if tag != "equal":
                edits.append((i1, i2, lines[j1:j2], side))
    for a in (e for e in edits if e[3] == 0):
        for b in (e for e in edits if e[3] == 1):
            if _overlap(a[0], a[1], b[0], b[1]):
                return None
    out, at = [], 0
    for start, end, lines, _side in sorted(edits, key=lambda e: (e[0], e[1] > e[0], e[3])):
        out += was[at:start] + lines
        at = end
    return out + was[at:]


def _overlap(a1: int, a2: int, b1: int, b2: int) -> bool:
    if a1 == a2 and b1 == b2:
        return False  # two insertions at one place: ours, then theirs
    if a1 == a2:
        return b1 < a1 < b2
    if b1 == b2:
        return a1 < b1 < a2
    return a1 < b2 and b1 < a2
