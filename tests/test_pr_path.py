"""The PR path under accident and attack (SPEC section 8, "The PR path").

Each test is one failure that a review reproduced on a local bare remote:
the token seen by the repository's own tools, a reviewer's amend pushed
over, hooks run, a tag pushed, patches that depend on git config, foreign
patch files deleted, a refused push that still moves the branch, branch
names git reads as something else, a crafted base tree. Nothing here needs
a network.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from codemods.plan import environment
from codemods.deliver import branches, build, patches
from codemods.plan import repository

from . import canary
from .canary import TOKEN
from .canary import executable as _executable
from .gitrepo import BOT, FIXED, commit_all, fixture_repo, git, state, with_remote
from .support import invoke, snapshot
from .test_verify import MODULE, checkout  # noqa: F401  (fixture)

BRANCH = "codemod/app-state"
PR = ("pr", "--branch", BRANCH, "--push", "origin", "--author", BOT)
BOT_ENV = {
    "GIT_AUTHOR_NAME": "Codemod Bot", "GIT_AUTHOR_EMAIL": "bot@example.com",
    "GIT_COMMITTER_NAME": "Codemod Bot", "GIT_COMMITTER_EMAIL": "bot@example.com",
}
RITA = {"GIT_COMMITTER_NAME": "Rita Reviewer", "GIT_COMMITTER_EMAIL": "rita@example.com"}
RITA_AUTHOR = {**RITA, "GIT_AUTHOR_NAME": "Rita Reviewer", "GIT_AUTHOR_EMAIL": "rita@example.com"}


def _pr(work: Path, *extra: str, json_out: bool = False):
    return invoke(*PR, "--repo", work, *extra, *(["--json"] if json_out else []))


def _remote_refs(remote: Path) -> str:
    return git(remote, "for-each-ref", "--format=%(refname) %(objectname)")


def _files(repo: Path) -> dict[str, bytes]:
    return {p: data for p, data in snapshot(repo).items() if not p.startswith(".git/")}


# ---------------------------------------------------------- 1. the token


def test_the_token_reaches_only_gits_network_calls(tmp_path: Path, monkeypatch) -> None:
    """A `check` script, the tests, Biome and oxlint (from the checkout)
    record their environment: no token, no git credential config, in any
    of them; only ls-remote and push see it. Bun comes from PATH."""
    remote, work = with_remote(tmp_path)
    canary.verify_shaped(work)
    logs, path_dir = tmp_path / "logs", tmp_path / "path-bin"
    canary.install(work, logs, path_dir)
    monkeypatch.setenv("PATH", f"{path_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("MESH_CODEMOD_CACHE", str(tmp_path / "cache"))
    # the token as the action gives it, plus the old way (environment git
    # config) and the other credential variables a runner may hold
    basic = environment.basic_credential(TOKEN)
    monkeypatch.setenv("MESH_CODEMOD_GIT_TOKEN", TOKEN)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "http.https://github.com/.extraheader")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", f"AUTHORIZATION: basic {basic}")
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    monkeypatch.setenv("INPUT_TOKEN", TOKEN)

    result = _pr(work, "--body-out", tmp_path / "body.md", json_out=True)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["push"]["pushed"] is True
    outcomes = {c["check"]: c["outcome"] for c in report["verify"]["checks"]}
    assert outcomes == {
        "parse": "passed", "format": "passed", "lint": "passed", "typecheck": "passed", "tests": "passed", "knip": "passed",
    }

    assert {"biome", "oxlint", "bun-run", "bun-test"} <= canary.recorded_tools(logs)
    assert not (logs / "POISONED-BUN-RAN").exists(), "verify ran node_modules/.bin/bun"
    assert canary.leaks(logs, work / ".git" / "config", tmp_path / "body.md") == []
    calls = canary.git_calls(logs)
    assert {sub for sub, mark in calls if mark == "token"} == {"ls-remote", "push"}, calls
    assert len([c for c in calls if c[1] == "clean"]) > 5
    assert TOKEN not in result.output and basic not in result.output
    # and the process's environment is as it was
    assert os.environ["MESH_CODEMOD_GIT_TOKEN"] == TOKEN and os.environ["GH_TOKEN"] == TOKEN


def test_the_network_environment_carries_the_token_as_an_authorization_header(monkeypatch) -> None:
    monkeypatch.setenv("MESH_CODEMOD_GIT_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://ghe.example.com")
    with environment.sealed():
        assert "MESH_CODEMOD_GIT_TOKEN" not in os.environ
        assert TOKEN not in json.dumps(environment.scrubbed())
        network = environment.network_env()
    entries = {network[f"GIT_CONFIG_KEY_{i}"]: network[f"GIT_CONFIG_VALUE_{i}"] for i in range(int(network["GIT_CONFIG_COUNT"]))}
    assert entries["http.https://ghe.example.com/.extraheader"] == f"AUTHORIZATION: basic {environment.basic_credential(TOKEN)}"
    assert entries["core.hooksPath"] == os.devnull and entries["push.followTags"] == "false"
    assert network["GIT_CONFIG_PARAMETERS"] == "" and "MESH_CODEMOD_GIT_TOKEN" not in network


# ------------------------------------------------- 2. a reviewer's work


def _reviewer_clone(tmp_path: Path, remote: Path) -> Path:
    reviewer = tmp_path / "reviewer"
    git(tmp_path, "clone", "-q", "-b", BRANCH, str(remote), str(reviewer))
    return reviewer


@pytest.mark.parametrize("committer", ["reviewer", "bot"])
def test_a_reviewers_amend_that_keeps_author_and_trailer_is_refused(tmp_path: Path, committer: str) -> None:
    """`git commit --amend` keeps the author and the message (trailer
    included); even with the bot's identity as committer, the commit is not
    the one the tool makes for the base, so it is kept and listed."""
    remote, work = with_remote(tmp_path)
    assert _pr(work).exit_code == 0
    reviewer = _reviewer_clone(tmp_path, remote)
    target = reviewer / "apps/mesh/src/web/index.tsx"
    target.write_text(target.read_text() + "// reviewed: keep this\n")
    git(reviewer, "commit", "-q", "-a", "--amend", "--no-edit", "--no-gpg-sign", env=RITA if committer == "reviewer" else BOT_ENV)
    amended = git(reviewer, "rev-parse", "HEAD").strip()
    assert "Generated-by: mesh-codemod" in git(reviewer, "log", "-1", "--format=%B")
    git(reviewer, "push", "-q", "--force", "origin", BRANCH)

    refused = _pr(work, "--fail-on-blocked")
    assert refused.exit_code == 3, refused.output
    assert amended[:12] in refused.stderr and "--force" in refused.stderr
    assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == amended


def test_a_reviewers_autosquashed_fixup_is_refused(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    assert _pr(work).exit_code == 0
    reviewer = _reviewer_clone(tmp_path, remote)
    second = git(reviewer, "rev-parse", "HEAD~2").strip()
    bridge = reviewer / "apps/mesh/src/mcp-apps/use-app-bridge.ts"
    bridge.write_text(bridge.read_text() + "// reviewer's fix\n")
    git(reviewer, "commit", "-q", "-a", "--no-gpg-sign", f"--fixup={second}", env=RITA_AUTHOR)
    git(reviewer, "rebase", "-q", "-i", "--autosquash", "origin/main", env={**RITA, "GIT_SEQUENCE_EDITOR": "true"})
    rebased = git(reviewer, "rev-list", "origin/main..HEAD").split()
    assert len(rebased) == 4
    git(reviewer, "push", "-q", "--force", "origin", BRANCH)

    refused = _pr(work, "--fail-on-blocked")
    assert refused.exit_code == 3, refused.output
    listed = [sha for sha in rebased if sha[:12] in refused.stderr]
    assert len(listed) == 3, refused.stderr  # the squashed one and the two rebased on it
    assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == rebased[0]


def _revert_last(reviewer: Path) -> None:
    git(reviewer, "revert", "--no-edit", "--no-gpg-sign", "HEAD", env={**BOT_ENV})


def _merge_main(reviewer: Path) -> None:
    git(reviewer, "checkout", "-q", "-b", "side", "origin/main")
    (reviewer / "side.txt").write_text("side\n")
    commit_all(reviewer, "side work")
    git(reviewer, "checkout", "-q", BRANCH)
    git(reviewer, "merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "Merge side\n\nGenerated-by: mesh-codemod", "side", env=BOT_ENV)


def _ours_without_trailer(reviewer: Path) -> None:
    (reviewer / "extra.txt").write_text("x\n")
    commit_all(reviewer, "chore: by the bot's identity, no trailer", env=BOT_ENV)


def _trailer_by_another_author(reviewer: Path) -> None:
    (reviewer / "extra.txt").write_text("x\n")
    commit_all(reviewer, "chore: looks generated\n\nGenerated-by: mesh-codemod", env={
        "GIT_AUTHOR_NAME": "Rita Reviewer", "GIT_AUTHOR_EMAIL": "rita@example.com",
    })


@pytest.mark.parametrize(
    "make", [_ours_without_trailer, _trailer_by_another_author, _merge_main, _revert_last],
    ids=["our-author-no-trailer", "trailer-other-author", "merge", "revert"],
)
def test_commits_the_tool_did_not_make_are_refused_and_kept(tmp_path: Path, make) -> None:
    remote, work = with_remote(tmp_path)
    assert _pr(work).exit_code == 0
    reviewer = _reviewer_clone(tmp_path, remote)
    make(reviewer)
    tip = git(reviewer, "rev-parse", "HEAD").strip()
    git(reviewer, "push", "-q", "origin", BRANCH)
    (work / "README.md").write_text("main moved on\n")
    commit_all(work, "docs: readme", env={"GIT_COMMITTER_DATE": "1778200000 +0000"})
    refused = _pr(work, "--fail-on-blocked")
    assert refused.exit_code == 3, refused.output
    assert tip[:12] in refused.stderr
    assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == tip


def test_the_tools_own_commits_on_an_older_base_are_replaced(tmp_path: Path) -> None:
    """The rebuild for the older base recognises them: no --force needed."""
    remote, work = with_remote(tmp_path)
    first = json.loads(_pr(work, json_out=True).stdout)
    (work / "README.md").write_text("main moved on\n")
    commit_all(work, "docs: readme", env={"GIT_COMMITTER_DATE": "1778200000 +0000"})
    again = _pr(work, json_out=True)
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert report["replaced"] == [] and report["push"]["lease"] == first["tip"]


# ---------------------------------------------------------- 4. verify


def test_verify_after_git_am_compares_with_the_base_below_the_series(checkout: Path, tmp_path: Path) -> None:  # noqa: F811
    """The series applied with `git am`, then an error committed into it:
    HEAD holds the error, so a HEAD baseline would excuse it."""
    unpatched = git(checkout, "rev-parse", "HEAD").strip()
    assert invoke("patch", "--repo", checkout, "--out", tmp_path / "series", "--author", BOT).exit_code == 0
    patches = sorted(map(str, (tmp_path / "series").glob("*.patch")))
    git(checkout, "am", "-q", *patches, env=RITA)
    module = checkout / MODULE
    module.write_text(module.read_text() + "export const broken: number = 'x'; // PLANTED_TYPE_ERROR\n")
    git(checkout, "commit", "-q", "-a", "--amend", "--no-edit", "--no-gpg-sign", env=RITA)

    result = invoke("verify", "--repo", checkout)
    assert result.exit_code == 4, result.output
    assert f"baseline: {unpatched[:12]}, the base of the 4 mesh-codemod commit(s) below HEAD" in result.stderr
    line = next(l for l in result.stdout.splitlines() if l.strip().startswith("typecheck"))
    assert "1 new error(s)" in line and unpatched[:12] in line

    explicit = invoke("verify", "--repo", checkout, "--base", "HEAD", "--json")
    assert explicit.exit_code == 0, explicit.output  # told to excuse what HEAD has
    assert json.loads(explicit.stdout)["baseline"].startswith("--base HEAD (")
    bad = invoke("verify", "--repo", checkout, "--base", "no-such-rev")
    assert bad.exit_code == 3 and "no-such-rev" in bad.stderr


# ------------------------------------------------ 5. hooks and tags


HOOKS = ("post-index-change", "reference-transaction", "pre-push", "pre-commit", "post-commit", "pre-auto-gc")


def test_the_users_hooks_do_not_run(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    log = tmp_path / "hooks.log"
    for hook in HOOKS:
        _executable(work / ".git" / "hooks" / hook, f'#!/bin/sh\necho {hook} >> "{log}"\n')
    assert invoke("patch", "--repo", work, "--out", tmp_path / "series", "--author", BOT).exit_code == 0
    result = _pr(work)
    assert result.exit_code == 0, result.output
    assert not log.exists(), log.read_text()
    # the hooks themselves work: git runs them when the tool is not the caller
    git(work, "update-ref", "refs/heads/probe", "HEAD")
    assert "reference-transaction" in log.read_text()


def test_the_push_sends_only_the_branch_even_with_follow_tags(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    git(work, "config", "push.followTags", "true")
    git(work, "tag", "-a", "-m", "a release, not for the remote", "v9.9.9", "HEAD", env=FIXED)
    before = {line.split()[0] for line in _remote_refs(remote).splitlines()}
    assert _pr(work).exit_code == 0
    after = {line.split()[0] for line in _remote_refs(remote).splitlines()}
    assert after - before == {f"refs/heads/{BRANCH}"}


# ------------------------------------------------ 6. determinism


def test_commit_encoding_config_changes_nothing(tmp_path: Path) -> None:
    _, work = with_remote(tmp_path)
    plain = json.loads(invoke("patch", "--repo", work, "--out", tmp_path / "a", "--author", BOT, "--json").stdout)
    git(work, "config", "i18n.commitEncoding", "ISO-8859-1")
    git(work, "config", "i18n.logOutputEncoding", "ISO-8859-1")
    latin = json.loads(invoke("patch", "--repo", work, "--out", tmp_path / "b", "--author", BOT, "--json").stdout)
    assert latin["tip"] == plain["tip"]
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")


def test_environment_git_config_changes_nothing(tmp_path: Path, monkeypatch) -> None:
    _, work = with_remote(tmp_path)
    plain = json.loads(invoke("patch", "--repo", work, "--out", tmp_path / "a", "--author", BOT, "--json").stdout)
    for index, (key, value) in enumerate([("diff.noprefix", "true"), ("diff.context", "9"), ("format.signature", "x")]):
        monkeypatch.setenv(f"GIT_CONFIG_KEY_{index}", key)
        monkeypatch.setenv(f"GIT_CONFIG_VALUE_{index}", value)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "3")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'i18n.commitencoding'='ISO-8859-1' 'diff.mnemonicprefix'='true'")
    other = json.loads(invoke("patch", "--repo", work, "--out", tmp_path / "b", "--author", BOT, "--json").stdout)
    assert other["tip"] == plain["tip"]
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")


# ------------------------------------------------ 7. patch --out


KERNEL_PATCH = """From 1234567890abcdef1234567890abcdef12345678 Mon Sep 17 00:00:00 2001
From: Someone Else <someone@example.com>
Subject: [PATCH] kernel: fix a race

