"""`patch` and `pr` on real git repositories in temporary folders.

The remote is a bare repository; the user's checkout is a clone of it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from .gitrepo import BOT, commit_all, fixture_repo, git, state, with_remote
from .support import invoke, snapshot


def _applied_tree(repo: Path, into: Path) -> dict[str, bytes]:
    """What `apply` writes: on a plain copy of the checkout's files."""
    import shutil

    shutil.copytree(repo, into, ignore=shutil.ignore_patterns(".git"))
    assert invoke("apply", "--repo", into).exit_code == 0
    return snapshot(into)


def _files(repo: Path) -> dict[str, bytes]:
    return {p: data for p, data in snapshot(repo).items() if not p.startswith(".git/")}


def test_git_am_of_the_series_on_a_fresh_clone_gives_the_apply_tree(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    result = invoke("patch", "--repo", work, "--out", tmp_path / "series", "--author", BOT)
    assert result.exit_code == 0, result.output
    patches = sorted((tmp_path / "series").glob("*.patch"))
    assert [p.name[:5] for p in patches] == ["0001-", "0002-", "0003-", "0004-"]
    assert "Subject: [PATCH 1/4] feat(mcp-apps): keep each app's state in the appState URL" in patches[0].read_text()

    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(remote), str(fresh))
    git(fresh, "am", "-q", *map(str, patches), env={"GIT_COMMITTER_NAME": "R", "GIT_COMMITTER_EMAIL": "r@x"})
    assert _files(fresh) == _applied_tree(work, tmp_path / "applied")
    subjects = git(fresh, "log", "--format=%s", "-4").splitlines()
    assert subjects == [
        "feat(mcp-apps): accept the appState search param on the chat route",
        "feat(mcp-apps): keep chat and panel apps' state in the URL",
        "feat(mcp-apps): carry app state through the bridge and renderer",
        "feat(mcp-apps): keep each app's state in the appState URL param",
    ]
    assert git(fresh, "log", "-1", "--format=%an <%ae>|%ad", "--date=raw") == f"{BOT}|1778182265 +0000\n"


def test_each_commit_of_the_series_changes_only_its_group_files(tmp_path: Path) -> None:
    _, work = with_remote(tmp_path)
    result = invoke("patch", "--repo", work, "--out", tmp_path / "series", "--json")
    report = json.loads(result.stdout)
    groups = [(c["group"], sorted(f["path"] for f in c["files"])) for c in report["commits"]]
    assert groups == [
        ("app-state-format", ["apps/mesh/src/mcp-apps/app-state.test.ts", "apps/mesh/src/mcp-apps/app-state.ts"]),
        ("bridge-plumbing", [
            "apps/mesh/src/mcp-apps/mcp-app-renderer.tsx",
            "apps/mesh/src/mcp-apps/types.ts",
            "apps/mesh/src/mcp-apps/use-app-bridge.test.ts",
            "apps/mesh/src/mcp-apps/use-app-bridge.ts",
        ]),
        ("render-sites", [
            "apps/mesh/src/web/components/chat/message/parts/tool-call-part/generic.tsx",
            "apps/mesh/src/web/hooks/use-app-state-param.test.ts",
            "apps/mesh/src/web/hooks/use-app-state-param.ts",
            "apps/mesh/src/web/routes/project-app-view.tsx",
        ]),
        ("search-schema", ["apps/mesh/src/web/index.tsx"]),
    ]
    for commit in report["commits"]:
        changed = git(work, "diff-tree", "--no-commit-id", "--name-only", "-r", commit["sha"]).split()
        assert sorted(changed) == sorted(f["path"] for f in commit["files"])


