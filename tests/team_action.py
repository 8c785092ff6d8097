"""The example workflow's two jobs run one after the other, as a runner
runs them (tests/workflow_run.py), with the stateful `gh` stand-in
(tests/fake_tools/gh): a team's days with the scheduled job (SPEC 5a)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import NamedTuple

from .canary import executable
from .gitrepo import BOT, git
from .support import ROOT
from .workflow_run import Runner

FAKE_GH = ROOT / "tests" / "fake_tools" / "gh"
# the publish job's steps: decide, push, then the PR
STEPS = ("Look for a declined pull request", "Push the branch", "Open or update the pull request")


class Run(NamedTuple):
    exits: dict[str, int]  # step -> exit code (steps that ran)
    outputs: dict[str, str]
    summary: str
    stderr: str


def gh_state(tmp: Path, repo: str = "decocms/mesh") -> Path:
    state = tmp / "github.json"
    if not state.exists():
        state.write_text(json.dumps({"repo": repo, "pulls": [], "comments": {}, "calls": []}))
    return state


def read_state(state: Path) -> dict:
    return json.loads(state.read_text())


def edit_pull(github: Path, number: int, **fields) -> None:
    data = read_state(github)
    next(p for p in data["pulls"] if p["number"] == number).update(fields)
    github.write_text(json.dumps(data))


def run_action(tmp: Path, work: Path, day: str, **inputs: str) -> Run:
    """One run of the example workflow on the remote ``work`` was cloned
    from: the build job (mesh's checks not required: nothing installed),
    then the publish job with ``inputs``; a failing step ends its job."""
    path_dir = tmp / "gh-bin"
    if not path_dir.exists():
        path_dir.mkdir()
        shutil.copy(FAKE_GH, path_dir / "gh")
        executable(path_dir / "bun", "#!/usr/bin/env bash\nexit 0\n")  # an install with nothing to install
    remote = Path(git(work, "remote", "get-url", "origin").strip())
    folder = tmp / f"day-{day}"
    folder.mkdir()
    runner = Runner(
        folder, remote, path_dir,
        extra_env={"FAKE_GH_STATE": str(gh_state(tmp))},
        with_inputs={"mesh-codemod": {"require-checks": "false", "author": BOT},
                     "mesh-codemod/publish": {"author": BOT, **inputs}},
    )
    jobs = runner.run()
    exits = {s.name: s.exit for job in jobs for s in job.steps if s.exit is not None}
    outputs = jobs[-1].outputs.get("publish", {}) if jobs[-1].name == "publish" else {}
    summary = "".join((job.temp / "_github_step_summary").read_text() for job in jobs)
    return Run(exits, outputs, summary, "".join(s.stderr for job in jobs for s in job.steps))
