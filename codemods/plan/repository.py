"""The repository and its revisions, read with git's fixed configuration
(`environment`: the user's hooks off, UTF-8 messages, no environment-level
config): opening a checkout, resolving a revision, the identity the commits
are made with, a commit's files in a temporary folder, shallow clones, and
the names a user gives for a branch or a remote."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import git

from typing import NamedTuple
from . import environment


FALLBACK_IDENTITY = ("mesh-codemod", "mesh-codemod@users.noreply.github.com")


ZERO = "0" * 40


class GitProblem(Exception):
    """The repository, a revision or a remote cannot be used (exit 3)."""


class Identity(NamedTuple):
    name: str
    email: str

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"


def open_repo(path: Path) -> git.Repo:
    try:
        repo = git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise GitProblem(f"{path}: not a git repository") from None
    if repo.bare:
        raise GitProblem(f"{path}: a bare repository has no checkout to read the installed SDK from")
    if Path(repo.working_tree_dir).resolve() != path.resolve():
        raise GitProblem(f"{path}: not the top of its git checkout ({repo.working_tree_dir})")
    # every call through this object: no hooks, no environment-level config
    repo.git.update_environment(**environment.git_env())
    return repo


def resolve(repo: git.Repo, rev: str) -> git.Commit:
    try:
        return repo.commit(rev)
    except (git.BadName, ValueError, git.GitCommandError):
        raise GitProblem(f"unknown revision {rev!r} in {repo.working_tree_dir}") from None


def identity(name: str | None, email: str | None) -> Identity:
    """The author: the one given, else the tool's own; never the user's git
    config (SPEC 8), so every machine makes the same commits."""
    return Identity(name or FALLBACK_IDENTITY[0], email or FALLBACK_IDENTITY[1])


def commit_date(commit: git.Commit) -> str:
    """The commit's committer date as git reads it back: '<epoch> <+hhmm>'."""
    return commit.repo.git.show("-s", "--format=%cd", "--date=raw", commit.hexsha).strip()


@contextmanager
def exported_tree(repo: git.Repo, rev: str, only: Callable[[list[str]], set[str] | None] | None = None) -> Iterator[Path]:
    """A temporary folder holding the files of ``rev`` exactly as committed
    (blob bytes, executable bits, links); no attributes or filters apply.
    A tree that `git fsck` would flag (a name twice, ``..``, ``.git``) is
    refused, and no link is ever followed while writing."""
    entries = _tree_entries(repo, rev)
    if only is not None:
        # the files a plan reads, asked of the tree's names (the cost of
        # writing follows them, not the tree's size); None: all of them
        wanted = only([path for _mode, _sha, path in entries])
        if wanted is not None:
            entries = [entry for entry in entries if entry[2] in wanted]
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-tree-", ignore_cleanup_errors=True) as name:
        folder = Path(name)
        made: set[str] = {""}
        for mode, sha, path in entries:
            parent, _, _ = path.rpartition("/")
            _make_folders(folder, parent, made, rev)
            data = repo.odb.stream(bytes.fromhex(sha)).read()
            target = folder / path
            if mode == "120000":
                os.symlink(os.fsdecode(data), target)
                continue
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            fd = os.open(target, flags, 0o755 if mode == "100755" else 0o644)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
        yield folder


def _tree_entries(repo: git.Repo, rev: str) -> list[tuple[str, str, str]]:
    """(mode, blob id, path) of every file and link of ``rev``; refuses
    names that git itself would never check out."""
    commit = resolve(repo, rev)
    try:
        out = repo.git.execute(
            ["git", "ls-tree", "-r", "-t", "-z", "--full-tree", commit.hexsha], strip_newline_in_stdout=False
        )
    except git.GitCommandError as err:
        raise GitProblem(f"cannot read the tree of {commit.hexsha[:12]}: {git_error(err)}") from None
    seen: set[str] = set()
    blobs = []
    for record in out.split("\0"):
        if not record:
            continue
        meta, path = record.split("\t", 1)
        mode, kind, sha = meta.split()
        problem = _bad_path(path) or ("the name appears twice in its folder" if path in seen else "")
        if problem:
            raise GitProblem(
                f"refused: the tree of {commit.hexsha[:12]} holds {path!r}: {problem} "
                "(git fsck flags it; a checkout could write outside its folder)"
            )
        seen.add(path)
        if kind == "blob":
            blobs.append((mode, sha, path))
    return blobs


def _bad_path(path: str) -> str:
    for part in path.split("/"):
        if part in ("", ".", ".."):
            return "an empty, '.' or '..' path component"
        if part.lower().rstrip(". ") in (".git", "git~1"):
            return "a '.git' path component"
    return ""


