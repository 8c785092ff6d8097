"""Every fixture tree against its expected output, in every bridge mode.

The harness, not each case, checks idempotency: after a successful run a
second run must report nothing to do and change no byte, and `--check`
must then exit 0. Refusals must leave the tree exactly as it was.

Outcomes (case.json, per mode): ``apply``; ``rewrite``, an apply that
replaces earlier forms (a migration between bridge modes or SDK forms, an
upgrade of what an earlier release wrote), which the report must name; and
``refuse``.
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
from pathlib import Path

import pytest

from .node_tools import require_pinned_schemas
from .support import FIXTURES, UPDATE, fixture_files, fixture_tree, from_store, invoke, snapshot


def _cases():
    # One harness for every target's fixtures (fixtures/<target>/<case>/).
    for root in sorted(p for p in FIXTURES.parent.iterdir() if p.is_dir()):
        for case in sorted(p for p in root.iterdir() if (p / "case.json").is_file()):
            for mode, outcome in json.loads((case / "case.json").read_text()).items():
                prefix = "" if root == FIXTURES else f"{root.name}-"
                yield pytest.param(case, mode, outcome, id=f"{prefix}{case.name}-{mode}")


@pytest.mark.parametrize(("case", "mode", "outcome"), list(_cases()))
def test_fixture(case: Path, mode: str, outcome: str, tmp_path: Path) -> None:
    if case.parent.name == "sdk" and outcome != "refuse":
        require_pinned_schemas()  # the expected generated files are its output
    work = fixture_tree(case, tmp_path / "repo")
    before = snapshot(work)

    result = invoke("apply", "--repo", work, "--bridge", mode)

    if outcome == "refuse":
        assert result.exit_code == 3, result.output
        assert snapshot(work) == before, "a refused run must write nothing"
        expected = case / f"refused-{mode}.txt"
        report = "\n".join(
            l.strip()
            for l in result.stderr.splitlines()
            if "refused" in l or "anchor" in l or "conflict" in l.lower() or "changed since" in l
        )
        if UPDATE:
            expected.write_text(report + "\n")
        for line in expected.read_text().splitlines():
            assert line.strip() in result.stderr, f"missing from the report: {line}"
        return

    assert result.exit_code == 0, result.output
    rewrote = re.search(r"^ +(migrate|upgrade) (lines? [0-9-]+|the file): ", result.stderr, re.M) is not None
    assert rewrote == (outcome == "rewrite"), result.stderr
    expected_dir = case / f"expected-{mode}"
    if UPDATE:
        shutil.rmtree(expected_dir, ignore_errors=True)
        shutil.copytree(work, expected_dir)
        for path, data in from_store(case, expected_dir.name).items():
            if (expected_dir / path).is_file() and (expected_dir / path).read_bytes() == data:
                (expected_dir / path).unlink()  # made from the store, as listed
    assert snapshot(work) == fixture_files(case, expected_dir.name)

    after = snapshot(work)
    again = invoke("apply", "--repo", work, "--bridge", mode)
    assert again.exit_code == 0, again.output
    assert "nothing to do" in again.stderr
    assert snapshot(work) == after, "the second run changed the tree"
    assert invoke("apply", "--repo", work, "--bridge", mode, "--check").exit_code == 0


@pytest.mark.parametrize(
    ("case", "mode", "outcome"), [p for p in _cases() if p.values[2] == "apply"]
)
def test_only_owned_lines_change(case: Path, mode: str, outcome: str) -> None:
    """Outside the new files, every line of the input survives in order: the
    recipes only add lines or extend existing ones, never drop or reorder."""
    expected = fixture_files(case, f"expected-{mode}")
    for path, old in fixture_files(case, "input").items():
        new = expected[path]
        if old == new:
            continue
        assert old.startswith(b"\xef\xbb\xbf") == new.startswith(b"\xef\xbb\xbf"), path
        assert (b"\r\n" in old) == (b"\r\n" in new), path
        if b"\r\n" in old:
            assert new.count(b"\n") == new.count(b"\r\n"), f"{path}: mixed line endings"
        old_lines, new_lines = old.splitlines(), new.splitlines()
        if path == SEP_DRAFT:
            old_lines = _without_covered_future_work(old_lines, new_lines)
        if path == MIGRATION_GUIDE:
            old_lines, new_lines = _table_cells(old_lines), _table_cells(new_lines)
        _assert_subsequence_modulo_growth(path, old_lines, new_lines)


SEP_DRAFT = "specification/draft/apps.mdx"
MIGRATION_GUIDE = "docs/migrate_from_openai_apps.md"


def _table_cells(lines: list[bytes]) -> list[bytes]:
    """The migration guide's lines with each table row as its cells (the
    table is laid out again, so padding is no content) and, in the
    `widgetState` rows, only the first cell: their counterparts are the
    cells the docs step rewrites (SPEC 6). Every other cell must survive."""
    out = []
    for line in lines:
        text = line.decode()
        if text.lstrip().startswith("|") and text.rstrip().endswith("|"):
            cells = [c.strip() for c in text.strip()[1:-1].split("|")]
            if cells and "idgetState" in cells[0]:
                cells = cells[:1]
            elif cells and all(set(c) <= set(":-") for c in cells):
                cells = ["-"] * len(cells)
            text = "|".join(cells)
        out.append(text.encode())
    return out


def _without_covered_future_work(old: list[bytes], new: list[bytes]) -> list[bytes]:
    """The one edit of an existing line the SEP step makes: the future-work
    bullet that the feature now covers ("State persistence and
    restoration") leaves Extensibility (SPEC 6). Only a bullet of that
    kind may go; the subsequence check sees every other line."""
    from codemods.recipes.sdk.spec_sections import _FUTURE_STATE

    dropped = [line for line in old if line not in new and line.lstrip().startswith(b"- ")
               and _FUTURE_STATE.search(line.decode())]
    assert len(dropped) <= 1, dropped
    return [line for line in old if line not in dropped]


# The bridge store builds its host context in a method of its own: the
# builder's call and the config read it needs move there from
# pushHostContext() and attach(), which then reads fewer names of the
# config (a comment on the line of a name it no longer reads goes with the
# name); the bridge's capabilities constant moves into `capabilities`.
MOVES = {
    "apps/mesh/src/mcp-apps/use-app-bridge.ts": re.compile(
        rb"buildHostContext\(([^()]*)\)|\{([^{}]*)\}=this\.config;|(?<=newAppBridge\()[^,]*,[^,]*,(\w+),"
    )
}


def _assert_subsequence_modulo_growth(path: str, old: list[bytes], new: list[bytes]) -> None:
    """Every changed run of input lines survives inside its replacement: its
    characters (whitespace aside) appear there in order. Lines may be
    extended (`, appState`) or split (a list broken one item per line), but
    no input line is dropped, reordered or rewritten, except what MOVES
    says: a moved call survives in the file, and a config read keeps the
    names the file still uses."""
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    whole = re.sub(rb"\s+", b"", b"".join(new))
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or tag == "insert":
            continue
        before = re.sub(rb"\s+", b"", b"".join(old[i1:i2]))
        after = re.sub(rb"\s+", b"", b"".join(new[j1:j2]))
        moved = MOVES.get(path)
        if moved is not None and moved.search(before):
            for match in moved.finditer(before):
                call, names, constant = match.groups()
                assert constant is None or constant in whole, (path, constant)
                if call is not None:  # the two calls become one (a comment in either stays)
                    bare = re.sub(rb"/\*.*?\*/", b"", whole)
                    assert b"buildHostContext(" + re.sub(rb"/\*.*?\*/", b"", call).rstrip(b",") + b")" in bare, (
                        path, match.group(0),
                    )
                # a comment on a moved name's line goes with the name
                for name in re.sub(rb"//[^,}]*", b"", names or b"").split(b","):
                    assert not name or re.search(rb"\b" + re.escape(name) + rb"\b", whole), (path, name)
            before = moved.sub(b"", before)
        assert _is_subsequence(before, after if not moved else whole), (
            f"{path}: input lines {i1 + 1}-{i2} were not kept: {old[i1:i2]!r}"
        )


def _is_subsequence(needle: bytes, haystack: bytes) -> bool:
    it = iter(haystack)
    return all(byte in it for byte in needle)
