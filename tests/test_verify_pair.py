"""verify's type check of the patched tree and the base in one process
(codemods/tsc_pair.cjs), with the real TypeScript of tools/.

It must report what two full runs of the script's `tsc` report: the same
new errors, the same count of errors the base already has. Each case runs
both ways on the same trees and compares.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codemods.checks import verify
from codemods.plan.baseline import baseline_of as _baseline
from codemods.plan.repository import open_repo

from .gitrepo import commit_all, git
from .node_tools import BIN, NODE_MODULES, require

TSCONFIG = {"compilerOptions": {"strict": True, "noEmit": True, "target": "ES2022", "module": "ESNext",
                                "moduleResolution": "Bundler", "skipLibCheck": True}, "include": ["src"]}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A mesh-shaped checkout whose apps/mesh `check` is `tsc --noEmit`, with
    one error the base already has (src/legacy.ts), TypeScript installed."""
    require(NODE_MODULES / "typescript" / "package.json", "typescript")
    require(BIN / "bun", "bun")
    if shutil.which("node") is None:
        require(Path("/usr/bin/node"), "node")
    repo = tmp_path / "mesh"
    app = repo / "apps/mesh"
    (app / "src").mkdir(parents=True)
    (repo / "package.json").write_text('{"name": "mesh", "private": true}\n')
    (app / "package.json").write_text(json.dumps({"name": "app", "scripts": {"check": "tsc --noEmit"}}) + "\n")
    (app / "tsconfig.json").write_text(json.dumps(TSCONFIG, indent=2) + "\n")
    (app / "src/legacy.ts").write_text("export const legacy: number = 'old';\n")
    (app / "src/shapes.ts").write_text("export interface Shape {\n  size: number;\n}\n")
    (app / "src/use.ts").write_text("import type { Shape } from './shapes';\nexport const s: Shape = { size: 1 };\n")
    (repo / ".gitignore").write_text("node_modules/\n")
    git(repo.parent, "init", "-q", "-b", "main", str(repo))
    commit_all(repo, "base")
    (repo / "node_modules").mkdir()
    (repo / "node_modules" / "typescript").symlink_to(NODE_MODULES / "typescript")
    monkeypatch.setenv("PATH", f"{BIN}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("MESH_CODEMOD_CACHE", str(tmp_path / "cache"))
    return repo


def _both_ways(repo: Path, files: list[str], monkeypatch: pytest.MonkeyPatch, cache: Path) -> tuple:
    head = git(repo, "rev-parse", "HEAD").strip()
    baseline = _baseline(open_repo(repo), repo, head, "HEAD")
    paired = verify.run(repo, files, baseline)
    check = next(c for c in paired.checks if c.name == "typecheck")
    assert "(and the base, in one process)" in check.command, check
    monkeypatch.setenv("MESH_CODEMOD_CACHE", str(cache))  # nothing cached for the second way
    monkeypatch.setattr(verify, "pair_for", lambda *args: None)
    two_runs = verify.run(repo, files, baseline)
    other = next(c for c in two_runs.checks if c.name == "typecheck")
    assert other.command == "cd apps/mesh && bun run check", other
    return check, other


def _same(paired: verify.Check, two_runs: verify.Check) -> None:
    assert (paired.outcome, paired.summary) == (two_runs.outcome, two_runs.summary)
    assert paired.output == two_runs.output


def test_new_errors_and_known_ones_as_two_runs_find_them(project: Path, monkeypatch, tmp_path: Path) -> None:
    app = project / "apps/mesh/src"
    # a touched file that keeps the base's error, a changed interface whose
    # user breaks, and a new file with an error of its own
    (app / "legacy.ts").write_text("// touched\nexport const legacy: number = 'old';\n")
    (app / "shapes.ts").write_text("export interface Shape {\n  size: string;\n}\n")
    (app / "added.ts").write_text("export const added: boolean = 1;\n")
    files = ["apps/mesh/src/legacy.ts", "apps/mesh/src/shapes.ts", "apps/mesh/src/added.ts"]
    paired, two_runs = _both_ways(project, files, monkeypatch, tmp_path / "cache-2")
    assert paired.outcome is verify.Outcome.FAILED
    assert paired.summary.startswith("2 new error(s); 1 already in the unpatched tree (baseline: HEAD ")
    assert "src/use.ts(2," in paired.output and "src/added.ts(1," in paired.output
    assert "legacy.ts" not in paired.output
    _same(paired, two_runs)


def test_a_clean_change_passes_as_two_runs_pass_it(project: Path, monkeypatch, tmp_path: Path) -> None:
    (project / "apps/mesh/src/added.ts").write_text("export const added = 1;\n")
    paired, two_runs = _both_ways(project, ["apps/mesh/src/added.ts"], monkeypatch, tmp_path / "cache-2")
    assert paired.outcome is verify.Outcome.PASSED
    assert paired.summary.startswith("no new errors; 1 already in the unpatched tree")
    _same(paired, two_runs)


def test_a_fixed_error_is_not_counted_and_a_moved_one_is_known(project: Path, monkeypatch, tmp_path: Path) -> None:
    app = project / "apps/mesh/src"
    (app / "legacy.ts").write_text("export const legacy: number = 1;\n\n\nexport const again: number = 'old';\n")
    paired, two_runs = _both_ways(project, ["apps/mesh/src/legacy.ts"], monkeypatch, tmp_path / "cache-2")
    assert paired.summary.startswith("no new errors; 1 already in the unpatched tree")
    _same(paired, two_runs)
