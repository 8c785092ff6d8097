"""A three-way merge by ``git merge-file``, and how far two texts are apart.

``base`` is the text both sides were made from, ``ours`` the team's copy,
``theirs`` the new one. Where the two sides changed the same or adjacent
lines differently, git reports a conflict; the merge then has no result
(the caller leaves the file alone and names the conflict's lines in
``ours``).
"""

from __future__ import annotations

import subprocess
import tempfile
from difflib import SequenceMatcher
from pathlib import Path
from typing import NamedTuple


class Merged(NamedTuple):
    """The merged text, or the conflicts: ``(first, last)`` line numbers
    (1-based, inclusive) of each region of ``ours`` that collides with a
    change in ``theirs`` (``first > last`` where ours has no lines there:
    before line ``first``)."""

    text: str
    conflicts: tuple[tuple[int, int], ...]


def differing_lines(a: str, b: str) -> int:
    """How many lines of ``a`` and ``b`` are not common to both (the size
    of their line diff)."""
    left, right = a.splitlines(), b.splitlines()
    matcher = SequenceMatcher(None, left, right, autojunk=False)
    return len(left) + len(right) - 2 * sum(size for _i, _j, size in matcher.get_matching_blocks())


# The conflict markers' labels, so that a marker is told from a line of text.
_OURS, _BASE, _THEIRS = "mesh-codemod:ours", "mesh-codemod:base", "mesh-codemod:theirs"


def merge(base: str, ours: str, theirs: str) -> Merged:
    """Merge ``theirs``' changes to ``base`` into ``ours`` with
    ``git merge-file -p``."""
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-merge-") as folder:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_bytes(text.encode("utf-8"))
            paths.append(str(path))
        labels = [arg for label in (_OURS, _BASE, _THEIRS) for arg in ("-L", label)]
        done = subprocess.run(["git", "merge-file", "-p", *labels, *paths], capture_output=True, check=False)
    # the exit status is the number of conflicts (capped at 127); negative or
    # above it, git failed
    if not 0 <= done.returncode <= 127:
        raise OSError(f"git merge-file failed: {done.stderr.decode('utf-8', 'replace').strip()}")
    text = done.stdout.decode("utf-8")
    if done.returncode == 0:
        return Merged(text, ())
    return Merged(text, _conflicts(text, ours.splitlines(keepends=True)))


def _conflicts(merged: str, ours: list[str]) -> tuple[tuple[int, int], ...]:
    """Where each conflict of ``merged`` (git's output, with markers) is in
    ``ours``: its side of the conflict is a run of ours' lines, found after
    the lines of ours the output already went through."""
    spans, at, side, chunk = [], 0, None, []
    for line in merged.splitlines(keepends=True):
        if line.startswith(f"<<<<<<< {_OURS}"):
            side, chunk = "ours", []
        elif side == "ours" and line.startswith("======="):
            start = next(
                (i for i in range(at, len(ours) - len(chunk) + 1) if ours[i:i + len(chunk)] == chunk), at
            )
            spans.append((start + 1, start + len(chunk)))
            at, side = start + len(chunk), "theirs"
        elif side == "theirs" and line.startswith(f">>>>>>> {_THEIRS}"):
            side = None
        elif side == "ours":
            chunk.append(line)
        elif side is None and at < len(ours) and ours[at] == line:
            at += 1
    return tuple(spans)
