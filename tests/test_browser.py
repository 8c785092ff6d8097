"""The host change, run in a real browser: several apps on one page under
the real router and the real SDK (SPEC sections 2 and 3).

At test time the codemod is applied to a copy of the newest fixture's input;
tests/browser/build.mjs bundles that output with esbuild (its web/index.tsx
is the entry: the router and search schema, the chat tool-call part, the
panel app view, the iframe renderer, the bridge store, the hook and the
app-state module, all the tool's own code) with React, TanStack Router
(browser history) and the released @modelcontextprotocol/ext-apps from
tools/package-lock.json, and our stubs for mesh-internal modules only: a
thread of eight tool-call parts with apps and one without, a render site
that keeps no state, and the main panel's app when `main` addresses one. In
each iframe runs a demo app built on the SDK's `App`, whose initialization
a scenario can hold. tests/browser/run.mjs drives Debian's Chromium
through playwright-core (one launch, every scenario) and reports each
scenario; each is one test here.

Every mode's output runs against its SDK (one browser run each):
- ``compat-1.7.1``: compat mode, 1.x form, on the released 1.7.1;
- ``compat-2.0.4``: compat mode on a checkout that asks for ext-apps 2.x, so
  the 2.x form (method name and params schema), on the pinned 2.0.4 with its
  2.x peers (tools/package.json: ``ext-apps-2``);
- ``sdk-double``: sdk mode on a TEST DOUBLE of the bridge, since no release
  has state-changed yet: the released 1.7.1 AppBridge plus exactly the
  event this tool's SDK recipe adds for that shape (shape B), taken from
  the recipe's output on fixtures/sdk/shape-b when the test runs. The
  codemod runs with the 1.7.1 declarations plus what the recipe declares
  installed in the tree, so sdk mode wires what it reads there
  (``addEventListener`` with the recipe's key).

The mutation tests change one behaviour of the generated code (compat
1.7.1's output) and show that the scenarios naming it fail; every scenario
is named by one of them at least.

MESH_CODEMOD_BROWSER_SRC=<tree>/apps/mesh/src runs the compat-1.7.1
scenarios (and the mutations) against another tree (e.g. an older output,
to show what they catch).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .node_tools import BIN, CHROMIUM, NODE_MODULES, require
from .support import FIXTURES, ROOT, invoke, shared

HARNESS = ROOT / "tests" / "browser"

# One test per scenario of run.mjs, in its order (test_scenarios_are_all_run
# keeps the two lists equal).
SCENARIOS = [
    "a_report_writes_the_url_and_a_reload_restores_it",
    "a_shared_link_starts_each_app_from_its_own_slot",
    "an_over_cap_app_then_another_params_navigation_pushes_nothing",
    "eight_apps_three_evicted_then_a_navigation_pushes_nothing",
    "a_burst_then_back_pushes_the_entrys_state",
    "back_and_forward_push_the_slot_and_null_when_it_goes",
    "back_while_another_app_reports_still_pushes",
    "a_link_followed_pushes_once_even_back_to_the_start",
    "an_undecodable_or_earlier_form_is_no_state",
    "a_report_without_state_is_ignored",
    "sixty_reports_in_one_frame_make_one_history_write",
    "a_link_and_a_theme_while_the_app_loads_start_it_from_the_newest",
    "no_echo_when_reports_come_faster_than_renders",
    "open_in_panel_starts_the_panels_app_from_the_part",
    "theme_pushes_resend_no_state",
    "only_the_part_whose_slot_changed_renders",
    "the_capability_is_advertised_where_state_is_kept",
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
}


def _codemod_output(tmp: Path, variant: str) -> tuple[Path, str]:
    """The codemod's output for ``variant`` (its apps/mesh/src) and the SDK
    the host bundle is built with (see build.mjs)."""
    bridge, wanted, sdk = VARIANTS[variant]
    tree = tmp / "mesh"
    shutil.copytree(FIXTURES / "newest" / "input", tree)
    manifest = tree / "apps/mesh/package.json"
    data = json.loads(manifest.read_text())
    data["dependencies"]["@modelcontextprotocol/ext-apps"] = wanted
    manifest.write_text(json.dumps(data, indent=2) + "\n")
    wired = WIRED.get(variant, "")
    installed = None
    if sdk == "double":
        sdk, key = sdk_double(tmp)
        # sdk mode reads the API from the installed SDK's declarations: the
        # double's, installed for the run (and removed before the build,
        # which bundles the double itself).
        installed = _install_double_declarations(tmp, tree, key)
        wired = f'bridge.addEventListener("{key}", (params) =>'
    result = invoke("apply", "--repo", tree, "--bridge", bridge)
    assert result.exit_code == 0, result.output
    if installed is not None:
        assert f'AppBridgeEventMap.{key}' in result.stderr, result.stderr
        shutil.rmtree(installed)
    assert wired in (tree / "apps/mesh/src/mcp-apps/use-app-bridge.ts").read_text()
    return tree / "apps" / "mesh" / "src", sdk


def _recipe_output(tmp: Path) -> Path:
    """The SDK recipe's output on fixtures/sdk/shape-b (made once)."""
    tree = tmp / "sdk"
    if not tree.exists():
        shutil.copytree(ROOT / "fixtures" / "sdk" / "shape-b" / "input", tree)
        result = invoke("apply", "--repo", tree)
        assert result.exit_code == 0, result.output
    return tree


