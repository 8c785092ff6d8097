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

Every mode's output runs against its SDK (one browser run each):
- ``compat-1.7.1``: compat mode, 1.x form, on the released 1.7.1;
- ``compat-2.0.4``: compat mode on a checkout that asks for ext-apps 2.x, so
  the 2.x form (method name and params schema), on the pinned 2.0.4 with its
  2.x peers (tools/package.json: ``ext-apps-2``);
- ``sdk-double``: sdk mode on a TEST DOUBLE of the bridge, since no release
  has ``onappstatechange`` yet: the released 1.7.1 AppBridge plus exactly
  what this tool's SDK recipe adds for that shape (shape B), taken from the
  recipe's output on fixtures/sdk/shape-b when the test runs.

MESH_CODEMOD_BROWSER_SRC=<tree>/apps/mesh/src runs the compat-1.7.1
scenarios against another tree (e.g. an older output, to show what they
catch).
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
    "empty_params_report_removes_param",
    "null_report_removes_param",
    "param_removed_pushes_null",
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


# variant -> (--bridge, the ext-apps range the checkout asks for, the host's SDK)
VARIANTS = {
    "compat-1.7.1": ("compat", "^1.2.2", "released"),
    "compat-2.0.4": ("compat", "^2.0.4", "2"),
    "sdk-double": ("sdk", "^1.2.2", "double"),
}
# What each variant's output must wire state-changed with.
WIRED = {
    "compat-1.7.1": "bridge.setNotificationHandler(\n      StateChangedNotificationSchema,",
    "compat-2.0.4": '"ui/notifications/state-changed",\n      { params: StateChangedParamsSchema },',
    "sdk-double": "bridge.onappstatechange = (params) =>",
}


def _codemod_output(tmp: Path, variant: str) -> Path:
    bridge, wanted, _ = VARIANTS[variant]
    tree = tmp / "mesh"
    shutil.copytree(FIXTURES / "newest" / "input", tree)
    manifest = tree / "apps/mesh/package.json"
    data = json.loads(manifest.read_text())
    data["dependencies"]["@modelcontextprotocol/ext-apps"] = wanted
    manifest.write_text(json.dumps(data, indent=2) + "\n")
    result = invoke("apply", "--repo", tree, "--bridge", bridge)
    assert result.exit_code == 0, result.output
    assert WIRED[variant] in (tree / "apps/mesh/src/mcp-apps/use-app-bridge.ts").read_text()
    return tree / "apps" / "mesh" / "src"


def sdk_double(tmp: Path) -> Path:
    """The test double of ``@modelcontextprotocol/ext-apps/app-bridge`` for
    sdk mode (see the module docstring), written into ``tmp``."""
    from codemods.engine.find import Finder
    from codemods.engine.source import SourceFile
    from codemods.recipes.names import NAMES

    tree = tmp / "sdk"
    shutil.copytree(ROOT / "fixtures" / "sdk" / "shape-b" / "input", tree)
    result = invoke("apply", "--repo", tree)
    assert result.exit_code == 0, result.output

    def finder(path: str) -> Finder:
        return Finder(SourceFile.from_bytes(path, (tree / path).read_bytes()))

    bridge = finder("src/app-bridge.ts")
    cls = bridge.class_("AppBridge")
    accessors = bridge.class_members(cls, NAMES.accessor, "method_definition")
    schemas = bridge.class_member(cls, "eventSchemas").child_by_field_name("value")
    [entry] = [e for e in bridge.entries(schemas) if bridge.text(e).startswith(f"{NAMES.event}:")]
    generated = finder("src/generated/schema.ts")
    schema = generated.enclosing_statement(generated.variable("McpUiStateChangedNotificationSchema"))
    double = tmp / "app-bridge-double.ts"
    double.write_text(
        "// TEST DOUBLE, not a release of @modelcontextprotocol/ext-apps: the released\n"
        "// AppBridge (1.7.1, shape B) plus what mesh-codemod's SDK recipe adds for\n"
        "// that shape, copied from its output on fixtures/sdk/shape-b.\n"
        'import { AppBridge as ReleasedAppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";\n'
        'import { z } from "zod";\n'
        'export * from "@modelcontextprotocol/ext-apps/app-bridge";\n\n'
        "type McpUiStateChangedNotification = { params: { state: unknown } };\n"
        f"{generated.text(schema).removeprefix('export ')}\n\n"
        "export class AppBridge extends ReleasedAppBridge {\n"
        f"  eventSchemas = {{ ...this.eventSchemas, {bridge.text(entry)} }};\n\n"
        f"  {bridge.span(accessors[0], accessors[-1])}\n"
        "}\n"
    )
    return double


@pytest.fixture(scope="session", params=list(VARIANTS))
def browser_results(request, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    variant = request.param
    node = _node()
    _tools()
    tmp = tmp_path_factory.mktemp(f"browser-{variant}")
    override = os.environ.get("MESH_CODEMOD_BROWSER_SRC")
    src = Path(override) if override and variant == "compat-1.7.1" else _codemod_output(tmp, variant)
    sdk = VARIANTS[variant][2]
    if sdk == "2":
        require(NODE_MODULES / "ext-apps-2", "ext-apps 2.0.4 (tools/package.json: ext-apps-2)")
    elif sdk == "double":
        sdk = str(sdk_double(tmp))
    result = subprocess.run(
        [str(node), str(HARNESS / "run.mjs"), str(src)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "MESH_CODEMOD_BROWSER_SDK": sdk},
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
