"""What the repository's code and the runner's environment cannot reach
(issue 22, items 3, 6 and 7): checks run with an allow-listed environment in
a session of their own that ends with them; a test check that ran nothing
fails; git never sees a GIT_* variable the tool did not set; a branch that a
worktree is rebasing or bisecting is never moved; `patch --out` refuses
before it removes anything."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codemods.checks import bun_tests, sandbox

from .gitrepo import BOT, git, with_remote
from .node_tools import BIN, require
from .support import ROOT, invoke

FAKES = ROOT / "tests" / "fake_tools"


def _alive(pid: int) -> bool:
    """A process that still runs (a zombie has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def test_a_check_sees_only_allow_listed_variables(monkeypatch) -> None:
    runner = {
        "GITHUB_ENV": "/runner/env", "GITHUB_PATH": "/runner/path", "GITHUB_OUTPUT": "/runner/out",
        "RUNNER_TEMP": "/runner/temp", "GIT_DIR": "/elsewhere", "NODE_OPTIONS": "--require /evil.js",
        "GH_TOKEN": "ghs_x", "ANYTHING_ELSE": "1", "LC_ALL": "C.UTF-8",
    }
    for name, value in runner.items():
        monkeypatch.setenv(name, value)
    seen = sandbox.run(["env"], Path("/")).stdout
    names = {line.split("=", 1)[0] for line in seen.splitlines() if "=" in line}
    assert "PATH" in names and "LC_ALL" in names
    assert not names & (set(runner) - {"LC_ALL"}), names
    # the tool's own switch names more variables, never a credential or a runner file
    monkeypatch.setenv(sandbox.PASS_VARIABLE, "ANYTHING_ELSE,GH_TOKEN,GITHUB_ENV")
    names = {line.split("=", 1)[0] for line in sandbox.run(["env"], Path("/")).stdout.splitlines()}
    assert "ANYTHING_ELSE" in names and not names & {"GH_TOKEN", "GITHUB_ENV"}


def test_what_a_check_leaves_running_ends_with_it() -> None:
    """A process left in the check's group is killed when the check ends;
    one that started a session of its own is killed by the sweep verify
    does once its checks are over."""
    script = "sleep 300 >/dev/null 2>&1 & echo $!; setsid -f bash -c 'echo $$ > escaped; exec sleep 301' >/dev/null 2>&1"
    folder = Path(os.environ.get("TMPDIR") or "/tmp")
    work = Path(subprocess.check_output(["mktemp", "-d", str(folder / "sandbox-XXXX")], text=True).strip())
    try:
        left = int(sandbox.run(["bash", "-c", script], work).stdout.split()[0])
        assert not _alive(left)
        escaped = int((work / "escaped").read_text()) if (work / "escaped").exists() else None
        swept = sandbox.sweep()
        if escaped is not None:
            assert escaped in swept and not _alive(escaped)
    finally:
        shutil.rmtree(work)


def test_the_sweep_leaves_the_tools_own_children_alone() -> None:
    with subprocess.Popen(["sleep", "300"]) as mine:
        try:
            assert mine.pid not in sandbox.sweep()
            assert _alive(mine.pid)
        finally:
            mine.kill()


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("apps/a.test.ts:\n(pass) one [0.1ms]\n(fail) two\n\nb.test.ts:\n\n 1 pass\n", {"apps/a.test.ts": 2, "b.test.ts": 0}),
        (" 3 pass\n 0 fail\n", {}),
    ],
)
def test_tests_are_counted_per_file(output: str, expected: dict) -> None:
    assert {path: sum(c.values()) for path, c in bun_tests.tests_run(output).items()} == expected


def _checkout_with_a_test(tmp_path: Path, test_text: str, monkeypatch, bun: str | None = None) -> Path:
    root = tmp_path / "repo"
    (root / "apps/mesh/src").mkdir(parents=True)
    (root / "node_modules").mkdir()
    (root / "apps/mesh/package.json").write_text('{"name": "mesh"}\n')
    (root / "apps/mesh/src/state.ts").write_text("export const x = 1;\n")
    (root / "apps/mesh/src/state.test.ts").write_text(test_text)
    path_dir = tmp_path / "bin"
    path_dir.mkdir()
    shutil.copy(bun or FAKES / "bun", path_dir / "bun")
    monkeypatch.setenv("PATH", f"{path_dir}{os.pathsep}{os.environ['PATH']}")
    return root


