"""The action's steps (action.yml), run locally as a runner runs them:
`bash --noprofile --norc -eo pipefail` on the step's `run:` script with the
step's environment, against a local bare remote, with canary tools and a
`gh` stand-in on PATH. tests/test_action_run.py asserts on it; run it by
hand to see what a run does with the token:

    .venv/bin/python -m tests.action_canary
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from . import canary
from .gitrepo import BOT, with_remote
from .support import ROOT

ACTION = ROOT / "action.yml"
BIN = Path(sys.executable).parent  # mesh-codemod's console script


def step_script(name: str) -> str:
    """The `run:` script of the action's step called ``name``."""
    text = ACTION.read_text()
    start = text.index(f"    - name: {name}\n")
    following = text.find("\n    - name: ", start + 1)
    step = text[start: following if following != -1 else len(text)]
    match = re.search(r"^      run: \|\n((?:        .*\n|\s*\n)*)", step + "\n", re.M)
    assert match, f"no run: | script in step {name!r}"
    return textwrap.dedent(match[1])


def input_defaults() -> dict[str, str]:
    """Each input of the action with its default value."""
    block = ACTION.read_text().split("\ninputs:\n", 1)[1].split("\noutputs:\n", 1)[0]
    defaults, name = {}, None
    for line in block.splitlines():
        if match := re.match(r"^  ([A-Za-z0-9_-]+):$", line):
            name = match[1]
        elif name and (match := re.match(r'^    default: "?(.*?)"?$', line)):
            defaults[name] = match[1]
    return defaults


def step_inputs(name: str) -> dict[str, str]:
    """The step's environment variables that carry an input, at the
    input's default: a new input of the step needs no change here."""
    text = ACTION.read_text()
    start = text.index(f"    - name: {name}\n")
    step = text[start: text.find("\n    - name: ", start + 1)]
    defaults = input_defaults()
    return {
        variable: defaults.get(source, "")
        for variable, source in re.findall(r"^        ([A-Z_]+): \$\{\{ inputs\.([a-z-]+) \}\}$", step, re.M)
    }


def run_step(name: str, env: dict[str, str], path_dir: Path, cwd: Path) -> subprocess.CompletedProcess:
    """The step as the runner runs it, its inputs at their defaults unless
    ``env`` says otherwise; PATH: the stand-ins, then the tool's
    virtualenv, then the system's."""
    base = {k: os.environ[k] for k in ("HOME", "LANG", "TMPDIR") if k in os.environ}
    base.update(step_inputs(name))
    base["PATH"] = os.pathsep.join([str(path_dir), str(BIN), "/usr/local/bin", "/usr/bin", "/bin"])
    base["PYTHONPATH"] = str(ROOT)  # this tree's code, whichever checkout the virtualenv was installed from
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step_script(name)],
        cwd=cwd, env={**base, **env}, capture_output=True, text=True,
    )


def pr_step_with_canaries(tmp: Path) -> dict:
    """Run "Build, verify and push the branch" with a canary token; return
    what each process saw."""
    remote, work = with_remote(tmp)
    canary.verify_shaped(work)
    logs, path_dir, runner_temp = tmp / "logs", tmp / "path-bin", tmp / "runner-temp"
    canary.install(work, logs, path_dir)
    runner_temp.mkdir()
    outputs, summary = runner_temp / "output", runner_temp / "summary"
    env = {
        "MESH_CODEMOD_GIT_TOKEN": canary.TOKEN, "REPO": str(work), "AUTHOR": BOT,
        "RUNNER_TEMP": str(runner_temp), "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary),
        "MESH_CODEMOD_CACHE": str(tmp / "cache"),
    }
    result = run_step("Build, verify and push the branch", env, path_dir, work)
    report = runner_temp / "mesh-codemod-report.json"
    files = [work / ".git" / "config", report, runner_temp / "mesh-codemod-body.md", summary, outputs]
    return {
        "exit": result.returncode,
        "stderr": result.stderr,
        "outputs": outputs.read_text() if outputs.exists() else "",
        "checks": {c["check"]: c["outcome"] for c in json.loads(report.read_text())["verify"]["checks"]}
        if result.returncode == 0 else {},
        "git_calls": canary.git_calls(logs),
        "tools": sorted(canary.recorded_tools(logs)),
        "poisoned_bun_ran": (logs / "POISONED-BUN-RAN").exists(),
        "leaks": canary.leaks(logs, *files) + (["stdout/stderr"] if canary.TOKEN in result.stdout + result.stderr else []),
        "remote_branch": canary.git(remote, "for-each-ref", "--format=%(refname)", "refs/heads/codemod").strip(),
    }


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="action-canary-") as name:
        found = pr_step_with_canaries(Path(name))
    print(f"step exit: {found['exit']}; outputs: {found['outputs'].split()}")
    print(f"remote branch: {found['remote_branch']}; verify: {found['checks']}")
    counts: dict[tuple[str, str], int] = {}
    for call in found["git_calls"]:
        counts[call] = counts.get(call, 0) + 1
    print("git calls (subcommand, environment):")
    for (sub, mark), count in sorted(counts.items()):
        print(f"  {sub:<16} {mark:<6} x{count}")
    print(f"tools that recorded their environment: {', '.join(found['tools'])}")
    print(f"node_modules/.bin/bun ran: {found['poisoned_bun_ran']}")
    print(f"token found in: {found['leaks'] or 'nothing (env of every tool, .git/config, report, body, summary, outputs, logs)'}")
    with_token = {sub for sub, mark in found["git_calls"] if mark == "token"}
    ok = found["exit"] == 0 and with_token <= {"ls-remote", "fetch", "push"} and not found["leaks"]
    print("OK: the token reached git's network calls only" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
