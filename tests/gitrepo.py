"""Real git repositories in temporary folders, for the patch and pr tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .support import FIXTURES, fixture_tree

BOT = "Codemod Bot <bot@example.com>"
# A fixed date and identity make the fixture's base commit, and so every
# commit built on it, the same on every machine.
FIXED = {
    "GIT_AUTHOR_NAME": "Fixture",
    "GIT_AUTHOR_EMAIL": "fixture@example.com",
    "GIT_AUTHOR_DATE": "1778182265 +0000",
    "GIT_COMMITTER_NAME": "Fixture",
    "GIT_COMMITTER_EMAIL": "fixture@example.com",
    "GIT_COMMITTER_DATE": "1778182265 +0000",
}
ISOLATED = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str, env: dict | None = None, check: bool = True) -> str:
    result = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True, text=True, check=False,
        env={**os.environ, **ISOLATED, **(env or {})},
    )
    if check and result.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed:\n{result.stdout}{result.stderr}")
    return result.stdout


def commit_all(repo: Path, message: str, env: dict | None = None) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-gpg-sign", "-m", message, env={**FIXED, **(env or {})})
    return git(repo, "rev-parse", "HEAD").strip()


def bun_lock(version: str, nested: str = "") -> str:
    """A bun.lock as bun writes it (JSON with trailing commas) that resolves
    the SDK at ``version`` for the whole workspace, and at ``nested`` for
    mesh's app alone (bun's ``<workspace name>/<package>`` key) when given."""
    sdk = "@modelcontextprotocol/ext-apps"
    own = f'    "@decocms/mesh/{sdk}": ["{sdk}@{nested}", "", {{}}, "sha512-b"],\n' if nested else ""
    return (
        '{\n  "lockfileVersion": 1,\n  "workspaces": {\n    "": {\n      "name": "mesh",\n    },\n'
        f'    "apps/mesh": {{\n      "name": "@decocms/mesh",\n      "dependencies": {{\n        "{sdk}": "^1.2.2",\n'
        '      },\n    },\n  },\n  "packages": {\n'
        f'    "{sdk}": ["{sdk}@{version}", "", {{ "dependencies": {{ "zod": "^4.0.0" }} }}, "sha512-a"],\n{own}'
        '  }\n}\n'
    )


def fixture_repo(into: Path, case: str = "newest", files: dict[str, str] | None = None) -> Path:
    """The fixture's input, with ``files`` added, committed as the only
    commit of a new repository."""
    fixture_tree(FIXTURES / case, into)
    for path, text in (files or {}).items():
        (into / path).write_text(text)
    git(into, "init", "-q", "-b", "main")
    git(into, "config", "user.name", "Dev")
    git(into, "config", "user.email", "dev@example.com")
    commit_all(into, "mesh-shaped fixture")
    return into


def with_remote(tmp: Path, lock: str = bun_lock("1.7.1")) -> tuple[Path, Path]:
    """A bare remote holding the fixture's main (with ``lock`` as its
    bun.lock: the released SDK 1.7.1; "": none), and a clone to work in."""
    seed = fixture_repo(tmp / "seed", files={"bun.lock": lock} if lock else {})
    remote = tmp / "remote.git"
    git(tmp, "clone", "-q", "--bare", str(seed), str(remote))
    work = tmp / "work"
    git(tmp, "clone", "-q", str(remote), str(work))
    git(work, "config", "user.name", "Dev")
    git(work, "config", "user.email", "dev@example.com")
    return remote, work


def state(repo: Path) -> dict[str, str]:
    """What `pr` must never change: status, index, HEAD, and the files."""
    # GIT_OPTIONAL_LOCKS=0: status must not refresh (rewrite) the index itself
    quiet = {"GIT_OPTIONAL_LOCKS": "0"}
    index = repo / ".git" / "index"
    return {
        "index-file": f"{index.read_bytes().hex()} {index.stat().st_mtime_ns}",
        "status": git(repo, "status", "--porcelain=v2", "--branch", "--untracked-files=all", env=quiet),
        "index": git(repo, "ls-files", "--stage", "--debug"),
        "head": git(repo, "symbolic-ref", "HEAD") + git(repo, "rev-parse", "HEAD"),
        "diff": git(repo, "diff", env=quiet) + git(repo, "diff", "--cached", env=quiet),
    }
