"""Every attack of issue 28 and issue 39 that still has a way in, rebuilt on
our fixtures against `mesh-codemod publish`: each ends refused, or with
publish's own series on the remote and none of the attacker's bytes. An
attacker here holds the build job (the repository's code and dependencies:
every file of its artifact), a commit of main, or the workspace the
publish job runs in. `test_every_finding_has_its_attack` prints the count.

Closed by removal, with no test of their own beyond "the artifact is its
manifest and nothing else" (`test_an_artifact_is_its_manifest_and_nothing_else`):
everything that came in a bundle (issue 28's meaning passed off as layout,
intermediate commits, forged messages, 60 MB of whitespace; issue 39's
adopted layout, the 19 KB tree bomb that cost the check step 40 to 88 s
and 5.2 GB, the `.gitmodules` with `update=!cmd` that killed the bundle
fetch) and the PR body and report the artifact used to carry."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import markdown_it
import pytest

from .gitrepo import bun_lock, commit_all, git, with_remote
from .sdk_support import hand_written  # noqa: F401 (fixture)
from .publish_support import (
    BRANCH, EVIL, MODULE, build, built, github, github_state, manifest, open_pr, publish, publisher, summary,
    write_manifest,
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


def _nothing_pushed(remote: Path) -> bool:
    return git(remote, "for-each-ref", f"refs/heads/{BRANCH}") == ""


# --- issue 28, Why 1: publish runs nothing of the repository's ------------------


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


@attack("28.1")
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
    assert _nothing_pushed(remote)


@attack("28.1")
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
    assert _nothing_pushed(remote)
    # outside the publishing commands, this process starts what it likes again
    assert subprocess.run(["sh", "-c", "true"]).returncode == 0


# --- issue 28, Why 4: "declined" ------------------------------------------------


@attack("28.4")
def test_a_fake_fingerprint_placed_first_does_not_decline_the_change() -> None:
    from codemods.deliver import forge

    mine = "sha256:" + "a" * 64
    report = {"commits": [{"sha": "x"}], "fingerprint": mine}
    planted = f"{forge.fingerprint_line(mine)}\n\nan attacker's body\n\n{forge.fingerprint_line('sha256:' + 'b' * 64)}\n"
    closed = forge.PullRequest(7, "closed", False, planted, author=forge.DEFAULT_LOGIN)
    assert forge.decide(report, [closed], [forge.DEFAULT_LOGIN]).action == "open"
    # the tool's own closed PR, its fingerprint in its place: a "no"
    own = forge.PullRequest(8, "closed", False, forge.with_fingerprint("body", mine), author=forge.DEFAULT_LOGIN)
    assert forge.decide(report, [own], [forge.DEFAULT_LOGIN]).action == "declined"
    # the same body, from a PR someone else opened: not the tool's "no"
    other = own._replace(author="mallory")
    assert forge.decide(report, [other], [forge.DEFAULT_LOGIN]).action == "open"
    # one fingerprint line, the last: a body holding others keeps only the tool's
    body = forge.with_fingerprint(planted, mine)
    assert body.count("mesh-codemod-fingerprint") == 1 and forge.fingerprint_in(body) == mine


# --- issue 28, Why 6: an older base ----------------------------------------------


@attack("28.6")
def test_an_older_base_does_not_bypass_a_skip_on_main(tmp_path: Path, built) -> None:
    remote, work, artifact = built
    (work / ".mesh-codemod.toml").write_text('skip = ["*"]\n')
    commit_all(work, "the team opts out")
    git(work, "push", "-q", "origin", "HEAD:main")
    clone = publisher(tmp_path, remote)
    assert publish(clone, artifact).exit_code == 0
    assert _nothing_pushed(remote)


# --- issue 39, Why 1: publish adopted the build job's layout ---------------------


def _bundle(work: Path, artifact: Path) -> None:
    data = manifest(artifact)
    git(work, "bundle", "create", "-q", str(artifact / "branch.bundle"), f"refs/heads/{BRANCH}", f"^{data['base']}")


@attack("39.1")
@pytest.mark.parametrize(
    "extra",
    [_bundle, lambda work, artifact: (artifact / "body.md").write_text(f"[x](https://{EVIL})\n"),
     lambda work, artifact: (artifact / "nested").mkdir()],
    ids=["a-bundle", "a-body", "a-folder"],
)
def test_an_artifact_is_its_manifest_and_nothing_else(tmp_path: Path, extra, built) -> None:
    """No file content crosses from the build job (SPEC 8): a bundle (the
    build's branch, whatever it holds), a body or anything else beside the
    manifest refuses the artifact, unread."""
    remote, work, artifact = built
    extra(work, artifact)
    result = publish(publisher(tmp_path, remote), artifact)
    assert result.exit_code == 3 and "the artifact is manifest.json, a regular file, and nothing else" in result.stderr
    assert EVIL not in result.output and _nothing_pushed(remote)


REQUOTER = r"""#!/usr/bin/env bash
# Like `biome format [--write] FILES` set to single quotes: with --write it
# requotes every file (layout only); without, it names each file it would
# change and exits 1.
write=""; status=0
for f in "$@"; do
  case "$f" in --write) write=1 ;; esac
