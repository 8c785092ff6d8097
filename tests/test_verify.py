"""`mesh-codemod verify` and `pr`'s checks, with stand-in tools.

The stand-ins (tests/fake_tools) behave like Biome, oxlint and Bun on
marked input, in a mesh-shaped git checkout with node_modules/.bin; the
logic under test (which files, the baseline and its cache, outcomes, exit
codes, the report) is the tool's. test_real_mesh_verify runs the real
tools on an installed mesh checkout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from .gitrepo import BOT, commit_all, fixture_repo, git
from .support import ROOT, invoke

FAKES = ROOT / "tests" / "fake_tools"
MODULE = "apps/mesh/src/mcp-apps/app-state.ts"
# what tests/mesh_github's workflows run that verify cannot run here
NOT_RUN = {
    "browser/browser": "not run", "checks/test": "not run", "checks/build": "not run",
    "checks/image-smoke": "not run", "charts": "not run",
}


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch) -> Path:
    """A mesh-shaped git checkout at the unpatched commit, with stand-in tools
    installed, one pre-existing type error, and its own verify cache."""
    repo = fixture_repo(tmp_path / "mesh")
    manifest = repo / "apps/mesh/package.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "scripts": {"check": "tsc --noEmit", "test": "bun test"}}, indent=2) + "\n")
    (repo / "apps/mesh/src/legacy.ts").write_text("import { x } from '@private/pkg';\n")
    root_manifest = json.loads((repo / "package.json").read_text())
    (repo / "package.json").write_text(json.dumps({**root_manifest, "scripts": {"knip": "knip"}}, indent=2) + "\n")
    shutil.copytree(ROOT / "tests" / "mesh_github", repo / ".github")
    (repo / ".oxlintrc.json").write_text('{"plugins": ["react"]}\n')
    (repo / "bun.lock").write_text("lock v1\n")
    (repo / ".gitignore").write_text("node_modules/\n")
    commit_all(repo, "unpatched")
    bin_dir = repo / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    path_dir = tmp_path / "path-bin"  # bun comes from PATH, as the workflow pins it
    path_dir.mkdir()
    for tool in FAKES.iterdir():
        shutil.copy(tool, (path_dir if tool.name == "bun" else bin_dir) / tool.name)
    monkeypatch.setenv("PATH", f"{path_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    (repo / "apps/mesh/node_modules").mkdir()
    (repo / "node_modules" / "private").mkdir()
    (repo / "node_modules" / "private" / "index.d.ts").write_text("export const = ;\n")
    monkeypatch.setenv("MESH_CODEMOD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.log"))
    # the checks' environment is an allow-list (codemods/sandbox.py): the
    # stand-ins' own variables are named to pass
    monkeypatch.setenv("MESH_CODEMOD_CHECK_ENV", "FAKE_LOG FAKE_RENDEZVOUS")
    return repo


def _calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def _outcomes(report: dict) -> dict[str, str]:
    return {c["check"]: c["outcome"] for c in report["checks"]}


def test_all_checks_pass_on_the_tools_output(checkout: Path, tmp_path: Path) -> None:
    assert invoke("apply", "--repo", checkout).exit_code == 0
    result = invoke("verify", "--repo", checkout, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert _outcomes(report) == {
        "parse": "passed", "format": "passed", "lint": "passed", "typecheck": "passed", "tests": "passed",
        "knip": "passed", **NOT_RUN,
    }
    checks = {c["check"]: c for c in report["checks"]}
    # legacy.ts is an unused file on the base too: not new
    assert checks["knip"]["summary"].startswith("knip: no new findings; 1 already in the unpatched tree (baseline: HEAD ")
    assert checks["knip"]["command"] == "bun run knip --reporter json"
    # legacy.ts and the dependency's error, though the latter reads
    # differently from the checkout and from the copy of HEAD
    assert "2 already in the unpatched tree" in checks["typecheck"]["summary"]
    assert checks["tests"]["command"] == (
        "cd apps/mesh && bun test ./src/mcp-apps/app-state.test.ts ./src/mcp-apps/use-app-bridge.test.ts"
        " ./src/web/hooks/use-app-state-param.test.ts"
    )
    assert checks["lint"]["command"].startswith("node_modules/.bin/oxlint -c .oxlintrc.json apps/mesh/")
    assert len(report["files"]) == 11
    # the baseline ran on a copy of HEAD, not in the checkout
    checks_run = [c for c in _calls(tmp_path) if c.endswith(" run check")]
    assert len(checks_run) == 2
    assert sum(not c.startswith(str(checkout)) for c in checks_run) == 1


def test_a_planted_type_error_fails_with_exit_4_and_is_shown(checkout: Path, monkeypatch) -> None:
    assert invoke("apply", "--repo", checkout).exit_code == 0
    module = checkout / MODULE
    text = module.read_text()
    module.write_text(text + "export const broken: number = 'x'; // PLANTED_TYPE_ERROR\n")
    planted_line = text.count("\n") + 1
    monkeypatch.chdir(checkout)  # --repo . : errors are still matched with the baseline's
    result = invoke("verify", "--repo", ".")
    assert result.exit_code == 4, result.output
    line = next(l for l in result.stdout.splitlines() if l.strip().startswith("typecheck"))
    assert "failed" in line and "1 new error(s); 2 already in the unpatched tree" in line
    assert f"src/mcp-apps/app-state.ts({planted_line},7): error TS2322" in result.stdout
    assert "legacy.ts" not in result.stdout, "a baseline error is not shown as new"
    assert "private/index.d.ts" not in result.stdout


def test_a_coloured_type_error_is_counted_and_shown(checkout: Path, monkeypatch) -> None:
    """tsc's lines in colour: the new error is both counted and shown."""
    from codemods.checks import typecheck

    plain = typecheck.execute

    def coloured(command, cwd, timeout=1800, started=None):
        result = plain(command, cwd, timeout, started)
        if list(command)[-2:] == ["run", "check"]:
            result.stdout = "".join(f"\x1b[31m{line}\x1b[0m\n" for line in result.stdout.splitlines())
        return result

    monkeypatch.setattr(typecheck, "execute", coloured)
    assert invoke("apply", "--repo", checkout).exit_code == 0
    module = checkout / MODULE
    text = module.read_text()
    module.write_text(text + "export const broken: number = 'x'; // PLANTED_TYPE_ERROR\n")
    result = invoke("verify", "--repo", checkout)
    assert result.exit_code == 4, result.output
    assert "1 new error(s); 2 already in the unpatched tree" in result.stdout
    assert f"src/mcp-apps/app-state.ts({text.count(chr(10)) + 1},7): error TS2322" in result.stdout
    assert "\x1b[" not in result.stdout


