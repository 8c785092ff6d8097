"""Shared helpers: fixture trees, the command line in-process, tree snapshots."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codemods.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "host"
# UPDATE_FIXTURES=1 rewrites the expected trees from the current output.
UPDATE = os.environ.get("UPDATE_FIXTURES") == "1"


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` (relative path -> bytes)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def invoke(*args: str | Path):
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result


@pytest.fixture
def host_tree(tmp_path: Path):
    """A writable copy of a fixture's input tree."""

    def make(case: str = "newest") -> Path:
        target = tmp_path / case
        shutil.copytree(FIXTURES / case / "input", target)
        return target

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
