"""`verify`: the checkout's own checks on the files the tool targets, each
against the commit the change was made on."""

from __future__ import annotations

from pathlib import Path

from ..plan.formatting import FormatterMode
from ..recipes.base import Bridge
from .planning import header, plan_checkout
from .output import Exit, fail, git_failures, print_json, progress, refusal, say


def verify_checkout(
    repo: Path, as_json: bool, require: bool = False, base: str | None = None, target: str | None = None
) -> int:
    """`mesh-codemod verify`: the checks on the files the tool targets, in
    place. The type check's baseline is the commit the change was made on
    (`_checkout_baseline`), never a HEAD that holds others' commits above
    the tool's."""
    from ..plan import environment

    with environment.sealed():
        return _verify_checkout(repo, as_json, require, base, target)


def _verify_checkout(repo: Path, as_json: bool, require: bool, base: str | None, target: str | None = None) -> int:
    from ..checks import verify
    from ..plan.model import TargetError

    try:
        # only whether edits are pending matters here, not their layout
        current = plan_checkout(repo, Bridge.AUTO, [], FormatterMode.NONE)
        baseline = _checkout_baseline(repo, base, target)
    except (TargetError, _BaselineProblem) as err:
        return fail(str(err), Exit.REFUSED, as_json)
    files = [r.path for r in current.results if (repo / r.path).is_file()]  # verify.run sorts them, once each
    try:
        with progress(as_json) as note:
            report = verify.run(repo, files, baseline, note, target=current.target, require=require)
    except git_failures() as err:  # exporting the baseline's tree
        return fail(refusal(err), Exit.REFUSED, as_json)
    described = baseline.describe if baseline else "none (not a git checkout): every type error counts"
    if as_json:
        print_json({**report.to_json(), "pending": current.pending, "baseline": described})
    else:
        header(current, layout=False)  # verify plans only to find the files, without laying them out
        say(f"baseline: {described}")
        if current.pending:
            say(f"note: {len(current.changes)} file(s) still have pending edits (`mesh-codemod apply`)")
        print(f"verify: {len(report.files)} file(s)\n{report.text()}")
    return int(Exit.VERIFY_FAILED if report.failed else Exit.OK)


class _BaselineProblem(Exception):
    """--base cannot be used (exit 3)."""


def _checkout_baseline(repo: Path, base: str | None, target: str | None = None):
    """The unpatched tree to compare type errors with, the commit the change
    was made on: ``--base``; else the commit below the tool's own commits
    (by their trailer) on HEAD's first-parent history, with a reviewer's
    commits or a merge on top of them; else the merge base of HEAD with
    ``--target``; else HEAD, which then holds no commit of the tool's (the
    change, if any, is in the working tree). None outside a git checkout."""
    import git

    from ..deliver import repository

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
            raise _BaselineProblem(f"{option}: {err}") from None
        return None
    try:
        found = _below_tool_commits(head, stop)
    except _ShallowHistory:
        raise _BaselineProblem(
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


_HISTORY_LIMIT = 1000  # first-parent commits looked at for the tool's own


def _below_tool_commits(head, stop: str | None):
    """(the commit below the newest run of the tool's commits, how many
    there are, how many other commits sit above them) on HEAD's
    first-parent history down to ``stop``; None when there is none."""
    from ..deliver import build, repository

    cuts = repository.shallow_cuts(head.repo)

    def cut(commit) -> bool:  # the history ends here only because the clone is shallow
        if commit.hexsha in cuts:
            raise _ShallowHistory()
        return False

    commit, above = head, 0
    while build.TRAILER not in commit.message.splitlines():
        if commit.hexsha == stop or above >= _HISTORY_LIMIT or cut(commit) or not commit.parents:
            return None
        commit, above = commit.parents[0], above + 1
    count = 0
    while build.TRAILER in commit.message.splitlines() and commit.hexsha != stop and not cut(commit):
        if len(commit.parents) != 1:
            break
        commit, count = commit.parents[0], count + 1
    return (commit, count, above) if count else None


class _ShallowHistory(Exception):
    """HEAD's history ends at a shallow clone's cut."""


def baseline_of(git_repo, checkout: Path, rev: str, label: str, describe: str = "", against: str | None = None):
    """The type check's baseline: the files of ``rev`` (called ``label``)
    with the checkout's node_modules linked, cached by the commit and the
    lock files the dependencies were installed from; and the files that the
    patched tree (``against``, a commit; None: the working tree) changes,
    as ``rev`` has them."""
    from ..deliver import trees
    from ..checks import verify

    return verify.Baseline(
        key=f"{rev}:{trees.lock_digest(checkout)}",
        describe=describe or f"{label} {rev[:12]}",
        tree=lambda: trees.tree_with_dependencies(git_repo, rev),
        checkout=checkout,
        changes=lambda: trees.changed_files(git_repo, rev, against),
    )


