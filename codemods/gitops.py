"""Git work for `patch` and `pr`: commits made from git objects alone.

The series is planned on a copy of the base commit's tree (written from its
blobs into a temporary folder), and each commit is made through a temporary
index file with plumbing (`read-tree`, `update-index`, `write-tree`,
`commit-tree`). The user's working tree, index and HEAD are never read for
content nor written. Author, committer and dates are inputs (the base
commit's date, an identity from flags or git config), so the same base gives
the same commit ids.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import git

from .recipes.base import Bridge, CommitGroup
from .recipes.base import ModeChoice
from .formatter import FormatterMode
from .formatter import choose as choose_formatter
from .runner import SKIP_DIRS, FileChange, Plan, TargetError, detect_target, plan

# Every commit the tool makes carries this trailer; with the author's
# identity it tells the tool's own commits from a reviewer's.
TRAILER = "Generated-by: mesh-codemod"
FALLBACK_IDENTITY = ("mesh-codemod", "mesh-codemod@users.noreply.github.com")
ZERO = "0" * 40


class GitProblem(Exception):
    """The repository, a revision or a remote cannot be used (exit 3)."""


class ForeignCommits(GitProblem):
    """The branch holds commits the tool did not make (exit 3 unless --force)."""

    def __init__(self, where: str, commits: list[git.Commit]) -> None:
        shown = [f"  {c.hexsha[:12]} {c.author.name} <{c.author.email}>: {c.summary}" for c in commits[:10]]
        if len(commits) > 10:
            shown.append(f"  ... and {len(commits) - 10} more")
        super().__init__(
            f"{where} has {len(commits)} commit(s) that mesh-codemod did not make; "
            "refusing to replace them (--force replaces them):\n" + "\n".join(shown)
        )
        self.commits = commits


class Identity(NamedTuple):
    name: str
    email: str

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"


class SeriesCommit(NamedTuple):
    """One commit of the series: its group and the files it changes."""

    sha: str
    group: CommitGroup
    files: list[tuple[str, str]]  # (path, "created" | "modified")
    message: str


class Series(NamedTuple):
    """The commits on top of ``base``; ``plan`` is the full plan on the base tree."""

    repo: git.Repo
    base: str
    commits: list[SeriesCommit]
    plan: Plan
    bridge: ModeChoice
    identity: Identity
    date: str

    @property
    def tip(self) -> str:
        return self.commits[-1].sha if self.commits else self.base


def open_repo(path: Path) -> git.Repo:
    try:
        repo = git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise GitProblem(f"{path}: not a git repository") from None
    if repo.bare:
        raise GitProblem(f"{path}: a bare repository has no checkout to read the installed SDK from")
    if Path(repo.working_tree_dir).resolve() != path.resolve():
        raise GitProblem(f"{path}: not the top of its git checkout ({repo.working_tree_dir})")
    return repo


def resolve(repo: git.Repo, rev: str) -> git.Commit:
    try:
        return repo.commit(rev)
    except (git.BadName, ValueError, git.GitCommandError):
        raise GitProblem(f"unknown revision {rev!r} in {repo.working_tree_dir}") from None


def identity(repo: git.Repo, name: str | None, email: str | None) -> Identity:
    """The author: flags first, then the repository's git config, then the tool's own."""
    reader = repo.config_reader()
    name = name or reader.get_value("user", "name", "") or FALLBACK_IDENTITY[0]
    email = email or reader.get_value("user", "email", "") or FALLBACK_IDENTITY[1]
    return Identity(str(name), str(email))


def commit_date(commit: git.Commit) -> str:
    """The commit's committer date as git reads it back: '<epoch> <+hhmm>'."""
    return commit.repo.git.show("-s", "--format=%cd", "--date=raw", commit.hexsha).strip()


@contextmanager
def exported_tree(repo: git.Repo, rev: str) -> Iterator[Path]:
    """A temporary folder holding the files of ``rev`` exactly as committed
    (blob bytes, executable bits, links); no attributes or filters apply."""
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-tree-", ignore_cleanup_errors=True) as name:
        folder = Path(name)
        for item in repo.commit(rev).tree.traverse():
            if item.type != "blob":
                continue
            target = folder / item.path
            target.parent.mkdir(parents=True, exist_ok=True)
            data = item.data_stream.read()
            if item.mode == 0o120000:
                os.symlink(os.fsdecode(data), target)
                continue
            target.write_bytes(data)
            if item.mode & 0o111:
                target.chmod(0o755)
        yield folder