Signed-off-by: Someone Else <someone@example.com>
---
 race.c | 1 +
"""


def test_patch_out_removes_only_an_earlier_series_it_wrote(tmp_path: Path) -> None:
    _, work = with_remote(tmp_path)
    out = tmp_path / "out"
    assert invoke("patch", "--repo", work, "--out", out, "--author", BOT).exit_code == 0
    ours = sorted(out.glob("*.patch"))
    ours[0].rename(out / "0009-from-an-older-base.patch")  # an earlier series of ours
    for extra in ours[1:]:
        extra.unlink()
    (out / "0001-kernel-fix-race.patch").write_text(KERNEL_PATCH)
    (out / "0002-empty.patch").write_text("")
    (out / "notes.md").write_text("mine")
    assert invoke("patch", "--repo", work, "--out", out, "--author", BOT).exit_code == 0
    names = sorted(p.name for p in out.iterdir())
    assert "0009-from-an-older-base.patch" not in names
    assert {"0001-kernel-fix-race.patch", "0002-empty.patch", "notes.md"} <= set(names)
    assert (out / "0001-kernel-fix-race.patch").read_text() == KERNEL_PATCH
    assert len([n for n in names if patches.is_our_patch(out / n)]) == 4


def test_patch_out_with_nothing_to_do_deletes_nothing(tmp_path: Path) -> None:
    repo = fixture_repo(tmp_path / "repo")
    out = tmp_path / "out"
    assert invoke("patch", "--repo", repo, "--out", out, "--author", BOT).exit_code == 0
    (out / "0001-kernel-fix-race.patch").write_text(KERNEL_PATCH)
    before = snapshot(out)
    assert invoke("apply", "--repo", repo).exit_code == 0
    commit_all(repo, "feature by hand")
    result = invoke("patch", "--repo", repo, "--out", out, "--author", BOT)
    assert result.exit_code == 0 and "nothing to do" in result.stderr
    assert snapshot(out) == before


def test_patch_out_refuses_to_overwrite_a_file_it_did_not_write(tmp_path: Path) -> None:
    _, work = with_remote(tmp_path)
    out = tmp_path / "out"
    assert invoke("patch", "--repo", work, "--out", out, "--author", BOT).exit_code == 0
    first = sorted(out.glob("*.patch"))[0]
    first.write_text(KERNEL_PATCH)  # someone's file under the very name the series uses
    result = invoke("patch", "--repo", work, "--out", out, "--author", BOT)
    assert result.exit_code == 3 and first.name in result.stderr
    assert first.read_text() == KERNEL_PATCH


# ------------------------------------------------ 8. failure paths


def _refusing_remote(remote: Path, message: str) -> None:
    _executable(remote / "hooks" / "pre-receive", f'#!/bin/sh\necho "{message}" >&2\nexit 1\n')


def test_a_push_refused_by_the_remote_moves_nothing_and_says_why(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    _refusing_remote(remote, "protected branch: pushes need a review")
    before, refs = state(work), _remote_refs(remote)
    result = _pr(work)
    assert result.exit_code == 3, result.output
    assert "refused by the remote" in result.stderr and "hook" in result.stderr
    assert "lease" not in result.stderr
    assert git(work, "branch", "--list", BRANCH) == "", "the local branch moved though the push failed"
    assert state(work) == before and _remote_refs(remote) == refs
    assert "Traceback" not in result.output


def test_a_push_refused_after_an_earlier_success_keeps_the_old_local_branch(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    old = json.loads(_pr(work, json_out=True).stdout)["tip"]
    (work / "README.md").write_text("main moved on\n")
    commit_all(work, "docs: readme", env={"GIT_COMMITTER_DATE": "1778200000 +0000"})
    _refusing_remote(remote, "nope")
    assert _pr(work).exit_code == 3
    assert git(work, "rev-parse", f"refs/heads/{BRANCH}").strip() == old


@pytest.mark.parametrize("name", ["@", "@{-1}", "-x", "--exec=touch pwned", "HEAD", "refs/heads/x", "a..b", "a b", ""])
def test_a_malformed_branch_is_a_usage_error_before_any_work(tmp_path: Path, monkeypatch, name: str) -> None:
    remote, work = with_remote(tmp_path)
    git(work, "checkout", "-q", "-b", "other")
    git(work, "checkout", "-q", "main")  # so that @{-1} means something

    def no_work(*args, **kwargs):
        raise AssertionError("the series was built before the names were checked")

    monkeypatch.setattr(build, "build_series", no_work)
    refs = _remote_refs(remote)
    result = invoke("pr", "--repo", work, f"--branch={name}", "--push", "origin", "--author", BOT)
    assert result.exit_code == 2, result.output
    assert "--branch" in result.stderr and "Traceback" not in result.output
    assert _remote_refs(remote) == refs


@pytest.mark.parametrize("remote_name", ["--exec=touch pwned", "-o", "ext::sh -c touch% pwned", "a b"])
def test_a_malformed_push_remote_is_a_usage_error(tmp_path: Path, monkeypatch, remote_name: str) -> None:
    _, work = with_remote(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = invoke("pr", "--repo", work, "--branch", BRANCH, f"--push={remote_name}", "--author", BOT)
    assert result.exit_code == 2, result.output
    assert "--push" in result.stderr and "Traceback" not in result.output
    assert not (tmp_path / "pwned").exists() and not (work / "pwned").exists()
    assert git(work, "branch", "--list", BRANCH) == ""


def test_a_branch_that_collides_with_an_existing_one_is_refused(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    assert _pr(work).exit_code == 0  # codemod/app-state, here and on the remote
    for name, blocker in (("codemod", f"refs/heads/{BRANCH}"), (f"{BRANCH}/more", f"refs/heads/{BRANCH}")):
        result = invoke("pr", "--repo", work, "--branch", name, "--push", "origin", "--author", BOT)
        assert result.exit_code == 3, result.output
        assert blocker in result.stderr and "Traceback" not in result.output
    # only the remote has it: the push fails, clearly, and nothing moves locally
    git(work, "branch", "-D", BRANCH)
    result = invoke("pr", "--repo", work, "--branch", "codemod", "--push", "origin", "--author", BOT)
    assert result.exit_code == 3, result.output
    assert "push of codemod to origin refused" in result.stderr
    assert git(work, "branch", "--list", "codemod") == ""


def test_any_git_failure_is_a_clear_refusal(tmp_path: Path, monkeypatch) -> None:
    import git as gitpython

    _, work = with_remote(tmp_path)

    def broken(*args, **kwargs):
        raise gitpython.GitCommandError(["git", "ls-tree"], 128, b"fatal: simulated corruption")

    monkeypatch.setattr(build, "_modes", broken)
    for command in (("patch", "--out", tmp_path / "out"), ("pr", "--branch", BRANCH)):
        result = invoke(*command, "--repo", work, "--author", BOT)
        assert result.exit_code == 3, result.output
        assert "simulated corruption" in result.stderr and "Traceback" not in result.output


def test_a_push_to_a_remote_that_does_not_exist_is_a_clear_refusal(tmp_path: Path) -> None:
    _, work = with_remote(tmp_path)
    result = invoke("pr", "--repo", work, "--branch", BRANCH, "--push", "nowhere", "--author", BOT)
    assert result.exit_code == 3 and "nowhere" in result.stderr
    assert git(work, "branch", "--list", BRANCH) == ""


# ------------------------------------------------ 9. exported trees


def _hash(repo: Path, kind: str, data: bytes) -> str:
    import subprocess

    return subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-t", kind, "--literally", "-w", "--stdin"],
        input=data, capture_output=True, check=True,
    ).stdout.decode().strip()


def _crafted_base(repo: Path, extra: list[tuple[str, str, str]]) -> str:
    """HEAD's tree plus raw ``extra`` entries (mode, name, object id), as a
    commit: `git mktree` would sort and check them, hash-object does not."""
    entries = []
    for line in git(repo, "ls-tree", "HEAD").splitlines():
        meta, name = line.split("\t", 1)
        mode, _, sha = meta.split()
        entries.append((mode.lstrip("0"), name, sha))
    entries += extra
    raw = b"".join(f"{mode} {name}".encode() + b"\0" + bytes.fromhex(sha) for mode, name, sha in entries)
    tree = _hash(repo, "tree", raw)
    return git(repo, "commit-tree", tree, "-m", "crafted", env=FIXED).strip()


@pytest.mark.parametrize("case", ["link-and-folder", "dot-dot", "dot-git"])
def test_a_crafted_base_tree_is_refused_and_nothing_is_written_outside(tmp_path: Path, case: str) -> None:
    repo = fixture_repo(tmp_path / "repo")
    outside = tmp_path / "outside"
    outside.mkdir()
    inner_file = _hash(repo, "blob", b"export const planted = 1;\n")
    inner = _hash(repo, "tree", b"100644 planted.ts\0" + bytes.fromhex(inner_file))
    if case == "link-and-folder":
        link = _hash(repo, "blob", str(outside).encode())
        extra = [("120000", "zz", link), ("40000", "zz", inner)]
    elif case == "dot-dot":
        extra = [("40000", "..", inner)]
    else:
        extra = [("40000", ".git", inner)]
    crafted = _crafted_base(repo, extra)
    for command in (("patch", "--out", tmp_path / "out"), ("pr", "--branch", BRANCH)):
        result = invoke(*command, "--repo", repo, "--base", crafted, "--author", BOT)
        assert result.exit_code == 3, result.output
        assert "refused" in result.stderr and "git fsck" in result.stderr
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "planted.ts").exists()


def test_the_export_never_writes_through_a_link(tmp_path: Path) -> None:
    root, outside = tmp_path / "export", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "apps").symlink_to(outside)
    with pytest.raises(repository.GitProblem, match="not a folder"):
        repository._make_folders(root, "apps/mesh", set(), "0" * 40)
    assert list(outside.iterdir()) == []


# ------------------------------------------------ what held up


def test_a_failing_pr_leaves_working_tree_index_and_head_alone(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    (work / "scratch.txt").write_text("untracked\n")
    _refusing_remote(remote, "nope")
    before, files = state(work), _files(work)
    assert _pr(work).exit_code == 3
    assert state(work) == before and _files(work) == files


def test_a_killed_pr_leaves_working_tree_index_and_head_alone(tmp_path: Path, monkeypatch) -> None:
    """Interrupted once the series is built (Ctrl-C, a runner cancelling the job)."""
    remote, work = with_remote(tmp_path)
    before, files, refs = state(work), _files(work), _remote_refs(remote)

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(branches, "remote_branch", killed)
    assert _pr(work).exit_code == 130  # SIGINT
    assert state(work) == before and _files(work) == files and _remote_refs(remote) == refs
    assert git(work, "branch", "--list", BRANCH) == ""


def test_an_earlier_releases_commits_are_the_tools_and_are_replaced(tmp_path: Path) -> None:
    """A branch that an earlier release made (other messages, other code),
    each commit still holding exactly the change its content trailer
    records, is the tool's own: a scheduled run after an upgrade replaces
    it without --force. The same commit with its content changed is not."""
    remote, work = with_remote(tmp_path)
    assert _pr(work).exit_code == 0
    reviewer = _reviewer_clone(tmp_path, remote)
    # rewrite every commit's message as an earlier release worded it, on
    # the same trees, with the bot's identity and both trailers kept
    git(reviewer, "rebase", "-q", "origin/main", "--exec",
        "git commit -q --amend --no-gpg-sign -m \"$(git log -1 --format=%B | sed '1s/^/older wording: /')\"",
        env=BOT_ENV)
    older = git(reviewer, "rev-list", "origin/main..HEAD").split()
    assert len(older) == 4 and all("older wording" in git(reviewer, "log", "-1", "--format=%s", sha) for sha in older)
    git(reviewer, "push", "-q", "--force", "origin", BRANCH)

    replaced = _pr(work)
    assert replaced.exit_code == 0, replaced.output
    assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() not in older

    # the same, with one file changed under the recorded trailer: refused
    git(reviewer, "fetch", "-q", "origin")
    git(reviewer, "reset", "-q", "--hard", f"origin/{BRANCH}")
    target = reviewer / "apps/mesh/src/web/index.tsx"
    target.write_text(target.read_text() + "// reviewed\n")
    git(reviewer, "commit", "-q", "-a", "--amend", "--no-edit", "--no-gpg-sign", env=BOT_ENV)
    git(reviewer, "push", "-q", "--force", "origin", BRANCH)
    assert _pr(work, "--fail-on-blocked").exit_code == 3
    # by default the run stays green and leaves the branch alone
    blocked = _pr(work, json_out=True)
    assert blocked.exit_code == 0 and json.loads(blocked.stdout)["blocked"]["commits"]
