"""The publishing side of the trust boundary (SPEC 8, the PR path).

In CI the work is split in two jobs. The build job holds no write token: it
installs the checkout's dependencies, builds the series (laid out by the
checkout's formatter where that changes layout only), runs `verify`, and
leaves an artifact (`write_artifact`): a manifest (the base, the checks'
verdict, the choice of wiring) and a git bundle of its branch, plus the
body and report it showed (for people; publish reads neither).

The publish job holds the token and trusts nothing of that artifact but:

- the base, checked to be a commit of the target branch;
- the verdict, a closed record (`deliver.verdict`) that counts only when it
  names the fingerprint of the series publish built itself;
- the choice, one of the tool's own wirings that fits the checkout's
  package.json range (`choice`);
- the formatter's layout of a file: the bundle's tip's blob at a path the
  tool changes, taken only when it is the same modulo layout as publish's
  own bytes (else publish's own, and the report says so).

From the base's git objects, that choice and the target's configuration
(`.mesh-codemod.toml` at the base and at the target's tip), it rebuilds
every commit itself (trees, messages, trailers, author, committer) and the
PR body and title, and pushes only that (`rebuild`). No commit, message or
text of the bundle is pushed or shown. This module and what it imports
start no process but git (and `forge`: gh); `guard` enforces it at run
time.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import git

from ..deliver import branches, build
from ..plan import repository
from ..deliver import verdict as verdicts
from ..deliver.forge import series_fingerprint
from typing import NamedTuple
from ..plan.formatting import _SUFFIXES, FormatterMode, Layout, same_code
from . import choice as choices

FORMAT = 2
MANIFEST = "manifest.json"
BUNDLE = "branch.bundle"
BODY = "body.md"
REPORT = "report.json"
_CANDIDATE = "refs/mesh-codemod/candidate"
# what publish reads, at most (a larger file is refused, not read)
MAX_MANIFEST = 64 * 1024
MAX_BUNDLE = 32 * 1024 * 1024
# a file whose layout is compared (larger: publish's own layout is used)
MAX_COMPARED = 1024 * 1024
_SHA = re.compile(r"[0-9a-f]{40}")


class ArtifactProblem(Exception):
    """The artifact cannot be used: malformed, too large, or a base the
    target lacks (exit 3)."""


class ChecksFailed(ArtifactProblem):
    """The build job's verdict, bound to publish's own series, names a
    failed check: a verification step failed (exit 4), nothing published."""


def write_artifact(series: build.Series, branch: str, out: Path, body: str, report: dict, verify: dict | None) -> dict:
    """The build job's artifact in ``out``; returns the manifest.
    ``verify``: the checks' report (JSON), None when they did not run."""
    from .. import __version__

    out.mkdir(parents=True, exist_ok=True)
    repo = series.repo
    manifest = {
        "format": FORMAT,
        "tool": f"mesh-codemod {__version__}",
        "branch": branch,
        "base": series.base,
        "tip": series.tip,
        "choice": choices.record(series.bridge, Path(repo.working_tree_dir)),
        "verdict": verdicts.of_report(series_fingerprint(series), verify),
    }
    if series.commits:
        if branches.local_branch(repo, branch) != series.tip:
            raise ArtifactProblem(f"branch {branch} is not the series' tip {series.tip[:12]}")
        repo.git.execute(["git", "bundle", "create", "--quiet", str(out / BUNDLE), f"refs/heads/{branch}", f"^{series.base}"])
    (out / BODY).write_text(body, encoding="utf-8")
    (out / REPORT).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


# the fingerprint of no series: a verdict bound to it counts for nothing
NO_SERIES = "sha256:" + "0" * 64


