"""The publish job's days (issue 41, items 4 and 5 and the cosmetic ones),
run in this process step by step as publish/action.yml runs them (check,
decide, push, open the PR) against the stateful `gh` stand-in: several
logins, a change whose checks failed as a draft PR, a 502, the lock files."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import NamedTuple

import pytest

from .gitrepo import BOT, commit_all, git, with_remote
from .publish_support import (
    BRANCH, MODULE, build, built, github, github_state, manifest, open_pr, publisher, summary, write_manifest,
)
from .support import invoke

APP = "mesh-codemod[bot] <1+mesh-codemod[bot]@users.noreply.github.com>"


class Day(NamedTuple):
    exits: dict[str, int]  # step -> exit code (the steps that ran)
    action: str  # pr-action
    stderr: str


def publish_job(tmp: Path, clone: Path, artifact: Path, day: str, *check: str, author: str = BOT,
                pr_author: str = "github-actions[bot]") -> Day:
    """publish/action.yml's steps after the install: the check step
    (`publish --report-out`), the decision (`open-pr --dry-run`), the push
    (`publish --built`) when it is open or update, and the PR (`open-pr`);
    a failing step ends the job."""
    report = tmp / f"report-{day}.json"
    exits, said = {}, []

    def step(name: str, result) -> bool:
        exits[name] = result.exit_code
        said.append(result.output)
        return result.exit_code == 0

    common = ("--branch", BRANCH, "--target", "origin/main", "--author", author, "--report-out", report)
    if not step("check", invoke("publish", "--repo", clone, "--artifact", artifact, *common, *check)):
        return Day(exits, "", "".join(said))
    if not step("decide", open_pr(report, "--pr-author", pr_author, "--dry-run")):
        return Day(exits, "", "".join(said))
    action = _output("pr-action", tmp)
    if action in ("open", "update") and not step("push", invoke("publish", "--repo", clone, "--built", report,
                                                               *common, "--push", "origin")):
        return Day(exits, action, "".join(said))
    step("open", open_pr(report, "--pr-author", pr_author))
    return Day(exits, _output("pr-action", tmp), "".join(said))


def _output(name: str, tmp: Path) -> str:
    lines = (tmp / "output.txt").read_text().splitlines()
    return [line.split("=", 1)[1] for line in lines if line.startswith(f"{name}=")][-1]


def _close(state: Path, number: int) -> None:
    data = github_state(state)
    next(p for p in data["pulls"] if p["number"] == number)["state"] = "closed"
    state.write_text(json.dumps(data))


def _verdict(artifact: Path, *checks: dict) -> None:
    data = manifest(artifact)
    data["verdict"] = {"fingerprint": data["verdict"]["fingerprint"], "checks": list(checks)}
    write_manifest(artifact, data)


# --- item 4: several logins ---------------------------------------------------------


def test_a_no_from_an_earlier_login_stands_after_the_token_changes(
    tmp_path: Path, built, github: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Day 1 the workflow's token opens the PR, and the team closes it. Day
    2 an App token opens PRs as mesh-codemod[bot], and `pr-author` names
    both logins: the "no" stands, nothing is pushed or opened."""
    remote, work, artifact = built
    clone = publisher(tmp_path, remote)
    day1 = publish_job(tmp_path, clone, artifact, "1")
    assert day1.action == "open" and set(day1.exits.values()) == {0}, day1
    _close(github, 1)
    monkeypatch.setenv("FAKE_GH_LOGIN", "mesh-codemod[bot]")
    day2 = publish_job(tmp_path, clone, artifact, "2", pr_author="mesh-codemod[bot], github-actions[bot]")
    assert day2.action == "declined" and set(day2.exits.values()) == {0} and "push" not in day2.exits, day2
    assert [p["number"] for p in github_state(github)["pulls"]] == [1]
    # the day-2 login alone (0.6.0's one login): the "no" is forgotten
    day3 = publish_job(tmp_path, clone, artifact, "3", pr_author="mesh-codemod[bot]")
    assert day3.action == "open", day3


def test_commits_an_earlier_author_made_are_the_tools(tmp_path: Path, github: Path) -> None:
    """The branch holds the series the workflow's identity committed; the
    team switches the job's author to an App's, naming the earlier one
    after it in `.mesh-codemod.toml`: the branch is the tool's, replaced
    and its PR updated, not left alone as someone else's."""
    remote, work = with_remote(tmp_path)
    clone = publisher(tmp_path, remote)
    day1 = publish_job(tmp_path, clone, build(tmp_path / "1", work), "1")
    assert day1.action == "open", day1
    (work / ".mesh-codemod.toml").write_text(f'author = ["{APP}", "{BOT}"]\n')
    commit_all(work, "the job commits as the App now")
    git(work, "push", "-q", "origin", "HEAD:main")
    git(clone, "fetch", "-q", "origin")
    # without --author, the first of them is the one committed as
    local = invoke("pr", "--repo", work, "--branch", "local", "--no-verify", "--json")
    assert json.loads(local.stdout)["author"] == APP, local.output
    artifact = build(tmp_path / "2", work, "--author", APP)
    day2 = publish_job(tmp_path, clone, artifact, "2", author=APP)
    assert day2.action == "update" and day2.exits["push"] == 0, day2
    log = git(remote, "log", "--format=%an", f"main..refs/heads/{BRANCH}").split("\n")
    assert set(filter(None, log)) == {"mesh-codemod[bot]"}


# --- item 5: a change whose checks failed is a draft PR -----------------------------