done
for f in "$@"; do
  case "$f" in --*|format) continue ;; esac
  grep -q '"' "$f" || continue
  if [ -n "$write" ]; then sed -i "s/\"/'/g" "$f"; else echo "$f format: the file would be requoted"; status=1; fi
done
exit $status
"""


@attack("39.1")
def test_a_layout_the_build_jobs_formatter_makes_never_reaches_the_branch(tmp_path: Path) -> None:
    """The build job's Biome lays the files out its way (here: single
    quotes, layout only): the series is the built-in layout all the same,
    the format check fails on exactly those bytes naming the files, and
    publish pushes its own built-in layout, as a draft that leads with it."""
    from .canary import executable

    remote, work = with_remote(tmp_path)
    executable(work / "node_modules/.bin/biome", REQUOTER)
    artifact = build(tmp_path, work, "--verify")  # after --no-verify: the checks run
    data = manifest(artifact)
    plain = build(tmp_path / "plain", with_remote(tmp_path / "plain")[1])
    assert data["tip"] == manifest(plain)["tip"]  # the built-in layout, whatever the machine has installed
    [fmt] = [c for c in data["verdict"]["checks"] if c["name"] == "format"]
    assert fmt["status"] == "failed" and MODULE in fmt.get("files", []), data["verdict"]
    report = tmp_path / "report.json"
    result = publish(publisher(tmp_path, remote), artifact, "--report-out", report)
    assert result.exit_code == 0, result.output
    assert _published(remote) == data["tip"]
    pushed = git(remote, "show", f"refs/heads/{BRANCH}:{MODULE}")
    assert 'from "zod"' in pushed and "from 'zod'" not in pushed
    out = json.loads(report.read_text())
    assert out["draft"] is True and out["body"].startswith("> **Draft: mesh's checks failed on this change**: `format`")


# --- issue 39, Why 2: the choice against bun.lock ---------------------------------

FORGED = {"mode": "sdk", "form": "1.x", "installed": "1.7.1",
          "api": {"kind": "accessor", "name": "onappstatechange", "field": "state"}}


@attack("39.2")
@pytest.mark.parametrize(
    ("lock", "choice", "refused"),
    [
        (bun_lock("1.7.1"), FORGED, "declares no state-changed API: its wiring is compat in the 1.x form"),
        (bun_lock("1.7.1"), {**FORGED, "installed": "1.8.0"}, "the base's lockfile resolves 1.7.1"),
        (bun_lock("1.7.1"), {"mode": "compat", "form": "2.x", "installed": "1.7.1"}, "compat in the 1.x form"),
        (bun_lock("1.7.1"), {"mode": "hybrid", "form": "1.x", "installed": "1.7.1"}, "its mode is not sdk or compat"),
        ("", FORGED, "the base has no lockfile"),
        (bun_lock("1.7.1").replace("@modelcontextprotocol/ext-apps@", "left-pad@"), FORGED, "resolves no"),
    ],
    ids=["sdk-mode-on-1.7.1", "another-version", "2x-form-on-1.7.1", "unknown-mode", "no-lockfile", "no-entry"],
)
def test_a_choice_the_lockfile_does_not_bear_out_is_refused(tmp_path: Path, lock: str, choice: dict, refused: str) -> None:
    """ext-apps 1.7.1, pinned by bun.lock, has no state-changed API: a
    choice that claims one (or another version, or another form) refuses,
    as does a base without a lockfile entry to bind a choice to."""
    remote, work = with_remote(tmp_path, lock=lock)
    artifact = build(tmp_path, work)
    data = manifest(artifact)
    data["choice"] = choice
    write_manifest(artifact, data)
    result = publish(publisher(tmp_path, remote), artifact)
    assert result.exit_code == 3 and refused in result.stderr, result.output
    assert _nothing_pushed(remote)


# --- issue 39, Why 3: check names --------------------------------------------------

CI = """on:
  pull_request:
