"""Git work for `patch` and `pr`: commits made from git objects alone.

The series is planned on a copy of the base commit's tree (written from its
blobs into a temporary folder), and each commit is made through a temporary
index file with plumbing (`read-tree`, `update-index`, `write-tree`,
`commit-tree`). The user's working tree, index and HEAD are never read for
content nor written. Author, committer and dates are inputs (the base
commit's date, an identity from flags or git config), so the same base gives
the same commit ids.

Every git call runs with the fixed configuration of `environment` (the
user's hooks off, UTF-8 messages, no environment-level config); only
`ls-remote`, `fetch` and `push` receive credentials.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import git

from .engine.record import NamedTuple
from . import environment
from .recipes.base import Bridge, CommitGroup
from .recipes.base import ModeChoice
from .formatter import FormatterMode
from .formatter import choose as choose_formatter
from .runner import SKIP_DIRS, FileChange, Plan, TargetError, detect_target, plan

# Every commit the tool makes carries this trailer; with the author's
# identity it tells the tool's own commits from a reviewer's.
TRAILER = "Generated-by: mesh-codemod"
# What the commit changed, as "<parent's tree>..<its tree>": a commit that
# still holds exactly that is the tool's work, whichever release made it
# (an amend, a fixup or a rebase changes a tree).
CONTENT_TRAILER = "Generated-content:"
FALLBACK_IDENTITY = ("mesh-codemod", "mesh-codemod@users.noreply.github.com")
ZERO = "0" * 40


class GitProblem(Exception):
    """The repository, a revision or a remote cannot be used (exit 3)."""


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
    formatter: FormatterMode = FormatterMode.AUTO  # as asked: a rebuild uses it again

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
    # every call through this object: no hooks, no environment-level config
    repo.git.update_environment(**environment.git_env())
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
    (blob bytes, executable bits, links); no attributes or filters apply.
    A tree that `git fsck` would flag (a name twice, ``..``, ``.git``) is
    refused, and no link is ever followed while writing."""
    entries = _tree_entries(repo, rev)
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
        raise GitProblem(f"cannot read the tree of {commit.hexsha[:12]}: {_git_error(err)}") from None
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