def test_format_lint_and_test_failures_are_reported(checkout: Path) -> None:
    assert invoke("apply", "--repo", checkout).exit_code == 0
    module = checkout / MODULE
    module.write_text(module.read_text() + "\tuseEffect(() => {}); // PLANTED_LINT_ERROR\n")
    tests = checkout / "apps/mesh/src/mcp-apps/app-state.test.ts"
    tests.write_text(tests.read_text() + "// FAIL_ME\n")
    result = invoke("verify", "--repo", checkout, "--json")
    assert result.exit_code == 4
    report = json.loads(result.stdout)
    assert _outcomes(report) == {
        "parse": "passed", "format": "failed", "lint": "failed", "typecheck": "passed", "tests": "failed",
        "knip": "passed", **NOT_RUN,
    }
    outputs = {c["check"]: c.get("output", "") for c in report["checks"]}
    assert "Formatter would have printed" in outputs["format"]
    assert "useEffect is banned" in outputs["lint"]
    assert "(fail) app state > round trip" in outputs["tests"]


def test_a_file_that_does_not_parse_fails(checkout: Path) -> None:
    assert invoke("apply", "--repo", checkout).exit_code == 0
    (checkout / MODULE).write_text("export const = ;\n")
    result = invoke("verify", "--repo", checkout, "--json")
    assert result.exit_code == 4
    assert _outcomes(json.loads(result.stdout))["parse"] == "failed"


def test_the_baseline_is_cached_by_base_commit_and_lock_file(checkout: Path, tmp_path: Path) -> None:
    assert invoke("apply", "--repo", checkout).exit_code == 0

    def baseline_runs() -> int:
        return sum(not c.startswith(str(checkout)) for c in _calls(tmp_path) if c.endswith(" run check"))

    assert invoke("verify", "--repo", checkout).exit_code == 0
    assert invoke("verify", "--repo", checkout).exit_code == 0
    assert baseline_runs() == 1
    (checkout / "bun.lock").write_text("lock v2\n")  # dependencies reinstalled
    assert invoke("verify", "--repo", checkout).exit_code == 0
    assert baseline_runs() == 2


