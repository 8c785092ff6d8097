"""patches/: the series (and PR body) the tool makes from the bundled fixture.

The committed files must be what the tool makes today:
`UPDATE_PATCHES=1 ./scripts/test -k patches` rewrites them (review the diff).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .gitrepo import fixture_repo, git
from .support import FIXTURES, ROOT, invoke, snapshot

PATCHES = ROOT / "patches"
AUTHOR = "mesh-codemod <mesh-codemod@users.noreply.github.com>"
UPDATE = os.environ.get("UPDATE_PATCHES") == "1"
GENERATED = ("*.patch", "PR.md")
FAKE_TOOLS = ROOT / "tests" / "fake_tools"


def _committed() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for pattern in GENERATED for p in sorted(PATCHES.glob(pattern))}


def _generate(tmp: Path) -> dict[str, bytes]:
    repo = fixture_repo(tmp / "repo")
    out = tmp / "out"
    result = invoke("patch", "--repo", repo, "--out", out, "--author", AUTHOR)
    assert result.exit_code == 0, result.output
    result = invoke(
        "pr", "--repo", repo, "--branch", "codemod/app-state", "--author", AUTHOR, "--body-out", out / "PR.md"
    )
    assert result.exit_code == 0, result.output
    return snapshot(out)


def test_committed_patches_are_up_to_date(tmp_path: Path) -> None:
    made = _generate(tmp_path)
    if UPDATE:
        for name in _committed():
            (PATCHES / name).unlink()
        for name, data in made.items():
            (PATCHES / name).write_bytes(data)
    committed = _committed()
    assert sorted(committed) == sorted(made), "patches/ is out of date: UPDATE_PATCHES=1 ./scripts/test -k patches"
    for name in made:
        assert committed[name] == made[name], f"patches/{name} is out of date: UPDATE_PATCHES=1 ./scripts/test -k patches"


def _bin(folder: Path, **tools: Path) -> Path:
    """A folder for PATH holding only links to ``tools`` (name -> program)."""
    folder.mkdir()
    for name, program in tools.items():
        (folder / name).symlink_to(program)
    return folder


def test_patches_do_not_depend_on_the_node_tools_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with a global bun, biome, oxlint and tsc writes the same
    series and PR body as one with none of them (SPEC section 7)."""
    git_program = Path(shutil.which("git") or pytest.fail("git is not on PATH"))
    bare = _bin(tmp_path / "bare-bin", git=git_program)
    stand_ins = {name: FAKE_TOOLS / name for name in ("bun", "biome", "oxlint")}
    loaded = _bin(tmp_path / "tools-bin", git=git_program, tsc=FAKE_TOOLS / "bun", **stand_ins)

    monkeypatch.setenv("PATH", str(bare))
    without = _generate(tmp_path / "without")
    monkeypatch.setenv("PATH", str(loaded))
    with_tools = _generate(tmp_path / "with")

    assert sorted(with_tools) == sorted(without)
    for name in without:
        assert with_tools[name] == without[name], f"{name} differs when bun, biome, oxlint and tsc are on PATH"


def test_committed_patches_apply_with_git_am_to_the_fixture_output(tmp_path: Path) -> None:
    """They reach the same tree as `apply` on the fixture (compat: no SDK installed)."""
    repo = fixture_repo(tmp_path / "repo")
    patches = sorted(PATCHES.glob("*.patch"))
    if not patches:
        pytest.fail("patches/ holds no series: UPDATE_PATCHES=1 ./scripts/test -k patches")
    git(repo, "am", "-q", *map(str, patches))
    files = {p: d for p, d in snapshot(repo).items() if not p.startswith(".git/")}
    assert files == snapshot(FIXTURES / "newest" / "expected-compat")
