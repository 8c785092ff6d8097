"""A team's days with the scheduled job, through the action's own steps and
a `gh` stand-in that keeps state (SPEC 5a): a closed PR means no, a
blocked branch stays green, a skipped step stays skipped."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from codemods.deliver import forge

from .gitrepo import FIXED, commit_all, git, with_remote
from .team_action import FAKE_GH, STEPS, edit_pull, gh_state, read_state, run_action

BRANCH = "refs/heads/codemod/app-state"
RITA = {
    "GIT_AUTHOR_NAME": "Rita Reviewer", "GIT_AUTHOR_EMAIL": "rita@example.com",
    "GIT_COMMITTER_NAME": "Rita Reviewer", "GIT_COMMITTER_EMAIL": "rita@example.com",
}


def _remote_tip(remote: Path) -> str:
    return git(remote, "for-each-ref", "--format=%(objectname)", BRANCH).strip()


def _creates(state: Path) -> int:
    return sum(1 for call in read_state(state)["calls"] if "POST" in call and call[-3].endswith("/pulls"))


def _move_main(tmp: Path, remote: Path, work: Path, name: str = "CONTRIBUTING.md") -> None:
    """Someone merges an unrelated change into main; the job's checkout is fresh."""
    other = tmp / f"other-{name}"
    git(tmp, "clone", "-q", str(remote), str(other))
    (other / name).write_text("be nice\n")
    commit_all(other, f"docs: {name}")
    git(other, "push", "-q", "origin", "main")
    git(work, "pull", "-q", "--ff-only", "origin", "main")


