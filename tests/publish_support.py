"""The build job as an attacker holds it: helpers that rewrite the artifact
of `pr --artifact` (its manifest, files beside it) the way code running in
the build job could, and publish's side (its checkout, its own repository
beside the report), for tests/test_publish*.py and tests/test_action_run.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from .gitrepo import BOT, git, with_remote
from .support import invoke, shared

BRANCH = "codemod/app-state"
MODULE = "apps/mesh/src/mcp-apps/app-state.ts"
BOT_ENV = {
    "GIT_AUTHOR_NAME": "Codemod Bot", "GIT_AUTHOR_EMAIL": "bot@example.com",
    "GIT_COMMITTER_NAME": "Codemod Bot", "GIT_COMMITTER_EMAIL": "bot@example.com",
}
EVIL = "attacker.example"


def build(tmp_path: Path, work: Path, *extra: str) -> Path:
    """The build job: the branch and its artifact, no push, no token."""
    artifact = tmp_path / "artifact"
    result = invoke("pr", "--repo", work, "--branch", BRANCH, "--author", BOT, "--no-verify",
                    "--artifact", artifact, *extra)
    assert result.exit_code == 0, result.output
    return artifact


@pytest.fixture
def built(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(remote, work, artifact): a remote holding the fixture's main, a
    clone of it, and the build job's artifact from that clone, as
    ``with_remote`` and ``build`` make them; made once a run, copied here."""

    def make(folder: Path) -> None:
        _remote, work = with_remote(folder)
        build(folder, work)

    shutil.copytree(shared(tmp_path_factory, "built", make), tmp_path, symlinks=True, dirs_exist_ok=True)
    remote, work = tmp_path / "remote.git", tmp_path / "work"
    git(work, "remote", "set-url", "origin", str(remote))
    git(remote, "remote", "set-url", "origin", str(tmp_path / "seed"))
    return remote, work, tmp_path / "artifact"


def publisher(tmp_path: Path, remote: Path) -> Path:
    """The publish job's checkout: a fresh clone, nothing installed."""
    clone = tmp_path / "publisher"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    return clone


def publish(clone: Path, artifact: Path, *extra: str, author: str = BOT):
    return invoke("publish", "--repo", clone, "--artifact", artifact, "--branch", BRANCH,
                  "--target", "origin/main", "--push", "origin", "--author", author, *extra)


def kept_repo(report: Path) -> Path:
    """Publish's own repository, which its check step keeps beside ``report``."""
    from codemods.publish.gitdir import beside

    return beside(report)


def manifest(artifact: Path) -> dict:
    return json.loads((artifact / "manifest.json").read_text())


def write_manifest(artifact: Path, data: dict) -> None:
    (artifact / "manifest.json").write_text(json.dumps(data))


def commit(work: Path, tree: str, parents: list[str], message: str, env: dict | None = None) -> str:
    args = ["git", "-C", str(work), "commit-tree", "--no-gpg-sign", tree, "-m", message]
    for parent in parents:
        args += ["-p", parent]
    return subprocess.run(args, env={**os.environ, **BOT_ENV, **(env or {})}, capture_output=True, text=True,
                          check=True).stdout.strip()


def tool_message(work: Path, rev: str, parent_tree: str, tree: str) -> str:
    """``rev``'s message with its content trailer made to match (as the
    tool writes it)."""
    from codemods.deliver import build as series

    message = git(work, "log", "-1", "--format=%B", rev).split(series.CONTENT_TRAILER)[0]
    return message + f"{series.CONTENT_TRAILER} {parent_tree}..{tree}\n"


def append(path: str, text: str) -> Callable[[Path], None]:
    def change(tree: Path) -> None:
        target = tree / path
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a") as handle:
            handle.write(text)
    return change


def remote_bytes(remote: Path) -> list[bytes]:
    """Every blob, commit message and ref name the remote's branch holds, in
    every commit of it (so an intermediate commit's too)."""
    out = []
    commits = git(remote, "rev-list", f"refs/heads/{BRANCH}").split()
    for sha in commits:
        out.append(git(remote, "cat-file", "commit", sha).encode())
        for line in git(remote, "ls-tree", "-r", sha).splitlines():
            meta, path = line.split("\t", 1)
            out.append(path.encode())
            out.append(subprocess.run(["git", "-C", str(remote), "cat-file", "blob", meta.split()[2]],
                                      capture_output=True, check=True).stdout)
    return out


def holds(remote: Path, needle: bytes) -> bool:
    return any(needle in data for data in remote_bytes(remote))


FAKE_GH = Path(__file__).resolve().parent / "fake_tools" / "gh"


@pytest.fixture
def github(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The stateful `gh` stand-in (tests/fake_tools/gh) first on PATH, in
    this process, with the runner's step files: returns its state file
    (the job summary is ``summary(state)``)."""
    folder = tmp_path / "gh-bin"
    folder.mkdir()
    shutil.copy(FAKE_GH, folder / "gh")
    state = tmp_path / "github.json"
    state.write_text(json.dumps({"repo": "decocms/mesh", "pulls": [], "comments": {}, "calls": []}))
    for name in ("summary.md", "output.txt"):
        (tmp_path / name).touch()
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_GH_STATE", str(state))
    monkeypatch.setenv("GH_TOKEN", "ghs_stand-in")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "output.txt"))
    return state


def summary(state: Path) -> str:
    return (state.parent / "summary.md").read_text()


def github_state(state: Path) -> dict:
    return json.loads(state.read_text())


def open_pr(report: Path, *extra: str):
    """`open-pr` as the publish job's last step runs it."""
    return invoke("open-pr", "--branch", BRANCH, "--base-branch", "main", "--report", report,
                  "--repo-slug", "decocms/mesh", *extra)