def build_series(
    repo: git.Repo,
    base_rev: str,
    bridge: Bridge,
    author: Identity,
    formatter: FormatterMode = FormatterMode.AUTO,
) -> Series:
    """Make (in the object store only) one commit per commit group whose
    steps change something, on top of ``base_rev``. The files are laid out
    by the checkout's formatter (its installed Biome, run under the
    configuration committed in the base) where ``formatter`` allows."""
    base = resolve(repo, base_rev)
    checkout = Path(repo.working_tree_dir)
    date = commit_date(base)
    env = {
        "GIT_AUTHOR_NAME": author.name,
        "GIT_AUTHOR_EMAIL": author.email,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_NAME": author.name,
        "GIT_COMMITTER_EMAIL": author.email,
        "GIT_COMMITTER_DATE": date,
    }
    commits: list[SeriesCommit] = []
    with exported_tree(repo, base.hexsha) as tree, _temporary_index() as index:
        try:
            target = detect_target(tree)
            # The checkout decides `auto` (the host: its installed SDK), as
            # node_modules is never committed and so not in the exported tree.
            choice = target.choose_mode(checkout, bridge)
            layout = choose_formatter(checkout, formatter)
            # One plan per commit, each with the steps of the groups so far;
            # the groups cover every step once, so the last plan is the full one.
            plans: list[Plan] = []
            selected: list[str] = []
            for group in target.commits:
                selected.extend(group.steps)
                plans.append(plan(tree, choice, selected, layout))
        except TargetError as err:
            raise GitProblem(str(err).replace(str(tree), f"{checkout} at {base.hexsha[:12]}")) from None
        full = plans[-1]
        if full.refused:
            reasons = "; ".join(f"{r.path}: {r.reason}" for r in full.refused)
            raise GitProblem(f"refused on {base.hexsha[:12]}: {reasons}")
        groups = target.commits
        if full.form_changes:
            # The base has the feature in an earlier form: one commit of its own.
            from .changeover import commit_group

            groups, plans = (commit_group(full),), [full]
        modes = _modes(repo, base.hexsha, [c.path for c in full.changes])
        parent, parent_tree = base.hexsha, base.tree.hexsha
        index_env = {**env, "GIT_INDEX_FILE": str(index)}
        repo.git.execute(["git", "read-tree", base.hexsha], env=index_env)
        staged: dict[str, bytes] = {}
        for group, step_plan in zip(groups, plans):
            changed = [c for c in step_plan.changes if group_touches(c, group)]
            # only what this group's plan changes since the previous one
            entries = []
            for change in step_plan.changes:
                if staged.get(change.path) != change.new:
                    staged[change.path] = change.new
                    blob = _store_blob(repo, change.new)
                    entries.append(f"{modes.get(change.path, '100644')} {blob}\t{change.path}\n")
            if entries:
                entries_file = index.with_name("entries")
                entries_file.write_bytes("".join(entries).encode("utf-8"))
                with entries_file.open("rb") as stdin:
                    repo.git.execute(["git", "update-index", "--add", "--index-info"], env=index_env, istream=stdin)
            new_tree = repo.git.execute(["git", "write-tree"], env=index_env).strip()
            if new_tree == parent_tree:
                continue  # already in the base: no empty commit
            message = commit_message(group)
            message_file = index.with_name("message")
            message_file.write_bytes(message.encode("utf-8"))
            sha = repo.git.execute(
                ["git", "commit-tree", "--no-gpg-sign", new_tree, "-p", parent, "-F", str(message_file)],
                env=index_env,
            ).strip()
            files = [(c.path, c.kind) for c in changed]
            commits.append(SeriesCommit(sha, group, files, message))
            parent, parent_tree = sha, new_tree
    return Series(repo, base.hexsha, commits, full, choice, author, date)


def group_touches(change: FileChange, group: CommitGroup) -> bool:
    return any(step in group.steps for step in change.steps)


def commit_message(group: CommitGroup) -> str:
    return f"{group.subject}\n\n{group.body.rstrip()}\n\n{TRAILER}\n"