def test_without_author_patch_and_pr_commit_as_the_tool_whatever_git_config_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SPEC 8: the author comes from the flags (or the committed config),
    never from the user's git config: not the checkout's, nor a
    ~/.gitconfig that GIT_CONFIG_GLOBAL hides from git itself. `patch` and
    `pr` make the same commits."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Lee Laptop\n\temail = lee@example.com\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    _, work = with_remote(tmp_path)  # its own git config names "Dev"
    patch = invoke("patch", "--repo", work, "--out", tmp_path / "series", "--json")
    pr = invoke("pr", "--repo", work, "--branch", "codemod/app-state", "--no-verify", "--json")
    assert patch.exit_code == 0 and pr.exit_code == 0, patch.output + pr.output
    made = [json.loads(result.stdout) for result in (patch, pr)]
    tool = "mesh-codemod <mesh-codemod@users.noreply.github.com>"
    assert [m["author"] for m in made] == [tool, tool]
    assert made[0]["tip"] == made[1]["tip"]
    assert git(work, "log", "-1", "--format=%an <%ae>|%cn <%ce>", "codemod/app-state").strip() == f"{tool}|{tool}"


def test_regeneration_is_byte_identical(tmp_path: Path) -> None:
    _, work = with_remote(tmp_path)
    first, second = tmp_path / "a", tmp_path / "b"
    assert invoke("patch", "--repo", work, "--out", first, "--author", BOT).exit_code == 0
    # another clone, other git config: the same bytes
    _, other = with_remote(tmp_path / "again")
    git(other, "config", "diff.noprefix", "true")
    git(other, "config", "diff.context", "9")
    assert invoke("patch", "--repo", other, "--out", second, "--author", BOT).exit_code == 0
    assert snapshot(first) == snapshot(second)
    assert len(snapshot(first)) == 4


