"""The series: one commit per commit group, made from git objects alone.

The series is planned on a copy of the base commit's tree (written from its
blobs into a temporary folder), and each commit is made through a temporary
index file with plumbing (`read-tree`, `update-index`, `write-tree`,
`commit-tree`). The user's working tree, index and HEAD are never read for
content nor written. Author, committer and dates are inputs (the base
commit's date, an identity from flags or git config), so the same base gives
the same commit ids."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import git

from ..engine.record import NamedTuple
from ..recipes.base import Bridge, CommitGroup, ModeChoice
from ..recipes.names import NAMES, Names
from ..plan.formatting import FormatterMode, Layout, choose as choose_formatter
from ..plan.model import NO_TOOLS, FileChange, Plan, TargetError, Tools, detect_target
from ..plan.decisions import REFACTOR, skip_line
from ..plan.runner import plan
from .repository import GitProblem, Identity, commit_date, exported_tree, resolve


# Every commit the tool makes carries this trailer; with the author's
# identity it tells the tool's own commits from a reviewer's.
TRAILER = "Generated-by: mesh-codemod"


# What the commit changed, as "<parent's tree>..<its tree>": a commit that
# still holds exactly that is the tool's work, whichever release made it
# (an amend, a fixup or a rebase changes a tree).
CONTENT_TRAILER = "Generated-content:"


class Blocked(GitProblem):
    """Every step that cannot run meets a refactor the tool cannot follow,
    on a checkout that has the feature: the job reports ``blocked`` (green
    unless --fail-on-blocked), naming what is missing and the line of the
    configuration that opts out of each step."""

    def __init__(self, message: str, plan: Plan, base: str) -> None:
        super().__init__(message)
        self.plan = plan
        self.base = base

    def to_json(self) -> dict:
        steps = [{"step": r.step, "path": r.path, "reason": r.reason, "skip": skip_line(r.step)} for r in self.plan.refused]
        reason = "; ".join(f"{s['path']}: {s['reason']}" for s in steps)
        return {"reason": f"a refactor the tool cannot follow, nothing built or pushed: {reason}", "steps": steps, "commits": []}


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
    tools: Tools = NO_TOOLS  # what may start the checkout's processes: a rebuild uses them again

    @property
    def tip(self) -> str:
        return self.commits[-1].sha if self.commits else self.base


def build_series(
    repo: git.Repo,
    base_rev: str,
    bridge: Bridge | ModeChoice | Callable[[Path], ModeChoice],
    author: Identity,
    formatter: FormatterMode = FormatterMode.AUTO,
    tools: Tools = NO_TOOLS,
    config_rev: str | None = None,
    adopt: Callable[[str, bytes], tuple[bytes, Layout | None]] | None = None,
    only_target: str | None = None,
    names: Names = NAMES,
) -> Series:
    """Make (in the object store only) one commit per commit group whose
    steps change something, on top of ``base_rev``. The files are laid out
    by the checkout's formatter (its installed Biome, run under the
    configuration committed in the base) where ``formatter`` allows and
    ``tools`` (the checks wing's) can start it; without tools nothing of
    the checkout is started.

    The publishing side passes ``config_rev`` (the target branch's tip:
    its `.mesh-codemod.toml` is the team's current word, added to the
    base's) and ``adopt`` (given a file's final bytes, the layout it takes
    instead, and why: another job's formatter layout, same modulo layout);
    a commit holds the adopted bytes wherever it holds the final content,
    and ``only_target`` (the one target it publishes: the host), refusing
    any other before a step runs. ``names``: the feature's names the
    steps write (SPEC 10)."""
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
    with exported_tree(repo, base.hexsha, _reads(repo, base.hexsha)) as tree, _temporary_index() as index:
        try:
            target = detect_target(tree)
            if only_target is not None and target.name != only_target:
                raise GitProblem(
                    f"the base {base.hexsha[:12]} is {target.description}: the publishing job publishes only the "
                    f"{only_target} target (SPEC 8); make that PR locally with `mesh-codemod pr`"
                )
            # The checkout decides `auto` (the host: its installed SDK), as
            # node_modules is never committed and so not in the exported tree.
            # The pins come from the configuration committed in the base.
            from ..plan import config as configuration

            settings = configuration.load(tree, [s.id for s in target.steps], target.name)
            if config_rev is not None:
                current = _config_at(repo, config_rev, [s.id for s in target.steps], target.name)
                settings = configuration.merged(settings, current)
            if isinstance(bridge, ModeChoice):  # decided already
                choice = bridge
            elif callable(bridge):  # the publishing side's: from the base's files, then the current pins
                choice = configuration.pinned(bridge(tree), settings, Bridge.AUTO)
            else:
                choice = configuration.pinned(target.choose_mode(checkout, bridge), settings, bridge)
            layout = choose_formatter(checkout, formatter, target.name)
            # One plan per commit, each with the steps of the groups so far;
            # the groups cover every step once, so the last plan is the full one.
            plans: list[Plan] = []
            selected: list[str] = []
            for group in target.commits:
                selected.extend(group.steps)
                plans.append(plan(tree, choice, selected, layout, tools=tools, settings=settings, names=names))
        except TargetError as err:
            raise GitProblem(str(err).replace(str(tree), f"{checkout} at {base.hexsha[:12]}")) from None
        full = plans[-1]
        if full.refused:
            reasons = "; ".join(f"{r.path}: {r.reason}" for r in full.refused)
            if all(r.kind == REFACTOR for r in full.refused):
                raise Blocked(f"refused on {base.hexsha[:12]}: {reasons}", full, base.hexsha)
            raise GitProblem(f"refused on {base.hexsha[:12]}: {reasons}")
        adopted: dict[str, bytes] = {}  # final bytes -> the adopted layout's, by path
        if adopt is not None:
            final = []
            for change in full.changes:
                data, how = adopt(change.path, change.new)
                if data != change.new:
                    adopted[change.path] = data
                final.append(change._replace(new=data, layout=how or change.layout))
            finals = {c.path: c.new for c in full.changes}
            full = full._replace(changes=final)
            plans = [
                p._replace(changes=[c._replace(new=adopted[c.path]) if adopted.get(c.path) is not None
                                    and c.new == finals[c.path] else c for c in p.changes])
                for p in plans[:-1]
            ] + [full]
        groups = tuple(group.written_for(full) for group in target.commits)
        if full.form_changes:
            # The base has the feature in an earlier form: one commit of its own.
            from ..plan.changeover import commit_group

            groups, plans = (commit_group(full),), [full]
        elif full.changes:
            from ..plan.changeover import COMPLETION, completion_group, kind

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
    return Series(repo, base.hexsha, commits, full, choice, author, date, formatter, tools)


def _config_at(repo: git.Repo, rev: str, steps: list[str], target: str):
    """The `.mesh-codemod.toml` committed at ``rev`` (defaults without one)."""
    from ..plan import config as configuration

    commit = resolve(repo, rev)
    try:
        blob = commit.tree / configuration.FILE_NAME
    except KeyError:
        return configuration.Config()
    if blob.type != "blob" or blob.mode != 0o100644 or blob.size > configuration.MAX_BYTES:
        raise GitProblem(f"{configuration.FILE_NAME} at {commit.hexsha[:12]}: not a regular file of at most "
                         f"{configuration.MAX_BYTES} bytes")
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-config-") as name:
        (Path(name) / configuration.FILE_NAME).write_bytes(blob.data_stream.read())
        return configuration.load(Path(name), steps, target)
def _reads(repo: git.Repo, rev: str):
    """What the plan on ``rev`` reads, from its file names (the target's
    ``reads``); the export writes only that."""
    from ..recipes import targets

    def grep(needles: Sequence[str]) -> list[str]:
        if not needles:
            return []
        args = ["git", "grep", "-l", "-F", *(part for n in needles for part in ("-e", n)), rev, "--", "*.ts", "*.tsx"]
        status, out, _err = repo.git.execute(args, with_extended_output=True, with_exceptions=False)
        if status not in (0, 1):
            raise GitProblem(f"cannot search the tree of {rev[:12]}")
        return [line.split(":", 1)[1] for line in out.splitlines() if ":" in line]

    def only(names: list[str]) -> set[str] | None:
        for target in targets():
            if target.reads is not None:
                wanted = target.reads(names, grep)
                if wanted is not None:
                    return wanted
        return None

    return only


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


# --- the SDK's spec-first PR (SPEC section 7) ----------------------------------

SPEC_GROUP = "spec"


def spec_part(series: Series) -> Series | None:
    """The series cut after its SEP-text commit, when the series opens with
    one and has code after it: the spec branch, under the code branch that
    stacks on it (its first commit is the same commit). None otherwise."""
    if len(series.commits) < 2 or series.commits[0].group.id != SPEC_GROUP:
        return None
    return series._replace(commits=series.commits[:1])
