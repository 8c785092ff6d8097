"""The publishing side of the trust boundary (SPEC 8, the PR path).

In CI the work is split in two jobs. The build job holds no write token: it
installs the checkout's dependencies, builds the series (laid out by the
checkout's formatter where that changes layout only), runs `verify`, and
leaves an artifact (`write_artifact`): a git bundle of the branch, the PR
body, the report, and a manifest with the base, the tip and the artifact
digest. The publish job holds the token and runs no code of the
repository. It takes the artifact only once `check_artifact` found in it
nothing but the tool's own work:

- the commits sit on the recorded base, which the trusted target branch
  holds, one parent each;
- author, committer and trailers are the tool's, and each commit holds
  exactly the change its content trailer records;
- the files changed are the files the tool changes on that base, with the
  same modes;
- each is, modulo layout, what the tool itself makes of that base with its
  built-in layout, from git objects alone.

This module and what it imports start no process of the checkout: git
(with hooks off and a fixed configuration) and nothing else. The modules
that do, `sandbox`, `verify` and `formatter_run`, are never imported here
(tests/test_publish.py checks sys.modules); `runner.plan` imports
`formatter_run` only when a Biome was chosen, and the publishing side
chooses none.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import git

from ..engine.record import NamedTuple
from ..deliver import branches, build, repository
from ..plan.formatting import _SUFFIXES, FormatterMode, same_code
from ..recipes.base import Bridge, ModeChoice

FORMAT = 1
MANIFEST = "manifest.json"
BUNDLE = "branch.bundle"
BODY = "body.md"
REPORT = "report.json"
_CANDIDATE = "refs/mesh-codemod/candidate"


class ArtifactProblem(Exception):
    """The artifact is not the tool's own work, or is malformed (exit 3)."""


def artifact_digest(base: str, tip: str, branch: str, files: dict[str, str]) -> str:
    """The artifact digest: the base, the tip, the branch and each changed
    file's blob id (a deleted file: the empty string), in one sha256."""
    text = json.dumps({"base": base, "tip": tip, "branch": branch, "files": dict(sorted(files.items()))}, sort_keys=True)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _changed_blobs(repo: git.Repo, base: str, tip: str) -> dict[str, tuple[str, str]]:
    """path -> (mode, blob id) of each file ``tip`` changes from ``base``
    (a deleted file: ("", ""))."""
    out = repo.git.execute(["git", "diff-tree", "-r", "-z", "--no-renames", base, tip])
    fields = out.split("\0")
    changed = {}
    for index in range(0, len(fields) - 1, 2):
        meta, path = fields[index], fields[index + 1]
        if not meta.startswith(":"):
            continue
        _, new_mode, _, new_blob, status = meta[1:].split(" ")
        changed[path] = ("", "") if status == "D" else (new_mode, new_blob)
    return changed


