"""The dry run's diffs (``FileChange.diff``): unified diffs that ``git
apply`` takes, on texts drawn by Hypothesis from a few lines so that
repeated lines (``}``, blank lines) are common."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from codemods.plan.model import FileChange, split_lines

LINES = st.sampled_from(["}\n", "\n", "  a();\n", "  b();\n", "const x = 1;\n", "if (y) {\n", "return;\n", "z\n"])
TEXTS = st.lists(LINES, max_size=30)


def unified_diff(path: str, old: bytes | None, new: bytes) -> str:
    return FileChange(path, old, new, []).diff()


def _apply(diff: str, old: str) -> str:
    """A strict applier of one file's hunks: every context and removed line
    must be found where the header says, and the counts must match."""
    lines = split_lines(old.encode())
    rows = split_lines(diff.encode())[3:]  # after the diff --git, --- and +++ lines
    out: list[str] = []
    at = 0
    counts = None
    for index, row in enumerate(rows):
        if row.startswith("@@ "):
            assert counts in (None, [0, 0]), "the previous hunk's counts do not match"
            old_range, new_range = row.split(" ")[1:3]
            start, _, count = old_range[1:].partition(",")
            counts = [int(count or 1), int(new_range[1:].partition(",")[2] or 1)]
            old_start = int(start) - (1 if counts[0] else 0)
            out += lines[at:old_start]
            at = old_start
            continue
        if row.startswith("\\"):
            continue
        line = row[1:]
        if index + 1 < len(rows) and rows[index + 1].startswith("\\ No newline"):
            line = line[:-1]
        if row[0] in " -":
            assert lines[at] == line, (at, lines[at], line)
            at += 1
            counts[0] -= 1
        if row[0] in " +":
            out.append(line)
            counts[1] -= 1
    assert counts in (None, [0, 0])
    return "".join(out + lines[at:])


@given(a=TEXTS, b=TEXTS, a_end=st.booleans(), b_end=st.booleans())
@settings(max_examples=400)
def test_unified_diff_applies(a: list[str], b: list[str], a_end: bool, b_end: bool) -> None:
    old, new = "".join(a), "".join(b)
    old = old if a_end else old.rstrip("\n")  # with and without a final newline
    new = new if b_end else new.rstrip("\n")
    diff = unified_diff("f.ts", old.encode(), new.encode())
    assert (diff == "") == (old == new)
    assert _apply(diff, old) == new


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pairs=st.lists(st.tuples(TEXTS, TEXTS), min_size=20, max_size=20))
def test_git_applies_the_diffs(pairs, tmp_path_factory) -> None:
    repo = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    patch = []
    for index, (a, b) in enumerate(pairs):
        (repo / f"{index}.ts").write_text("".join(a))
        patch.append(unified_diff(f"{index}.ts", "".join(a).encode(), "".join(b).encode()))
    assume(any(patch))
    subprocess.run(["git", "apply", "-"], input="".join(patch).encode(), cwd=repo, check=True)
    for index, (_, b) in enumerate(pairs):
        assert (repo / f"{index}.ts").read_text() == "".join(b)


def test_lines_end_at_newline_only(tmp_path: Path) -> None:
    """A lone CR or a U+2028 inside a line (in a string literal, say) does
    not end it: the diff applies (str.splitlines would break the line there
    and mark the piece as lacking its final newline)."""
    old = 'const a = "x\u2028y";\r\nconst b = "p\rq";\nz\n'.encode()
    new = old + b"w\n"
    diff = unified_diff("f.ts", old, new)
    assert "No newline" not in diff
    (tmp_path / "f.ts").write_bytes(old)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "apply", "-"], input=diff.encode(), cwd=tmp_path, check=True)
    assert (tmp_path / "f.ts").read_bytes() == new
