"""The stdlib fast path must behave exactly like the typer command line for
every command line it accepts, and hand everything else to typer."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.cli.fastpath import parse

from .support import FIXTURES, invoke

ACCEPTED = [
    ["list"],
    ["list", "--json"],
    ["apply", "--repo", "repo"],
    ["apply", "--repo=repo", "--dry-run"],
    ["apply", "--repo", "repo", "--check"],
    ["apply", "--repo", "repo", "--json", "--dry-run", "--bridge", "sdk"],
    ["apply", "--repo", "repo", "--only", "search-schema", "--only=iframe-renderer"],
    ["apply", "--repo", "repo", "--dry-run", "--check"],
    ["apply", "--repo", "repo", "--only", "nope"],
    ["apply", "--repo", "repo", "--lock-timeout", "5", "--bridge=compat"],
    ["apply", "--repo", "missing-dir"],
    ["status", "--repo", "repo"],
    ["status", "--repo", "repo", "--json"],
    ["apply", "--repo", "repo", "--dry-run", "--formatter", "none"],
    ["apply", "--repo", "repo", "--json", "--formatter=auto"],
    ["apply", "--repo", "repo", "--check", "--formatter", "biome"],
    ["status", "--repo", "repo", "--formatter", "none"],
    ["status", "--repo", "repo", "--json", "--formatter=biome"],
]

HANDED_TO_TYPER = [
    [],
    ["--help"],
    ["apply", "--help"],
    ["apply", "--bridge", "magic"],
    ["apply", "--repo"],
    ["apply", "--repo", "--check"],
    ["apply", "--repo", "a", "--repo", "b"],
    ["apply", "--lock-timeout", "soon"],
    ["apply", "--unknown"],
    ["apply", "--formatter", "prettier"],
    ["status", "--formatter", "prettier"],
    ["apply", "positional"],
    ["status", "--dry-run"],
    ["list", "--repo", "x"],
    ["patch", "--out", "x"],
]


def _run_in(tmp: Path, argv: list[str], runner) -> tuple[int, str, str]:
    shutil.copytree(FIXTURES / "newest" / "input", tmp / "repo")
    return runner(argv)


@pytest.mark.parametrize("argv", ACCEPTED, ids=" ".join)
def test_fast_path_matches_typer(argv: list[str], tmp_path: Path, monkeypatch, capsys) -> None:
    command = parse(argv)
    assert command is not None

    def fast(args):
        code = parse(args)()
        out = capsys.readouterr()
        return code, out.out, out.err

    def typer(args):
        result = invoke(*args)
        return result.exit_code, result.stdout, result.stderr

    outcomes = []
    for name, runner in (("fast", fast), ("typer", typer)):
        work = tmp_path / name
        work.mkdir()
        monkeypatch.chdir(work)
        outcomes.append(_run_in(work, argv, runner))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("argv", HANDED_TO_TYPER, ids=lambda a: " ".join(a) or "(none)")
def test_everything_else_goes_to_typer(argv: list[str]) -> None:
    assert parse(argv) is None


def test_a_host_run_loads_neither_typer_nor_the_sdk_recipes() -> None:
    """A dry run on a mesh checkout imports only what it uses: not typer
    (the fast path), not the SDK target's recipes (the lazy registry) nor
    the Markdown grammar that only the SDK's SEP text needs."""
    probe = (
        "import os, sys\n"
        "from codemods.__main__ import main\n"
        "leave = os._exit\n"
        "def report(code):\n"
        "    loaded = sorted(m for m in sys.modules if m in ('typer', 'tree_sitter_markdown') or m.startswith('codemods.recipes.sdk'))\n"
        "    print(code, loaded, file=sys.stderr, flush=True)\n"
        "    leave(code)\n"
        "os._exit = report\n"
        "sys.argv = ['mesh-codemod', 'apply', '--repo', sys.argv[1], '--dry-run']\n"
        "main()\n"
    )
    result = subprocess.run([sys.executable, "-c", probe, str(FIXTURES / "newest" / "input")], capture_output=True, text=True)
    assert result.stderr.strip().splitlines()[-1] == "0 []", result.stderr
