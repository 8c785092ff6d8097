"""The action's steps run one after the other, as a runner runs them, with
the stateful `gh` stand-in (tests/fake_tools/gh): a team's days with the
scheduled job (SPEC 5a)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import NamedTuple

from .action_canary import run_step
from .gitrepo import BOT
from .support import ROOT

FAKE_GH = ROOT / "tests" / "fake_tools" / "gh"
STEPS = ("Look for a declined pull request", "Build, verify and push the branch", "Open or update the pull request")


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
    """One run of the action's steps on ``work`` (a clone with `origin`);
    a step whose `if:` is false is skipped, a failing step ends the run."""
    path_dir = tmp / "gh-bin"
    if not path_dir.exists():
        path_dir.mkdir()
        shutil.copy(FAKE_GH, path_dir / "gh")
    temp = tmp / f"runner-temp-{day}"
    temp.mkdir()
    outputs, summary = temp / "output", temp / "summary"
    env = {
        "GH_TOKEN": "ghs_fake", "MESH_CODEMOD_GIT_TOKEN": "ghs_fake", "GH_REPO": "decocms/mesh",
        "REPO": str(work), "AUTHOR": BOT, "RUNNER_TEMP": str(temp), "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(summary), "FAKE_GH_STATE": str(gh_state(tmp)),
        "MESH_CODEMOD_CACHE": str(tmp / "cache"), "REQUIRE_CHECKS": "false",
        **{name.upper().replace("-", "_"): value for name, value in inputs.items()},
    }
    exits: dict[str, int] = {}
    stderr = []
    for step in STEPS:
        decided = _outputs(outputs).get("pr-action", "")
        if step == STEPS[1] and decided not in ("open", "update"):
            continue
        result = run_step(step, env, path_dir, work)
        exits[step] = result.returncode
        stderr.append(result.stderr)
        if result.returncode != 0:
            break
    return Run(exits, _outputs(outputs), summary.read_text() if summary.exists() else "", "".join(stderr))


def _outputs(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
