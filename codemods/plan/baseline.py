"""The type check's baseline: the unpatched tree a change is checked
against, the commit the change was made on (``--base``; else the commit
below the tool's own commits, known by their trailer; else the merge base
with ``--target``; else HEAD). The checks wing takes it as a value."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import NamedTuple

# Every commit the tool makes carries this trailer; with the author's
# identity it tells the tool's own commits from a reviewer's.
TRAILER = "Generated-by: mesh-codemod"

_HISTORY_LIMIT = 1000  # first-parent commits looked at for the tool's own


class Baseline(NamedTuple):
    """How to get the unpatched tree: a cache key and a context manager that
    yields a folder holding it (with the checkout's node_modules linked)."""

    key: str
    describe: str
    tree: Callable[[], AbstractContextManager[Path]]
    # where the copy's node_modules links lead: errors found through them
    # are named relative to it
    checkout: Path | None = None
    # the files the patched tree changed, as they are at the base:
    # path -> bytes, or None where the base has no such file
    changes: Callable[[], dict[str, bytes | None]] | None = None


class BaselineProblem(Exception):
    """--base or --target cannot be used, or the history is too shallow (exit 3)."""


def checkout_baseline(repo: Path, base: str | None, target: str | None = None) -> Baseline | None:
    """The unpatched tree to compare type errors with, the commit the change
    was made on: ``--base``; else the commit below the tool's own commits
    (by their trailer) on HEAD's first-parent history, with a reviewer's
    commits or a merge on top of them; else the merge base of HEAD with
    ``--target``; else HEAD, which then holds no commit of the tool's (the
    change, if any, is in the working tree). None outside a git checkout."""
    import git

    from . import repository

    try:
        git_repo = repository.open_repo(repo)
        if base is not None:
            rev = repository.resolve(git_repo, base).hexsha
            return baseline_of(git_repo, repo, rev, "--base", f"--base {base} ({rev[:12]})")
        head = git_repo.head.commit
        stop = None
        if target is not None:
            target_rev = repository.resolve(git_repo, target).hexsha
            stop = git_repo.git.merge_base(head.hexsha, target_rev).strip()
    except (repository.GitProblem, git.GitError, ValueError) as err:
        if base is not None or target is not None:
            option = f"--base {base}" if base is not None else f"--target {target}"
            raise BaselineProblem(f"{option}: {err}") from None
        return None
    try:
        found = _below_tool_commits(head, stop)
    except _ShallowHistory:
        raise BaselineProblem(
            f"{repo} is a shallow clone and verify looks for the commit the change was made on "
            f"in HEAD's history: {repository.SHALLOW_HINT}; or give --base"
        ) from None
    if found is not None:
        below, count, above = found
        on_top = f", {above} other commit(s) above them" if above else ""
        describe = f"{below.hexsha[:12]}, the base of the {count} mesh-codemod commit(s) below HEAD{on_top}"
        return baseline_of(git_repo, repo, below.hexsha, "base", describe)
    if stop is not None:
        return baseline_of(git_repo, repo, stop, "merge base", f"{stop[:12]}, the merge base of HEAD with {target}")
    return baseline_of(git_repo, repo, head.hexsha, "HEAD")


def _below_tool_commits(head, stop: str | None):
    """(the commit below the newest run of the tool's commits, how many
    there are, how many other commits sit above them) on HEAD's
    first-parent history down to ``stop``; None when there is none."""
    from . import repository

    cuts = repository.shallow_cuts(head.repo)

    def cut(commit) -> bool:  # the history ends here only because the clone is shallow
        if commit.hexsha in cuts:
            raise _ShallowHistory()
        return False

    commit, above = head, 0
    while TRAILER not in commit.message.splitlines():
        if commit.hexsha == stop or above >= _HISTORY_LIMIT or cut(commit) or not commit.parents:
            return None
        commit, above = commit.parents[0], above + 1
    count = 0
    while TRAILER in commit.message.splitlines() and commit.hexsha != stop and not cut(commit):
        if len(commit.parents) != 1:
            break
        commit, count = commit.parents[0], count + 1
    return (commit, count, above) if count else None


class _ShallowHistory(Exception):
    """HEAD's history ends at a shallow clone's cut."""


def baseline_of(
    git_repo, checkout: Path, rev: str, label: str, describe: str = "", against: str | None = None
) -> Baseline:
    """The type check's baseline: the files of ``rev`` (called ``label``)
    with the checkout's node_modules linked, cached by the commit and the
    lock files the dependencies were installed from; and the files that the
    patched tree (``against``, a commit; None: the working tree) changes,
    as ``rev`` has them."""
    from . import trees

    return Baseline(
        key=f"{rev}:{trees.lock_digest(checkout)}",
        describe=describe or f"{label} {rev[:12]}",
        tree=lambda: trees.tree_with_dependencies(git_repo, rev),
        checkout=checkout,
        changes=lambda: trees.changed_files(git_repo, rev, against),
    )