def _finder(tree: Path, path: str):
    from codemods.engine.find import Finder
    from codemods.engine.source import SourceFile

    return Finder(SourceFile.from_bytes(path, (tree / path).read_bytes()))


def sdk_double(tmp: Path) -> tuple[str, str]:
    """The test double of ``@modelcontextprotocol/ext-apps/app-bridge`` for
    sdk mode (see the module docstring), written into ``tmp``, and the
    event key it adds."""
    from codemods.recipes.host.sdk_api import EVENT_KEYS

    tree = _recipe_output(tmp)
    bridge = _finder(tree, "src/app-bridge.ts")
    cls = bridge.class_("AppBridge")
    schemas = bridge.class_member(cls, "eventSchemas").child_by_field_name("value")
    [entry] = [e for e in bridge.entries(schemas) if bridge.text(e).split(":", 1)[0].strip() in EVENT_KEYS]
    key = bridge.text(entry).split(":", 1)[0].strip()
    generated = _finder(tree, "src/generated/schema.ts")
    schema = generated.enclosing_statement(generated.variable("McpUiStateChangedNotificationSchema"))
    double = tmp / "app-bridge-double.ts"
    double.write_text(
        "// TEST DOUBLE, not a release of @modelcontextprotocol/ext-apps: the released\n"
        "// AppBridge (1.7.1, shape B) plus the event that mesh-codemod's SDK recipe\n"
        "// adds for that shape, copied from its output on fixtures/sdk/shape-b.\n"
        'import { AppBridge as ReleasedAppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";\n'
        'import { z } from "zod";\n'
        'export * from "@modelcontextprotocol/ext-apps/app-bridge";\n\n'
        "type McpUiStateChangedNotification = { params: { state: unknown } };\n"
        f"{generated.text(schema).removeprefix('export ')}\n\n"
        "export class AppBridge extends ReleasedAppBridge {\n"
        f"  eventSchemas = {{ ...this.eventSchemas, {bridge.text(entry)} }};\n"
        "}\n"
    )
    return str(double), key


def _install_double_declarations(tmp: Path, tree: Path, key: str) -> Path:
    """The released 1.7.1 package's declarations, with what the SDK recipe
    declares for state-changed on shape B (its AppBridgeEventMap member and
    the notification interface), installed in ``tree`` as the SDK."""
    recipe = _recipe_output(tmp)
    bridge = _finder(recipe, "src/app-bridge.ts")
    [event_map] = bridge.type_aliases("AppBridgeEventMap")
    [member] = [
        m for m in bridge.entries(event_map.child_by_field_name("value"))
        if bridge.text(m).split(":", 1)[0].strip() == key
    ]
    spec = _finder(recipe, "src/spec.types.ts")
    notification = spec.interface("McpUiStateChangedNotification")
    package = tree / "node_modules" / "@modelcontextprotocol" / "ext-apps"
    released = NODE_MODULES / "@modelcontextprotocol" / "ext-apps"
    (package / "dist" / "src").mkdir(parents=True)
    shutil.copy(released / "package.json", package / "package.json")
    for declaration in (released / "dist" / "src").glob("*.d.ts"):
        shutil.copy(declaration, package / "dist" / "src" / declaration.name)
    app_bridge = package / "dist" / "src" / "app-bridge.d.ts"
    anchor = '    sizechange: McpUiSizeChangedNotification["params"];\n'
    text = app_bridge.read_text()
    assert anchor in text
    app_bridge.write_text(text.replace(anchor, f"{anchor}    {bridge.text(member).rstrip(';')};\n", 1))
    spec_types = package / "dist" / "src" / "spec.types.d.ts"
    spec_types.write_text(spec_types.read_text() + f"\nexport {spec.text(notification)}\n")
    return tree / "node_modules"


