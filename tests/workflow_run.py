"""The example workflow (examples/mesh-app-state.yml) run job by job, the
way a runner runs it, against a local bare remote, with a `gh` stand-in
(tests/fake_tools/gh) and canaries planted in the repository
(tests/test_workflow_run.py asserts on it). Run by hand to see each job:

    .venv/bin/python -m tests.workflow_run

What the runner does, and this does too: each job gets a fresh checkout,
RUNNER_TEMP and step files (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY); what a step appends to GITHUB_ENV and GITHUB_PATH
reaches the job's later steps; a composite action's steps run with its
inputs (given, else their defaults); `${{ }}` expressions are filled in;
`if:` is decided; a failing step ends the job; at a job's end every process
marked with its RUNNER_TRACKING_ID is killed. The write token is
`github.token` in the publish job only (the build job's is a read token).

Stand-ins: `actions/checkout` is a `git clone` (with its fetch-depth),
setup-python, setup-bun and cache do nothing, upload/download-artifact copy
a folder, and the action's "Install mesh-codemod" step links this tree's
virtualenv (pip would need the network) instead of running, unless the
runner is made with ``install=True`` (then it runs as written, from PyPI).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from codemods.plan.workflows import load

from .support import ROOT

WORKFLOW = ROOT / "examples" / "mesh-app-state.yml"
ACTIONS = {"mesh-codemod": ROOT / "action.yml", "mesh-codemod/publish": ROOT / "publish" / "action.yml"}
VENV = Path(sys.executable).parent.parent
# one pair per process: a canary scans every process of the machine, and
# another test worker's workflow run holds its own write token meanwhile
WRITE_TOKEN = f"ghs_canaryWRITE{os.getpid()}x0123456789abcdef"
READ_TOKEN = f"ghs_canaryREAD{os.getpid()}x0123456789abcdef"


class StepRun(NamedTuple):
    job: str
    name: str
    exit: int | None  # None: skipped
    stderr: str


class JobRun(NamedTuple):
    name: str
    permissions: dict
    steps: list[StepRun]
    outputs: dict[str, dict[str, str]]  # step id -> outputs
    killed: list[int]  # what the runner's end-of-job cleanup killed
    temp: Path

    @property
    def ok(self) -> bool:
        return all(s.exit in (0, None) for s in self.steps)


class Context(NamedTuple):
    job: str
    workspace: Path
    temp: Path
    repository: str
    token: str
    steps: dict[str, dict[str, str]]
    inputs: dict[str, str]
    action_path: Path | None
    ref_name: str = "main"  # a scheduled run's: the default branch


_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _lookup(expr: str, ctx: Context) -> str:
    if expr.startswith("inputs."):
        return ctx.inputs.get(expr[len("inputs."):], "")
    if match := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr):
        return ctx.steps.get(match[1], {}).get(match[2], "")
    if match := re.fullmatch(r"hashFiles\(.*\)", expr):
        return "0" * 64
    return {
        "github.token": ctx.token, "github.repository": ctx.repository, "github.sha": "0" * 40,
        "github.action_path": str(ctx.action_path or ""), "runner.temp": str(ctx.temp),
        "github.workspace": str(ctx.workspace), "github.ref_name": ctx.ref_name,
    }.get(expr) or _unknown(expr)


def _unknown(expr: str) -> str:
    raise AssertionError(f"the workflow stand-in does not know ${{{{ {expr} }}}}")


def fill(text: str, ctx: Context) -> str:
    return _EXPR.sub(lambda m: _lookup(m[1], ctx), text)


def decide(condition: str, ctx: Context) -> bool:
    """An `if:` of the form `A == 'x' || B == 'y'` (what the files use)."""
    for part in condition.split("||"):
        left, _, right = part.partition("==")
        if _lookup(left.strip(), ctx) == right.strip().strip("'"):
            return True
    return False


def _read_outputs(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


class Runner:
    """One workflow run: jobs in order, each on its own machine-like folder."""

    def __init__(self, tmp: Path, remote: Path, path_dir: Path, repository: str = "decocms/mesh",
                 extra_env: dict[str, str] | None = None, with_inputs: dict[str, dict[str, str]] | None = None,
                 install: bool = False) -> None:
        self.tmp, self.remote, self.path_dir, self.repository = tmp, remote, path_dir, repository
        self.install = install  # run the actions' "Install mesh-codemod" steps as written
        self.extra_env = extra_env or {}
        self.with_inputs = with_inputs or {}  # action -> inputs that override the workflow's `with:`
        self.artifacts = tmp / "artifact-store"
        self.workflow = load(WORKFLOW.read_text())
        # the remote's default branch: what a scheduled run is on
        self.ref_name = subprocess.run(["git", "--git-dir", str(remote), "symbolic-ref", "--short", "HEAD"],
                                       capture_output=True, text=True, check=True).stdout.strip()

    def run(self) -> list[JobRun]:
        runs: list[JobRun] = []
        for name, job in self.workflow["jobs"].items():
            if job.get("needs") and not all(r.ok for r in runs):
                break
            runs.append(self.run_job(name, job))
        return runs

    def run_job(self, name: str, job: dict) -> JobRun:
        machine = self.tmp / f"job-{name}"
        workspace, temp, home = machine / "workspace", machine / "temp", machine / "home"
        for folder in (workspace, temp, home):
            folder.mkdir(parents=True)
        files = {key: temp / f"_{key.lower()}" for key in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
        for path in files.values():
            path.touch()
        writes = job.get("permissions", {})
        token = WRITE_TOKEN if "write" in writes.values() else READ_TOKEN
        tracking = f"mesh-codemod-test-{name}-{os.getpid()}"
        base = {
            "HOME": str(home), "LANG": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(workspace), "GITHUB_REPOSITORY": self.repository, "RUNNER_TEMP": str(temp),
            "RUNNER_TRACKING_ID": tracking, "MESH_CODEMOD_CACHE": str(machine / "cache"),
            **{key: str(path) for key, path in files.items()}, **self.extra_env,
        }
        steps: list[StepRun] = []
        outputs: dict[str, dict[str, str]] = {}
        failed = False
        for step in job["steps"]:
            ctx = Context(name, workspace, temp, self.repository, token, outputs, {}, None, self.ref_name)
            if failed:
                steps.append(StepRun(name, step.get("name", ""), None, ""))
                continue
            result = self._step(step, ctx, base, files)
            steps.extend(result)
            failed = any(s.exit not in (0, None) for s in result)
        killed = _end_of_job(tracking)
        return JobRun(name, writes, steps, outputs, killed, temp)

    def _env(self, base: dict, files: dict, step_env: dict[str, str]) -> dict[str, str]:
        """The environment of a step: the job's, what GITHUB_ENV holds so far,
        the step's own; PATH with GITHUB_PATH's folders first."""
        env = dict(base)
        env.update(_github_env(files["GITHUB_ENV"]))
        added = [line for line in files["GITHUB_PATH"].read_text().splitlines() if line.strip()]
        system = [str(self.path_dir), str(VENV / "bin"), "/usr/local/bin", "/usr/bin", "/bin"]
        env["PATH"] = os.pathsep.join([*reversed(added), *system])
        env.update(step_env)
        return env

    def _step(self, step: dict, ctx: Context, base: dict, files: dict) -> list[StepRun]:
        name = step.get("name", "")
        uses = step.get("uses", "")
        given = {k: fill(str(v), ctx) for k, v in (step.get("with") or {}).items()}
        if uses:
            action = uses.split("@")[0]
            short = action.split("/", 1)[1] if action.count("/") >= 1 else action
            if short in ACTIONS and action.startswith("your-org/"):
                return self._composite(step, ACTIONS[short], {**given, **self.with_inputs.get(short, {})}, ctx, base, files)
            return [self._builtin(action, name, given, ctx)]
        env = self._env(base, files, {k: fill(str(v), ctx) for k, v in (step.get("env") or {}).items()})
        return [self._bash(ctx.job, name, step["run"], env, ctx.workspace, step.get("id"), ctx, files)]

    def _builtin(self, action: str, name: str, given: dict[str, str], ctx: Context) -> StepRun:
        if action == "actions/checkout":
            depth = given.get("fetch-depth", "1")
            args = [] if depth == "0" else ["--depth", depth]
            shutil.rmtree(ctx.workspace)
            subprocess.run(["git", "clone", "-q", *args, f"file://{self.remote}", str(ctx.workspace)], check=True)
        elif action == "actions/upload-artifact":
            shutil.copytree(given["path"], self.artifacts / given["name"])
        elif action == "actions/download-artifact":
            shutil.copytree(self.artifacts / given["name"], given["path"])
        elif action not in ("actions/setup-python", "oven-sh/setup-bun", "actions/cache"):
            raise AssertionError(f"the workflow stand-in does not know {action}")
        return StepRun(ctx.job, name, 0, "")

    def _composite(self, step: dict, action_file: Path, given: dict, ctx: Context, base: dict, files: dict) -> list[StepRun]:
        action = load(action_file.read_text())
        inputs = {k: fill(str(v.get("default", "")), ctx) for k, v in action.get("inputs", {}).items()}
        unknown = set(given) - set(inputs)
        assert not unknown, f"{action_file.name} has no input {unknown}"
        inputs.update(given)
        inner: dict[str, dict[str, str]] = {}
        inner_ctx = Context(ctx.job, ctx.workspace, ctx.temp, ctx.repository, ctx.token, inner, inputs, action_file.parent,
                            ctx.ref_name)
        runs = []
        for sub in action["runs"]["steps"]:
            name = sub.get("name", "")
            if "if" in sub and not decide(sub["if"], inner_ctx):
                runs.append(StepRun(ctx.job, name, None, ""))
                continue
            if sub.get("uses", "").startswith("actions/setup-python@"):
                runs.append(StepRun(ctx.job, name, 0, ""))
                continue
            if name == "Install mesh-codemod" and not self.install:
                # pip would need the network: this tree's virtualenv instead
                (ctx.temp / "mesh-codemod-venv").symlink_to(VENV)
                runs.append(StepRun(ctx.job, name, 0, ""))
                continue
            env = self._env(base, files, {k: fill(str(v), inner_ctx) for k, v in (sub.get("env") or {}).items()})
            cwd = Path(fill(sub.get("working-directory", str(ctx.workspace)), inner_ctx))
            result = self._bash(ctx.job, name, sub["run"], env, cwd, sub.get("id"), inner_ctx, files)
            runs.append(result)
            if result.exit != 0:
                break
        if step.get("id"):
            ctx.steps[step["id"]] = {
                key: fill(str(spec.get("value", "")), inner_ctx) for key, spec in (action.get("outputs") or {}).items()
            }
        return runs

    def _bash(self, job: str, name: str, script: str, env: dict, cwd: Path, step_id: str | None,
              ctx: Context, files: dict) -> StepRun:
        output = ctx.temp / f"_output_{len(list(ctx.temp.glob('_output_*')))}"
        output.touch()
        env = {**env, "GITHUB_OUTPUT": str(output)}
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=cwd, env=env, capture_output=True, text=True, start_new_session=True,
        )
        if step_id:
            ctx.steps[step_id] = _read_outputs(output)
        return StepRun(job, name, result.returncode, result.stdout + result.stderr)


def _github_env(path: Path) -> dict[str, str]:
    """`NAME=value` lines and `NAME<<EOF` blocks, as the runner reads them."""
    env, lines, index = {}, path.read_text().splitlines(), 0
    while index < len(lines):
        line = lines[index]
        if "<<" in line and "=" not in line.split("<<", 1)[0]:
            key, marker = line.split("<<", 1)
            body = []
            index += 1
            while index < len(lines) and lines[index] != marker:
                body.append(lines[index])
                index += 1
            env[key] = "\n".join(body)
        elif "=" in line:
            key, value = line.split("=", 1)
            env[key] = value
        index += 1
    return env


def _end_of_job(tracking: str) -> list[int]:
    """Kill every process that carries the job's RUNNER_TRACKING_ID, as the
    runner's orphan process cleanup does at the end of a job: again until a
    pass finds none (a process may fork while a pass walks /proc)."""
    killed: list[int] = []
    while found := _kill_marked(tracking):
        killed += found
    return killed


def _kill_marked(tracking: str) -> list[int]:
    killed = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{name}/environ").read_bytes()
        except OSError:
            continue
        if f"RUNNER_TRACKING_ID={tracking}".encode() in environ.split(b"\0"):
            try:
                os.kill(int(name), signal.SIGKILL)
                killed.append(int(name))
            except OSError:
                pass
    return killed
