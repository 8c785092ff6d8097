"""The second year (SPEC 5a, issue 30): the team refactors the merged
feature, the PR lives on. Each case runs the example workflow job by job
(tests/workflow_run.py) with the stateful `gh` stand-in, or the command
line on a bare remote."""

from __future__ import annotations

import json
from pathlib import Path

from .gitrepo import BOT, commit_all, git, with_remote
from .support import invoke
from .team_action import edit_pull, gh_state, read_state, run_action

INDEX = "apps/mesh/src/web/index.tsx"
BRANCH = "codemod/app-state"


def _merge_the_pr(tmp: Path, remote: Path, work: Path, state: Path, number: int = 1) -> None:
    """The team merges the tool's PR (a fast-forward of main to its branch)."""
    git(work, "fetch", "-q", "origin", BRANCH)
    git(work, "merge", "-q", "--ff-only", f"origin/{BRANCH}")
    git(work, "push", "-q", "origin", "main")
    edit_pull(state, number, state="closed", merged_at="2026-12-02T00:00:00Z")


def _rename_the_search_schema(work: Path) -> None:
    """An ordinary refactor the tool cannot follow: the route's search
    schema renamed and handed to the route through an adapter (its appState
    member is there). A schema renamed or moved alone is found by role
    (tests/test_role_recognition.py); one the route does not validate its
    search with directly is not."""
    path = work / INDEX
    text = path.read_text()
    assert "validateSearch: unifiedChatSearchSchema," in text
    text = text.replace("validateSearch: unifiedChatSearchSchema,", "validateSearch: zodValidator(chatRouteSearch),")
    text = text.replace('import * as z from "zod";\n', 'import * as z from "zod";\nimport { zodValidator } from "@tanstack/zod-adapter";\n')
    path.write_text(text.replace("unifiedChatSearchSchema", "chatRouteSearch"))
    commit_all(work, "refactor: rename the chat route's search schema")
    git(work, "push", "-q", "origin", "main")


def _feature_merged_then_refactored(tmp_path: Path):
    remote, work = with_remote(tmp_path)
    state = gh_state(tmp_path)
    assert run_action(tmp_path, work, "1").outputs["pr-action"] == "open"
    _merge_the_pr(tmp_path, remote, work, state)
    _rename_the_search_schema(work)
    return remote, work, state


def test_a_refactor_the_tool_cannot_follow_is_blocked_green_naming_the_opt_out(tmp_path: Path) -> None:
    remote, work, state = _feature_merged_then_refactored(tmp_path)
    refs = git(remote, "for-each-ref")
    for day in ("2", "3"):
        run = run_action(tmp_path, work, day)
        assert set(run.exits.values()) == {0}, run.stderr
        assert run.outputs["pr-action"] == "blocked", run
        assert "unifiedChatSearchSchema" in run.summary and 'skip = ["search-schema"]' in run.summary, run.summary
        assert "older revisions" not in run.summary + run.stderr
    assert git(remote, "for-each-ref") == refs  # nothing pushed
    assert len(read_state(state)["pulls"]) == 1  # nothing opened

    # --fail-on-blocked turns it red
    red = run_action(tmp_path, work, "4", **{"fail-on-blocked": "true"})
    assert 3 in red.exits.values() or 1 in red.exits.values(), red.exits
    assert 'skip = ["search-schema"]' in red.stderr

    # the one line opts out: nothing to do, green
    (work / ".mesh-codemod.toml").write_text('skip = ["search-schema"]\n')
    commit_all(work, "chore: mesh-codemod leaves the search schema to us")
    git(work, "push", "-q", "origin", "main")
    run = run_action(tmp_path, work, "5")
    assert set(run.exits.values()) == {0} and run.outputs["pr-action"] == "none", run


def test_the_command_line_names_the_refactor_not_an_old_revision(tmp_path: Path) -> None:
    remote, work, _state = _feature_merged_then_refactored(tmp_path)
    args = ("pr", "--repo", work, "--branch", "codemod/next", "--author", BOT, "--no-verify", "--json")
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["commits"] == [] and report["blocked"]["steps"][0]["step"] == "search-schema", report
    assert report["blocked"]["steps"][0]["skip"] == 'skip = ["search-schema"]'
    assert "older revisions" not in result.stdout
    assert "codemod/next" not in git(work, "branch", "--list")
    red = invoke(*args[:-1], "--fail-on-blocked")
    assert red.exit_code == 3 and 'skip = ["search-schema"]' in red.output, red.output
    # apply refuses (exit 3) with the same words
    applied = invoke("apply", "--repo", work, "--check")
    assert applied.exit_code == 3 and "refactor the tool cannot follow" in applied.output, applied.output
    assert "older revisions" not in applied.output