def test_failed_checks_make_a_draft_that_leads_with_them_and_the_job_stays_green(
    tmp_path: Path, built, github: Path
) -> None:
    remote, work, artifact = built
    clone = publisher(tmp_path, remote)
    failed = {"name": "format", "status": "failed", "files": [MODULE]}
    _verdict(artifact, {"name": "parse", "status": "passed"}, failed, {"name": "tests", "status": "failed"})
    day1 = publish_job(tmp_path, clone, artifact, "1")
    assert day1.action == "open" and set(day1.exits.values()) == {0}, day1
    [pull] = github_state(github)["pulls"]
    assert pull["draft"] is True
    lead = pull["body"].split("\n\n", 1)[0]
    assert lead.startswith("> **Draft: mesh's checks failed on this change**: `format` (`" + MODULE + "`), `tests`.")
    # the step that wrote the file the format check names, as a configuration line
    assert 'add `skip = ["app-state-module"]` to `.mesh-codemod.toml`' in lead, lead
    assert "opened #1 as a draft" in summary(github)
    # the checks pass the next day: the same change, ready for review (GraphQL), its body without the lead
    _verdict(artifact, {"name": "format", "status": "passed"})
    day2 = publish_job(tmp_path, clone, artifact, "2")
    [pull] = github_state(github)["pulls"]
    assert day2.action == "update" and pull["draft"] is False and not pull["body"].startswith(">"), day2
    # and fail again: a draft once more
    _verdict(artifact, failed)
    publish_job(tmp_path, clone, artifact, "3")
    [pull] = github_state(github)["pulls"]
    assert pull["draft"] is True
    assert len([c for c in github_state(github)["calls"] if c[:2] == ["api", "graphql"]]) == 2
    # a closed draft is a "no"
    _close(github, 1)
    day4 = publish_job(tmp_path, clone, artifact, "4")
    assert day4.action == "declined" and "push" not in day4.exits, day4


def test_fail_on_failed_checks_publishes_nothing_and_is_red(tmp_path: Path, built, github: Path) -> None:
    remote, work, artifact = built
    _verdict(artifact, {"name": "typecheck", "status": "failed"})
    day = publish_job(tmp_path, publisher(tmp_path, remote), artifact, "1", "--fail-on-failed-checks")
    assert day.exits == {"check": 4}, day
    assert "mesh's checks failed on this series (typecheck): nothing published" in day.stderr
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == "" and github_state(github)["pulls"] == []


def test_the_build_job_records_failed_checks_for_the_draft(tmp_path: Path) -> None:
    """`pr --artifact` (the build job: no push) with checks that fail (here:
    required, and nothing installed to run them) exits 0 and records them;
    without --artifact it is still exit 4."""
    remote, work = with_remote(tmp_path)
    artifact = tmp_path / "artifact"
    args = ("pr", "--repo", work, "--branch", BRANCH, "--author", BOT, "--require-checks")
    recorded = invoke(*args, "--artifact", artifact)
    assert recorded.exit_code == 0, recorded.output
    failed = {c["name"] for c in manifest(artifact)["verdict"]["checks"] if c["status"] == "failed"}
    assert {"format", "lint", "typecheck"} <= failed
    assert invoke(*args).exit_code == 4


# --- cosmetic: a 502, the lock files, a renamed default branch ---------------------------


def test_a_502_is_asked_once_more(tmp_path: Path, built, github: Path) -> None:
    remote, work, artifact = built
    clone = publisher(tmp_path, remote)
    github.write_text(json.dumps({**github_state(github), "fail": ["Bad Gateway (HTTP 502)"]}))
    day1 = publish_job(tmp_path, clone, artifact, "1")
    assert day1.action == "open" and set(day1.exits.values()) == {0}, day1
    # twice in a row is GitHub down: the step fails, naming it
    github.write_text(json.dumps({**github_state(github), "fail": ["Bad Gateway (HTTP 502)"] * 2}))
    day2 = publish_job(tmp_path, clone, artifact, "2")
    assert day2.exits["decide"] == 3 and "HTTP 502" in day2.stderr, day2


def test_no_lock_file_is_left_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run on a checkout takes a lock file outside it, and removes it
    as it lets go; a run that waited for it takes the next one."""
    from codemods.plan.lock import lock_path, repo_lock

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    remote, work = with_remote(tmp_path / "repo")
    assert invoke("apply", "--repo", work, "--check").exit_code == 1
    assert invoke("apply", "--repo", work).exit_code == 0
    assert list(tmp_path.glob("mesh-codemod-*.lock")) == []
    order = []
    with repo_lock(work, 5):
        waiting = threading.Thread(target=lambda: _take(work, order))
        waiting.start()
        waiting.join(0.3)
        order.append("first lets go")
        assert lock_path(work).exists()
    waiting.join(5)
    assert order == ["first lets go", "second"] and not lock_path(work).exists()


def _take(work: Path, order: list[str]) -> None:
    from codemods.plan.lock import repo_lock

    with repo_lock(work, 5):
        order.append("second")


def test_a_target_branch_the_checkout_lacks_is_named_with_what_it_has(tmp_path: Path, built) -> None:
    """After main became trunk, a publish still told to target origin/main
    says that branch is not there and names the ones that are, rather than
    call the base no commit of it."""
    remote, work, artifact = built
    git(remote, "branch", "-m", "main", "trunk")
    git(remote, "symbolic-ref", "HEAD", "refs/heads/trunk")
    result = invoke("publish", "--repo", publisher(tmp_path, remote), "--artifact", artifact, "--branch", BRANCH,
                    "--target", "origin/main", "--author", BOT)
    assert result.exit_code == 3
    assert "the target branch origin/main is not in this checkout (it has origin/trunk)" in result.stderr
    assert "is not a commit of" not in result.stderr