def write_artifact(series: build.Series, branch: str, out: Path, body: str, report: dict) -> dict:
    """The build job's artifact in ``out``: the bundle of ``branch``
    (base..tip), the body, the report and the manifest. Returns the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    repo = series.repo
    ref = f"refs/heads/{branch}"
    if branches.local_branch(repo, branch) != series.tip:
        raise ArtifactProblem(f"branch {branch} is not the series' tip {series.tip[:12]}")
    bundle = out / BUNDLE
    repo.git.execute(["git", "bundle", "create", "--quiet", str(bundle), ref, f"^{series.base}"])
    files = {path: blob for path, (_, blob) in _changed_blobs(repo, series.base, series.tip).items()}
    from .. import __version__

    manifest = {
        "format": FORMAT,
        "tool": f"mesh-codemod {__version__}",
        "branch": branch,
        "base": series.base,
        "tip": series.tip,
        "bridge": series.bridge.to_json(),
        "author": str(series.identity),
        "files": files,
        "digest": artifact_digest(series.base, series.tip, branch, files),
    }
    (out / BODY).write_text(body, encoding="utf-8")
    (out / REPORT).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


class Checked(NamedTuple):
    """An artifact found to hold the tool's own work: the candidate tip
    (fetched into the publishing repository), and the tool's own series
    for the same base."""

    manifest: dict
    tip: str
    own: build.Series


def read_manifest(folder: Path) -> dict:
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ArtifactProblem(f"{folder / MANIFEST}: cannot be read: {err}") from None
    missing = [k for k in ("format", "branch", "base", "tip", "bridge", "files", "digest") if k not in manifest]
    if missing:
        raise ArtifactProblem(f"{folder / MANIFEST}: no {', '.join(missing)}")
    if manifest["format"] != FORMAT:
        raise ArtifactProblem(f"{folder / MANIFEST}: format {manifest['format']!r}, this release reads {FORMAT}")
    return manifest


def _mode_choice(data: dict) -> ModeChoice:
    try:
        return ModeChoice(Bridge(data["mode"]), str(data.get("reason", "")), str(data.get("form", "")),
                          str(data.get("form_reason", "")))
    except (KeyError, ValueError, TypeError):
        raise ArtifactProblem(f"the manifest's bridge {data!r} is not one of the tool's modes") from None


def check_artifact(
    repo: git.Repo, folder: Path, branch: str, target: str, identity: repository.Identity
) -> Checked:
    """Fetch the artifact's bundle into ``repo`` (under a private ref, git
    objects only) and refuse it unless it holds only the tool's own work
    for a base that ``target`` (the trusted branch, e.g. origin/main) holds."""
    manifest = read_manifest(folder)
    if manifest["branch"] != branch:
        raise ArtifactProblem(f"the artifact is for branch {manifest['branch']!r}, not {branch!r}")
    base, tip = manifest["base"], manifest["tip"]
    bundle = folder / BUNDLE
    try:
        repo.git.execute(["git", "bundle", "verify", "--quiet", str(bundle)])
        repo.git.execute(["git", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", str(bundle),
                          f"+refs/heads/{branch}:{_CANDIDATE}"])
        fetched = repo.git.rev_parse("--verify", f"{_CANDIDATE}^{{commit}}").strip()
    except git.GitCommandError as err:
        raise ArtifactProblem(f"{bundle}: not a bundle of {branch} on a commit this repository has: {err.stderr.strip()}") from None
    finally:
        try:
            repo.git.update_ref("-d", _CANDIDATE)
        except git.GitCommandError:
            pass
    if fetched != tip:
        raise ArtifactProblem(f"the bundle's {branch} is {fetched[:12]}, the manifest says {tip[:12]}")
    try:
        target_sha = repository.resolve(repo, target).hexsha
        base_commit = repository.resolve(repo, base)
    except repository.GitProblem as err:
        raise ArtifactProblem(str(err)) from None
    if base_commit.hexsha != base or not repo.is_ancestor(base, target_sha):
        raise ArtifactProblem(f"the recorded base {base[:12]} is not a commit of {target}")
    commits = list(repo.iter_commits([tip, f"^{base}"], first_parent=False))
    if not commits:
        raise ArtifactProblem("the bundle holds no commit above the base")
    below = base
    for commit in reversed(commits):
        why = branches.made_by_tool(commit, identity)
        if not why and commit.parents[0].hexsha != below:
            why = f"not on {below[:12]} (the series is one line of commits on the base)"
        if not why and not build.holds_recorded_content(commit):
            why = "its content is not the change its Generated-content trailer records"
        if why:
            raise ArtifactProblem(f"commit {commit.hexsha[:12]} is not the tool's: {why}")
        below = commit.hexsha
    changed = _changed_blobs(repo, base, tip)
    files = {path: blob for path, (_, blob) in changed.items()}
    if manifest["files"] != files or manifest["digest"] != artifact_digest(base, tip, branch, files):
        raise ArtifactProblem("the manifest's files or artifact digest do not match the bundle")
    # no tools: nothing of the checkout runs here (generated files are edited by hand)
    own = build.build_series(repo, base, _mode_choice(manifest["bridge"]), identity, FormatterMode.NONE)
    ours = _changed_blobs(repo, base, own.tip)
    if set(changed) != set(ours):
        extra = sorted(set(changed) - set(ours))
        lacking = sorted(set(ours) - set(changed))
        detail = f"changes {', '.join(extra)}" if extra else f"does not change {', '.join(lacking)}"
        raise ArtifactProblem(f"the branch {detail}: not the files mesh-codemod changes on {base[:12]}")
    for path, (mode, blob) in sorted(changed.items()):
        own_mode, own_blob = ours[path]
        if mode != own_mode:
            raise ArtifactProblem(f"{path}: mode {mode}, mesh-codemod writes {own_mode}")
        if blob == own_blob:
            continue
        theirs, mine = _blob(repo, blob), _blob(repo, own_blob)
        if not (path.endswith(_SUFFIXES) and same_code(path, mine, theirs)):
            raise ArtifactProblem(
                f"{path}: differs from what mesh-codemod makes of {base[:12]} by more than layout"
            )
    return Checked(manifest, tip, own)


def _blob(repo: git.Repo, blob: str) -> bytes:
    return repo.odb.stream(bytes.fromhex(blob)).read()


def report(checked: Checked, repo: git.Repo) -> dict:
    """The report `open-pr` reads: the commits, the change's fingerprint
    (from the candidate's own files), the tip."""
    from ..deliver.forge import fingerprint

    base, tip = checked.manifest["base"], checked.tip
    changes = []
    for path, (_, blob) in _changed_blobs(repo, base, tip).items():
        try:
            old = repo.git.execute(["git", "cat-file", "blob", f"{base}:{path}"], stdout_as_string=False)
        except git.GitCommandError:
            old = None
        changes.append((path, old, _blob(repo, blob) if blob else b""))
    commits = [
        {"sha": c.hexsha, "subject": c.summary}
        for c in reversed(list(repo.iter_commits([tip, f"^{base}"])))
    ]
    from ..deliver.prbody import title

    return {
        "base": base, "tip": tip, "branch": checked.manifest["branch"], "commits": commits,
        "fingerprint": fingerprint(sorted(changes, key=lambda c: c[0])),
        "digest": checked.manifest["digest"], "title": title(checked.own),
    }
