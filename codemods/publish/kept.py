"""The publish job builds once (issue 30, item 6): its first step rebuilds
the series (`artifact.rebuild`) and keeps it, its push step pushes exactly
what was kept, without building again.

The two halves of what is kept are bound by the series' fingerprint: the
commits under ``REF`` in publish's own repository (`gitdir`, beside the
report), and the report the first step wrote (`artifact.report`: base,
tip, commits, fingerprint). The push step (`restore`) takes the kept
commits only when the ref is there, is the report's tip, holds exactly the
report's commits on its base, each made by the tool (identity, trailer,
the content its trailer records), and when the fingerprint of what they
change is the report's; otherwise nothing is pushed (exit 3).
"""

from __future__ import annotations

import json
from pathlib import Path

import git

from ..deliver import build
from ..deliver.branches import made_by_tool
from ..deliver.forge import series_fingerprint
from ..plan import repository
from ..plan.config import Config
from ..plan.repository import commit_date
from ..plan.model import FileChange, Plan
from ..recipes.base import Bridge, CommitGroup, ModeChoice
from . import gitdir
from .artifact import ArtifactProblem

# publish's own series, between its check step and its push step
REF = "refs/mesh-codemod/publish"
# the report publish wrote itself; larger is not one
MAX_REPORT = 4 * 1024 * 1024


def keep(repo: git.Repo, series: build.Series) -> None:
    """Keep ``series`` (publish's own) under ``REF``; with no commits,
    nothing is kept (and an earlier run's is removed)."""
    if series.commits:
        repo.git.update_ref("-m", "mesh-codemod publish: the series its push step pushes", REF, series.tip)
    else:
        drop(repo)


def drop(repo: git.Repo) -> None:
    try:
        repo.git.update_ref("-d", REF)
    except git.GitCommandError:
        pass  # there was none


def read_report(path: Path) -> dict:
    """The report an earlier `publish --report-out` wrote."""
    try:
        if path.stat().st_size > MAX_REPORT:
            raise ArtifactProblem(f"{path}: over {MAX_REPORT} bytes: not a report of `mesh-codemod publish`")
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ArtifactProblem(f"{path}: cannot be read ({type(err).__name__}): give the report of "
                              "`mesh-codemod publish --report-out`") from None
    if not isinstance(report, dict):
        raise ArtifactProblem(f"{path}: not a report of `mesh-codemod publish`")
    # as the check step wrote it: what an earlier push added is decided again
    report = {k: v for k, v in report.items() if k not in ("push", "replaced")}
    if isinstance(report.get("blocked"), dict) and not report["blocked"].get("steps"):
        del report["blocked"]  # foreign commits on the branch, seen by a push: looked at again
    return report


def pending(report: dict) -> bool:
    """Whether the report's series has commits to push (not blocked by a
    refactor, not nothing to do)."""
    return bool(report.get("commits")) and not report.get("nothing_to_do") and not report.get("blocked")