def write_blocked_artifact(blocked: build.Blocked, checkout: Path, branch: str, out: Path, report: dict) -> dict:
    """The build job's artifact where a refactor the tool cannot follow
    blocks the change (``blocked``): the base and the choice only, no
    bundle; publish meets the same refactor on its own rebuild."""
    from .. import __version__

    out.mkdir(parents=True, exist_ok=True)
    manifest = {
        "format": FORMAT,
        "tool": f"mesh-codemod {__version__}",
        "branch": branch,
        "base": blocked.base,
        "tip": None,
        "choice": choices.record(blocked.plan.bridge, checkout),
        "verdict": verdicts.of_report(NO_SERIES, None),
    }
    (out / BODY).write_text("", encoding="utf-8")
    (out / REPORT).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


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


def _limited(path: Path, limit: int) -> None:
    try:
        size = path.lstat().st_size
        regular = path.is_file() and not path.is_symlink()
    except OSError as err:
        raise ArtifactProblem(f"{path}: cannot be read: {err.strerror}") from None
    if not regular:
        raise ArtifactProblem(f"{path}: not a regular file")
    if size > limit:
        raise ArtifactProblem(f"{path}: {size} bytes, over the limit of {limit} bytes for this file: refused")


def read_manifest(folder: Path) -> dict:
    path = folder / MANIFEST
    _limited(path, MAX_MANIFEST)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ArtifactProblem(f"{path}: cannot be read: {type(err).__name__}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise ArtifactProblem(f"{path}: format {found!r}, this release reads {FORMAT} (build and publish with one release)")
    for key in ("branch", "base"):
        if not isinstance(manifest.get(key), str):
            raise ArtifactProblem(f"{path}: no {key}")
    if not _SHA.fullmatch(manifest["base"]):
        raise ArtifactProblem(f"{path}: the base is not a commit id")
    tip = manifest.get("tip")
    if tip is not None and (not isinstance(tip, str) or not _SHA.fullmatch(tip)):
        raise ArtifactProblem(f"{path}: the tip is not a commit id")
    return manifest


class Published(NamedTuple):
    """Publish's own series on the artifact's base, the verdict when it is
    bound to that series (else None), and what publish says about what it
    did not take (its own words)."""

    own: build.Series
    verdict: verdicts.Verdict | None
    notes: list[str]
    fingerprint: str


def _candidate_files(repo: git.Repo, folder: Path, manifest: dict, branch: str) -> dict[str, tuple[str, str]]:
    """path -> (mode, blob id) in the bundle's tip (the build job's
    layout); empty without a bundle. Only git objects are fetched, under a
    private ref removed at once: no commit of it is ever pushed."""
    bundle = folder / BUNDLE
    if not bundle.exists() or not manifest.get("tip"):
        return {}
    _limited(bundle, MAX_BUNDLE)
    try:
        repo.git.execute(["git", "bundle", "verify", "--quiet", str(bundle)])
        repo.git.execute(["git", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", str(bundle),
                          f"+refs/heads/{branch}:{_CANDIDATE}"])
        fetched = repo.git.rev_parse("--verify", f"{_CANDIDATE}^{{commit}}").strip()
        if fetched != manifest["tip"]:
            raise ArtifactProblem(f"the bundle's {branch} is {fetched[:12]}, the manifest says {manifest['tip'][:12]}")
        out = repo.git.execute(["git", "ls-tree", "-r", "-z", "--full-tree", fetched], strip_newline_in_stdout=False)
    except git.GitCommandError as err:
        raise ArtifactProblem(f"{bundle}: not a bundle of {branch} on a commit this repository has: "
                              f"{repository.git_error(err)}") from None
    finally:
        try:
            repo.git.update_ref("-d", _CANDIDATE)
        except git.GitCommandError:
            pass
    files = {}
    for record in out.split("\0"):
        if record:
            meta, path = record.split("\t", 1)
            mode, kind, blob = meta.split()
            if kind == "blob":
                files[path] = (mode, blob)
    return files


def rebuild(repo: git.Repo, folder: Path, branch: str, target: str, identity: repository.Identity) -> Published:
    """Publish's own series for the artifact's base (see the module's
    docstring); ArtifactProblem when the artifact cannot be used."""
    manifest = read_manifest(folder)
    if manifest["branch"] != branch:
        raise ArtifactProblem(f"the artifact is for another branch than {branch!r}")
    base = manifest["base"]
    try:
        target_sha = repository.resolve(repo, target).hexsha
        repository.resolve(repo, base)
    except repository.GitProblem:
        raise ArtifactProblem(f"the recorded base {base[:12]} is not a commit of {target}") from None
    if not repo.is_ancestor(base, target_sha):
        raise ArtifactProblem(f"the recorded base {base[:12]} is not a commit of {target}")
    try:
        verdict = verdicts.read(manifest.get("verdict"))
    except verdicts.VerdictProblem as err:
        raise ArtifactProblem(str(err)) from None
    candidates = _candidate_files(repo, folder, manifest, branch)
    notes: list[str] = []

    def adopt(path: str, own: bytes) -> tuple[bytes, Layout | None]:
        mode, blob = candidates.get(path, ("", ""))
        if not blob or mode not in ("100644", "100755"):
            return own, None
        theirs = _blob(repo, blob, MAX_COMPARED)
        if theirs == own:
            return own, Layout("formatter", "the build job's layout is the built-in one")
        if theirs is not None and path.endswith(_SUFFIXES) and len(own) <= MAX_COMPARED and same_code(path, own, theirs):
            return theirs, Layout("formatter", "the build job's formatter layout: the same modulo layout")
        notes.append(
            f"{path}: the build job's layout was not used (it differs from mesh-codemod's own by more than "
            "layout, or is too large to compare); the built-in layout is pushed, and the checks ran on the other"
        )
        return own, Layout("built-in", "the build job's differs by more than layout")

    try:
        own = build.build_series(
            repo, base, choices.resolver(manifest.get("choice"), notes), identity, FormatterMode.NONE,
            config_rev=target_sha, adopt=adopt, only_target="host",
        )
    except build.Blocked as err:
        raise RefactorBlocked(err) from None
    except repository.GitProblem as err:
        raise ArtifactProblem(str(err)) from None
    mark = series_fingerprint(own)
    files = tuple(sorted({path for c in own.commits for path, _ in c.files}))
    bound = verdict._replace(files=files) if verdict.fingerprint == mark else None
    if bound is None and own.commits:
        notes.append("the build job's verdict is for another change than this series: it counts for nothing")
    if bound is not None and bound.failed:
        raise ChecksFailed(f"the build job's checks failed ({', '.join(c.name for c in bound.failed)}): nothing published")
    return Published(own, bound, notes, mark)


def _blob(repo: git.Repo, blob: str, limit: int) -> bytes | None:
    """The blob's bytes, or None when it is larger than ``limit``."""
    info = repo.odb.info(bytes.fromhex(blob))
    if info.size > limit:
        return None
    return repo.odb.stream(bytes.fromhex(blob)).read()


def command(published: Published, branch: str) -> list[str]:
    """The command line that rebuilds this series locally."""
    own = published.own
    return ["pr", "--repo", ".", "--branch", branch, "--base", own.base, "--bridge", own.bridge.mode.value,
            "--author", str(own.identity), "--formatter", "none"]


def report(published: Published, branch: str) -> dict:
    """The report `open-pr` reads: publish's own series, body and title,
    and what it left alone; nothing of the artifact's text."""
    from ..deliver import prbody

    own = published.own
    data = {
        "base": own.base, "tip": own.tip, "branch": branch,
        "commits": [{"sha": c.sha, "subject": c.group.subject} for c in own.commits],
        "fingerprint": published.fingerprint,
        # the mode the push step's recognition of earlier releases rebuilds with (`kept`)
        "bridge": own.bridge.to_json(),
        "left_alone": [{k: item[k] for k in ("step", "path", "why")} for item in own.plan.left_alone()],
        "notes": published.notes,
        "verdict": published.verdict.to_json() if published.verdict else None,
    }
    if not own.commits:
        return {**data, "nothing_to_do": True}
    not_run = "No verdict of the checks for this change (the build job's was for another): not verified."
    body = prbody.render(own, published.verdict, command(published, branch), not_run=not_run)
    return {**data, "title": prbody.title(own), "body": body}
