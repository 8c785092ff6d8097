"""A host that formats with Prettier (SPEC 3 rule 9, 7): what the tool
writes there is in Prettier's style under the checkout's options, so the
checkout's own `prettier --check` passes on every file it touches, fresh,
upgraded from 0.6.0 and migrated between bridge modes.

The fixtures (fixtures/host/prettier*) hold a mesh-shaped host formatted by
Prettier with `printWidth: 100` and `singleQuote: true` in a `.prettierrc`,
and 0.6.0's output formatted by Prettier with those and `semi: false` under
package.json's "prettier" key; the layout is
the tool's own (no Prettier in the checkout), and the real Prettier of
tools/node_modules judges it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from .node_tools import BIN, require
from .support import FIXTURES, invoke, snapshot

FRESH = FIXTURES / "prettier"
RELEASE_060 = FIXTURES / "prettier-release-0.6.0"  # 0.6.0's output, formatted by the team's Prettier
OTHER = {"compat": "sdk", "sdk": "compat"}


@pytest.fixture
def prettier() -> Path:
    return require(BIN / "prettier", "prettier")


def _apply(repo: Path, mode: str) -> list[str]:
    """Run the tool in ``mode``; the files it wrote."""
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo, "--bridge", mode)
    assert result.exit_code == 0, result.output
    after = snapshot(repo)
    touched = sorted(path for path in after if before.get(path) != after[path])
    assert touched, result.stderr
    return touched


def _unformatted(prettier: Path, repo: Path, files: list[str]) -> str:
    """What `prettier --check` says of ``files`` (nothing when clean)."""
    check = subprocess.run([prettier, "--check", *files], cwd=repo, capture_output=True, text=True, timeout=120)
    return "" if check.returncode == 0 else check.stdout + check.stderr


def _tree(case: Path, tmp_path: Path, prettier: Path) -> Path:
    repo = tmp_path / case.name
    shutil.copytree(case / "input", repo)
    assert _unformatted(prettier, repo, ["."]) == "", "the fixture must start Prettier-clean"
    return repo


@pytest.mark.parametrize("mode", ["compat", "sdk"])
def test_fresh_output_passes_prettier_check(mode: str, prettier: Path, tmp_path: Path) -> None:
    repo = _tree(FRESH, tmp_path, prettier)
    assert _unformatted(prettier, repo, _apply(repo, mode)) == ""


@pytest.mark.parametrize("mode", ["compat", "sdk"])
def test_an_upgrade_from_0_6_0_passes_prettier_check(mode: str, prettier: Path, tmp_path: Path) -> None:
    repo = _tree(RELEASE_060, tmp_path, prettier)
    assert _unformatted(prettier, repo, _apply(repo, mode)) == ""


@pytest.mark.parametrize("case", [FRESH, RELEASE_060], ids=["fresh", "upgraded"])
@pytest.mark.parametrize("mode", ["compat", "sdk"])
def test_a_migration_between_bridge_modes_passes_prettier_check(
    mode: str, case: Path, prettier: Path, tmp_path: Path
) -> None:
    repo = _tree(case, tmp_path, prettier)
    _apply(repo, mode)
    assert _unformatted(prettier, repo, _apply(repo, OTHER[mode])) == ""



# Prettier's other options, each read from the checkout's configuration
OPTIONS = {
    "tabs": {"printWidth": 100, "useTabs": True},
    "four-spaces-at-120": {"printWidth": 120, "tabWidth": 4},
    "tight-braces-bare-arrows": {"printWidth": 100, "bracketSpacing": False, "arrowParens": "avoid"},
    "es5-commas": {"printWidth": 100, "singleQuote": True, "trailingComma": "es5"},
    "no-commas-no-semicolons": {"printWidth": 100, "trailingComma": "none", "semi": False},
}


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_prettiers_options_are_followed(options: dict, prettier: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FRESH / "input", repo)
    (repo / ".prettierrc").write_text(json.dumps(options))
    subprocess.run([prettier, "--write", "."], cwd=repo, capture_output=True, check=True, timeout=120)
    assert _unformatted(prettier, repo, _apply(repo, "sdk")) == ""

def test_verify_checks_the_touched_files_with_the_checkouts_prettier(prettier: Path, tmp_path: Path) -> None:
    from codemods.checks import verify

    repo = _tree(FRESH, tmp_path, prettier)
    touched = _apply(repo, "compat")
    (repo / "node_modules" / ".bin").mkdir(parents=True)
    (repo / "node_modules" / ".bin" / "prettier").symlink_to(prettier)
    check = next(c for c in verify.run(repo, touched).checks if c.name == "format")
    assert (check.outcome.value, check.command.split()[:2]) == ("passed", ["node_modules/.bin/prettier", "--check"])

    module = repo / "apps/mesh/src/mcp-apps/app-state.ts"
    module.write_text(module.read_text().replace("'", '"'))  # Biome's quotes, not this checkout's
    check = next(c for c in verify.run(repo, touched).checks if c.name == "format")
    assert check.outcome.value == "failed" and check.files == ("apps/mesh/src/mcp-apps/app-state.ts",)


def test_a_prettier_configuration_beside_biomes_formatter_changes_nothing(tmp_path: Path) -> None:
    """mesh formats TypeScript with Biome; a `.prettierrc` for its Markdown,
    and a script that runs Prettier on it, leave Biome's layout."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "newest" / "input", repo)
    (repo / ".prettierrc").write_text('{"printWidth": 100, "singleQuote": true}\n')
    package = json.loads((repo / "package.json").read_text())
    (repo / "package.json").write_text(json.dumps({**package, "scripts": {"format:md": "prettier --write '**/*.md'"}}))
    added = {path: data for path, data in snapshot(repo).items() if path in {".prettierrc", "package.json"}}
    _apply(repo, "compat")
    assert snapshot(repo) == {**snapshot(FIXTURES / "newest" / "expected-compat"), **added}


def test_a_configuration_that_is_a_program_is_not_run_and_the_report_says_so(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FRESH / "input", repo)
    (repo / ".prettierrc").rename(repo / "prettier.config.js")
    result = invoke("apply", "--repo", repo, "--bridge", "compat", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "note: prettier.config.js: a program, not read; Prettier's defaults are used" in result.stderr