def _output(factory: pytest.TempPathFactory, variant: str) -> tuple[Path, str]:
    """The tree under test for ``variant`` (its apps/mesh/src) and the SDK its
    host bundle is built with: the codemod's output, made once a test run."""
    override = os.environ.get("MESH_CODEMOD_BROWSER_SRC")
    if override and variant == "compat-1.7.1":
        return Path(override), VARIANTS[variant][2]

    def make(tmp: Path) -> None:
        src, sdk = _codemod_output(tmp, variant)
        (tmp / "made.json").write_text(json.dumps([str(src), sdk]))

    folder = shared(factory, f"output-{variant}", make)
    src, sdk = json.loads((folder / "made.json").read_text())
    return Path(src), sdk


def _run(src: Path, sdk: str, *scenarios: str) -> dict[str, dict]:
    """Every scenario's outcome (or the named ones') on the tree ``src``."""
    result = subprocess.run(
        [str(_node()), str(HARNESS / "run.mjs"), str(src), *scenarios],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "MESH_CODEMOD_BROWSER_SDK": sdk},
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session", params=list(VARIANTS))
def browser_results(request, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Every scenario's outcome for one variant: one browser run a test
    run, whichever xdist worker asks first."""
    variant = request.param
    _node()
    _tools()
    if VARIANTS[variant][2] == "2":
        require(NODE_MODULES / "ext-apps-2", "ext-apps 2.0.4 (tools/package.json: ext-apps-2)")
    src, sdk = _output(tmp_path_factory, variant)

    def run(tmp: Path) -> None:
        (tmp / "results.json").write_text(json.dumps(_run(src, sdk)))

    return json.loads((shared(tmp_path_factory, f"browser-{variant}", run) / "results.json").read_text())


def test_scenarios_are_all_run() -> None:
    node = _node()
    listed = subprocess.run(
        [str(node), str(HARNESS / "run.mjs"), "--list"], capture_output=True, text=True, check=True,
    )
    assert json.loads(listed.stdout) == SCENARIOS


@pytest.mark.slow
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


STORE = "mcp-apps/use-app-bridge.ts"
HOOK = "web/hooks/use-app-state-param.ts"
FORMAT = "mcp-apps/app-state.ts"
TYPES = "mcp-apps/types.ts"
PART = "web/components/chat/message/parts/tool-call-part/generic.tsx"
ROUTES = "web/index.tsx"
# One behaviour of the generated code taken out: (file, its text, the text
# without the behaviour, the scenarios that must then fail). Together they
# name every scenario (test_every_scenario_has_a_mutation).
MUTATIONS = {
    "the app starts from no state": (
        STORE,
        "      ...(appState !== undefined && { appState }),\n",
        "",
        [
            "a_report_writes_the_url_and_a_reload_restores_it",
            "a_shared_link_starts_each_app_from_its_own_slot",
            "a_link_and_a_theme_while_the_app_loads_start_it_from_the_newest",
            "open_in_panel_starts_the_panels_app_from_the_part",
        ],
    ),
    "a link or back/forward pushes nothing": (
        STORE,
        "    if (\n"
        "      this.snapshot.isLoading ||\n"
        "      appState !== JSON.stringify(this.contextAppState ?? null)\n"
        "    ) {\n"
        "      this.contextAppState = this.shownAppState;\n"
        "      this.pushHostContext();\n"
        "    } else {\n"
        "      this.bridge.sendHostContextChange({ appState: this.shownAppState });\n"
        "    }\n",
        "",
        [
            "a_burst_then_back_pushes_the_entrys_state",
            "back_and_forward_push_the_slot_and_null_when_it_goes",
            "a_link_followed_pushes_once_even_back_to_the_start",
            "back_while_another_app_reports_still_pushes",
        ],
    ),
    "every slot change pushed, a write of the apps' states too": (
        STORE,
        "    if (!navigation || navigation === this.heardNavigation) return;\n"
        "    this.heardNavigation = navigation;\n"
        '    const navigated = readAppState(navigation.param, config.appKey ?? "");\n'
        "    if (appState !== JSON.stringify(navigated ?? null)) return;\n",
        "",
        [
            "no_echo_when_reports_come_faster_than_renders",
            "eight_apps_three_evicted_then_a_navigation_pushes_nothing",
            "an_over_cap_app_then_another_params_navigation_pushes_nothing",
        ],
    ),
    "a write forgets the page's last navigation": (
        STORE,
        'if (navigationType === "replace") return;',
        'if (navigationType === "replace") return void (lastNavigation = undefined);',
        ["back_while_another_app_reports_still_pushes"],
    ),
    "a loading app starts from the state it was mounted with": (
        STORE,
        "      this.contextAppState = this.shownAppState;\n",
        "",
        ["a_link_and_a_theme_while_the_app_loads_start_it_from_the_newest"],
    ),
    "theme pushes resend the app's state": (
        STORE,
        "    const appState = this.contextAppState;\n",
        "    const appState = this.shownAppState;\n",
        ["theme_pushes_resend_no_state"],
    ),
    "the capability advertised where no state is kept": (
        STORE,
        "const capabilities = onAppStateChange\n",
        "const capabilities = true\n",
        ["the_capability_is_advertised_where_state_is_kept"],
    ),
    "each report its own navigation": (
        HOOK,
        "      if (reports.size === 0) requestAnimationFrame(() => writeReports(router));\n",
        "      queueMicrotask(() => writeReports(router));\n",
        ["sixty_reports_in_one_frame_make_one_history_write"],
    ),
    "no cap on the param": (
        FORMAT,
        "    if (next.length <= APP_STATE_MAX_LENGTH) return next;\n",
        "    return next;\n",
        ["eight_apps_three_evicted_then_a_navigation_pushes_nothing"],
    ),
    "an over-cap state leaves the app's older slot": (
        FORMAT,
        "  return others.length > 0 ? encode(others) : undefined;\n",
        "  return param || undefined;\n",
        ["an_over_cap_app_then_another_params_navigation_pushes_nothing"],
    ),
    "a slot that did not change is a new value": (
        FORMAT,
        "        if (same) slots.set(key, state);\n",
        "",
        ["only_the_part_whose_slot_changed_renders"],
    ),
    "any version's slots read": (
        FORMAT,
        "if (value?.v === 2 && ",
        "if (",
        ["an_undecodable_or_earlier_form_is_no_state"],
    ),
    "a param that is not a string fails the route": (
        ROUTES,
        "z.string().optional().catch(undefined)",
        "z.string().optional()",
        ["an_undecodable_or_earlier_form_is_no_state"],
    ),
    "a report without state accepted": (
        TYPES,
        "params: z.object({ state: z.json() })",
        "params: z.object({ state: z.json().optional() })",
        ["a_report_without_state_is_ignored"],
    ),
    "open in panel leaves the panel's slot": (
        PART,
        "          `${connectionId}:${rawToolName}`,\n        ),\n",
        "          part.toolCallId,\n        ),\n",
        ["open_in_panel_starts_the_panels_app_from_the_part"],
    ),
}


def test_every_scenario_has_a_mutation() -> None:
    named = {name for *_, scenarios in MUTATIONS.values() for name in scenarios}
    assert sorted(set(SCENARIOS) - named) == []
    assert named <= set(SCENARIOS)


@pytest.mark.slow
@pytest.mark.mutation
@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_a_behaviour_taken_out_fails_its_scenarios(
    mutation: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    _node()
    _tools()
    path, text, mutated, scenarios = MUTATIONS[mutation]
    src, sdk = _output(tmp_path_factory, "compat-1.7.1")
    copy = tmp_path / "src"
    shutil.copytree(src, copy)
    original = (copy / path).read_text()
    assert original.count(text) == 1, f"{path} no longer holds {text!r}"
    (copy / path).write_text(original.replace(text, mutated))
    results = _run(copy, sdk, *scenarios)
    passed = [name for name in scenarios if results[name]["ok"]]
    assert passed == [], f"these scenarios pass without the behaviour: {passed}"