def build_series(
    repo: git.Repo,
    base_rev: str,
    bridge: Bridge | ModeChoice,
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
            # The pins come from the configuration committed in the base.
            from . import config as configuration

            settings = configuration.load(tree, [s.id for s in target.steps], target.name)
            if isinstance(bridge, ModeChoice):  # decided already (the build's, for the publishing side)
                choice = bridge
            else:
                choice = configuration.pinned(target.choose_mode(checkout, bridge), settings, bridge)
            layout = choose_formatter(checkout, formatter, target.name)
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
        elif full.changes:
            from .changeover import COMPLETION, completion_group, kind

            if kind(full) == COMPLETION:  # part of the feature is there: one commit completes it
                groups, plans = (completion_group(full),), [full]
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
            message = commit_message(group, parent_tree, new_tree)
            message_file = index.with_name("message")
            message_file.write_bytes(message.encode("utf-8"))
            sha = repo.git.execute(
                ["git", "commit-tree", "--no-gpg-sign", new_tree, "-p", parent, "-F", str(message_file)],
                env=index_env,
            ).strip()
            files = [(c.path, c.kind) for c in changed]
            commits.append(SeriesCommit(sha, group, files, message))
            parent, parent_tree = sha, new_tree
    return Series(repo, base.hexsha, commits, full, choice, author, date, formatter)


def group_touches(change: FileChange, group: CommitGroup) -> bool:
    return any(step in group.steps for step in change.steps)


def commit_message(group: CommitGroup, parent_tree: str, tree: str) -> str:
    return f"{group.subject}\n\n{group.body.rstrip()}\n\n{TRAILER}\n{CONTENT_TRAILER} {parent_tree}..{tree}\n"


def holds_recorded_content(commit: git.Commit) -> bool:
    """Whether ``commit`` changes exactly what its content trailer says."""
    recorded = f"{CONTENT_TRAILER} {commit.parents[0].tree.hexsha}..{commit.tree.hexsha}"
    return recorded in commit.message.splitlines()


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
    an earlier series the tool wrote in ``out`` (its patches carry the
    trailer); other files there, other patches included, are left alone.
    With nothing to write, nothing is removed either."""
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
        if not series.commits:
            return []
        # checked before anything is removed: a refusal leaves the folder as it was
        stale = [p for p in out.iterdir() if _SERIES_FILE.match(p.name) and is_our_patch(p)]
        ours = {p.name for p in stale}
        clashes = sorted(m.name for m in staging.iterdir() if os.path.lexists(out / m.name) and m.name not in ours)
        if clashes:
            raise GitProblem(f"{out / clashes[0]} is in the way and mesh-codemod did not write it; nothing written")
        for path in stale:
            path.unlink()
        written = []
        for made in sorted(staging.iterdir()):
            target = out / made.name
            os.replace(made, target)
            written.append(target)
        return written


_PATCH_START = re.compile(rb"^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001\n")


def is_our_patch(path: Path) -> bool:
    """A patch file of a series this tool wrote: a plain file in
    format-patch's form whose commit message ends with the trailer."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with path.open("rb") as stream:
            head = stream.read(1 << 16)
    except OSError:
        return False
    if not _PATCH_START.match(head):
        return False
    message = head.split(b"\n---\n", 1)[0]
    return TRAILER.encode() in message.splitlines()


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


def made_by_tool(commit: git.Commit, identity: Identity) -> str:
    """Why ``commit`` cannot be one of the tool's commits; empty when its
    metadata says it is (author, committer, trailer, one parent)."""
    if TRAILER not in commit.message.splitlines():
        return "no Generated-by trailer"
    if (commit.author.name, commit.author.email) != identity:
        return f"authored by {commit.author.name} <{commit.author.email}>"
    if (commit.committer.name, commit.committer.email) != identity:
        return f"committed by {commit.committer.name} <{commit.committer.email}>"
    if len(commit.parents) != 1:
        return "a merge" if commit.parents else "a root commit"
    return ""


class Foreign(NamedTuple):
    """A commit on the branch that the tool did not make, and why not."""

    commit: git.Commit
    reason: str


def foreign_commits(series: Series, tip: str | None, rebuilt: dict[str, set[str]] | None = None) -> list[Foreign]:
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
    commits = list(repo.iter_commits([tip, f"^{series.base}"]))
    metadata = {c.hexsha: made_by_tool(c, series.identity) for c in commits}
    runs: dict[str, str] = {}  # base of a run of the tool's commits -> why not an earlier release's ("": it is)
    foreign = []
    for commit in commits:
        reason = metadata[commit.hexsha]
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
    it is. An earlier release (0.2.0 wrote no content trailer) is
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
    return build_series(series.repo, base, series.bridge.mode, series.identity, series.formatter)


def _same_modulo_layout(repo: git.Repo, tree_a: str, tree_b: str) -> bool:
    """Whether two trees differ in the layout of TypeScript files only."""
    from .engine.equivalence import grammar_for, same_modulo_layout

    paths = [p for p in repo.git.diff("--name-only", "-z", "--no-renames", tree_a, tree_b, "--").split("\0") if p]
    for path in paths:
        if not path.endswith((".ts", ".tsx")):
            return False
        try:
            a = repo.git.show(f"{tree_a}:{path}")
            b = repo.git.show(f"{tree_b}:{path}")
        except git.GitCommandError:
            return False
        if not same_modulo_layout(a, b, grammar_for(path)):
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
    from .runner import TargetError

    try:
        again = build_series(series.repo, base, series.bridge.mode, series.identity, series.formatter)
    except (GitProblem, TargetError, git.GitError, OSError):
        return set()
    return {c.sha for c in again.commits}


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
        raise GitProblem(f"cannot read {ref} on {remote}: {_git_error(err)}") from None
    values = [line.split("\t") for line in out.splitlines() if line.endswith(f"\t{ref}")]
    if not values:
        return None
    seen = values[0][0]
    if not _has_commit(repo, seen):
        try:
            repo.git.fetch("--no-tags", "--no-write-fetch-head", "--quiet", "--", remote, ref, env=network)
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
        found = [f for f in foreign_commits(series, tip, rebuilt) if f.commit.hexsha not in known]
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
            raise GitProblem(f"{done}the local branch {branch} could not be moved: {_git_error(err)}") from None
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
    if detail.startswith("[remote rejected]"):
        reason = detail.removeprefix("[remote rejected]").strip(" ()")
        raise GitProblem(
            f"{head} by the remote: {reason} (a server hook or branch protection). The local branch was not moved."
        )
    last = (err.strip().splitlines() or [detail or "unknown error"])[-1]
    raise GitProblem(f"{head}: {detail or last}. The local branch was not moved.")


# --- trees to check ----------------------------------------------------------

def changed_files(repo: git.Repo, base: str, against: str | None = None) -> dict[str, bytes | None]:
    """The files that ``against`` (a commit; None: the working tree,
    untracked files included) changes from ``base``, each as it is in
    ``base`` (None where ``base`` has no such file)."""
    compared = [base, against] if against else [base]
    paths = repo.git.diff("--name-only", "-z", "--no-renames", *compared, "--").split("\0")
    if against is None:
        paths += repo.git.ls_files("--others", "--exclude-standard", "-z").split("\0")
    in_base = {
        line.split("\t", 1)[1]: line.split()[2]
        for line in repo.git.ls_tree("-r", "-z", base, "--", *filter(None, paths)).split("\0")
        if line and line.split()[1] == "blob"
    } if any(paths) else {}
    return {
        path: repo.odb.stream(bytes.fromhex(in_base[path])).read() if path in in_base else None
        for path in dict.fromkeys(filter(None, paths))
    }


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
            # only into a real folder of the copy: never through a link of the tree
            if _real_folder_below(tree, link.parent) and not os.path.lexists(link):
                os.symlink(checkout / relative, link)
        yield tree


def _real_folder_below(root: Path, folder: Path) -> bool:
    current = root
    for part in folder.relative_to(root).parts:
        current = current / part
        if current.is_symlink() or not current.is_dir():
            return False
    return True


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


# --- the SDK's spec-first PR (SPEC section 7) ----------------------------------

SPEC_GROUP = "spec"


def spec_part(series: Series) -> Series | None:
    """The series cut after its SEP-text commit, when the series opens with
    one and has code after it: the spec branch, under the code branch that
    stacks on it (its first commit is the same commit). None otherwise."""
    if len(series.commits) < 2 or series.commits[0].group.id != SPEC_GROUP:
        return None
    return series._replace(commits=series.commits[:1])


def spec_branch_name(branch: str) -> str:
    """The spec branch beside the code branch ``branch``."""
    return f"{branch}-spec"
