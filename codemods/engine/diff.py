"""Unified diffs that ``git apply`` accepts."""

from __future__ import annotations

import difflib


def _lines(data: bytes) -> list[str]:
    # surrogateescape keeps any byte sequence round-trippable
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def unified_diff(path: str, old: bytes | None, new: bytes | None, context: int = 3) -> str:
    """A git-style diff of one file; ``old is None`` is a new file, ``new is
    None`` a deleted one. Empty when nothing changed."""
    if old == new:
        return ""
    a = _lines(old or b"")
    b = _lines(new or b"")
    header = [f"diff --git a/{path} b/{path}\n"]
    if old is None:
        header.append("new file mode 100644\n")
    elif new is None:
        header.append("deleted file mode 100644\n")
    fromfile = "/dev/null" if old is None else f"a/{path}"
    tofile = "/dev/null" if new is None else f"b/{path}"
    body = []
    lines = difflib.unified_diff(a, b, fromfile, tofile, n=context, lineterm="\n")
    for index, line in enumerate(lines):
        body.append(line)
        if index < 2:
            continue  # the ---/+++ file headers
        if not line.endswith("\n"):
            body.append("\n\\ No newline at end of file\n")
    return "".join(header + body)
