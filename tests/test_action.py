"""The GitHub Actions (action.yml, the build half; publish/action.yml, the
publish half) and the example workflow (examples/).

actionlint (with shellcheck for the `run:` scripts) and zizmor check both
files; any zizmor finding, of any severity, fails. The tools come
from the test extras (`scripts/setup`): without them these tests are skipped
on a developer machine and fail in CI.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .node_tools import require
from .support import ROOT

ACTION = ROOT / "action.yml"
PUBLISH = ROOT / "publish" / "action.yml"
WORKFLOW = ROOT / "examples" / "mesh-app-state.yml"
BIN = Path(sys.executable).parent


def _tool(name: str) -> Path:
    path = BIN / name
    found = shutil.which(name)
    if not path.exists() and found:
        return Path(found)
    return require(path, name, "scripts/setup installs the test extras")


def _run(command: list, cwd: Path) -> subprocess.CompletedProcess:
    # shellcheck comes from the same virtualenv; actionlint looks it up on PATH
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    return subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True, env=env)


def _mesh_repo(tmp: Path, workflow: str) -> Path:
    """A repository laid out as mesh would use the example: the workflow in
    .github/workflows and the action checked out at .mesh-codemod."""
    repo = tmp / "mesh"
    (repo / ".github" / "workflows").mkdir(parents=True)
    # actionlint reads a local action's inputs, not a remote one's: the
    # example's pinned reference to this repository becomes its local copy
    local = re.sub(r"uses: [\w.-]+/mesh-codemod@[0-9a-f]{40}.*", "uses: ./.mesh-codemod", workflow)
    local = re.sub(r"uses: [\w.-]+/mesh-codemod/publish@[0-9a-f]{40}.*", "uses: ./.mesh-codemod/publish", local)
    assert local.count("uses: ./.mesh-codemod") == 2, "the example workflow uses both halves by a pinned reference"
    (repo / ".github" / "workflows" / "mesh-app-state.yml").write_text(local)
    (repo / ".mesh-codemod" / "publish").mkdir(parents=True)
    shutil.copy(ACTION, repo / ".mesh-codemod" / "action.yml")
    shutil.copy(PUBLISH, repo / ".mesh-codemod" / "publish" / "action.yml")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def _action_as_workflow(action: Path) -> str:
    """The composite action's steps as a workflow job, so that actionlint
    checks their expressions and shellcheck their scripts (actionlint reads
    action metadata only for its inputs)."""
    text = action.read_text()
    inputs_block = text.split("\ninputs:\n", 1)[1].split("\noutputs:\n", 1)[0]
    names = re.findall(r"^  ([A-Za-z0-9_-]+):$", inputs_block, re.M)
    steps = text.split("\n  steps:\n", 1)[1]
    lines = ["on:", "  workflow_dispatch:", "    inputs:"]
    lines += [f"      {name}:\n        type: string" for name in names]
    lines += ["permissions: {}", "jobs:", "  action:", "    runs-on: ubuntu-latest", "    steps:"]
    lines += [("  " + line) if line.strip() else "" for line in steps.splitlines()]
    return "\n".join(lines) + "\n"


def test_actionlint_passes_the_example_workflow_and_the_action(tmp_path: Path) -> None:
    actionlint = _tool("actionlint")
    _tool("shellcheck")
    repo = _mesh_repo(tmp_path, WORKFLOW.read_text())
    for action in (ACTION, PUBLISH):
        name = f"{action.parent.name}-steps.yml"
        (repo / ".github" / "workflows" / name).write_text(_action_as_workflow(action))
    result = _run([actionlint, "-no-color", "-oneline"], repo)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_can_fail(tmp_path: Path) -> None:
    """The check above notices an input the action does not declare and a
    shell mistake in a script."""
    actionlint = _tool("actionlint")
    _tool("shellcheck")
    broken = WORKFLOW.read_text().replace("branch: codemod/app-state\n", "branch: codemod/app-state\n          no-such-input: x\n", 1)
    broken = broken.replace("bun install --frozen-lockfile", "cd $UNQUOTED_DIR && bun install --frozen-lockfile")
    repo = _mesh_repo(tmp_path, broken)
    result = _run([actionlint, "-no-color", "-oneline"], repo)
    assert result.returncode != 0
    assert "no-such-input" in result.stdout
    assert "SC2086" in result.stdout


def _zizmor(*files: Path, cwd: Path) -> list[dict]:
    zizmor = _tool("zizmor")
    result = _run(
        [zizmor, "--offline", "--no-config", "--no-ignores", "--persona", "auditor",
         "--format", "json", "--no-progress", *files],
        cwd,
    )
    assert result.returncode in (0, *range(10, 15)), result.stderr
    return json.loads(result.stdout or "[]")


def test_zizmor_finds_nothing_at_any_severity() -> None:
    findings = _zizmor(ACTION, PUBLISH, WORKFLOW, cwd=ROOT)
    assert findings == [], json.dumps(findings, indent=1)[:4000]


def test_zizmor_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text(
        WORKFLOW.read_text()
        .replace("permissions: {}\n", "permissions: write-all\n")
        .replace("persist-credentials: false # the action", "persist-credentials: true # the action")
    )
    ids = {f["ident"] for f in _zizmor(bad, cwd=tmp_path)}
    assert {"excessive-permissions", "artipacked"} <= ids


def _run_scripts(text: str) -> list[str]:
    """The bodies of the `run:` keys of a workflow or action file."""
    scripts, lines = [], text.splitlines()
    for index, line in enumerate(lines):
        match = re.match(r"^(\s*)(?:- )?run: ?(.*)$", line)
        if not match:
            continue
        indent, first = len(match[1]), match[2]
        body = [] if first in ("|", ">", "|-", ">-") else [first]
        for follow in lines[index + 1:]:
            if follow.strip() and len(follow) - len(follow.lstrip()) <= indent:
                break
            body.append(follow)
        scripts.append("\n".join(body))
    return scripts


@pytest.mark.parametrize("path", [ACTION, PUBLISH, WORKFLOW], ids=["action", "publish", "workflow"])
def test_the_least_privilege_rules_hold(path: Path) -> None:
    text = path.read_text()
    scripts = _run_scripts(text)
    assert scripts, "no run: scripts found"
    assert not [s for s in scripts if "${{" in s], "no ${{ }} expansion inside run: scripts (use env:)"
    uses = re.findall(r"uses: (\S+)(.*)", text)
    assert uses
    for target, comment in uses:
        if target.startswith("./"):
            continue
        assert re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w.-]+)?@[0-9a-f]{40}", target), f"{target}: pin a full commit SHA"
        assert re.match(r"\s+# v\d", comment), f"{target}: say the tag in a comment"
    if path == WORKFLOW:
        assert re.search(r"^permissions: \{\}$", text, re.M)
        assert text.count("persist-credentials: false") == text.count("uses: actions/checkout@")
        assert set(re.findall(r"^\s+(schedule|workflow_dispatch):", text, re.M)) == {"schedule", "workflow_dispatch"}


def test_the_job_that_runs_the_repositorys_code_holds_no_write_token() -> None:
    """Two jobs: build (installs, formats, checks) with read permissions and
    no token given to the tool; publish (holds the write token) with no
    step that runs the repository's code."""
    from codemods.plan.workflows import load

    jobs = load(WORKFLOW.read_text())["jobs"]
    assert list(jobs) == ["build", "publish"] and jobs["publish"]["needs"] == "build"
    assert jobs["build"]["permissions"] == {"contents": "read"}
    assert jobs["publish"]["permissions"] == {"contents": "write", "pull-requests": "write"}
    build_text = WORKFLOW.read_text().split("\n  publish:\n")[0]
    assert "github.token" not in build_text and "secrets." not in build_text
    assert "token" not in load(ACTION.read_text())["inputs"]
    publish_steps = jobs["publish"]["steps"]
    assert not [s for s in publish_steps if "run" in s], "the publish job runs no script of its own"
    for step in load(PUBLISH.read_text())["runs"]["steps"]:
        script = step.get("run", "")
        assert not re.search(r"\b(bun|npm|npx|node|yarn|pnpm)\b", script), step["name"]
        if script:
            # Python isolated and outside the checkout
            assert step.get("working-directory") == "${{ runner.temp }}", step["name"]
            assert not re.search(r"\bpython3?\s(?!-I)", script), step["name"]
    for step in load(ACTION.read_text())["runs"]["steps"]:
        if step.get("run"):
            assert step.get("working-directory") == "${{ runner.temp }}", step["name"]
            assert not re.search(r"\bpython3?\s(?!-I)", step["run"]) and "-I -m codemods" in step["run"] or step["name"] == "Install mesh-codemod"