def test_a_closed_pr_with_the_same_change_means_no(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    state = gh_state(tmp_path)
    day1 = run_action(tmp_path, work, "1")
    assert day1.outputs["pr-action"] == "open" and day1.outputs["pr-number"] == "1", day1
    tip = _remote_tip(remote)
    edit_pull(state, 1, state="closed")  # closed without merging: a no

    day2 = run_action(tmp_path, work, "2")
    assert set(day2.exits.values()) == {0}, day2.stderr
    assert STEPS[1] not in day2.exits  # nothing built, nothing pushed
    assert day2.outputs["pr-action"] == "declined" and day2.outputs["pr-number"] == "1"
    assert "declined" in day2.summary and "#1 proposed this same change" in day2.summary
    assert _remote_tip(remote) == tip and _creates(state) == 1

    _move_main(tmp_path, remote, work)  # main moves on; the change itself does not
    day3 = run_action(tmp_path, work, "3")
    assert day3.outputs["pr-action"] == "declined", day3
    assert _creates(state) == 1 and _remote_tip(remote) == tip


def test_a_closed_pr_then_another_change_opens_a_new_pr(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    state = gh_state(tmp_path)
    assert run_action(tmp_path, work, "1").outputs["pr-action"] == "open"
    edit_pull(state, 1, state="closed")
    # the change differs: the team's main now asks for the 2.x form
    (work / ".mesh-codemod.toml").write_text('form = "2.x"\n')
    commit_all(work, "chore: the 2.x SDK form")
    git(work, "push", "-q", "origin", "main")
    day2 = run_action(tmp_path, work, "2")
    assert day2.outputs["pr-action"] == "open" and day2.outputs["pr-number"] == "2", day2
    pulls = {p["number"]: p for p in read_state(state)["pulls"]}
    assert forge.fingerprint_in(pulls[1]["body"]) != forge.fingerprint_in(pulls[2]["body"])
    assert "StateChangedParamsSchema" in git(remote, "show", f"{BRANCH}:apps/mesh/src/mcp-apps/types.ts")


def test_a_merged_then_reverted_change_is_a_no(tmp_path: Path) -> None:
    """A PR merged, and main no longer has any of it (the team reverted the
    feature): the same change is not proposed again; another change is."""
    remote, work = with_remote(tmp_path)
    state = gh_state(tmp_path)
    run_action(tmp_path, work, "1")
    tip = _remote_tip(remote)
    edit_pull(state, 1, state="closed", merged_at="2026-12-01T00:00:00Z")
    day2 = run_action(tmp_path, work, "2")
    assert day2.outputs["pr-action"] == "declined" and day2.outputs["pr-number"] == "1", day2
    assert "was merged, and the base no longer has it (reverted)" in day2.summary
    assert _creates(state) == 1 and _remote_tip(remote) == tip

    (work / ".mesh-codemod.toml").write_text('form = "2.x"\n')  # a different change
    commit_all(work, "chore: the 2.x SDK form")
    git(work, "push", "-q", "origin", "main")
    assert run_action(tmp_path, work, "3").outputs["pr-action"] == "open"


def test_a_reviewer_commit_leaves_the_branch_alone_green_with_one_comment(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    state = gh_state(tmp_path)
    assert run_action(tmp_path, work, "1").outputs["pr-action"] == "open"
    review = tmp_path / "review"
    git(tmp_path, "clone", "-q", "-b", "codemod/app-state", str(remote), str(review))
    (review / "NOTES.md").write_text("a reviewer's note\n")
    git(review, "add", "-A")
    git(review, "commit", "-q", "-m", "review: a note", env={**FIXED, **RITA})
    git(review, "push", "-q", "origin", "codemod/app-state")
    tip = _remote_tip(remote)

    for day in ("2", "3"):
        run = run_action(tmp_path, work, day)
        assert set(run.exits.values()) == {0}, run.stderr
        assert run.outputs["blocked"] == "true" and run.outputs["pushed"] == "false"
        assert run.outputs["pr-action"] == "blocked" and run.outputs["pr-number"] == "1"
        assert "did not make" in run.summary
        assert _remote_tip(remote) == tip
    comments = read_state(state)["comments"]["1"]
    assert len(comments) == 1 and "Rita Reviewer" in comments[0]["body"]
    assert _creates(state) == 1


def test_fail_on_blocked_turns_it_red_and_force_replaces(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    run_action(tmp_path, work, "1")
    review = tmp_path / "review"
    git(tmp_path, "clone", "-q", "-b", "codemod/app-state", str(remote), str(review))
    (review / "NOTES.md").write_text("a reviewer's note\n")
    git(review, "add", "-A")
    git(review, "commit", "-q", "-m", "review: a note", env={**FIXED, **RITA})
    git(review, "push", "-q", "origin", "codemod/app-state")
    red = run_action(tmp_path, work, "2", **{"fail-on-blocked": "true"})
    assert red.exits[STEPS[1]] == 3 and "did not make" in red.stderr
    forced = run_action(tmp_path, work, "3", force="true")
    assert set(forced.exits.values()) == {0} and forced.outputs["pushed"] == "true"
    assert "NOTES.md" not in git(remote, "ls-tree", "-r", "--name-only", BRANCH)


def test_a_skipped_step_stays_skipped_in_the_action(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    (work / ".mesh-codemod.toml").write_text('skip = ["app-state-tests"]\n')
    commit_all(work, "chore: no generated tests")
    git(work, "push", "-q", "origin", "main")
    run = run_action(tmp_path, work, "1")
    assert run.outputs["pr-action"] == "open", run
    files = git(remote, "ls-tree", "-r", "--name-only", BRANCH)
    assert "apps/mesh/src/mcp-apps/app-state.ts" in files and "app-state.test.ts" not in files
    body = read_state(gh_state(tmp_path))["pulls"][0]["body"]
    assert "## Left alone" in body and "skipped by `.mesh-codemod.toml`" in body


# --- forge on its own: the lookup --------------------------------------------


def _pull(number: int, owner: str = "decocms", ref: str = "codemod/app-state", **extra) -> dict:
    return {
        "number": number, "state": "closed", "merged_at": None, "title": "t", "body": "",
        "head": {"ref": ref, "repo": {"full_name": f"{owner}/mesh", "owner": {"login": owner}}},
        "base": {"ref": "main"}, **extra,
    }


def _gh(state: Path):
    def run(args: list[str], stdin: bytes | None) -> str:
        env = {"PATH": "/usr/bin:/bin", "GH_TOKEN": "x", "FAKE_GH_STATE": str(state)}
        result = subprocess.run(["python3", str(FAKE_GH), "api", *args], input=stdin, capture_output=True, env=env)
        assert result.returncode == 0, result.stderr
        return result.stdout.decode()
    return run


def test_the_lookup_reads_every_page_and_only_the_repositorys_own_prs(tmp_path: Path) -> None:
    state = gh_state(tmp_path)
    data = read_state(state)
    # 150 of our own closed PRs (older changes), a fork's newer one, then ours with the fingerprint
    data["pulls"] = [_pull(n, body=f"old {n}") for n in range(1, 151)]
    data["pulls"].append(_pull(151, owner="mallory", body=forge.fingerprint_line("sha256:" + "a" * 64)))
    data["pulls"].insert(0, _pull(0, body=forge.fingerprint_line("sha256:" + "b" * 64)))
    state.write_text(json.dumps(data))
    pulls = forge.own_pulls("decocms/mesh", "codemod/app-state", "main", gh=_gh(state))
    assert len(pulls) == 151 and 151 not in [p.number for p in pulls]
    report = {"commits": [{}], "fingerprint": "sha256:" + "b" * 64}
    assert forge.decide(report, pulls).action == "declined"
    # the fork's PR has "a": never a "no" for us
    assert forge.decide({**report, "fingerprint": "sha256:" + "a" * 64}, pulls).action == "open"
    calls = read_state(state)["calls"]
    assert all("head=decocms%3Acodemod%2Fapp-state" in c[-1] and "state=all" in c[-1] for c in calls)


def test_the_fingerprint_ignores_layout_and_unrelated_lines() -> None:
    old = b"const a = 1;\n\nexport function f() {\n  return 1;\n}\n"
    new = b"const a = 1;\n\nexport function f() {\n  return 1;\n}\nexport const g = 'x';\n"
    same = forge.fingerprint([("x.ts", old, new)])
    relaid = new.replace(b"'x'", b'"x"').replace(b"  return", b"    return")
    moved = b"// unrelated\n" + old, b"// unrelated\n" + relaid
    assert forge.fingerprint([("x.ts", *moved)]) == same
    assert forge.fingerprint([("x.ts", old, new.replace(b"'x'", b"'y'"))]) != same
    assert forge.fingerprint([("y.ts", old, new)]) != same


def test_a_closed_pr_then_a_new_releases_output_opens_a_new_pr(tmp_path: Path) -> None:
    """An older release (a copy of this code with one line more in its
    test template) pushed the branch and its PR #1 was closed. This
    release's output differs, so the scheduled run opens a new PR."""
    import os
    import shutil
    import sys

    from .gitrepo import BOT
    from .support import ROOT

    older = tmp_path / "older-release"
    shutil.copytree(ROOT / "codemods", older / "codemods", ignore=shutil.ignore_patterns("__pycache__"))
    template = older / "codemods/recipes/host/templates/app-state.test.ts"
    template.write_text("// written by an older release\n" + template.read_text())
    remote, work = with_remote(tmp_path)
    made = subprocess.run(
        [sys.executable, "-m", "codemods", "pr", "--repo", str(work), "--branch", "codemod/app-state",
         "--push", "origin", "--author", BOT, "--no-verify", "--json"],
        cwd=older, env={**os.environ, "PYTHONPATH": str(older)}, capture_output=True, text=True,
    )
    assert made.returncode == 0, made.stderr
    old = json.loads(made.stdout)
    state = gh_state(tmp_path)
    data = read_state(state)
    data["pulls"].append({
        "number": 1, "state": "closed", "merged_at": None, "title": old["title"], "body": old["body"],
        "head": {"ref": "codemod/app-state", "repo": {"full_name": "decocms/mesh", "owner": {"login": "decocms"}}},
        "base": {"ref": "main"},
    })
    state.write_text(json.dumps(data))
    assert "written by an older release" in git(remote, "show", f"{BRANCH}:apps/mesh/src/mcp-apps/app-state.test.ts")

    day2 = run_action(tmp_path, work, "2")
    assert day2.outputs["pr-action"] == "open" and day2.outputs["pr-number"] == "2", day2.stderr
    assert "written by an older release" not in git(remote, "show", f"{BRANCH}:apps/mesh/src/mcp-apps/app-state.test.ts")
    pulls = {p["number"]: p for p in read_state(state)["pulls"]}
    assert forge.fingerprint_in(pulls[1]["body"]) != forge.fingerprint_in(pulls[2]["body"])
    # the day after, with this release again: the open PR is updated, nothing new
    day3 = run_action(tmp_path, work, "3")
    assert day3.outputs["pr-action"] == "update" and _creates(state) == 1


def test_nothing_to_do_names_what_the_team_left_alone() -> None:
    report = {"commits": [], "left_alone": [{"path": "apps/mesh/src/mcp-apps/app-state.test.ts", "why": "decision"}]}
    decision = forge.decide(report, [])
    assert decision.action == "none"
    assert decision.reason.endswith("left alone by the team's decision: apps/mesh/src/mcp-apps/app-state.test.ts (decision)")