def restore(report_file: Path, report: dict, branch: str, author: tuple[str | None, str | None]) -> build.Series:
    """The series kept under ``REF`` beside ``report_file`` for ``report``
    (see the module), made by ``author``, as the push needs it;
    ArtifactProblem, naming what differs, otherwise."""
    repo = gitdir.reopen(gitdir.beside(report_file))
    if repo is None:
        raise ArtifactProblem(f"{REF} is missing: no repository of the check step's beside {report_file}; "
                              "nothing pushed, nothing rebuilt")
    identity = repository.identity(*author)
    if report.get("branch") != branch:
        raise ArtifactProblem(f"the report is for branch {report.get('branch')!r}, not {branch!r}: nothing pushed")
    base, tip, mark = report.get("base"), report.get("tip"), report.get("fingerprint")
    listed = [c.get("sha") for c in report.get("commits") or [] if isinstance(c, dict)]
    if not all(isinstance(v, str) and v for v in (base, tip, mark)) or not listed:
        raise ArtifactProblem("the report names no series (base, tip, commits, fingerprint): nothing pushed")
    try:
        kept = repo.git.rev_parse("--verify", "-q", f"{REF}^{{commit}}").strip()
    except git.GitCommandError:
        kept = ""
    if not kept:
        raise ArtifactProblem(
            f"{REF} is missing: the series the check step built is not beside its report "
            "(run `mesh-codemod publish --report-out` first); nothing pushed, nothing rebuilt"
        )
    if kept != tip:
        raise ArtifactProblem(f"{REF} is {kept[:12]}, the report's series ends at {tip[:12]}: nothing pushed")
    commits = list(repo.iter_commits(f"{base}..{kept}", topo_order=True, reverse=True))
    if [c.hexsha for c in commits] != listed or [p.hexsha for p in commits[0].parents] != [base]:
        raise ArtifactProblem(f"{REF} does not hold the report's commits on {base[:12]}: nothing pushed")
    for commit in commits:
        why = made_by_tool(commit, [identity])
        if not why and not build.holds_recorded_content(commit):
            why = "its content differs from its trailer"
        if why:
            raise ArtifactProblem(f"{REF}: {commit.hexsha[:12]} is not a commit publish made ({why}): nothing pushed")
    mode = report["bridge"].get("mode") if isinstance(report.get("bridge"), dict) else None
    try:
        bridge = ModeChoice(Bridge(mode), "the check step's choice")
    except ValueError:
        raise ArtifactProblem(f"the report names no bridge mode ({mode!r}): nothing pushed") from None
    authors = report.get("authors") or []
    if not isinstance(authors, list) or not all(isinstance(a, str) for a in authors):
        raise ArtifactProblem("the report's authors are not a list of names: nothing pushed")
    plan = _plan(repo, base, kept, bridge, Config(authors=tuple(authors)))
    own = build.Series(repo, base, [_commit(c) for c in commits], plan, bridge, identity, commit_date(repo.commit(base)))
    found = series_fingerprint(own)
    if found != mark:
        raise ArtifactProblem(
            f"the fingerprint of {REF} ({found}) is not the report's ({mark}): nothing pushed"
        )
    return own


def _commit(commit: git.Commit) -> build.SeriesCommit:
    group = CommitGroup("kept", commit.summary, "", ())
    return build.SeriesCommit(commit.hexsha, group, _files(commit), commit.message)


def _files(commit: git.Commit) -> list[tuple[str, str]]:
    out = commit.repo.git.diff_tree("-r", "-z", "--no-renames", "--no-commit-id", "--name-status",
                                    commit.parents[0].hexsha, commit.hexsha)
    parts = [p for p in out.split("\0") if p]
    return [(path, "created" if status == "A" else "modified") for status, path in zip(parts[::2], parts[1::2])]


def _plan(repo: git.Repo, base: str, tip: str, bridge: ModeChoice, config: Config) -> Plan:
    """What the kept series changes, from its git objects: the files it
    writes, as a plan's changes (what the fingerprint is made of), and the
    configuration that names whose commits are the tool's."""
    out = repo.git.diff_tree("-r", "-z", "--no-renames", "--raw", base, tip)
    fields = [p for p in out.split("\0") if p]
    changes = []
    for meta, path in zip(fields[::2], fields[1::2]):
        _, _, old_blob, new_blob, status = meta.lstrip(":").split()
        if status not in ("A", "M"):
            raise ArtifactProblem(f"{REF}: {path} is {status} (the tool only creates and edits files): nothing pushed")
        old = None if status == "A" else _blob(repo, old_blob)
        changes.append(FileChange(path, old, _blob(repo, new_blob), []))
    return Plan(Path(repo.working_tree_dir), "host", bridge, [], changes, config=config)


def _blob(repo: git.Repo, sha: str) -> bytes:
    return repo.odb.stream(bytes.fromhex(sha)).read()