def test_the_base_tree_is_exported_once_for_all_packages(checkout: Path, tmp_path: Path) -> None:
    """Two packages with type errors, no cached baseline: one copy of the
    base tree serves both."""
    import contextlib

    import git as gitpython

    from codemods.plan import trees
    from codemods.checks import verify

    ui = checkout / "packages/ui"
    (ui / "src").mkdir(parents=True)
    (ui / "package.json").write_text('{"name": "ui", "scripts": {"check": "tsc --noEmit"}}\n')
    (ui / "src/legacy.ts").write_text("import { x } from '@private/pkg';\n")
    commit_all(checkout, "a second package")
    repo = gitpython.Repo(checkout)
    exports = []

    @contextlib.contextmanager
    def counted():
        exports.append(1)
        with trees.tree_with_dependencies(repo, "HEAD") as tree:
            yield tree

    baseline = verify.Baseline("HEAD", "HEAD", counted, checkout)
    report = verify.run(checkout, ["apps/mesh/src/legacy.ts", "packages/ui/src/legacy.ts"], baseline)
    typecheck = next(c for c in report.checks if c.name == "typecheck")
    assert typecheck.outcome is verify.Outcome.PASSED, typecheck
    assert "4 already in the unpatched tree" in typecheck.summary
    assert len(exports) == 1
    checks_run = [c for c in _calls(tmp_path) if c.endswith(" run check")]
    assert sum(not c.startswith(str(checkout)) for c in checks_run) == 2


def test_checks_are_not_available_without_node_modules(checkout: Path) -> None:
    shutil.rmtree(checkout / "node_modules")
    assert invoke("apply", "--repo", checkout).exit_code == 0
    result = invoke("verify", "--repo", checkout, "--json")
    assert result.exit_code == 0
    outcomes = _outcomes(json.loads(result.stdout))
    assert outcomes["parse"] == "passed"
    assert outcomes["format"] == outcomes["lint"] == "not available"
    # bun may be on this machine's PATH; the checkout's node_modules are not there
    assert outcomes["typecheck"] == outcomes["tests"] == outcomes["knip"] == "not available"
    # what cannot run here by its nature is "not run", with or without node_modules
    assert {name: outcomes[name] for name in NOT_RUN} == NOT_RUN