def _store_blob(repo: git.Repo, data: bytes) -> str:
    from gitdb.base import IStream

    stream = repo.odb.store(IStream("blob", len(data), io.BytesIO(data)))
    return stream.hexsha.decode() if isinstance(stream.hexsha, bytes) else stream.hexsha


def _modes(repo: git.Repo, rev: str, paths: Sequence[str]) -> dict[str, str]:
    """The file modes the base commit gives ``paths`` (new files: none)."""
    if not paths:
        return {}
    out = repo.git.execute(["git", "ls-tree", "-z", rev, "--", *paths], strip_newline_in_stdout=False)
    modes = {}
    for record in out.split("\0"):
        if record:
            meta, path = record.split("\t", 1)
            modes[path] = meta.split()[0]
    return modes


@contextmanager
def _temporary_index() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-index-", ignore_cleanup_errors=True) as name:
        yield Path(name) / "index"


# --- patch files -----------------------------------------------------------

_SERIES_FILE = re.compile(r"^\d{4}-.*\.patch$")


def isolated_env() -> dict[str, str]:
    """Environment for git commands whose output must not depend on the
    user's git configuration (diff and format settings)."""
    return {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_SYSTEM": os.devnull}


def write_patches(series: Series, out: Path) -> list[Path]:
    """Write the series as `git am` input, ``0001-*.patch`` onward, replacing
    an earlier series in ``out``; other files there are left alone."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".mesh-codemod-patches-", dir=out, ignore_cleanup_errors=True) as name:
        staging = Path(name)
        if series.commits:
            with _isolated_git_dir(series.repo) as git_dir:
                series.repo.git.execute(
                    [
                        "git", f"--git-dir={git_dir}", "-c", "core.abbrev=12", "format-patch",
                        "--numbered", "--no-signature", "--no-renames", "--minimal",
                        "-o", str(staging), f"{series.base}..{series.tip}",
                    ],
                    env=isolated_env(),
                )
        for stale in out.iterdir():
            if stale.is_file() and _SERIES_FILE.match(stale.name):
                stale.unlink()
        written = []
        for made in sorted(staging.iterdir()):
            target = out / made.name
            os.replace(made, target)
            written.append(target)
        return written


@contextmanager
def _isolated_git_dir(repo: git.Repo) -> Iterator[Path]:
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


# --- the branch --------------------------------------------------------------


class BranchUpdate(NamedTuple):
    """What `pr` did to the local branch and the remote one."""

    local_action: str  # "created" | "updated" | "unchanged" | "not updated"
    pushed: bool = False
    local_before: str | None = None
    remote_seen: str | None = None  # the push's lease
    replaced: Sequence[git.Commit] = ()  # foreign commits replaced under --force


def is_ours(commit: git.Commit, author: Identity) -> bool:
    """Made by this tool for this identity: the trailer and the author agree."""
    return commit.author.email == author.email and TRAILER in commit.message.splitlines()


def foreign_commits(repo: git.Repo, tip: str | None, base: str, author: Identity) -> list[git.Commit]:
    """Commits on ``tip`` that are not in ``base`` and not the tool's."""
    if not tip:
        return []
    return [c for c in repo.iter_commits([tip, f"^{base}"]) if not is_ours(c, author)]


def checked_out_branches(repo: git.Repo) -> set[str]:
    out = repo.git.worktree("list", "--porcelain")
    return {line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("branch ")}


def local_branch(repo: git.Repo, branch: str) -> str | None:
    try:
        return repo.git.rev_parse("--verify", "-q", f"refs/heads/{branch}^{{commit}}").strip() or None
    except git.GitCommandError:
        return None


def remote_branch(repo: git.Repo, remote: str, branch: str) -> str | None:
    """The remote's value of the branch, with its commits fetched (no ref is
    written); None when the remote has no such branch."""
    ref = f"refs/heads/{branch}"
    try:
        out = repo.git.ls_remote(remote, ref)
    except git.GitCommandError as err:
        raise GitProblem(f"cannot read {ref} on {remote}: {_git_error(err)}") from None
    values = [line.split("\t") for line in out.splitlines() if line.endswith(f"\t{ref}")]
    if not values:
        return None
    seen = values[0][0]
    if not _has_commit(repo, seen):
        try:
            repo.git.fetch("--no-tags", "--no-write-fetch-head", "--quiet", remote, ref)
        except git.GitCommandError as err:
            raise GitProblem(f"cannot fetch {ref} from {remote}: {_git_error(err)}") from None
        if not _has_commit(repo, seen):
            raise GitProblem(f"{ref} on {remote} moved while it was read; run again")
    return seen


def _has_commit(repo: git.Repo, sha: str) -> bool:
    try:
        repo.git.cat_file("-e", f"{sha}^{{commit}}")
        return True
    except git.GitCommandError:
        return False


def _git_error(err: git.GitCommandError) -> str:
    text = (err.stderr or "").strip().removeprefix("stderr:").strip().strip("'").strip()
    return text.splitlines()[-1] if text else str(err)


def check_branch(
    series: Series, branch: str, remote: str | None, force: bool
) -> tuple[str | None, str | None, list[git.Commit]]:
    """Read the local and remote branch and refuse to replace commits that
    are not the tool's (unless ``force``). Returns (local, remote_seen, foreign)."""
    repo = series.repo
    if not _valid_branch(repo, branch):
        raise GitProblem(f"{branch!r} is not a valid branch name")
    if f"refs/heads/{branch}" in checked_out_branches(repo):
        raise GitProblem(f"branch {branch} is checked out; pr never moves a checked-out branch")
    local = local_branch(repo, branch)
    seen = remote_branch(repo, remote, branch) if remote else None
    foreign: list[git.Commit] = []
    for where, tip in ((f"branch {branch}", local), (f"{remote}/{branch}", seen)):
        known = {c.hexsha for c in foreign}
        found = [c for c in foreign_commits(repo, tip, series.base, series.identity) if c.hexsha not in known]
        if found and not force:
            raise ForeignCommits(where, found)
        foreign.extend(found)
    return local, seen, foreign


def _valid_branch(repo: git.Repo, branch: str) -> bool:
    try:
        repo.git.check_ref_format("--branch", branch)
        return not branch.startswith("-")
    except git.GitCommandError:
        return False


def update_branch(
    series: Series, branch: str, remote: str | None, local: str | None, seen: str | None,
    replaced: Sequence[git.Commit] = (),
) -> BranchUpdate:
    """Point the local branch at the series tip and push it with a lease on
    the remote value ``seen``; ``replaced`` are the foreign commits this
    replaces (under --force)."""
    repo = series.repo
    tip = series.tip
    action = "unchanged"
    if local != tip:
        repo.git.update_ref("-m", "mesh-codemod pr", f"refs/heads/{branch}", tip, local or ZERO)
        action = "created" if local is None else "updated"
    pushed = False
    if remote and seen != tip:
        lease = f"--force-with-lease=refs/heads/{branch}:{seen or ''}"
        try:
            repo.git.push("--porcelain", "--quiet", lease, remote, f"{tip}:refs/heads/{branch}")
        except git.GitCommandError as err:
            raise GitProblem(
                f"push of {branch} to {remote} refused (the lease expected "
                f"{seen[:12] if seen else 'no branch'}): {_git_error(err)}"
            ) from None
        pushed = True
    return BranchUpdate(action, pushed, local, seen, tuple(replaced))


# --- trees to check ----------------------------------------------------------

def dependency_folders(checkout: Path) -> list[str]:
    """The checkout's installed ``node_modules`` folders (root and
    workspaces, not inside one another or a build folder), relative to it."""
    found = []
    for folder, dirs, _ in os.walk(checkout):
        if "node_modules" in dirs:
            found.append(Path(folder, "node_modules").relative_to(checkout).as_posix())
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
    return found


@contextmanager
def tree_with_dependencies(repo: git.Repo, rev: str) -> Iterator[Path]:
    """The files of ``rev`` in a temporary folder, with the checkout's
    ``node_modules`` folders linked in, so the repo's own tools run there."""
    checkout = Path(repo.working_tree_dir)
    with exported_tree(repo, rev) as tree:
        for relative in dependency_folders(checkout):
            link = tree / relative
            if link.parent.is_dir() and not os.path.lexists(link):
                os.symlink(checkout / relative, link)
        yield tree


def lock_digest(checkout: Path) -> str:
    """What the installed dependencies were installed from."""
    import hashlib

    from .verify import LOCK_FILES

    digest = hashlib.sha256()
    for name in LOCK_FILES:
        path = checkout / name
        if path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]
