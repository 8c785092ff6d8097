"""Publish's own git directory (SPEC 8; issue 39, item 4).

The workspace's `.git` may hold a configuration someone else wrote (a
reused self-hosted runner, a step before this one): `remote.origin.uploadpack`,
`core.sshCommand`, `url.*.insteadOf` and the like run programs or send the
push elsewhere when git reads them. So publish runs no git in the
workspace. It creates a repository of its own, under the runner's temporary
folder, that borrows the workspace's objects (git's alternates) and copies
its refs and the URLs of its remotes, read as data; nothing else of its
configuration. The check step creates it beside its report, and the push
step opens it there again: the series kept in it (`kept.REF`) is what the
push step pushes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import git

from ..plan import environment, repository


def beside(report: Path) -> Path:
    """The repository publish keeps beside the report of its check step."""
    return report.with_name(f"{report.stem}-git")


def create(checkout: Path, folder: Path) -> git.Repo:
    """A new repository at ``folder`` (an earlier one there is removed)
    with the objects, refs and remote URLs of the checkout's `.git`."""
    source = checkout / ".git"
    if not source.is_dir() or source.is_symlink():
        raise repository.GitProblem(f"{checkout}: not a checkout with a .git folder of its own")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    env = {**os.environ, **environment.git_env()}

    def run(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=folder, env=env, capture_output=True, text=True, check=False)
        if done.returncode not in (0, 1):  # 1: `config --get-regexp` found nothing
            raise repository.GitProblem(f"git {args[0]} failed in {folder}: {done.stderr.strip()}")
        return done.stdout

    run("init", "-q", "--template=", ".")
    own = folder / ".git"
    (own / "objects" / "info" / "alternates").write_text(f"{(source / 'objects').resolve()}\n", encoding="utf-8")
    shutil.copytree(source / "refs", own / "refs", symlinks=True, dirs_exist_ok=True)
    for name in ("packed-refs", "shallow"):  # a shallow clone stays one, and is refused as one
        if (source / name).is_file():
            shutil.copyfile(source / name, own / name)
    for line in run("config", "--file", str(source / "config"), "--get-regexp", r"^remote\..*\.url$").splitlines():
        key, _, url = line.partition(" ")
        run("config", key, url)
    return repository.open_repo(folder)


@contextmanager
def created(checkout: Path, report: Path | None) -> Iterator[git.Repo]:
    """`create` beside ``report``, where the push step finds it; without
    one, in a temporary folder removed after."""
    if report is not None:
        yield create(checkout, beside(report))
        return
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-publish-") as folder:
        yield create(checkout, Path(folder))


def reopen(folder: Path) -> git.Repo | None:
    """The repository an earlier `create` made at ``folder``, or None."""
    return repository.open_repo(folder) if (folder / ".git").is_dir() else None