jobs:
  e2e:
    runs-on: ubuntu-latest
    steps:
      - run: bun run e2e
"""


@attack("39.3")
def test_a_check_name_outside_the_tools_and_the_bases_jobs_is_refused(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    (work / ".github/workflows").mkdir(parents=True)
    (work / ".github/workflows/ci.yaml").write_text(CI)
    (work / ".github/workflows/release.yml").write_text(CI.replace("pull_request", "push").replace("e2e", "ship"))
    commit_all(work, "ci")
    git(work, "push", "-q", "origin", "HEAD:main")
    artifact = build(tmp_path, work)
    data = manifest(artifact)
    mark = data["verdict"]["fingerprint"]
    clone = publisher(tmp_path, remote)
    for name in ("security-review/approved-by-octocat", "release/ship", "ci/e2e-approved"):
        data["verdict"] = {"fingerprint": mark, "checks": [{"name": name, "status": "passed"}]}
        write_manifest(artifact, data)
        result = publish(clone, artifact)
        assert result.exit_code == 3 and "is not one of mesh-codemod's checks or the base's pull-request jobs" in result.stderr
    assert _nothing_pushed(remote)
    # the base's own pull-request job (a .yaml file), and the tool's checks, are names it knows
    data["verdict"] = {"fingerprint": mark, "checks": [{"name": "ci/e2e", "status": "not run"},
                                                       {"name": "tests", "status": "passed"}]}
    write_manifest(artifact, data)
    report = tmp_path / "report.json"
    assert publish(clone, artifact, "--report-out", report).exit_code == 0
    assert "| `ci/e2e` | not run |" in json.loads(report.read_text())["body"]


# --- issue 39, Why 4: Markdown, the workspace's git, the manifest ------------------

ODD = "apps/mesh/src/x`![y](https:/attacker.example/p.png)`<img src=x>"


def _rendered(text: str) -> str:
    return markdown_it.MarkdownIt("commonmark").enable("table").render(text)


@attack("39.4")
def test_markdown_in_a_path_the_base_chose_is_escaped_in_the_body_comments_and_summary(
    tmp_path: Path, github: Path
) -> None:
    remote, work = with_remote(tmp_path)
    (work / ODD).mkdir(parents=True)
    git(work, "mv", "apps/mesh/src/mcp-apps/use-app-bridge.ts", f"{ODD}/use-app-bridge.ts")
    commit_all(work, "the bridge hook moves")
    git(work, "push", "-q", "origin", "HEAD:main")
    artifact = build(tmp_path, work)
    report = tmp_path / "report.json"
    assert publish(publisher(tmp_path, remote), artifact, "--report-out", report).exit_code == 0
    body = json.loads(report.read_text())["body"]
    assert f"{ODD}/use-app-bridge.ts" in body
    html = _rendered(body)
    assert "<img" not in html and "<code>apps/mesh/src/x`![y]" in html
    # the job summary and a comment: a base whose step is blocked there, and one left alone
    data = json.loads(report.read_text())
    path = f"{ODD}/use-app-bridge.ts"
    blocked = {**data, "commits": [], "blocked": {"reason": f"cannot find the hook in {path}", "steps": [
        {"step": "bridge-store", "path": path, "reason": f"no bridge in {path}", "skip": 'skip = ["bridge-store"]'}]}}
    report.write_text(json.dumps(blocked))
    github.write_text(json.dumps({**github_state(github), "pulls": [_open_pull(1)]}))
    assert open_pr(report).exit_code == 0
    [comment] = github_state(github)["comments"]["1"]
    left = {**data, "commits": [], "nothing_to_do": True, "left_alone": [{"step": "x", "path": path, "why": "edited"}]}
    report.write_text(json.dumps(left))
    github.write_text(json.dumps({**github_state(github), "pulls": []}))
    assert open_pr(report).exit_code == 0
    for text in (comment["body"], summary(github)):
        html = _rendered(text)
        assert "use-app-bridge.ts" in html and "&lt;img src=x&gt;" in html, html
        assert "<img" not in html and "<a " not in html, html


def _open_pull(number: int) -> dict:
    return {"number": number, "state": "open", "merged_at": None, "title": "t", "body": "b", "draft": False,
            "node_id": f"PR_{number}", "user": {"login": "github-actions[bot]"},
            "head": {"ref": BRANCH, "repo": {"full_name": "decocms/mesh", "owner": {"login": "decocms"}}},
            "base": {"ref": "main"}}


@attack("39.4")
def test_a_workspace_git_configuration_runs_nothing(tmp_path: Path, built) -> None:
    """A `.git/config` someone else wrote (a reused self-hosted workspace)
    names programs for the fetch and the push to run: publish reads none
    of it but the remote's URL, and pushes all the same."""
    remote, work, artifact = built
    clone = publisher(tmp_path, remote)
    marks = tmp_path / "marks"
    git(clone, "config", "remote.origin.uploadpack", f"touch {marks}-upload; git-upload-pack")
    git(clone, "config", "remote.origin.receivepack", f"touch {marks}-receive; git-receive-pack")
    git(clone, "config", "core.sshCommand", f"touch {marks}-ssh; ssh")
    result = publish(clone, artifact)
    assert result.exit_code == 0, result.output
    assert _published(remote) == manifest(artifact)["tip"]
    assert not list(tmp_path.glob("marks*"))