def _make_folders(root: Path, relative: str, made: set[str], rev: str) -> None:
    """Create ``relative`` under ``root`` one real folder at a time; a link
    or a file on the way is refused, never followed."""
    done = ""
    for part in relative.split("/") if relative else ():
        done = f"{done}/{part}" if done else part
        if done in made:
            continue
        path = root / done
        if os.path.lexists(path):
            if path.is_symlink() or not path.is_dir():
                raise GitProblem(f"refused: the tree of {rev[:12]} puts files under {done!r}, which is not a folder")
        else:
            os.mkdir(path)
        made.add(done)


def isolated_env() -> dict[str, str]:
    """Environment for git commands whose output must not depend on the
    user's git configuration (diff and format settings)."""
    return {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_SYSTEM": os.devnull}


@contextmanager
def isolated_git_dir(repo: git.Repo) -> Iterator[Path]:
    """A throwaway repository that borrows ``repo``'s objects, so that no
    configuration of ``repo`` changes what git prints."""
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-git-", ignore_cleanup_errors=True) as name:
        folder = Path(name)
        git.Repo.init(folder, bare=True)
        objects = Path(repo.git.rev_parse("--git-common-dir"))
        if not objects.is_absolute():
            objects = Path(repo.working_tree_dir) / objects
        (folder / "objects" / "info" / "alternates").write_text(f"{(objects / 'objects').resolve()}\n")
        yield folder


class UsageProblem(ValueError):
    """A malformed --branch or --push (exit 2), found before any work."""


def check_branch_name(branch: str) -> None:
    """Refuse a --branch that is not the plain name of a branch: git's rules
    for the full ref name, and none of the names git would read as
    something else (``@``, ``@{-1}``, ``HEAD``, an option)."""
    import subprocess

    problem = ""
    if not branch or branch.startswith("-"):
        problem = "a branch name cannot be empty or start with '-'"
    elif branch in ("@", "HEAD") or "@{" in branch or branch.startswith("refs/"):
        problem = "give the plain name of a branch (not '@', '@{...}', 'HEAD' or a full ref)"
    else:
        result = subprocess.run(
            ["git", "check-ref-format", f"refs/heads/{branch}"],
            env=environment.scrubbed(environment.git_env()), capture_output=True,
        )
        if result.returncode != 0:
            problem = "git check-ref-format refuses it"
    if problem:
        raise UsageProblem(f"--branch {branch!r} is not a valid branch name: {problem}")


def check_remote_name(remote: str) -> None:
    """Refuse a --push that could be read as an option or a command."""
    if not remote or remote.startswith("-") or any(ch.isspace() or ord(ch) < 32 for ch in remote):
        raise UsageProblem(f"--push {remote!r}: give a remote's name or URL (no leading '-', no spaces)")
    if remote.lower().startswith(("ext::", "fd::")):
        raise UsageProblem(f"--push {remote!r}: the ext:: and fd:: transports run commands; give a remote")


SHALLOW_HINT = (
    "fetch the whole history (`git fetch --unshallow`), or check out with `fetch-depth: 0` (actions/checkout)"
)


def is_shallow(repo: git.Repo) -> bool:
    return repo.git.rev_parse("--is-shallow-repository").strip() == "true"


def shallow_cuts(repo: git.Repo) -> set[str]:
    """The commits whose parents a shallow clone does not have."""
    if not is_shallow(repo):
        return set()
    path = Path(repo.git.rev_parse("--git-path", "shallow"))
    if not path.is_absolute():
        path = Path(repo.working_tree_dir or repo.git_dir) / path
    try:
        return set(path.read_text().split())
    except OSError:
        return set()


def refuse_shallow(repo: git.Repo, why: str) -> None:
    """A shallow clone (actions/checkout's default, depth 1) lacks the
    commits that tell the tool's work from others': refuse, saying what is
    needed, rather than take the base's own history for someone's commits."""
    if is_shallow(repo):
        raise GitProblem(f"{repo.working_tree_dir} is a shallow clone and {why}: {SHALLOW_HINT}")


def configuration_state(repo: git.Repo) -> dict[str, bytes | None]:
    """The bytes of every file git reads its configuration from for this
    repository (the common config, this worktree's, and the files they
    include by relative path are not followed: a change to either is seen)."""
    common = Path(repo.git.rev_parse("--git-common-dir"))
    if not common.is_absolute():
        common = Path(repo.working_tree_dir or repo.git_dir) / common
    state = {}
    for path in (common / "config", Path(repo.git_dir) / "config.worktree", common / "config.worktree"):
        try:
            state[str(path)] = path.read_bytes()
        except OSError:
            state[str(path)] = None
    return state


def git_error(err: git.GitCommandError) -> str:
    text = (err.stderr or "").strip().removeprefix("stderr:").strip().strip("'").strip()
    return text.splitlines()[-1] if text else str(err)
