"""The series: one commit per commit group, made from git objects alone.

The series is planned on a copy of the base commit's tree (written from its
blobs into a temporary folder), and each commit is made through a temporary
index file with plumbing (`read-tree`, `update-index`, `write-tree`,
`commit-tree`). The user's working tree, index and HEAD are never read for
content nor written. Author, committer and dates are inputs (the base
commit's date, an identity from flags or the committed config, never git
config), so the same base gives the same commit ids."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import git

from typing import NamedTuple
from ..engine.outcome import NeedsDecision
from ..recipes.base import Bridge, CommitGroup, ModeChoice
from ..recipes.names import Names
from ..plan.formatting import FormatterChoice
from ..plan.model import NO_TOOLS, FileChange, Plan, TargetError, Tools, detect_target
from ..plan.baseline import TRAILER
from ..plan.decisions import has_feature, skip_line
from ..plan.runner import plan
from ..plan.repository import GitProblem, Identity, commit_date, exported_tree, resolve


# The series' layout (SPEC 7): never the output of a formatter the machine has
BUILT_IN = FormatterChoice(None, "the built-in layout in the style the base's formatter configuration sets")

# What the commit changed, as "<parent's tree>..<its tree>": a commit that
# still holds exactly that is the tool's work, whichever release made it
# (an amend, a fixup or a rebase changes a tree).
CONTENT_TRAILER = "Generated-content:"


class Blocked(GitProblem):
    """Steps that cannot run on a checkout that has the feature (a refactor
    the tool cannot follow, a handler edited since, an SDK whose types do
    not fit): the job reports ``blocked`` (green unless --fail-on-blocked),
    naming every such step in one run, its file and lines, and the line of
    the configuration that opts out of it."""

    def __init__(self, message: str, plan: Plan, base: str) -> None:
        super().__init__(message)
        self.plan = plan
        self.base = base

    def to_json(self) -> dict:
        steps = [{"step": r.step, "path": r.path, "reason": r.reason, "skip": skip_line(r.step)} for r in self.plan.refused]
        reason = "; ".join(f"{s['path']}: {s['reason']}" for s in steps)
        return {"reason": f"blocked on a checkout that has the feature, nothing built or pushed: {reason}",
                "steps": steps, "commits": []}


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
    tools: Tools = NO_TOOLS  # what may start the checkout's processes: a rebuild uses them again

    @property
    def tip(self) -> str:
        return self.commits[-1].sha if self.commits else self.base

    @property
    def identities(self) -> tuple[tuple[str, str], ...]:
        """Whose commits are the tool's: the identity it commits as, and
        each `author` the configuration names (an earlier login's)."""
        named = self.plan.config.identities() if self.plan.config is not None else []
        return tuple(dict.fromkeys([tuple(self.identity), *named]))


def build_series(
    repo: git.Repo,
    base_rev: str,
    bridge: Bridge | ModeChoice | Callable[[Path], ModeChoice],
    author: Identity,
    tools: Tools = NO_TOOLS,
    config_rev: str | None = None,
    only_target: str | None = None,
    names: Names | None = None,
) -> Series:
    """Make (in the object store only) one commit per commit group whose
    steps change something, on top of ``base_rev``. The files are always
    the built-in layout in the style of the formatter configuration
    committed in the base (SPEC 7): whoever builds the series, with
    whatever installed, makes the same commits; the checkout's formatter
    only checks them (verify). ``tools`` (the checks wing's) start what a
    recipe needs of the checkout (the SDK's generator); without them
    nothing of the checkout is started.

    The publishing side passes ``config_rev`` (the target branch's tip:
    its `.mesh-codemod.toml` is the team's current word, added to the
    base's) and ``only_target`` (the one target it publishes: the host),
    refusing any other before a step runs. ``names``: the feature's names
    the steps write (SPEC 10)."""
    base = resolve(repo, base_rev)
    checkout = Path(repo.working_tree_dir)
    date = commit_date(base)
    with exported_tree(repo, base.hexsha, _reads(repo, base.hexsha)) as tree, _temporary_index() as index:
        try:
            groups, choice, plans = _plan_groups(
                repo, tree, base.hexsha, bridge, tools, config_rev, only_target, names
            )
        except TargetError as err:
            raise GitProblem(str(err).replace(str(tree), f"{checkout} at {base.hexsha[:12]}")) from None
        _refuse_if_refused(plans[-1], base.hexsha)
        groups, plans = _grouped(groups, plans)
        commits = _commit_groups(repo, base, groups, plans, author, date, index)
    return Series(repo, base.hexsha, commits, plans[-1], choice, author, date, tools)


def _plan_groups(
    repo: git.Repo, tree: Path, base: str, bridge: Bridge | ModeChoice | Callable[[Path], ModeChoice],
    tools: Tools, config_rev: str | None, only_target: str | None, names: Names | None,
) -> tuple[tuple[CommitGroup, ...], ModeChoice, list[Plan]]:
    """The target's commit groups, the bridge mode, and one plan per group
    on the exported ``tree``, each with the steps of the groups so far (the
    groups cover every step once, so the last plan is the full one)."""
    from ..plan import config as configuration

    checkout = Path(repo.working_tree_dir)
    target = detect_target(tree)
    if only_target is not None and target.name != only_target:
        raise GitProblem(
            f"the base {base[:12]} is {target.description}: the publishing job publishes only the "
            f"{only_target} target (SPEC 8); make that PR locally with `mesh-codemod pr`"
        )
    # The checkout decides `auto` (the host: its installed SDK), as
    # node_modules is never committed and so not in the exported tree.
    # The pins come from the configuration committed in the base.
    settings = configuration.load(tree, [s.id for s in target.steps], target.name)
    if config_rev is not None:
        current = _config_at(repo, config_rev, [s.id for s in target.steps], target.name)
        settings = configuration.merged(settings, current)
    if isinstance(bridge, ModeChoice):  # decided already
        choice = bridge
    elif callable(bridge):  # the publishing side's: from the base's files, then the current pins
        choice = configuration.pinned(bridge(tree), settings, Bridge.AUTO)
    else:
        choice = configuration.pinned(target.choose_mode(checkout, bridge, settings.names), settings, bridge)
    plans: list[Plan] = []
    selected: list[str] = []
    for group in target.commits:
        selected.extend(group.steps)
        plans.append(plan(tree, choice, selected, BUILT_IN, tools=tools, settings=settings, names=names))
    full = plans[-1]
    return tuple(group.written_for(full) for group in target.commits), choice, plans


def _refuse_if_refused(full: Plan, base: str) -> None:
    """Nothing is built when a step is refused: Blocked on a checkout that
    has the feature (SPEC 5a, "Blocked, with the way out"), else a
    GitProblem."""
    if full.refused:
        reasons = "; ".join(f"{r.path}: {r.reason}" for r in full.refused)
        if has_feature(full.results) or all(r.kind == NeedsDecision.kind for r in full.refused):
            raise Blocked(f"refused on {base[:12]}: {reasons}", full, base)
        raise GitProblem(f"refused on {base[:12]}: {reasons}")


def _grouped(
    groups: tuple[CommitGroup, ...], plans: list[Plan]
) -> tuple[tuple[CommitGroup, ...], list[Plan]]:
    """The commit groups and their plans; one commit of its own when the
    base has the feature in an earlier form, or part of it."""
    full = plans[-1]
    if full.form_changes:
        # The base has the feature in an earlier form: one commit of its own.
        from ..plan.changeover import commit_group

        return (commit_group(full),), [full]
    if full.changes:
        from ..plan.changeover import COMPLETION, completion_group, kind

        if kind(full) == COMPLETION:  # part of the feature is there: one commit completes it
            return (completion_group(full),), [full]
    return groups, plans


def _commit_groups(
    repo: git.Repo, base: git.Commit, groups: Sequence[CommitGroup], plans: list[Plan],
    author: Identity, date: str, index: Path,
) -> list[SeriesCommit]:
    """One commit per group that changes the tree, on top of ``base``,
    through the temporary ``index`` (the user's own is never touched)."""
    env = {
        "GIT_AUTHOR_NAME": author.name,
        "GIT_AUTHOR_EMAIL": author.email,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_NAME": author.name,
        "GIT_COMMITTER_EMAIL": author.email,
        "GIT_COMMITTER_DATE": date,
        "GIT_INDEX_FILE": str(index),
    }
    modes = _modes(repo, base.hexsha, [c.path for c in plans[-1].changes])
    parent, parent_tree = base.hexsha, base.tree.hexsha
    repo.git.execute(["git", "read-tree", base.hexsha], env=env)
    commits: list[SeriesCommit] = []
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
                repo.git.execute(["git", "update-index", "--add", "--index-info"], env=env, istream=stdin)
        new_tree = repo.git.execute(["git", "write-tree"], env=env).strip()
        if new_tree == parent_tree:
            continue  # already in the base: no empty commit
        message = commit_message(group, parent_tree, new_tree)
        message_file = index.with_name("message")
        message_file.write_bytes(message.encode("utf-8"))
        sha = repo.git.execute(
            ["git", "commit-tree", "--no-gpg-sign", new_tree, "-p", parent, "-F", str(message_file)], env=env,
        ).strip()
        commits.append(SeriesCommit(sha, group, [(c.path, c.kind) for c in changed], message))
        parent, parent_tree = sha, new_tree
    return commits


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
