"""The host change, run in a real browser: every rule of SPEC sections 2 and 3.

At test time the codemod (compat mode) is applied to a copy of the newest
fixture's input; tests/browser/build.mjs bundles that output with esbuild
(its web/index.tsx is the entry: the router and search schema, the chat
tool-call part, the panel app view, the iframe renderer, the bridge hook and
the app-state module, all the tool's own code) with React, TanStack Router and
the released @modelcontextprotocol/ext-apps from tools/package-lock.json, and
our stubs for mesh-internal modules only. In the iframe runs a demo app built
on the SDK's `App`, whose initialization a scenario can hold to test timing.
tests/browser/run.mjs drives Debian's Chromium through playwright-core (one
launch, every scenario) and reports each scenario; each is one test here.

MESH_CODEMOD_BROWSER_SRC=<tree>/apps/mesh/src runs the scenarios against
another tree (e.g. an older output, to show what they catch).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .node_tools import BIN, CHROMIUM, NODE_MODULES, require
from .support import FIXTURES, ROOT, invoke

HARNESS = ROOT / "tests" / "browser"

# One test per scenario of run.mjs, in its order (test_scenarios_are_all_run
# keeps the two lists equal).
SCENARIOS = [
    "absent_state_has_no_key",
    "report_writes_scoped_param_with_replace",
    "no_echo_of_own_report",
    "reload_restores_non_ascii",
    "other_apps_state_not_applied",
    "outside_change_pushed_once",
    "link_back_to_starting_state_pushed",
    "theme_push_has_no_app_state",
    "link_during_loading",
    "theme_during_loading_keeps_state",
    "link_and_theme_during_loading",
    "cap_removes_param_and_warns_once",
    "malformed_or_future_value_gives_default",
    "legacy_link_applies",
    "undefined_report_removes_param",
    "stale_bridge_ignored",
    "render_count",
    "panel_app_reports_and_restores",
]


def _node() -> Path:
    return require(Path(shutil.which("node") or "/nonexistent/node"), "node", "install Node 20")


def _tools() -> None:
    require(BIN / "esbuild", "esbuild")
    require(NODE_MODULES / "playwright-core", "playwright-core")
    require(CHROMIUM, "Chromium", "apt-get install chromium; .ci/run does it")


def _codemod_output(tmp: Path) -> Path:
    tree = tmp / "mesh"
    shutil.copytree(FIXTURES / "newest" / "input", tree)
    result = invoke("apply", "--repo", tree, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    return tree / "apps" / "mesh" / "src"


@pytest.fixture(scope="session")
def browser_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    node = _node()
    _tools()
    override = os.environ.get("MESH_CODEMOD_BROWSER_SRC")
    src = Path(override) if override else _codemod_output(tmp_path_factory.mktemp("browser"))
    result = subprocess.run(
        [str(node), str(HARNESS / "run.mjs"), str(src)],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_scenarios_are_all_run() -> None:
    node = _node()
    listed = subprocess.run(
        [str(node), str(HARNESS / "run.mjs"), "--list"], capture_output=True, text=True, check=True,
    )
    assert json.loads(listed.stdout) == SCENARIOS


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_browser_scenario(scenario: str, browser_results: dict[str, dict]) -> None:
    result = browser_results.get(scenario)
    assert result is not None, f"{scenario} did not run"
    assert result["ok"], result["error"]


def test_a_missing_tool_skips_locally_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-chromium"
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        require(missing, "Chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        require(missing, "Chromium")
    assert require(tmp_path, "a directory") == tmp_path