def test_patch_replaces_an_older_series_and_keeps_other_files(tmp_path: Path) -> None:
    _, work = with_remote(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    # a patch of an earlier series: the tool's by its trailer (tests/test_pr_path.py:
    # other patch files are kept)
    assert invoke("patch", "--repo", work, "--out", tmp_path / "earlier").exit_code == 0
    shutil.copy(sorted((tmp_path / "earlier").glob("*.patch"))[-1], out / "0009-stale.patch")
    (out / "notes.md").write_text("mine")
    assert invoke("patch", "--repo", work, "--out", out).exit_code == 0
    assert sorted(p.name[:4] for p in out.glob("*.patch")) == ["0001", "0002", "0003", "0004"]
    assert (out / "notes.md").read_text() == "mine"


def test_patch_series_of_a_partly_applied_base_has_no_empty_commit(tmp_path: Path) -> None:
    repo = fixture_repo(tmp_path / "repo")
    assert invoke("apply", "--repo", repo, "--only", "search-schema").exit_code == 0
    commit_all(repo, "schema by hand")
    result = invoke("patch", "--repo", repo, "--out", tmp_path / "out", "--json")
    assert [c["group"] for c in json.loads(result.stdout)["commits"]] == [
        "app-state-format", "bridge-plumbing", "render-sites",
    ]


def test_patch_refuses_what_is_not_a_git_checkout(host_tree, tmp_path: Path) -> None:
    result = invoke("patch", "--repo", host_tree(), "--out", tmp_path / "out")
    assert result.exit_code == 3
    assert "not a git repository" in result.stderr
    assert not (tmp_path / "out").exists()


def test_patch_with_a_malformed_author_is_a_usage_error(tmp_path: Path) -> None:
    _, work = with_remote(tmp_path)
    result = invoke("patch", "--repo", work, "--out", tmp_path / "out", "--author", "nobody")
    assert result.exit_code == 2
    assert "Name <email>" in result.stderr


def _dirty(work: Path) -> None:
    """Staged, unstaged and untracked changes, one of them in a target file."""
    (work / "apps/mesh/src/web/index.tsx").write_text("// local experiment\n")
    (work / "package.json").write_text('{"name": "staged"}\n')
    git(work, "add", "package.json")
    (work / "scratch.txt").write_text("untracked\n")


def test_pr_on_a_dirty_checkout_leaves_status_index_and_head_alone(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    _dirty(work)
    before, files = state(work), _files(work)
    result = invoke("pr", "--repo", work, "--branch", "codemod/app-state", "--push", "origin", "--author", BOT)
    assert result.exit_code == 0, result.output
    assert state(work) == before
    assert _files(work) == files
    # the branch is built from HEAD's committed files, not the dirty ones
    tip = git(remote, "rev-parse", "refs/heads/codemod/app-state").strip()
    assert git(work, "rev-parse", "refs/heads/codemod/app-state").strip() == tip
    assert git(remote, "rev-list", "--count", f"main..{tip}").strip() == "4"
    assert "[APP_STATE_PARAM]: z" in git(remote, "show", f"{tip}:apps/mesh/src/web/index.tsx")
    assert "<details><summary>How this PR was made (mesh-codemod)</summary>" in result.stdout
    assert "branch codemod/app-state: created" in result.stderr


def test_a_second_pr_run_creates_and_pushes_nothing(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    args = ("pr", "--repo", work, "--branch", "codemod/app-state", "--push", "origin", "--author", BOT, "--json")
    first = json.loads(invoke(*args).stdout)
    assert first["push"]["pushed"] is True and first["local"]["action"] == "created"
    objects = git(remote, "count-objects", "-v")
    reflog = git(remote, "for-each-ref")
    second = json.loads(invoke(*args).stdout)
    assert second["tip"] == first["tip"]
    assert second["local"]["action"] == "unchanged"
    assert second["push"] == {"remote": "origin", "lease": first["tip"], "pushed": False}
    assert git(remote, "count-objects", "-v") == objects
    assert git(remote, "for-each-ref") == reflog


def test_pr_rebuilds_the_branch_when_the_base_moved(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    args = ("pr", "--repo", work, "--branch", "codemod/app-state", "--push", "origin", "--author", BOT, "--json")
    old = json.loads(invoke(*args).stdout)["tip"]
    (work / "README.md").write_text("main moved on\n")
    new_base = commit_all(work, "docs: readme", env={"GIT_COMMITTER_DATE": "1778200000 +0000"})
    report = json.loads(invoke(*args).stdout)
    assert report["base"] == new_base
    assert report["push"]["pushed"] is True and report["push"]["lease"] == old
    tip = git(remote, "rev-parse", "refs/heads/codemod/app-state").strip()
    assert tip == report["tip"] != old
    assert git(remote, "rev-list", "--count", f"{new_base}..{tip}").strip() == "4"
    git(remote, "merge-base", "--is-ancestor", new_base, tip)  # raises unless an ancestor


def test_another_authors_commit_on_the_remote_branch_is_refused_and_kept(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    args = ("pr", "--repo", work, "--branch", "codemod/app-state", "--push", "origin", "--author", BOT)
    assert invoke(*args).exit_code == 0
    # a reviewer pushes a fix-up onto the branch from their own clone
    reviewer = tmp_path / "reviewer"
    git(tmp_path, "clone", "-q", "-b", "codemod/app-state", str(remote), str(reviewer))
    (reviewer / "apps/mesh/src/mcp-apps/app-state.ts").write_text("// reviewed\n", encoding="utf-8")
    fixup = commit_all(reviewer, "fix: reviewer's change", env={
        "GIT_AUTHOR_NAME": "Rita Reviewer", "GIT_AUTHOR_EMAIL": "rita@example.com",
    })
    git(reviewer, "push", "-q", "origin", "codemod/app-state")
    # the base moves, so a rerun would rebuild the branch
    (work / "README.md").write_text("main moved on\n")
    commit_all(work, "docs: readme")

    blocked = invoke(*args)  # by default: left alone, green, saying why
    assert blocked.exit_code == 0 and "blocked:" in blocked.stderr and fixup[:12] in blocked.stderr
    refused = invoke(*args, "--fail-on-blocked")
    assert refused.exit_code == 3
    assert fixup[:12] in refused.stderr and "Rita Reviewer" in refused.stderr
    assert "--force" in refused.stderr
    assert git(remote, "rev-parse", "refs/heads/codemod/app-state").strip() == fixup

    forced = invoke(*args, "--force")
    assert forced.exit_code == 0, forced.output
    assert f"replaced (--force): {fixup[:12]}" in forced.stderr
    assert git(remote, "rev-parse", "refs/heads/codemod/app-state").strip() != fixup


def test_the_push_lease_protects_a_branch_that_moved_after_it_was_read(tmp_path: Path, monkeypatch) -> None:
    from codemods.deliver import branches

    remote, work = with_remote(tmp_path)
    original = branches.remote_branch

    def racing(repo, name, branch):
        seen = original(repo, name, branch)
        # someone else creates the branch right after it was read
        git(remote, "update-ref", f"refs/heads/{branch}", git(remote, "rev-parse", "main").strip())
        return seen

    monkeypatch.setattr(branches, "remote_branch", racing)
    result = invoke("pr", "--repo", work, "--branch", "codemod/app-state", "--push", "origin", "--author", BOT)
    assert result.exit_code == 3
    assert "lease" in result.stderr
    assert git(remote, "rev-parse", "refs/heads/codemod/app-state").strip() == git(remote, "rev-parse", "main").strip()


def test_pr_never_moves_the_checked_out_branch(tmp_path: Path) -> None:
    _, work = with_remote(tmp_path)
    before = state(work)
    result = invoke("pr", "--repo", work, "--branch", "main")
    assert result.exit_code == 3
    assert "checked out" in result.stderr
    assert state(work) == before


def test_pr_when_the_base_has_every_edit_does_nothing(tmp_path: Path) -> None:
    repo = fixture_repo(tmp_path / "repo")
    assert invoke("apply", "--repo", repo).exit_code == 0
    commit_all(repo, "feature by hand")
    result = invoke("pr", "--repo", repo, "--branch", "codemod/app-state")
    assert result.exit_code == 0
    assert "nothing to do" in result.stderr
    assert git(repo, "branch", "--list", "codemod/app-state") == ""


def test_version() -> None:
    from codemods import __version__

    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout == f"mesh-codemod {__version__}\n"


def test_patch_refuses_a_commit_that_is_not_a_mesh_checkout(tmp_path: Path) -> None:
    repo = tmp_path / "other"
    repo.mkdir()
    (repo / "README.md").write_text("not mesh\n")
    git(repo, "init", "-q")
    commit_all(repo, "other project")
    result = invoke("patch", "--repo", repo, "--out", tmp_path / "out")
    assert result.exit_code == 3
    assert f"{repo} at " in result.stderr and "not a recognised target" in result.stderr
    assert "mesh-codemod-tree" not in result.stderr


def test_the_sdk_series_follows_the_sdk_commit_groups_and_git_am_gives_the_apply_tree(tmp_path: Path) -> None:
    import shutil

    from codemods import recipes

    from .support import ROOT

    work = tmp_path / "sdk"
    shutil.copytree(ROOT / "fixtures" / "sdk" / "shape-c-full" / "input", work)
    git(work, "init", "-q", "-b", "main")
    commit_all(work, "sdk-shaped fixture")
    result = invoke("patch", "--repo", work, "--out", tmp_path / "series", "--json", "--author", BOT)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [c["group"] for c in report["commits"]] == [g.id for g in recipes.target_named("sdk").commits]

    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(work), str(fresh))
    patches = sorted((tmp_path / "series").glob("*.patch"))
    git(fresh, "am", "-q", *map(str, patches), env={"GIT_COMMITTER_NAME": "R", "GIT_COMMITTER_EMAIL": "r@x"})
    assert _files(fresh) == _applied_tree(work, tmp_path / "applied")
