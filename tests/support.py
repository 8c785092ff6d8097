"""Shared helpers: fixture trees, the command line in-process, tree snapshots."""

from __future__ import annotations

import fcntl
import os
import shutil
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codemods.cli.app import app
from codemods.recipes.base import Bridge, Context
from codemods.recipes.host import STEPS as HOST_STEPS

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "host"
# UPDATE_FIXTURES=1 rewrites the expected trees from the current output.
UPDATE = os.environ.get("UPDATE_FIXTURES") == "1"
# A case's files that an earlier release of the tool wrote, by tree: not
# committed, made from the store of earlier releases (``from_store``).
FROM_STORE = "from-store.toml"


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` (relative path -> bytes)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def from_store(case: Path, tree: str) -> dict[str, bytes]:
    """The files of ``case``'s ``tree`` (``input``, ``expected-compat``)
    that its from-store.toml lists: what the case's ``release`` wrote,
    written in ``bridge`` mode. Each is rendered as the tool renders that
    release's template from its store (codemods/recipes/host/releases/)
    for the tree at hand, in the run's wiring, then given the team's
    ``edits`` of it since (each [old, new] found once)."""
    declared = case / FROM_STORE
    if not declared.is_file():
        return {}
    spec = tomllib.loads(declared.read_text())
    ctx = Context(case / tree, Bridge(spec["bridge"]))
    files = {}
    for path in spec.get(tree, []):
        new_file = next(s.new_file for s in HOST_STEPS if s.path == path and s.new_file is not None)
        release = next(r for r in new_file.releases() if r.version == spec["release"])
        wiring = new_file.wirings(ctx)[0] if new_file.wirings is not None else ""
        text = new_file.render(ctx, release.templates, wiring)
        for old, new in spec.get("edits", {}).get(path, []):
            assert text.count(old) == 1, f"{declared}: {old!r} is not in {path} once"
            text = text.replace(old, new)
        files[path] = text.encode()
    return files


def fixture_files(case: Path, tree: str) -> dict[str, bytes]:
    """Every file of ``case``'s ``tree`` (relative path -> bytes): the
    committed ones and those made from the store."""
    files = snapshot(case / tree)
    made = from_store(case, tree)
    both = sorted(files.keys() & made.keys())
    assert not both, f"{case / tree}: {', '.join(both)} committed and listed in {FROM_STORE}"
    return files | made


def fixture_tree(case: Path, into: Path, tree: str = "input") -> Path:
    """A writable copy of ``case``'s ``tree`` at ``into``, whole."""
    shutil.copytree(case / tree, into)
    for path, data in fixture_files(case, tree).items():
        if not (into / path).is_file():  # made from the store
            (into / path).parent.mkdir(parents=True, exist_ok=True)
            (into / path).write_bytes(data)
    return into


def invoke(*args: str | Path):
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result


@pytest.fixture
def host_tree(tmp_path: Path):
    """A writable copy of a fixture's input tree."""

    def make(case: str = "newest") -> Path:
        return fixture_tree(FIXTURES / case, tmp_path / case)

    return make


def shared(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """A folder that ``make`` fills once a test run, for every xdist worker
    of it: the first test to ask makes it (under a lock), the others wait
    for it and reuse it. Tests copy from it and never write into it."""
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    folder = root / f"shared-{name}"
    with open(root / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / f"shared-{name}.done").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            (root / f"shared-{name}.done").touch()
    return folder