def test_a_test_check_that_ran_no_test_of_a_touched_modules_file_fails(tmp_path: Path, monkeypatch) -> None:
    root = _checkout_with_a_test(tmp_path, 'test("x", () => {}); // NO_TESTS\n', monkeypatch)
    check = bun_tests.run_tests(root, ["apps/mesh/src/state.ts"])
    assert check.outcome is bun_tests.Outcome.FAILED
    assert check.summary == "bun test ran no test in 1 of 1 file(s)"
    assert "apps/mesh/src/state.test.ts: no test ran" in check.output
    (root / "apps/mesh/src/state.test.ts").write_text('test("x", () => {});\n')
    assert bun_tests.run_tests(root, ["apps/mesh/src/state.ts"]).outcome is bun_tests.Outcome.PASSED


def test_a_preload_that_exits_0_makes_the_test_check_fail(tmp_path: Path, monkeypatch) -> None:
    """Issue 22, finding 7: a bunfig.toml preload that exits 0 before any
    test, with the real Bun."""
    # the pinned Bun (tools/), not one the machine may have on PATH
    bun = str(require(BIN / "bun", "Bun").resolve())
    root = _checkout_with_a_test(
        tmp_path, 'import { test, expect } from "bun:test";\ntest("x", () => expect(1).toBe(1));\n', monkeypatch, bun
    )
    assert bun_tests.run_tests(root, ["apps/mesh/src/state.ts"]).outcome is bun_tests.Outcome.PASSED
    (root / "apps/mesh/bunfig.toml").write_text('[test]\npreload = ["./exit.ts"]\n')
    (root / "apps/mesh/exit.ts").write_text("process.exit(0);\n")
    check = bun_tests.run_tests(root, ["apps/mesh/src/state.ts"])
    assert check.outcome is bun_tests.Outcome.FAILED, check


def test_a_type_only_test_file_is_not_required_to_run_tests(tmp_path: Path, monkeypatch) -> None:
    root = _checkout_with_a_test(tmp_path, "export type T = string; // NO_TESTS\n", monkeypatch)
    # it declares no test, so none running is no failure; nothing ran, so
    # nothing is proved either: "not available", never "passed"
    assert bun_tests.run_tests(root, ["apps/mesh/src/state.test.ts"]).outcome is bun_tests.Outcome.NOT_AVAILABLE


# --- git ---------------------------------------------------------------------


def test_git_diff_opts_do_not_change_the_patch_files(tmp_path: Path, monkeypatch) -> None:
    _, work = with_remote(tmp_path)
    assert invoke("patch", "--repo", work, "--out", tmp_path / "plain", "--author", BOT).exit_code == 0
    monkeypatch.setenv("GIT_DIFF_OPTS", "--unified=1")
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", "false")
    assert invoke("patch", "--repo", work, "--out", tmp_path / "odd", "--author", BOT).exit_code == 0
    plain = {p.name: p.read_bytes() for p in (tmp_path / "plain").iterdir()}
    assert plain and plain == {p.name: p.read_bytes() for p in (tmp_path / "odd").iterdir()}
    assert os.environ["GIT_DIFF_OPTS"] == "--unified=1"  # given back once the command ends


@pytest.mark.parametrize("how", ["rebase", "bisect"])
def test_pr_never_moves_a_branch_a_worktree_is_rebasing_or_bisecting(tmp_path: Path, how: str) -> None:
    _, work = with_remote(tmp_path)
    branch = "codemod/app-state"
    git(work, "branch", branch)
    other = tmp_path / "other"
    git(work, "worktree", "add", "-q", str(other), branch)
    for name in ("one", "two"):
        (other / f"{name}.txt").write_text(name)
        git(other, "add", "-A")
        git(other, "commit", "-q", "--no-gpg-sign", "-m", name)
    if how == "rebase":
        git(other, "rebase", "--exec", "false", "HEAD~2", check=False)
    else:
        git(other, "bisect", "start", "HEAD", "HEAD~2")
    assert git(other, "rev-parse", "--abbrev-ref", "HEAD").strip() == "HEAD"  # detached meanwhile
    before = git(work, "rev-parse", f"refs/heads/{branch}")
    result = invoke("pr", "--repo", work, "--branch", branch, "--no-verify", "--author", BOT)
    assert result.exit_code == 3
    assert "being rebased or bisected" in result.stderr
    assert git(work, "rev-parse", f"refs/heads/{branch}") == before


