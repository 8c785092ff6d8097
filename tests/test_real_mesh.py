"""The codemod on real decocms/mesh revisions.

Set MESH_GIT_DIR to a mesh clone (a bare git directory is enough). Every
revision from the commit that introduced ``unifiedChatSearchSchema`` to
MESH_REV (default HEAD) is covered; revisions whose target files are
byte-identical are run once unless MESH_ALL_REVISIONS=1. Without
MESH_GIT_DIR these tests are skipped (CI has no network to fetch mesh).
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from codemods.recipes import host

from .support import invoke, snapshot

MESH = os.environ.get("MESH_GIT_DIR")
REV = os.environ.get("MESH_REV", "HEAD")
FIRST = "cdb3fe89518ce3ddbae9e837fe3d9a18638a5eed"  # 2026-04-21, introduces the schema
SECTION_4 = {step.path for step in host.STEPS}
# the files each revision has (the steps' files the tool does not create)
EXISTING = sorted(step.path for step in host.STEPS if step.new_file is None)

pytestmark = pytest.mark.skipif(not MESH, reason="MESH_GIT_DIR is not set")


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", MESH, *args], check=True, capture_output=True, text=True).stdout


def _revisions() -> list:
    if not MESH:
        return []
    seen: dict[str, str] = {}
    for rev in _git("rev-list", "--reverse", f"{FIRST}^..{REV}").split():
        shape = _git("rev-parse", *[f"{rev}:{p}" for p in EXISTING]) if os.environ.get("MESH_ALL_REVISIONS") != "1" else rev
        seen.setdefault(shape, rev)
    return [pytest.param(rev, id=rev[:10]) for rev in seen.values()]


def _checkout(rev: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", MESH, "archive", rev, "apps/mesh/src", "apps/mesh/package.json", "package.json"],
        check=True, capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


@pytest.mark.parametrize("rev", _revisions())
def test_supported_revision(rev: str, tmp_path: Path) -> None:
    repo = _checkout(rev, tmp_path / "mesh")
    before = snapshot(repo)

    result = invoke("apply", "--repo", repo)
    assert result.exit_code == 0, result.output

    after = snapshot(repo)
    changed = {p for p in after if before.get(p) != after[p]} | (before.keys() - after.keys())
    assert changed == SECTION_4
    assert invoke("apply", "--repo", repo, "--check").exit_code == 0


def test_revision_before_the_schema_is_refused(tmp_path: Path) -> None:
    repo = _checkout(f"{FIRST}^", tmp_path / "mesh")
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo)
    assert result.exit_code == 3
    assert "apps/mesh/src/web/index.tsx" in result.stderr
    assert "unifiedChatSearchSchema" in result.stderr
    assert snapshot(repo) == before
