"""The branch: whose commits it holds, and moving it (locally, and on the
remote with a lease). Only `ls-remote`, `fetch` and `push` receive
credentials (`environment.network_env`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

import git

from typing import NamedTuple
from ..plan import environment
from ..plan.model import TargetError
from ..plan.repository import GitProblem, ZERO, check_branch_name, git_error, refuse_shallow
from ..plan.baseline import TRAILER
from .build import Series, build_series, holds_recorded_content


class ForeignCommits(GitProblem):
    """The branch holds commits the tool did not make (exit 3 unless --force)."""

    def __init__(self, where: str, found: list[Foreign]) -> None:
        commits = [f.commit for f in found]
        shown = [
            f"  {f.commit.hexsha[:12]} {f.commit.author.name} <{f.commit.author.email}>: {f.commit.summary} ({f.reason})"
            for f in found[:10]
        ]
        if len(commits) > 10:
            shown.append(f"  ... and {len(commits) - 10} more")
        super().__init__(
            f"{where} has {len(commits)} commit(s) that mesh-codemod did not make; "
            "refusing to replace them (--force replaces them):\n" + "\n".join(shown)
        )
        self.commits = commits
        self.found = found


class BranchUpdate(NamedTuple):
    """What `pr` did to the local branch and the remote one."""

    local_action: str  # "created" | "updated" | "unchanged" | "not updated"
    pushed: bool = False
    local_before: str | None = None
    remote_seen: str | None = None  # the push's lease
    replaced: Sequence[git.Commit] = ()  # foreign commits replaced under --force


def made_by_tool(commit: git.Commit, identities: Collection[tuple[str, str]]) -> str:
    """Why ``commit`` cannot be one of the tool's commits; empty when its
    metadata says it is (author and committer one of ``identities``,
    trailer, one parent)."""
    if TRAILER not in commit.message.splitlines():
        return "no Generated-by trailer"
    if (commit.author.name, commit.author.email) not in identities:
        return f"authored by {commit.author.name} <{commit.author.email}>"
    if (commit.committer.name, commit.committer.email) not in identities:
        return f"committed by {commit.committer.name} <{commit.committer.email}>"
    if len(commit.parents) != 1:
        return "a merge" if commit.parents else "a root commit"
    return ""


class Foreign(NamedTuple):
    """A commit on the branch that the tool did not make, and why not."""

    commit: git.Commit
    reason: str


def _target_refs(repo: git.Repo, branch: str) -> list[str]:
    """The remote-tracking refs other than the branch's own (the target
    branch's history: what a newer run was built on, what "Update branch"
    merges in)."""
    refs = repo.git.for_each_ref("--format=%(refname)", "refs/remotes").splitlines()
    return [r for r in refs if r and not r.endswith(("/HEAD", f"/{branch}"))] if branch else [r for r in refs if r and not r.endswith("/HEAD")]


def _brings_in_the_target(repo: git.Repo, commit: git.Commit, base: str, targets: Sequence[str]) -> bool:
    """Whether ``commit`` is a merge that only brings the target branch into
    the branch (GitHub's "Update branch"): two parents, the second in the
    target's history (the base's, or a remote-tracking branch's), and the
    tree a clean merge of the two gives."""
    if len(commit.parents) != 2:
        return False
    brought = commit.parents[1].hexsha
    try:
        on_target = repo.is_ancestor(brought, base)
        if not on_target and targets:
            on_target = bool(repo.git.for_each_ref("--contains", brought, "--format=%(refname)", *targets).split())
        if not on_target:
            return False
        status, out, _err = repo.git.execute(
            ["git", "merge-tree", "--write-tree", commit.parents[0].hexsha, brought],
            with_extended_output=True, with_exceptions=False,
        )
    except git.GitCommandError:
        return False
    return status == 0 and out.split("\n", 1)[0].strip() == commit.tree.hexsha


def foreign_commits(
    series: Series, tip: str | None, rebuilt: dict[str, set[str]] | None = None, branch: str = ""
) -> list[Foreign]:
    """Commits on ``tip`` that are not in the series' base and that this
    tool did not make: a commit is the tool's only when its author,
    committer and trailer are the tool's and its content is the tool's: it
    holds exactly the change its content trailer records (so a commit that
    an earlier release made is recognised too), or it is, id for id, a
    commit this release makes for the base below it (rebuilt when that base
    is older)."""
    if not tip:
        return []
    repo = series.repo
    rebuilt = {} if rebuilt is None else rebuilt
    rebuilt.setdefault(series.base, {c.sha for c in series.commits})
    # the target's own commits are nobody's business here: a run
    # superseded by a newer one sees that run's base, which main holds
    targets = _target_refs(repo, branch)
    commits = list(repo.iter_commits([tip, f"^{series.base}", *(f"^{r}" for r in targets)]))
    metadata = {
        c.hexsha: "" if _brings_in_the_target(repo, c, series.base, targets) else made_by_tool(c, series.identities)
        for c in commits
    }
    runs: dict[str, str] = {}  # base of a run of the tool's commits -> why not an earlier release's ("": it is)
    foreign = []
    for commit in commits:
        reason = metadata[commit.hexsha]
        if len(commit.parents) == 2 and not reason:
            continue  # a merge of the target into the branch
        if not reason and not holds_recorded_content(commit):
            base = _series_base(commit, metadata)
            if base not in rebuilt:
                rebuilt[base] = _rebuild(series, base)
            if commit.hexsha not in rebuilt[base]:
                if base not in runs:
                    # the newest commit of the run comes first
                    runs[base] = _not_an_earlier_release(series, base, commit)
                if runs[base]:
                    reason = f"not the commit mesh-codemod makes on {base[:12]}: {runs[base]}"
        if reason:
            foreign.append(Foreign(commit, reason))
    return foreign


def _not_an_earlier_release(series: Series, base: str, run_tip: git.Commit) -> str:
    """Why the run of commits from ``base`` to ``run_tip`` (the tool's
    identity and trailer) is not an earlier release's series; empty when
    it is. A run without a content trailer (an earlier release's) is
    recognised by its content: its commits touch only the files this
    release writes, and this release's upgrade of its tip is exactly what
    this release makes on ``base`` (an earlier release's output upgrades
    to the current one, SPEC 5a; a reviewer's edit survives the upgrade,
    so an amend is still refused)."""
    repo = series.repo
    try:
        fresh = series if base == series.base else _build_again(series, base)
        upgraded = _build_again(series, run_tip.hexsha)
    except (GitProblem, git.GitError, OSError) as err:
        return f"edited, or made by another version ({err})"
    ours = {c.path for c in fresh.plan.changes}
    changed = repo.git.diff("--name-only", "-z", "--no-renames", base, run_tip.hexsha, "--").split("\0")
    others = sorted(path for path in changed if path and path not in ours)
    if others:
        return f"it changes {others[0]}, which mesh-codemod does not write"
    wanted = repo.commit(fresh.tip).tree.hexsha
    got = repo.commit(upgraded.tip).tree.hexsha
    if wanted == got or _same_modulo_layout(repo, wanted, got):
        return ""
    return "edited, or made by another version (its upgrade differs from what this release makes)"


def _build_again(series: Series, base: str) -> Series:
    return build_series(series.repo, base, series.bridge.mode, series.identity, series.tools)


def _same_modulo_layout(repo: git.Repo, tree_a: str, tree_b: str) -> bool:
    """Whether two trees differ in the layout of TypeScript files only."""
    from ..engine.equivalence import same_modulo_layout
    from ..engine.parsing import language_for

    paths = [p for p in repo.git.diff("--name-only", "-z", "--no-renames", tree_a, tree_b, "--").split("\0") if p]
    for path in paths:
        if not path.endswith((".ts", ".tsx")):
            return False
        try:
            a = repo.git.show(f"{tree_a}:{path}")
            b = repo.git.show(f"{tree_b}:{path}")
        except git.GitCommandError:
            return False
        if not same_modulo_layout(a, b, language_for(path)):
            return False
    return True


def _series_base(commit: git.Commit, metadata: dict[str, str]) -> str:
    """The commit below the run of tool-made commits that ``commit`` ends."""
    while True:
        parent = commit.parents[0]
        if metadata.get(parent.hexsha, "x"):  # outside the range, or not the tool's
            return parent.hexsha
        commit = parent


def _rebuild(series: Series, base: str) -> set[str]:
    try:
        again = build_series(series.repo, base, series.bridge.mode, series.identity, series.tools)
    except (GitProblem, TargetError, git.GitError, OSError):
        return set()
    return {c.sha for c in again.commits}


def checked_out_branches(repo: git.Repo) -> set[str]:
    """The branches a worktree holds: checked out, or being rebased or
    bisected there (HEAD is detached meanwhile, and the branch is moved
    or checked out again when that ends)."""
    out = repo.git.worktree("list", "--porcelain")
    held = {line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("branch ")}
    common = Path(repo.git.rev_parse("--git-common-dir"))
    if not common.is_absolute():
        common = Path(repo.working_tree_dir or repo.git_dir) / common
    git_dirs = [common, *sorted((common / "worktrees").glob("*"))]
    for git_dir in git_dirs:
        for name in ("rebase-merge/head-name", "rebase-apply/head-name", "BISECT_START"):
            try:
                value = (git_dir / name).read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                continue
            if value and value != "detached HEAD":
                held.add(value if value.startswith("refs/") else f"refs/heads/{value}")
    return held


def local_branch(repo: git.Repo, branch: str) -> str | None:
    try:
        return repo.git.rev_parse("--verify", "-q", f"refs/heads/{branch}^{{commit}}").strip() or None
    except git.GitCommandError:
        return None


def _conflicting_ref(repo: git.Repo, branch: str) -> str | None:
    """A local ref that keeps ``branch`` from existing: one below it
    (``codemod/app-state`` for ``codemod``) or one above it."""
    ref = f"refs/heads/{branch}"
    below = [r for r in repo.git.for_each_ref("--format=%(refname)", ref).splitlines() if r != ref]
    if below:
        return below[0]
    parts = branch.split("/")
    for count in range(1, len(parts)):
        above = "refs/heads/" + "/".join(parts[:count])
        if repo.git.for_each_ref("--format=%(refname)", above).splitlines().count(above):
            return above
    return None


def remote_branch(repo: git.Repo, remote: str, branch: str) -> str | None:
    """The remote's value of the branch, with its commits fetched (no ref is
    written); None when the remote has no such branch."""
    ref = f"refs/heads/{branch}"
    network = environment.network_env()
    try:
        out = repo.git.ls_remote("--", remote, ref, env=network)
    except git.GitCommandError as err:
        raise GitProblem(f"cannot read {ref} on {remote}: {git_error(err)}") from None
    values = [line.split("\t") for line in out.splitlines() if line.endswith(f"\t{ref}")]
    if not values:
        return None
    seen = values[0][0]
    if not _has_commit(repo, seen):
        try:
            repo.git.fetch("--no-tags", "--no-write-fetch-head", "--quiet", "--", remote, ref, env=network)
        except git.GitCommandError as err:
            raise GitProblem(f"cannot fetch {ref} from {remote}: {git_error(err)}") from None
        if not _has_commit(repo, seen):
            raise GitProblem(f"{ref} on {remote} moved while it was read; run again")
    return seen


def _has_commit(repo: git.Repo, sha: str) -> bool:
    try:
        repo.git.cat_file("-e", f"{sha}^{{commit}}")
        return True
    except git.GitCommandError:
        return False


def check_branch(
    series: Series, branch: str, remote: str | None, force: bool
) -> tuple[str | None, str | None, list[git.Commit]]:
    """Read the local and remote branch and refuse to replace commits that
    are not the tool's (unless ``force``). Returns (local, remote_seen, foreign)."""
    repo = series.repo
    check_branch_name(branch)
    refuse_shallow(repo, "pr compares the branch's history with its base")
    if f"refs/heads/{branch}" in checked_out_branches(repo):
        raise GitProblem(
            f"branch {branch} is checked out, or being rebased or bisected, in a worktree; pr never moves it"
        )
    conflict = _conflicting_ref(repo, branch)
    if conflict:
        raise GitProblem(f"branch {branch} cannot exist beside {conflict} (a ref cannot be both a name and a folder)")
    local = local_branch(repo, branch)
    seen = remote_branch(repo, remote, branch) if remote else None
    foreign: list[git.Commit] = []
    rebuilt: dict[str, set[str]] = {}
    for where, tip in ((f"branch {branch}", local), (f"{remote}/{branch}", seen)):
        known = {c.hexsha for c in foreign}
        found = [f for f in foreign_commits(series, tip, rebuilt, branch) if f.commit.hexsha not in known]
        if found and not force:
            raise ForeignCommits(where, found)
        foreign.extend(f.commit for f in found)
    return local, seen, foreign


def update_branch(
    series: Series, branch: str, remote: str | None, local: str | None, seen: str | None,
    replaced: Sequence[git.Commit] = (),
) -> BranchUpdate:
    """Push the series tip with a lease on the remote value ``seen``, then,
    only once the push succeeded, point the local branch at it; ``replaced``
    are the foreign commits this replaces (under --force)."""
    repo = series.repo
    tip = series.tip
    pushed = False
    if remote and seen != tip:
        _push(repo, remote, branch, tip, seen)
        pushed = True
    action = "unchanged"
    if local != tip:
        try:
            repo.git.update_ref("-m", "mesh-codemod pr", f"refs/heads/{branch}", tip, local or ZERO)
        except git.GitCommandError as err:
            done = f"pushed to {remote}, but " if pushed else ""
            raise GitProblem(f"{done}the local branch {branch} could not be moved: {git_error(err)}") from None
        action = "created" if local is None else "updated"
    return BranchUpdate(action, pushed, local, seen, tuple(replaced))


def push_branch(repo: git.Repo, remote: str, branch: str, tip: str, seen: str | None) -> None:
    """Push ``tip`` to the remote's ``branch`` with the lease ``seen``."""
    _push(repo, remote, branch, tip, seen)


def _push(repo: git.Repo, remote: str, branch: str, tip: str, seen: str | None) -> None:
    """Push exactly one ref, with the lease, no hooks and no tags; a refusal
    names what refused: the lease, or the remote (a hook, a protection)."""
    ref = f"refs/heads/{branch}"
    status, out, err = repo.git.execute(
        [
            "git", "push", "--porcelain", "--no-verify", "--no-follow-tags", "--recurse-submodules=no",
            f"--force-with-lease={ref}:{seen or ''}", "--", remote, f"{tip}:{ref}",
        ],
        env=environment.network_env(), with_extended_output=True, with_exceptions=False,
    )
    if status == 0:
        return
    expected = seen[:12] if seen else "no branch"
    status_line = next((line for line in out.splitlines() if line.startswith("!\t")), "")
    detail = status_line.rsplit("\t", 1)[-1] if status_line else ""
    head = f"push of {branch} to {remote} refused"
    if "stale info" in detail:
        raise GitProblem(
            f"{head} by the lease: the remote branch is no longer {expected} "
            "(someone pushed meanwhile); run again. The local branch was not moved."
        )
    # what the remote said (GitHub's "GH006: Protected branch update failed ...")
    said = [line.removeprefix("remote:").strip() for line in err.splitlines() if line.startswith("remote:")]
    said = [line for line in said if line]
    if detail.startswith("[remote rejected]"):
        reason = detail.removeprefix("[remote rejected]").strip(" ()")
        told = f"; the remote says: {' '.join(said)}" if said else ""
        raise GitProblem(
            f"{head} by the remote: {reason} (a server hook or branch protection){told}. "
            "The local branch was not moved."
        )
    last = (err.strip().splitlines() or [detail or "unknown error"])[-1]
    raise GitProblem(f"{head}: {detail or last}. The local branch was not moved.")


def spec_branch_name(branch: str) -> str:
    """The spec branch beside the code branch ``branch`` (the SDK's
    spec-first PR, SPEC section 7)."""
    return f"{branch}-spec"