@attack("39.4")
def test_a_deeply_nested_manifest_is_refused_before_it_is_parsed(tmp_path: Path, built) -> None:
    remote, work, artifact = built
    data = manifest(artifact)
    text = json.dumps({**data, "choice": None})
    (artifact / "manifest.json").write_text(text.replace("null", "[" * 30000 + "]" * 30000))
    result = publish(publisher(tmp_path, remote), artifact)
    assert result.exit_code == 3 and "nested more than 5 deep" in result.stderr, result.output
    assert _nothing_pushed(remote)


BAD = [None, 7, "x", [[]], {"a": {"b": []}}]
WORSE = [None, {"a": []}]  # inside a record


@attack("39.4")
@pytest.mark.parametrize("key", ["format", "branch", "base", "tip", "choice", "verdict", "extra"])
def test_every_malformed_record_is_a_clean_refusal(tmp_path: Path, key: str, built) -> None:
    """Whatever wrong value a key of the manifest holds (or one added, or a
    part of the choice or the verdict), publish exits 3 with a message:
    never a traceback, never a record taken in part."""
    remote, work, artifact = built
    clone = publisher(tmp_path, remote)
    data = manifest(artifact)
    inner = {"choice": ["mode", "form", "api", "installed"], "verdict": ["fingerprint", "checks"]}.get(key, [])
    cases = [{**data, key: bad} for bad in BAD if (key, bad) != ("tip", None)]  # no tip: nothing to do, a valid record
    cases += [{**data, key: {**data[key], part: bad}} for part in inner for bad in WORSE if (part, bad) != ("api", None)]
    if key == "verdict":
        cases += [{**data, key: {**data[key], "checks": [bad]}} for bad in BAD]
        cases += [{**data, key: {**data[key], "checks": [{"name": "tests", "status": "failed", "files": bad}]}}
                  for bad in BAD]
    for case in cases:
        write_manifest(artifact, case)
        result = publish(clone, artifact)
        assert result.exit_code == 3 and result.stderr.startswith("mesh-codemod: "), (case, result.output)
    assert _nothing_pushed(remote)


def test_every_finding_has_its_attack() -> None:
    counts = {why: len(names) for why, names in sorted(ATTACKS.items())}
    print(f"\nissue 28 and 39 attacks rebuilt: {sum(counts.values())} tests ("
          + ", ".join(f"Why {why}: {n}" for why, n in counts.items()) + ")")
    assert {"39.1", "39.2", "39.3", "39.4"} <= set(counts)
