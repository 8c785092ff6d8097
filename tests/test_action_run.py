"""The action's `run:` scripts executed (tests/action_canary.py): the token
reaches git's network calls alone, and only the repository's own pull
request is ever edited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .action_canary import pr_step_with_canaries, run_step
from .gitrepo import BOT, git, with_remote


def test_the_actions_run_with_a_canary_token_shows_it_only_to_gits_network_calls(tmp_path: Path) -> None:
    found = pr_step_with_canaries(tmp_path)
    assert found["exit"] == 0, found["stderr"]
    assert "pushed=true" in found["outputs"] and found["remote_branch"] == "refs/heads/codemod/app-state"
    assert set(found["checks"].values()) == {"passed"}, found["checks"]
    assert {"biome", "oxlint", "bun-run", "bun-test"} <= set(found["tools"])
    assert not found["poisoned_bun_ran"]
    assert found["leaks"] == []
    with_token = {sub for sub, mark in found["git_calls"] if mark == "token"}
    assert with_token == {"ls-remote", "push"}, found["git_calls"]


def _listed(number: int, owner: str, state: str = "open") -> dict:
    return {
        "number": number, "state": state, "merged_at": None, "title": "t", "body": "",
        "head": {"ref": "codemod/app-state", "repo": {"full_name": f"{owner}/mesh", "owner": {"login": owner}}},
        "base": {"ref": "main"},
    }


OURS = _listed(3, "decocms")
FORK = _listed(7, "mallory")
OTHER_OWNER = _listed(8, "eve")


@pytest.mark.parametrize(
    ("listed", "expected"),
    [
        ([FORK, OURS], ["PATCH", "repos/decocms/mesh/pulls/3"]),
        ([OTHER_OWNER, FORK, OURS], ["PATCH", "repos/decocms/mesh/pulls/3"]),
        ([FORK], ["POST", "repos/decocms/mesh/pulls"]),
        ([], ["POST", "repos/decocms/mesh/pulls"]),
    ],
    ids=["fork-first", "other-owner-first", "fork-only", "none"],
)
def test_only_the_repositorys_own_pr_is_edited(tmp_path: Path, listed: list, expected: list) -> None:
    """A listing that holds a fork's PR from a branch of the same name, and
    newer (the stand-in ignores the head filter, as a careless server
    would): the step edits only the repository's own PR."""
    from .team_action import FAKE_GH

    path_dir, temp = tmp_path / "bin", tmp_path / "runner-temp"
    path_dir.mkdir()
    temp.mkdir()
    (path_dir / "gh").symlink_to(FAKE_GH)
    (temp / "mesh-codemod-body.md").write_text("the body\n")
    report = {"commits": [{"sha": "1" * 40}], "fingerprint": "sha256:" + "c" * 64}
    (temp / "mesh-codemod-report.json").write_text(json.dumps(report))
    state = tmp_path / "github.json"
    state.write_text(json.dumps({"repo": "decocms/mesh", "pulls": listed, "ignore_head_filter": True}))
    env = {
        "GH_TOKEN": "ghs_fake", "GH_REPO": "decocms/mesh", "FAKE_GH_STATE": str(state),
        "BRANCH": "codemod/app-state", "BASE_BRANCH": "main", "RUNNER_TEMP": str(temp),
    }
    result = run_step("Open or update the pull request", env, path_dir, tmp_path)
    assert result.returncode == 0, result.stderr
    writes = [call[2:4] for call in json.loads(state.read_text())["calls"] if "-X" in call]
    assert writes == [expected]


@pytest.mark.parametrize(("require", "exit_code", "pushed"), [(None, 4, False), ("false", 0, True)])
def test_the_action_requires_the_checks_unless_told_not_to(
    tmp_path: Path, require: str | None, exit_code: int, pushed: bool
) -> None:
    """A checkout whose dependencies are not installed: by default the run
    stops with exit 4 and pushes nothing; `require-checks: false` reports
    the checks as not available and goes on."""
    remote, work = with_remote(tmp_path)
    path_dir, temp = tmp_path / "bin", tmp_path / "runner-temp"
    path_dir.mkdir()
    temp.mkdir()
    env = {
        "REPO": str(work), "AUTHOR": BOT, "RUNNER_TEMP": str(temp), "MESH_CODEMOD_GIT_TOKEN": "ghs_fake",
        "GITHUB_OUTPUT": str(temp / "output"), "GITHUB_STEP_SUMMARY": str(temp / "summary"),
        "MESH_CODEMOD_CACHE": str(tmp_path / "cache"),
    }
    if require is not None:
        env["REQUIRE_CHECKS"] = require
    result = run_step("Build, verify and push the branch", env, path_dir, work)
    assert result.returncode == exit_code, result.stderr
    outcomes = {c["check"]: c["outcome"] for c in json.loads((temp / "mesh-codemod-report.json").read_text())["verify"]["checks"]}
    assert outcomes["format"] == ("not available" if pushed else "failed")
    branches = git(remote, "for-each-ref", "--format=%(refname)", "refs/heads/codemod")
    assert branches.strip() == ("refs/heads/codemod/app-state" if pushed else "")
