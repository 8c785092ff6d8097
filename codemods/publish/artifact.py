"""The publishing side of the trust boundary (SPEC 8, the PR path).

In CI the work is split in two jobs. The build job holds no write token: it
installs the checkout's dependencies, builds the series (the built-in
layout, as everywhere), runs `verify` on exactly those bytes, and leaves
an artifact (`write_artifact`): one file, a manifest holding the base, the
checks' verdict and the choice of wiring. No file content crosses: any
other file in the artifact refuses it.

The publish job holds the token and takes of that artifact only:

- the base, checked to be a commit of the target branch;
- the verdict, a closed record (`deliver.verdict`) whose check names are
  the tool's own checks and the base's pull-request jobs (read here from
  the base's workflows), and which counts only when it names the
  fingerprint of the series publish built itself; a failed check makes
  the PR a draft that leads with it;
- the choice, one of the tool's own wirings for the SDK version the base's
  lockfile resolves (`choice`).

From the base's git objects, that choice and the target's configuration
(`.mesh-codemod.toml` at the base and at the target's tip), it rebuilds
every commit itself (trees, messages, trailers, author, committer) and the
PR body and title, and pushes only that (`rebuild`): nothing is compared
with bytes of the build job's. The manifest is bounded in size and depth
before it is parsed, and every malformed record refuses (exit 3). This
module and what it imports start no process but git (and `forge`: gh);
`guard` enforces it at run time.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

import git

from ..deliver import build
from ..deliver import verdict as verdicts
from ..deliver.forge import series_fingerprint
from ..plan import repository, workflows
from . import choice as choices
from . import jsondata

FORMAT = 3
MANIFEST = "manifest.json"
_KEYS = {"format", "tool", "branch", "base", "tip", "choice", "verdict"}
# what publish reads, at most (a larger manifest is refused, not read)
MAX_MANIFEST = 64 * 1024
# the manifest's records nest four deep (verdict, checks, a check, its files)
MAX_DEPTH = 5
_SHA = re.compile(r"[0-9a-f]{40}")
# the fingerprint of no series: a verdict bound to it counts for nothing
NO_SERIES = "sha256:" + "0" * 64


class ArtifactProblem(Exception):
    """The artifact cannot be used: malformed, too large, or a base the
    target lacks (exit 3)."""


def write_artifact(
    out: Path, branch: str, base: str, tip: str | None, choice: dict, fingerprint: str, verify: dict | None
) -> dict:
    """The build job's artifact in ``out``: the manifest alone; returns it.
    ``verify``: the checks' report (JSON), None when they did not run."""
    from .. import __version__

    manifest = {
        "format": FORMAT, "tool": f"mesh-codemod {__version__}", "branch": branch, "base": base, "tip": tip,
        "choice": choice, "verdict": verdicts.of_report(fingerprint, verify),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def write_series_artifact(series: build.Series, branch: str, out: Path, verify: dict | None) -> dict:
    """`write_artifact` for a series the build job built and checked."""
    choice = choices.record(series.bridge, Path(series.repo.working_tree_dir))
    tip = series.tip if series.commits else None
    return write_artifact(out, branch, series.base, tip, choice, series_fingerprint(series), verify)


class RefactorBlocked(Exception):
    """Publish's own rebuild meets a refactor the tool cannot follow
    (``blocked``, a build.Blocked): nothing to push, the job says so."""

    def __init__(self, blocked: build.Blocked) -> None:
        super().__init__(str(blocked))
        self.blocked = blocked

    def report(self, branch: str) -> dict:
        plan = self.blocked.plan
        return {
            "base": self.blocked.base, "tip": "", "branch": branch, "commits": [], "nothing_to_do": True,
            "left_alone": [{k: item[k] for k in ("step", "path", "why")} for item in plan.left_alone()],
            "blocked": self.blocked.to_json(),
        }


def read_manifest(folder: Path) -> dict:
    """The manifest of the artifact in ``folder``, its own fields checked
    (the verdict and the choice are checked where they are used)."""
    try:
        found = sorted(p.name for p in folder.iterdir())
        path = folder / MANIFEST
        size = path.lstat().st_size if found == [MANIFEST] and path.is_file() and not path.is_symlink() else -1
    except OSError as err:
        raise ArtifactProblem(f"{folder}: cannot be read: {err.strerror}") from None
    if found != [MANIFEST] or size < 0:
        other = next((name for name in found if name != MANIFEST), MANIFEST)
        raise ArtifactProblem(f"{folder}: holds {other!r}; the artifact is {MANIFEST}, a regular file, and nothing else")
    if size > MAX_MANIFEST:
        raise ArtifactProblem(f"{path}: {size} bytes, over the limit of {MAX_MANIFEST} bytes for this file: refused")
    try:
        manifest = jsondata.loads(path.read_text(encoding="utf-8"), MAX_DEPTH)
    except (OSError, ValueError) as err:
        raise ArtifactProblem(f"{path}: cannot be read: {err}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found_format = manifest.get("format") if isinstance(manifest, dict) else None
        raise ArtifactProblem(f"{path}: format {found_format!r}, this release reads {FORMAT} (build and publish with one release)")
    if set(manifest) != _KEYS:
        raise ArtifactProblem(f"{path}: not the record of {', '.join(sorted(_KEYS))}")
    for key in ("branch", "base"):
        if not isinstance(manifest[key], str):
            raise ArtifactProblem(f"{path}: no {key}")
    if not _SHA.fullmatch(manifest["base"]):
        raise ArtifactProblem(f"{path}: the base is not a commit id")
    tip = manifest["tip"]
    if tip is not None and (not isinstance(tip, str) or not _SHA.fullmatch(tip)):
        raise ArtifactProblem(f"{path}: the tip is not a commit id")
    return manifest


class Published(NamedTuple):
    """Publish's own series on the artifact's base, the verdict when it is
    bound to that series (else None), and what publish says about it (its
    own words)."""

    own: build.Series
    verdict: verdicts.Verdict | None
    notes: list[str]
    fingerprint: str


def check_names(repo: git.Repo, base: str) -> frozenset[str]:
    """The names a verdict may give a check: the tool's own, and those of
    the jobs the base's pull-request workflows run (`plan.workflows`)."""
    names = set(verdicts.CHECKS)
    try:
        folder = repo.commit(base).tree / workflows.WORKFLOWS
    except KeyError:
        return frozenset(names)
    for blob in folder.blobs if folder.type == "tree" else ():
        if not blob.name.endswith((".yml", ".yaml")) or blob.size > workflows.MAX_BYTES:
            continue
        try:
            data = workflows.load(blob.data_stream.read().decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue  # a file the checks cannot read either: it names no check
        names.update(workflows.labels(workflows.Workflow(blob.name, data)))
    return frozenset(names)


def rebuild(repo: git.Repo, folder: Path, branch: str, target: str, identity: repository.Identity) -> Published:
    """Publish's own series for the artifact's base (see the module's
    docstring); ArtifactProblem when the artifact cannot be used."""
    manifest = read_manifest(folder)
    if manifest["branch"] != branch:
        raise ArtifactProblem(f"the artifact is for another branch than {branch!r}")
    base = manifest["base"]
    try:
        target_sha = repository.resolve(repo, target).hexsha
    except repository.GitProblem:
        branches = sorted(r.removeprefix("refs/remotes/") for r in repo.git.for_each_ref(
            "--format=%(refname)", "refs/remotes").split() if not r.endswith("/HEAD"))
        raise ArtifactProblem(f"the target branch {target} is not in this checkout (it has {', '.join(branches) or 'none'}): "
                              "give the branch the PR targets (the publish action's base-branch)") from None
    try:
        repository.resolve(repo, base)
        contained = repo.is_ancestor(base, target_sha)
    except (repository.GitProblem, git.GitCommandError):
        contained = False
    if not contained:
        raise ArtifactProblem(f"the recorded base {base[:12]} is not a commit of {target}")
    try:
        verdict = verdicts.read(manifest["verdict"], check_names(repo, base))
        own = build.build_series(
            repo, base, choices.resolver(manifest["choice"], lambda: choices.locked_version(repo, base)), identity,
            config_rev=target_sha, only_target="host",
        )
    except build.Blocked as err:
        raise RefactorBlocked(err) from None
    except (verdicts.VerdictProblem, choices.ChoiceProblem, repository.GitProblem) as err:
        raise ArtifactProblem(str(err)) from None
    mark = series_fingerprint(own)
    files = tuple(sorted({path for c in own.commits for path, _ in c.files}))
    bound = verdict._replace(files=files) if verdict.fingerprint == mark else None
    notes = []
    if bound is None and own.commits:
        notes.append("the build job's verdict is for another change than this series: it counts for nothing")
    strangers = sorted({f for c in (bound.checks if bound else ()) for f in c.files} - set(files))
    if strangers:
        raise ArtifactProblem("the verdict names files that are not this series' own: refused")
    return Published(own, bound, notes, mark)


def command(published: Published, branch: str) -> list[str]:
    """The command line that rebuilds this series locally."""
    own = published.own
    return ["pr", "--repo", ".", "--branch", branch, "--base", own.base, "--bridge", own.bridge.mode.value,
            "--author", str(own.identity)]


def report(published: Published, branch: str) -> dict:
    """The report `open-pr` reads: publish's own series, body and title,
    and what it left alone; nothing of the artifact's text. ``draft``: the
    verdict bound to the series names a failed check (SPEC 8)."""
    from ..deliver import prbody

    own = published.own
    data = {
        "base": own.base, "tip": own.tip, "branch": branch,
        "commits": [{"sha": c.sha, "subject": c.group.subject} for c in own.commits],
        "fingerprint": published.fingerprint,
        # the mode the push step's recognition of earlier releases rebuilds
        # with, and whose commits are the tool's (`kept`)
        "bridge": own.bridge.to_json(),
        "authors": list(own.plan.config.authors) if own.plan.config is not None else [],
        "left_alone": [{k: item[k] for k in ("step", "path", "why")} for item in own.plan.left_alone()],
        "notes": published.notes,
        "verdict": published.verdict.to_json() if published.verdict else None,
        "draft": bool(published.verdict and published.verdict.failed),
    }
    if not own.commits:
        return {**data, "nothing_to_do": True}
    not_run = "No verdict of the checks for this change (the build job's was for another): not verified."
    body = prbody.render(own, published.verdict, command(published, branch), not_run=not_run)
    return {**data, "title": prbody.title(own), "body": body}
