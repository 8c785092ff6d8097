"""Line diffs: how one text's lines become another's, and unified diffs
that ``git apply`` accepts.

Lines end at ``\\n`` only, as git counts them (``str.splitlines`` would
also break at a lone ``\\r`` or U+2028 inside a string literal, and the
patch would not apply). Edits are local, so a whole file is never matched
line against line: the common head and tail are cut off, the lines that
occur once on each side, in the same order, anchor what is left (the
anchors of patience diff), and difflib's matcher sees only the stretches
between anchors that differ.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import AnyStr

Opcode = tuple[str, int, int, int, int]  # difflib's (tag, i1, i2, j1, j2)


def split_lines(text: AnyStr) -> list[AnyStr]:
    """The lines of ``text``, each with its ``\\n`` (the last may lack one)."""
    newline = b"\n" if isinstance(text, bytes) else "\n"
    lines = text.split(newline)  # type: ignore[arg-type]
    last = lines.pop()
    return [line + newline for line in lines] + ([last] if last else [])  # type: ignore[operator]


def opcodes(a: Sequence, b: Sequence) -> list[Opcode]:
    """How to turn ``a`` into ``b``, as difflib's opcodes ("equal",
    "replace", "delete", "insert"), adjacent equal runs merged."""
    size = min(len(a), len(b))
    head = 0
    while head < size and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < size - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    a_end, b_end = len(a) - tail, len(b) - tail
    changes: list[Opcode] = []
    i0, j0 = head, head
    for i, j in [*_anchors(a, b, head, a_end, b_end), (a_end, b_end)]:
        if (i > i0 or j > j0) and a[i0:i] != b[j0:j]:
            matcher = difflib.SequenceMatcher(None, a[i0:i], b[j0:j], autojunk=False)
            changes.extend(
                (tag, i1 + i0, i2 + i0, j1 + j0, j2 + j0)
                for tag, i1, i2, j1, j2 in matcher.get_opcodes()
                if tag != "equal"
            )
        i0, j0 = i + 1, j + 1  # past the anchor, an equal line
    codes: list[Opcode] = []
    i0 = j0 = 0
    for change in changes:
        if change[1] > i0:
            codes.append(("equal", i0, change[1], j0, change[3]))
        codes.append(change)
        i0, j0 = change[2], change[4]
    if i0 < len(a):
        codes.append(("equal", i0, len(a), j0, len(b)))
    return codes


def _anchors(a: Sequence, b: Sequence, start: int, a_end: int, b_end: int) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` of lines found once in ``a[start:a_end]`` and once
    in ``b[start:b_end]``, equal, the longest chain of them in the same
    order on both sides."""
    once_a: dict = {}
    for i in range(start, a_end):
        once_a[a[i]] = -1 if a[i] in once_a else i
    once_b: dict = {}
    for j in range(start, b_end):
        once_b[b[j]] = -1 if b[j] in once_b else j
    pairs = sorted((i, once_b[line]) for line, i in once_a.items() if i >= 0 and once_b.get(line, -1) >= 0)
    # the longest increasing run of j (patience sorting)
    ends: list[int] = []  # smallest j that ends a chain of each length
    last: list[int] = []  # index in pairs of that chain's last pair
    before: list[int] = []  # each pair's predecessor in its chain
    for index, (_, j) in enumerate(pairs):
        length = bisect_left(ends, j)
        if length == len(ends):
            ends.append(j)
            last.append(index)
        else:
            ends[length] = j
            last[length] = index
        before.append(last[length - 1] if length else -1)
    chain = []
    index = last[-1] if last else -1
    while index >= 0:
        chain.append(pairs[index])
        index = before[index]
    return chain[::-1]


def changed_ranges(a: Sequence, b: Sequence) -> list[tuple[int, int, int, int]]:
    """The differing line ranges ``(i1, i2, j1, j2)`` of ``a`` and ``b``."""
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in opcodes(a, b) if tag != "equal"]


def _hunks(codes: list[Opcode], context: int) -> Iterator[list[Opcode]]:
    """The opcodes in hunks, with up to ``context`` equal lines around each
    change (difflib's grouping)."""
    if codes and codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    if codes and codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    hunk: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            hunk.append((tag, i1, i1 + context, j1, j1 + context))
            yield hunk
            hunk = []
            i1, j1 = i2 - context, j2 - context
        hunk.append((tag, i1, i2, j1, j2))
    if hunk and not (len(hunk) == 1 and hunk[0][0] == "equal"):
        yield hunk


def _range(start: int, stop: int) -> str:
    """A hunk header's ``start,length`` (1-based; the line before, for none)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def unified_diff(path: str, old: bytes | None, new: bytes | None, context: int = 3) -> str:
    """A git-style diff of one file; ``old is None`` is a new file, ``new is
    None`` a deleted one. Empty when nothing changed."""
    if old == new:
        return ""
    # surrogateescape keeps any byte sequence round-trippable
    a = split_lines((old or b"").decode("utf-8", "surrogateescape"))
    b = split_lines((new or b"").decode("utf-8", "surrogateescape"))
    out = [f"diff --git a/{path} b/{path}\n"]
    if old is None:
        out.append("new file mode 100644\n")
    elif new is None:
        out.append("deleted file mode 100644\n")
    out.append(f"--- {'/dev/null' if old is None else f'a/{path}'}\n")
    out.append(f"+++ {'/dev/null' if new is None else f'b/{path}'}\n")
    for hunk in _hunks(opcodes(a, b), context):
        out.append(f"@@ -{_range(hunk[0][1], hunk[-1][2])} +{_range(hunk[0][3], hunk[-1][4])} @@\n")
        for tag, i1, i2, j1, j2 in hunk:
            if tag == "equal":
                _emit(out, " ", a[i1:i2])
            else:
                _emit(out, "-", a[i1:i2])
                _emit(out, "+", b[j1:j2])
    return "".join(out)


def _emit(out: list[str], sign: str, lines: list[str]) -> None:
    out.extend(sign + line for line in lines)
    if lines and not lines[-1].endswith("\n"):  # only a text's last line can
        out.append("\n\\ No newline at end of file\n")
