"""The publishing side (codemods/publish/, `mesh-codemod publish`): it
rebuilds the series on the build job's base and pushes its own commits;
from the artifact, one manifest, it takes only the base, the verdict and
the choice, and no file content; at run time it starts nothing but git
and gh (what it imports: tests/test_architecture.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .gitrepo import BOT, git, with_remote
from .publish_support import (
    BRANCH, EVIL, MODULE, append, build, built, kept_repo, manifest, publish, publisher, write_manifest,
)
from .support import invoke


def test_publish_pushes_its_own_series_and_runs_nothing_of_the_checkout(tmp_path: Path, built) -> None:
    remote, work, artifact = built
    data = manifest(artifact)
    assert sorted(p.name for p in artifact.iterdir()) == ["manifest.json"]
    assert data["format"] == 3 and data["branch"] == BRANCH
    assert data["verdict"]["fingerprint"].startswith("sha256:") and data["verdict"]["checks"] == []
    clone = publisher(tmp_path, remote)
    # a checkout whose tools would run if anything started them
    (clone / "node_modules/.bin").mkdir(parents=True)
    for tool in ("biome", "bun", "oxlint", "tsc", "prettier", "npm"):
        (clone / "node_modules/.bin" / tool).write_text(f"#!/bin/sh\ntouch {tmp_path}/RAN-{tool}\n")
        (clone / "node_modules/.bin" / tool).chmod(0o755)
    (clone / "json.py").write_text(f"open({str(tmp_path / 'RAN-json-py')!r}, 'w')\n")
    report = tmp_path / "report.json"
    result = publish(clone, artifact, "--report-out", report)
    assert result.exit_code == 0, result.output
    # the same base, identity and date: publish's own commits are the build's, id for id
    assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == data["tip"]
    out = json.loads(report.read_text())
    assert out["push"]["pushed"] is True and out["fingerprint"] == data["verdict"]["fingerprint"] and out["commits"]
    assert out["verdict"] == {"fingerprint": out["fingerprint"], "checks": []}
    assert out["body"].rstrip().splitlines()[-1] == f"<!-- mesh-codemod-fingerprint: {out['fingerprint']} -->"
    assert out["title"] and out["notes"] == [] and out["draft"] is False
    assert not list(tmp_path.glob("RAN-*"))
    # publish kept its series in its own repository, beside the report, and wrote nothing into the checkout's
    assert git(kept_repo(report), "rev-parse", KEPT).strip() == out["tip"]
    assert git(clone, "for-each-ref", "refs/mesh-codemod") == ""
    # a rerun pushes nothing
    again = publish(clone, artifact, "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["push"]["pushed"] is False


def test_a_symlinked_manifest_is_refused(tmp_path: Path, built) -> None:
    remote, work, artifact = built
    (tmp_path / "elsewhere.json").write_text((artifact / "manifest.json").read_text())
    (artifact / "manifest.json").unlink()
    (artifact / "manifest.json").symlink_to(tmp_path / "elsewhere.json")
    result = publish(publisher(tmp_path, remote), artifact)
    assert result.exit_code == 3 and "a regular file" in result.stderr


def test_publish_refuses_a_base_the_target_lacks(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    clone = publisher(tmp_path, remote)
    (work / "side.txt").write_text("side\n")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "side")
    git(work, "push", "-q", "origin", "HEAD:refs/heads/side")
    side = build(tmp_path / "side", work)
    git(clone, "fetch", "-q", "origin")
    result = publish(clone, side)
    assert result.exit_code == 3 and "is not a commit of origin/main" in result.stderr
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""


def test_a_verdict_counts_only_for_the_series_it_names(tmp_path: Path, built) -> None:
    remote, work, artifact = built
    data = manifest(artifact)
    clone = publisher(tmp_path, remote)
    # a verdict of passed checks, for another series
    data["verdict"] = {"fingerprint": "sha256:" + "0" * 64, "checks": [{"name": "tests", "status": "passed"}]}
    write_manifest(artifact, data)
    report = tmp_path / "report.json"
    assert publish(clone, artifact, "--report-out", report).exit_code == 0
    out = json.loads(report.read_text())
    assert out["verdict"] is None and any("counts for nothing" in n for n in out["notes"])
    assert "No verdict of the checks for this change" in out["body"] and "| `tests` | passed |" not in out["body"]
    # bound to this series: rendered, by name and status only
    data["verdict"] = {"fingerprint": out["fingerprint"], "checks": [{"name": "tests", "status": "passed"}]}
    write_manifest(artifact, data)
    assert publish(clone, artifact, "--report-out", report).exit_code == 0
    assert "| `tests` | passed |" in json.loads(report.read_text())["body"]


@pytest.mark.parametrize(
    ("verdict", "refused"),
    [
        ({"checks": [{"name": "tests", "status": "passed", "summary": f"[x](https://{EVIL})"}]}, "is not {name, status, files}"),
        ({"checks": [{"name": f"# {EVIL}", "status": "passed"}]}, "is not one of mesh-codemod's checks"),
        ({"checks": [{"name": "tests", "status": "fine"}]}, "status is not one of"),
        ({"checks": [{"name": "tests", "status": "failed", "files": [f"{EVIL}.ts"]}]}, "not this series' own"),
        ({"body": "hello"}, "is not {fingerprint, checks}"),
    ],
    ids=["free-text", "a-name-with-markdown", "an-unknown-status", "a-file-not-its-own", "another-record"],
)
def test_a_verdict_is_a_closed_record(tmp_path: Path, verdict: dict, refused: str, built) -> None:
    remote, work, artifact = built
    data = manifest(artifact)
    data["verdict"] = {"fingerprint": data["verdict"]["fingerprint"], **verdict}
    if "body" in verdict:
        data["verdict"] = verdict
    write_manifest(artifact, data)
    clone = publisher(tmp_path, remote)
    result = publish(clone, artifact)
    assert result.exit_code == 3 and refused in result.stderr, result.output
    assert EVIL not in result.output
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""


def test_a_manifest_over_its_limit_is_refused_unread(tmp_path: Path, built) -> None:
    from codemods.publish import artifact as publishing

    remote, work, artifact = built
    clone = publisher(tmp_path, remote)
    data = manifest(artifact)
    data["padding"] = " " * publishing.MAX_MANIFEST
    write_manifest(artifact, data)
    result = publish(clone, artifact)
    assert result.exit_code == 3 and "over the limit of 65536 bytes" in result.stderr


def test_skip_is_read_from_the_target_branch_not_only_the_base(tmp_path: Path, built) -> None:
    """The build job chose an older base; main has since skipped every
    step: publish proposes nothing."""
    remote, work, artifact = built
    (work / ".mesh-codemod.toml").write_text('skip = ["*"]\n')
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "opt out")
    git(work, "push", "-q", "origin", "HEAD:main")
    clone = publisher(tmp_path, remote)
    report = tmp_path / "report.json"
    result = publish(clone, artifact, "--report-out", report)
    assert result.exit_code == 0, result.output
    out = json.loads(report.read_text())
    assert out.get("nothing_to_do") is True and out["commits"] == []
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""


# --- one build per job: the check step keeps, the push step pushes (issue 30) ---

KEPT = "refs/mesh-codemod/publish"


def _counting_builds(monkeypatch) -> list[str]:
    """Every series built in this process, by base (the publish side's
    rebuild and the branch check's rebuilds of other bases alike)."""
    from codemods.deliver import branches
    from codemods.deliver import build as series

    built: list[str] = []
    real = series.build_series

    def counted(repo, base_rev, *args, **kwargs):
        built.append(base_rev)
        return real(repo, base_rev, *args, **kwargs)

    monkeypatch.setattr(series, "build_series", counted)
    monkeypatch.setattr(branches, "build_series", counted)
    return built


def _push_built(clone: Path, report: Path, *extra: str):
    return invoke("publish", "--repo", clone, "--built", report, "--branch", BRANCH, "--target", "origin/main",
                  "--push", "origin", "--author", BOT, "--report-out", report, *extra)


def test_the_push_step_pushes_the_kept_series_without_building_again(tmp_path: Path, monkeypatch, built) -> None:
    remote, work, artifact = built
    clone = publisher(tmp_path, remote)
    built = _counting_builds(monkeypatch)
    report = tmp_path / "report.json"
    checked = invoke("publish", "--repo", clone, "--artifact", artifact, "--branch", BRANCH, "--target",
                     "origin/main", "--author", BOT, "--report-out", report)
    assert checked.exit_code == 0, checked.output
    data = json.loads(report.read_text())
    assert len(built) == 1 and git(kept_repo(report), "rev-parse", KEPT).strip() == data["tip"]
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""  # no --push: kept, not pushed
    pushed = _push_built(clone, report)
    assert pushed.exit_code == 0, pushed.output
    assert len(built) == 1, built  # not built again
    assert "not rebuilt" in pushed.stderr
    assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == data["tip"] == manifest(artifact)["tip"]
    out = json.loads(report.read_text())
    assert out["push"]["pushed"] is True and out["fingerprint"] == data["fingerprint"] and out["body"] == data["body"]
    again = _push_built(clone, report)  # a rerun of the push step: up to date
    assert again.exit_code == 0 and json.loads(report.read_text())["push"]["pushed"] is False
    assert len(built) == 1


def _move_kept(report: Path, how: str) -> None:
    """Between the check step and the push step: publish's repository
    (beside the report) or the report changed, by whatever ran between."""
    from .publish_support import commit, tool_message

    own = kept_repo(report)
    data = json.loads(report.read_text())
    tip = data["tip"]
    if how == "missing":
        git(own, "update-ref", "-d", KEPT)
    elif how == "no-repository":
        shutil.rmtree(own)
    elif how == "base":
        git(own, "update-ref", KEPT, data["base"])
    elif how == "report-fingerprint":
        data["fingerprint"] = "sha256:" + "1" * 64
    elif how in ("forged", "forged-as-someone-else"):
        # a commit with a line of its own, under the tool's trailers; the
        # report's tip and commits made to match, its fingerprint left alone
        parent = git(own, "rev-parse", f"{tip}^").strip()
        evil = own.parent / "evil"
        git(own, "worktree", "add", "-q", "--detach", str(evil), tip)
        append(MODULE, f'fetch("https://{EVIL}/");\n')(evil)
        git(evil, "add", "-A")
        tree = git(evil, "write-tree").strip()
        parent_tree = git(own, "rev-parse", f"{parent}^{{tree}}").strip()
        who = {"GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": "m@example.com"} if how.endswith("else") else {}
        sha = commit(own, tree, [parent], tool_message(own, tip, parent_tree, tree), env=who)
        git(own, "update-ref", KEPT, sha)
        data["tip"] = sha
        data["commits"][-1]["sha"] = sha
    report.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("how", "refused"),
    [
        ("missing", f"{KEPT} is missing"),
        ("no-repository", f"{KEPT} is missing"),
        ("base", "the report's series ends at"),
        ("report-fingerprint", "is not the report's"),
        ("forged", "is not the report's"),
        ("forged-as-someone-else", "is not a commit publish made"),
    ],
)
def test_the_push_step_refuses_a_kept_series_that_is_not_the_reports(
    tmp_path: Path, monkeypatch, how: str, refused: str, built
) -> None:
    remote, work, artifact = built
    clone = publisher(tmp_path, remote)
    report = tmp_path / "report.json"
    checked = invoke("publish", "--repo", clone, "--artifact", artifact, "--branch", BRANCH, "--target",
                     "origin/main", "--author", BOT, "--report-out", report)
    assert checked.exit_code == 0, checked.output
    _move_kept(report, how)
    built = _counting_builds(monkeypatch)
    result = _push_built(clone, report)
    assert result.exit_code == 3, result.output
    assert "the kept series is refused" in result.stderr and refused in result.stderr, result.stderr
    assert "nothing pushed" in result.stderr
    assert built == []  # nothing rebuilt in its place
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""


def test_publish_built_needs_a_push_and_no_artifact(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text("{}")
    for extra in ((), ("--artifact", str(tmp_path))):
        args = ["publish", "--repo", tmp_path, "--built", report, "--branch", BRANCH, "--target", "origin/main"]
        result = invoke(*args, *(("--push", "origin") if extra else ()), *extra)
        assert result.exit_code == 2, result.output
    assert invoke("publish", "--repo", tmp_path, "--branch", BRANCH, "--target", "origin/main").exit_code == 2