def test_a_missing_anchor_without_the_feature_is_still_an_old_revision(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    _rename_the_search_schema(work)
    result = invoke("apply", "--repo", work, "--check")
    assert result.exit_code == 3 and "older revisions are not supported" in result.output, result.output


# --- the PR's life ---------------------------------------------------------------

RITA = {
    "GIT_AUTHOR_NAME": "Rita Reviewer", "GIT_AUTHOR_EMAIL": "rita@example.com",
    "GIT_COMMITTER_NAME": "Rita Reviewer", "GIT_COMMITTER_EMAIL": "rita@example.com",
}
GITHUB = {
    "GIT_AUTHOR_NAME": "Rita Reviewer", "GIT_AUTHOR_EMAIL": "rita@example.com",
    "GIT_COMMITTER_NAME": "GitHub", "GIT_COMMITTER_EMAIL": "noreply@github.com",
}


def _move_main(tmp: Path, remote: Path, work: Path, name: str) -> None:
    other = tmp / f"other-{name}"
    git(tmp, "clone", "-q", str(remote), str(other))
    (other / name).write_text("be nice\n")
    commit_all(other, f"docs: {name}")
    git(other, "push", "-q", "origin", "main")
    git(work, "pull", "-q", "--ff-only", "origin", "main")


def _remote_tip(remote: Path) -> str:
    return git(remote, "for-each-ref", "--format=%(objectname)", f"refs/heads/{BRANCH}").strip()


def test_update_branch_a_merge_of_the_base_is_the_tools(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    state = gh_state(tmp_path)
    assert run_action(tmp_path, work, "1").outputs["pr-action"] == "open"
    _move_main(tmp_path, remote, work, "CONTRIBUTING.md")
    # GitHub's "Update branch": main merged into the PR branch
    review = tmp_path / "review"
    git(tmp_path, "clone", "-q", "-b", BRANCH, str(remote), str(review))
    git(review, "merge", "-q", "--no-edit", "--no-ff", "origin/main", env={**RITA, **GITHUB})
    git(review, "push", "-q", "origin", BRANCH)
    merged = _remote_tip(remote)
    run = run_action(tmp_path, work, "2")
    assert set(run.exits.values()) == {0}, run.stderr
    assert run.outputs["pr-action"] == "update" and run.outputs["pushed"] == "true", run
    assert _remote_tip(remote) != merged
    # rebuilt on main: main below it, no merge on it
    git(remote, "merge-base", "--is-ancestor", "main", BRANCH)
    assert git(remote, "rev-list", "--merges", f"main..{BRANCH}").strip() == ""
    assert "1" not in read_state(state)["comments"]  # no comment


def test_each_new_reviewer_commit_gets_its_own_comment_naming_it(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    state = gh_state(tmp_path)
    assert run_action(tmp_path, work, "1").outputs["pr-action"] == "open"
    review = tmp_path / "review"
    git(tmp_path, "clone", "-q", "-b", BRANCH, str(remote), str(review))
    shas = []
    for day, note in (("2", "first"), ("4", "second")):
        (review / f"{note}.md").write_text(f"a reviewer's {note} note\n")
        git(review, "add", "-A")
        git(review, "commit", "-q", "-m", f"review: {note} note", env=RITA)
        git(review, "push", "-q", "origin", BRANCH)
        shas.append(git(review, "rev-parse", "HEAD").strip())
        for again in (day, f"{day}b"):
            run = run_action(tmp_path, work, again)
            assert set(run.exits.values()) == {0} and run.outputs["pr-action"] == "blocked", run.stderr
    comments = [c["body"] for c in read_state(state)["comments"]["1"]]
    assert len(comments) == 2, comments
    assert shas[0][:12] in comments[0] and shas[1][:12] not in comments[0]
    assert shas[1][:12] in comments[1]
    # the tool's own commits are never named
    own = git(remote, "rev-list", f"{BRANCH}~2", "^main").split()
    assert not any(sha[:12] in body for sha in own for body in comments)


def test_a_run_superseded_by_a_newer_one_finds_the_branch_the_tools(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    old_base = git(work, "rev-parse", "HEAD").strip()
    args = ("pr", "--repo", work, "--branch", BRANCH, "--push", "origin", "--author", BOT, "--no-verify", "--json")
    assert invoke(*args).exit_code == 0
    _move_main(tmp_path, remote, work, "CONTRIBUTING.md")
    newer = invoke(*args)
    assert newer.exit_code == 0 and json.loads(newer.stdout)["push"]["pushed"] is True, newer.output
    git(work, "fetch", "-q", "origin")
    # the older run again (a re-run of its job): main's commit is not a reviewer's
    again = invoke(*args, "--base", old_base)
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert "blocked" not in report, report["blocked"]


def test_a_refused_push_shows_the_remotes_reason(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\necho 'error: GH006: Protected branch update failed for refs/heads/codemod/app-state.' >&2\n"
        "echo 'error: Changes must be made through a pull request.' >&2\nexit 1\n"
    )
    hook.chmod(0o755)
    result = invoke("pr", "--repo", work, "--branch", BRANCH, "--push", "origin", "--author", BOT, "--no-verify")
    assert result.exit_code == 3, result.output
    assert "GH006: Protected branch update failed" in result.output, result.output
    assert "Changes must be made through a pull request" in result.output


# --- the forge: lookup, overlap, an unchanged body, a change that landed ---------


def _gh_runner(state: Path):
    import subprocess

    from .team_action import FAKE_GH

    def run(args: list[str], stdin: bytes | None) -> str:
        env = {"PATH": "/usr/bin:/bin", "GH_TOKEN": "x", "FAKE_GH_STATE": str(state)}
        result = subprocess.run(["python3", str(FAKE_GH), "api", *args], input=stdin, capture_output=True, env=env)
        if result.returncode != 0:
            from codemods.deliver.forge import ForgeError

            raise ForgeError(result.stderr.decode().strip())
        return result.stdout.decode()
    return run


def _a_pull(number: int, base: str = "main", state: str = "open", body: str = "", title: str = "t") -> dict:
    return {
        "number": number, "state": state, "merged_at": None, "title": title, "body": body,
        "head": {"ref": BRANCH, "repo": {"full_name": "decocms/mesh", "owner": {"login": "decocms"}}},
        "base": {"ref": base},
    }


def _with_pulls(tmp_path: Path, *pulls: dict) -> Path:
    state = gh_state(tmp_path)
    data = read_state(state)
    data["pulls"] = list(pulls)
    state.write_text(json.dumps(data))
    return state


def test_a_declined_pr_is_found_after_the_default_branch_was_renamed(tmp_path: Path) -> None:
    from codemods.deliver import forge

    mark = "sha256:" + "c" * 64
    state = _with_pulls(tmp_path, _a_pull(7, base="master", state="closed", body=forge.fingerprint_line(mark)))
    pulls = forge.own_pulls("decocms/mesh", BRANCH, "main", gh=_gh_runner(state))
    assert [p.number for p in pulls] == [7]
    decision = forge.decide({"commits": [{}], "fingerprint": mark}, pulls)
    assert decision.action == "declined" and decision.number == 7


def test_an_overlapping_publish_updates_instead_of_failing(tmp_path: Path) -> None:
    from codemods.deliver import forge

    # another run opened the PR after this one looked (no open PR then)
    state = _with_pulls(tmp_path, _a_pull(3, body="older body"))
    decision = forge.Decision("open", None, "no open PR")
    done = forge.act(decision, "decocms/mesh", BRANCH, "main", "title", "new body", "", gh=_gh_runner(state))
    assert done.action == "update" and done.number == 3 and "opened meanwhile" in done.reason, done
    pulls = read_state(state)["pulls"]
    assert len(pulls) == 1 and pulls[0]["body"] == "new body"


def test_the_same_body_is_not_sent_twice(tmp_path: Path) -> None:
    from codemods.deliver import forge

    state = _with_pulls(tmp_path, _a_pull(4, body="the body", title="the title"))
    run = _gh_runner(state)
    pulls = forge.own_pulls("decocms/mesh", BRANCH, "main", gh=run)
    decision = forge.decide({"commits": [{}], "fingerprint": "sha256:" + "d" * 64}, pulls)
    assert decision.action == "update"
    done = forge.act(decision, "decocms/mesh", BRANCH, "main", "the title", "the body", "", gh=run, pulls=pulls)
    assert "up to date" in done.reason and "updated" not in done.reason
    assert not any("PATCH" in call for call in read_state(state)["calls"])
    # a new body is sent
    done = forge.act(decision, "decocms/mesh", BRANCH, "main", "the title", "a new body", "", gh=run, pulls=pulls)
    assert done.reason == "updated #4"


def test_a_pr_whose_change_main_already_holds_is_closed_with_a_comment(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    state = gh_state(tmp_path)
    assert run_action(tmp_path, work, "1").outputs["pr-action"] == "open"
    # the same change reaches main through another PR (a person's squash)
    git(work, "fetch", "-q", "origin", BRANCH)
    git(work, "merge", "-q", "--squash", f"origin/{BRANCH}")
    git(work, "commit", "-q", "--no-gpg-sign", "-m", "feat: app state, by hand", env=RITA)
    git(work, "push", "-q", "origin", "main")
    main = git(work, "rev-parse", "HEAD").strip()
    run = run_action(tmp_path, work, "2")
    assert set(run.exits.values()) == {0}, run.stderr
    assert run.outputs["pr-action"] == "closed" and run.outputs["pr-number"] == "1", run
    data = read_state(state)
    assert data["pulls"][0]["state"] == "closed"
    [comment] = data["comments"]["1"]
    assert main[:12] in comment["body"] and "already holds the change" in comment["body"], comment
    # the next day: nothing
    assert run_action(tmp_path, work, "3").outputs["pr-action"] == "none"


# --- verify: nothing ran is not "passed" -------------------------------------------


def test_tests_that_ran_nothing_are_not_available_not_passed(tmp_path: Path, monkeypatch) -> None:
    from codemods.checks.bun_tests import run_tests
    from codemods.checks.model import Outcome

    from .canary import executable

    root = tmp_path / "checkout"
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text("{}\n")
    (root / "src/a.ts").write_text("export const a = 1;\n")
    (root / "src/a.test.ts").write_text('import { it } from "bun:test";\nit("a", () => {});\n')
    # nothing installed: not available, tests or none
    assert run_tests(root, ["src/a.ts"]).outcome is Outcome.NOT_AVAILABLE
    (root / "node_modules").mkdir()
    # a bun that exits 0 and runs nothing (a stand-in, a broken install)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    executable(bin_dir / "bun", "#!/bin/sh\nexit 0\n")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    check = run_tests(root, ["src/a.ts"])
    assert check.outcome is not Outcome.PASSED, check


# --- a laptop ------------------------------------------------------------------------


def test_conflict_markers_are_named_as_such(tmp_path: Path) -> None:
    import shutil

    from .support import FIXTURES

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "newest" / "input", repo)
    path = repo / "apps/mesh/src/mcp-apps/use-app-bridge.ts"
    lines = path.read_text().splitlines(keepends=True)
    lines[10:10] = ["<<<<<<< HEAD\n", "const a = 1;\n", "=======\n", "const a = 2;\n", ">>>>>>> theirs\n"]
    path.write_text("".join(lines))
    result = invoke("apply", "--repo", repo, "--check")
    assert result.exit_code == 3, result.output
    assert "merge conflict markers (`<<<<<<<` at line 11)" in result.output, result.output
    assert "syntax error" not in result.output


def test_the_configured_bot_identity_makes_a_laptops_commits_the_tools(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    (work / ".mesh-codemod.toml").write_text(f'author = "{BOT}"\n')
    commit_all(work, "chore: the job's identity")
    git(work, "push", "-q", "origin", "main")
    # the job, with its --author
    job = invoke("pr", "--repo", work, "--branch", BRANCH, "--push", "origin", "--author", BOT, "--no-verify", "--json")
    assert job.exit_code == 0, job.output
    tip = json.loads(job.stdout)["tip"]
    # a laptop without --author, whose git config is a person's
    git(work, "config", "user.name", "Lee Laptop")
    git(work, "config", "user.email", "lee@example.com")
    git(work, "branch", "-q", "-D", BRANCH)
    local = invoke("pr", "--repo", work, "--branch", BRANCH, "--push", "origin", "--no-verify", "--json")
    assert local.exit_code == 0, local.output
    report = json.loads(local.stdout)
    assert "blocked" not in report and report["tip"] == tip, report
    assert report["author"] == BOT
