"""Shared helpers: fixture trees, the command line in-process, tree snapshots."""

from __future__ import annotations

import os
import shutil
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