def test_patch_out_refuses_before_it_removes_anything(tmp_path: Path) -> None:
    _, work = with_remote(tmp_path)
    out = tmp_path / "out"
    assert invoke("patch", "--repo", work, "--out", out, "--author", BOT).exit_code == 0
    ours = sorted(out.glob("*.patch"))
    # the next series has one patch more than there is now: a file of
    # someone else's sits where it would go
    last = ours[-1]
    last.rename(out / "0009-kept.patch")
    (out / last.name).write_text("someone else's\n")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    result = invoke("patch", "--repo", work, "--out", out, "--author", BOT)
    assert result.exit_code == 3
    assert "in the way" in result.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def _shallow_clone(tmp_path: Path, remote: Path) -> Path:
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote}", str(shallow))
    assert git(shallow, "rev-parse", "--is-shallow-repository").strip() == "true"
    return shallow


def test_pr_in_a_shallow_clone_after_main_moved_names_fetch_depth_0(tmp_path: Path) -> None:
    """Issue 22, finding 6: the branch exists from an earlier run, main
    moved, and the checkout is actions/checkout's default depth 1."""
    remote, work = with_remote(tmp_path)
    assert invoke("pr", "--repo", work, "--branch", "codemod/app-state", "--push", "origin",
                  "--author", BOT, "--no-verify").exit_code == 0
    (work / "NOTES.md").write_text("main moves on\n")
    git(work, "add", "-A")
    git(work, "commit", "-q", "--no-gpg-sign", "-m", "main moves on")
    git(work, "push", "-q", "origin", "main")
    shallow = _shallow_clone(tmp_path, remote)
    before = git(remote, "rev-parse", "refs/heads/codemod/app-state")
    result = invoke("pr", "--repo", shallow, "--branch", "codemod/app-state", "--push", "origin",
                    "--author", BOT, "--no-verify")
    assert result.exit_code == 3
    assert "shallow clone" in result.stderr and "fetch-depth: 0" in result.stderr
    assert "did not make" not in result.stderr
    assert git(remote, "rev-parse", "refs/heads/codemod/app-state") == before


def test_verify_in_a_shallow_clone_refuses_rather_than_compare_with_head(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    assert invoke("pr", "--repo", work, "--branch", "codemod/app-state", "--push", "origin",
                  "--author", BOT, "--no-verify").exit_code == 0
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "codemod/app-state", f"file://{remote}", str(shallow))
    result = invoke("verify", "--repo", shallow)
    assert result.exit_code == 3
    assert "shallow clone" in result.stderr and "fetch-depth: 0" in result.stderr


def test_a_formatter_or_check_that_rewrites_git_config_stops_the_push(tmp_path: Path) -> None:
    """Issue 22, finding 1: the repository's code reaches the checkout's
    .git/config through the copy's node_modules link (core.sshCommand, a
    push URL); the push then never runs."""
    from . import canary

    remote, work = with_remote(tmp_path)
    canary.verify_shaped(work)
    pwned = tmp_path / "PWNED"
    canary.executable(work / "node_modules/.bin/biome", f"""#!/usr/bin/env bash
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
printf '[remote "origin"]\\n\\tpushurl = ext::sh -c touch% {pwned}\\n[core]\\n\\tsshCommand = touch {pwned}\\n' >> "$root/.git/config"
exec "{FAKES / 'biome'}" "$@"
""")
    result = invoke("pr", "--repo", work, "--branch", "codemod/app-state", "--push", "origin", "--author", BOT)
    assert result.exit_code == 3, result.output
    assert "git configuration changed" in result.stderr
    assert git(remote, "for-each-ref", "refs/heads/codemod") == ""
    assert not pwned.exists()


def test_a_tampering_formatter_reaches_nothing_of_the_remote_in_local_use(tmp_path: Path) -> None:
    """`pr --push` on one machine: the checkout's Biome would add a line and
    requote; the series never runs it (SPEC 7), so the pushed branch is
    the built-in layout and has no such line."""
    from . import canary
    from .test_formatter import TAMPERER

    remote, work = with_remote(tmp_path)
    canary.executable(work / "node_modules/.bin/biome", TAMPERER)
    result = invoke("pr", "--repo", work, "--branch", "codemod/app-state", "--push", "origin", "--author", BOT,
                    "--no-verify", "--json")
    assert result.exit_code == 0, result.output
    assert 'from "zod"' in git(remote, "show", "refs/heads/codemod/app-state:apps/mesh/src/mcp-apps/types.ts")
    for path in git(remote, "ls-tree", "-r", "--name-only", "refs/heads/codemod/app-state").split():
        assert "attacker.example" not in git(remote, "show", f"refs/heads/codemod/app-state:{path}")