def test_require_checks_fails_a_check_that_cannot_run(checkout: Path) -> None:
    shutil.rmtree(checkout / "node_modules")
    assert invoke("apply", "--repo", checkout).exit_code == 0
    result = invoke("verify", "--repo", checkout, "--json", "--require-checks")
    assert result.exit_code == 4, result.output
    checks = {c["check"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["parse"]["outcome"] == "passed"
    for name in ("format", "lint", "typecheck", "tests", "knip"):
        assert checks[name]["outcome"] == "failed", checks[name]
        assert checks[name]["summary"].startswith("could not run (--require-checks): ")
    assert "node_modules not installed" in checks["tests"]["summary"]
    # docker and a downloaded browser are not missing dependencies: still "not run"
    assert {name: checks[name]["outcome"] for name in NOT_RUN} == NOT_RUN


def test_pr_require_checks_without_node_modules_exits_4_and_updates_nothing(checkout: Path, tmp_path: Path) -> None:
    shutil.rmtree(checkout / "node_modules")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(checkout, "remote", "add", "origin", str(remote))
    body = tmp_path / "body.md"
    args = ["pr", "--repo", checkout, "--branch", "codemod/app-state", "--push", "origin", "--body-out", body]
    result = invoke(*args, "--require-checks")
    assert result.exit_code == 4, result.output
    assert "not updated, nothing pushed" in result.stderr
    assert "| format | **failed** | could not run (--require-checks): " in body.read_text()
    assert git(checkout, "branch", "--list", "codemod/app-state") == ""
    assert git(remote, "for-each-ref") == ""
    # without the flag the same run goes through, the checks "not available"
    assert invoke(*args).exit_code == 0
    assert "| format | not available |" in body.read_text()


def test_require_checks_with_no_verify_is_a_usage_error(checkout: Path) -> None:
    result = invoke("pr", "--repo", checkout, "--branch", "codemod/app-state", "--no-verify", "--require-checks")
    assert result.exit_code == 2
    assert "--require-checks" in result.output


def test_a_cold_cache_checks_the_base_and_the_branch_at_once(checkout: Path, tmp_path: Path, monkeypatch) -> None:
    """With nothing cached, the base tree's type check runs beside the
    patched tree's, not after it: the stand-in checks each wait for the
    other to start and log "met" only when both ran at once."""
    meeting = tmp_path / "rendezvous"
    meeting.mkdir()
    monkeypatch.setenv("FAKE_RENDEZVOUS", str(meeting))
    assert invoke("apply", "--repo", checkout).exit_code == 0
    result = invoke("verify", "--repo", checkout)
    assert result.exit_code == 0, result.output
    met = [c for c in _calls(tmp_path) if c.endswith(" met")]
    assert len(met) == 2, _calls(tmp_path)
    assert sum(c.startswith(str(checkout)) for c in met) == 1, "one in the checkout, one in the base's copy"
    assert "no new errors; 2 already in the unpatched tree (baseline: HEAD " in result.stdout


def test_the_text_report_gives_each_checks_duration(checkout: Path) -> None:
    assert invoke("apply", "--repo", checkout).exit_code == 0
    result = invoke("verify", "--repo", checkout)
    assert result.exit_code == 0, result.output
    for name in ("parse", "format", "lint", "typecheck", "tests", "knip"):
        assert re.search(rf"^  {name}\s+passed\s+\d+\.\ds  ", result.stdout, re.M), result.stdout
    # verify lays nothing out: no formatter line that no option asked for
    assert "formatter:" not in result.stderr


def test_pr_puts_the_report_in_the_body(checkout: Path, tmp_path: Path) -> None:
    body = tmp_path / "body.md"
    result = invoke("pr", "--repo", checkout, "--branch", "codemod/app-state", "--author", BOT, "--body-out", body)
    assert result.exit_code == 0, result.output
    text = body.read_text()
    assert "| typecheck | passed | no new errors; 2 already in the unpatched tree (baseline: base " in text
    assert "| tests | passed | bun test: 9 passed in 3 file(s) |" in text
    assert "Bridge mode: ``compat, 1.x form (no installed @modelcontextprotocol/ext-apps found" in text
    assert "mesh-codemod pr --repo . --branch codemod/app-state --base " in text
    assert git(checkout, "status", "--porcelain") == "", "the checks ran on a copy, not in the checkout"


def test_pr_with_a_failing_check_exits_4_and_updates_nothing(checkout: Path, tmp_path: Path, monkeypatch) -> None:
    from codemods import recipes
    from codemods.recipes import host

    original = host.render_module
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(checkout, "remote", "add", "origin", str(remote))
    # the tool's output fails the stand-in type check
    broken = recipes.target_named("host")._replace(
        steps=(host.STEPS[0]._replace(new_file=host.STEPS[0].new_file._replace(
            render=lambda *args: original(*args) + "export const broken: number = 'x'; // PLANTED_TYPE_ERROR\n"
        )),) + host.STEPS[1:],
    )
    monkeypatch.setitem(recipes.REGISTRY, "host", lambda: broken)
    body = tmp_path / "body.md"
    result = invoke("pr", "--repo", checkout, "--branch", "codemod/app-state", "--push", "origin", "--body-out", body)
    assert result.exit_code == 4, result.output
    assert "not updated, nothing pushed" in result.stderr
    assert "| typecheck | **failed** | 1 new error(s)" in body.read_text()
    assert git(checkout, "branch", "--list", "codemod/app-state") == ""
    assert git(remote, "for-each-ref") == ""


MESH_CHECKOUT = os.environ.get("MESH_CHECKOUT")


@pytest.mark.skipif(not MESH_CHECKOUT, reason="MESH_CHECKOUT (an installed mesh checkout) is not set")
def test_real_mesh_verify(tmp_path: Path, monkeypatch) -> None:
    """On an installed mesh checkout: the series passes mesh's four checks,
    and a planted type error fails the type check. Runs on temporary copies
    of the commits' trees; the checkout gets git objects, nothing else."""
    from codemods.cli import delivery
    from codemods.deliver import build
    from codemods.plan import repository, trees
    from codemods.checks import verify
    from codemods.recipes.base import Bridge

    monkeypatch.setenv("MESH_CODEMOD_CACHE", str(tmp_path / "cache"))
    repo = repository.open_repo(Path(MESH_CHECKOUT))
    series = build.build_series(repo, "HEAD", Bridge.AUTO, repository.Identity("t", "t@example.com"))
    report = delivery.verify_commit(series)
    assert [(c.name, c.outcome) for c in report.checks] == [
        (name, verify.Outcome.PASSED) for name in ("parse", "format", "lint", "typecheck", "tests")
    ], report.text()

    files = sorted({p for c in series.commits for p, _ in c.files})
    baseline = verify.Baseline(series.base + trees.lock_digest(Path(MESH_CHECKOUT)), "base",
                               lambda: trees.tree_with_dependencies(repo, series.base))
    with trees.tree_with_dependencies(repo, series.tip) as tree:
        module = tree / MODULE
        module.write_text(module.read_text() + "export const planted: number = 'not a number';\n")
        broken = verify.run(tree, files, baseline)
    typecheck = next(c for c in broken.checks if c.name == "typecheck")
    assert typecheck.outcome is verify.Outcome.FAILED
    assert "src/mcp-apps/app-state.ts" in typecheck.output and "TS2322" in typecheck.output


def test_progress_is_shown_on_a_terminal(monkeypatch) -> None:
    """A spinner naming the running check, on standard error, only on a terminal."""
    import io

    from codemods.cli import checking

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    with checking.progress() as note:
        note("typecheck")
        import time

        time.sleep(0.3)  # let the spinner draw
    assert "verify: typecheck" in screen.getvalue()

    piped = io.StringIO()
    monkeypatch.setattr("sys.stderr", piped)
    with checking.progress() as note:
        assert note is None
    assert piped.getvalue() == ""


def _am_series_then(checkout: Path, tmp_path: Path) -> None:
    """The tool's series applied with `git am`, then a reviewer's commit
    with a type error on top (issue 22, finding 5)."""
    assert invoke("patch", "--repo", checkout, "--out", tmp_path / "series", "--author", BOT).exit_code == 0
    git(checkout, "am", "-q", *sorted(str(p) for p in (tmp_path / "series").glob("*.patch")))
    module = checkout / MODULE
    module.write_text(module.read_text() + "export const broken: number = 'x'; // PLANTED_TYPE_ERROR\n")
    git(checkout, "commit", "-q", "-am", "reviewer: a type error",
        env={"GIT_AUTHOR_NAME": "Rita", "GIT_AUTHOR_EMAIL": "rita@example.com"})


def test_a_reviewers_commit_with_a_type_error_above_the_series_fails_verify(checkout: Path, tmp_path: Path) -> None:
    base = git(checkout, "rev-parse", "HEAD").strip()
    _am_series_then(checkout, tmp_path)
    result = invoke("verify", "--repo", checkout)
    assert result.exit_code == 4, result.output
    assert "1 new error(s); 2 already in the unpatched tree" in result.stdout
    assert f"baseline: {base[:12]}, the base of the 4 mesh-codemod commit(s) below HEAD, 1 other commit(s) above them" in result.stderr


def test_a_merge_above_the_series_still_compares_with_its_base(checkout: Path, tmp_path: Path) -> None:
    base = git(checkout, "rev-parse", "HEAD").strip()
    git(checkout, "checkout", "-q", "-b", "side")
    (checkout / "NOTES.md").write_text("notes\n")
    commit_all(checkout, "main moves on")
    git(checkout, "checkout", "-q", "main")
    _am_series_then(checkout, tmp_path)
    git(checkout, "merge", "-q", "--no-edit", "side")
    result = invoke("verify", "--repo", checkout)
    assert result.exit_code == 4, result.output
    assert f"baseline: {base[:12]}, the base of the 4 mesh-codemod commit(s) below HEAD, 2 other commit(s)" in result.stderr


def test_without_the_tools_commits_the_baseline_is_the_merge_base_with_the_target(checkout: Path) -> None:
    base = git(checkout, "rev-parse", "HEAD").strip()
    git(checkout, "checkout", "-q", "-b", "by-hand")
    assert invoke("apply", "--repo", checkout).exit_code == 0
    module = checkout / MODULE
    module.write_text(module.read_text() + "export const broken: number = 'x'; // PLANTED_TYPE_ERROR\n")
    commit_all(checkout, "the feature, by hand, with a type error")
    # HEAD holds the commit: compared with HEAD, nothing would be new
    assert invoke("verify", "--repo", checkout).exit_code == 0
    result = invoke("verify", "--repo", checkout, "--target", "main")
    assert result.exit_code == 4, result.output
    assert f"baseline: {base[:12]}, the merge base of HEAD with main" in result.stderr
    assert invoke("verify", "--repo", checkout, "--target", "no-such-branch").exit_code == 3
