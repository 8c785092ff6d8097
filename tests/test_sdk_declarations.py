"""sdk mode wires what the installed SDK declares (SPEC 5, issue 19 item 5).

Each SDK here is a DECLARATION DOUBLE: a released package's declarations
(1.7.1, or 2.0.4 from tools/package.json) with a state-changed API added
as an SDK release could ship it, installed into a copy of the newest
fixture. The codemod reads it (`--bridge auto`), and its output must
type-check with `tsc` against those same declarations: adding no error to
what the checkout has without the feature. A declaration whose types the
host cannot serve is refused, naming it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from .node_tools import NODE_MODULES, require
from .support import FIXTURES, invoke, snapshot
from .test_typescript_tools import _errors, _typecheck_tree, tsc  # noqa: F401 (fixture)

BRIDGE = "apps/mesh/src/mcp-apps/use-app-bridge.ts"
PACKAGE = Path("apps/mesh/node_modules/@modelcontextprotocol/ext-apps")
RELEASED = {"1.7.1": NODE_MODULES / "@modelcontextprotocol" / "ext-apps", "2.0.4": NODE_MODULES / "ext-apps-2"}
RANGES = {"1.7.1": "^1.2.2", "2.0.4": "^2.0.4"}
NOTIFICATION = "McpUiStateChangedNotification"


def installed(tree: Path, release: str) -> Path:
    """``release``'s package.json and declarations in ``tree`` as its
    installed SDK: the package's folder."""
    released = require(RELEASED[release], f"ext-apps {release} (tools/package.json)")
    package = tree / PACKAGE
    package.mkdir(parents=True)
    shutil.copy(released / "package.json", package / "package.json")
    for declaration in (released / "dist").rglob("*.d.ts"):
        target = package / declaration.relative_to(released)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(declaration, target)
    return package


def _install(tree: Path, release: str, *, event: str = "", accessor: str = "", params: str = "{ state: unknown }",
             context_state: str = "", deprecated_event: str = "") -> Path:
    """``release``'s declarations in ``tree`` as its installed SDK, plus:
    ``event`` in AppBridgeEventMap and/or an ``accessor`` on AppBridge, both
    taking ``McpUiStateChangedNotification["params"]`` = ``params``; and
    ``McpUiHostContext.appState`` typed ``context_state`` when given."""
    package = installed(tree, release)
    src = package / "dist" / "src"
    spec = (src / "spec.types.d.ts").read_text()
    spec += f'\nexport interface {NOTIFICATION} {{\n    method: "ui/notifications/state-changed";\n    params: {params};\n}}\n'
    if context_state:
        anchor = "export interface McpUiHostContext {\n"
        assert anchor in spec
        spec = spec.replace(anchor, f"{anchor}    appState?: {context_state};\n", 1)
    (src / "spec.types.d.ts").write_text(spec)
    bridge = f'import type {{ {NOTIFICATION} }} from "./spec.types.js";\n' + (src / "app-bridge.d.ts").read_text()
    signature = f'(params: {NOTIFICATION}["params"]) => void'
    if event:
        anchor = '    sizechange: McpUiSizeChangedNotification["params"];\n'
        assert anchor in bridge
        bridge = bridge.replace(anchor, f'{anchor}    {event}: {NOTIFICATION}["params"];\n', 1)
    if deprecated_event:
        anchor = '    sizechange: McpUiSizeChangedNotification["params"];\n'
        old = f'    /**\n     * @deprecated Use `{event}`, its new name.\n     */\n    {deprecated_event}: {NOTIFICATION}["params"];\n'
        bridge = bridge.replace(anchor, anchor + old, 1)
    if accessor:
        # after onsizechange's setter: a member of its own, with no doc
        # comment (so not deprecated)
        setter = re.search(r"    set onsizechange\(.*\);\n", bridge)
        assert setter is not None
        added = f"    get {accessor}(): ({signature}) | undefined;\n    set {accessor}(callback: ({signature}) | undefined);\n"
        bridge = bridge[: setter.end()] + added + bridge[setter.end() :]
    (src / "app-bridge.d.ts").write_text(bridge)
    return package


def _tree(tmp_path: Path, release: str) -> Path:
    tree = tmp_path / "mesh"
    shutil.copytree(FIXTURES / "newest" / "input", tree)
    manifest = tree / "apps/mesh/package.json"
    data = json.loads(manifest.read_text())
    data["dependencies"]["@modelcontextprotocol/ext-apps"] = RANGES[release]
    manifest.write_text(json.dumps(data, indent=2) + "\n")
    return tree


# name -> (release, what the SDK declares, what the host must wire)
CASES = {
    # our proposal on 1.x (shape B): the event key, the accessor deprecated
    # like every event-backed on* of 1.7.1, so addEventListener
    "proposed-1.x": ("1.7.1", {"event": "statechange"}, ['bridge.addEventListener("statechange", (params) =>']),
    # an SDK that shipped the earlier names, with an accessor it does not
    # deprecate, and the state as `appState`: exactly that
    "accessor-appstate": (
        "1.7.1",
        {"accessor": "onappstatechange", "params": "{ appState: unknown }"},
        ["bridge.onappstatechange = (params) =>", "this.config.onAppStateChange?.(params.appState);"],
    ),
    # a state typed as a record: the host only passes it on as unknown
    "record-state": (
        "1.7.1",
        {"event": "appstatechange", "params": "{ state: Record<string, unknown> | null }"},
        ['bridge.addEventListener("appstatechange", (params) =>', "this.config.onAppStateChange?.(params.state);"],
    ),
    # an SDK that renamed the event: `appstatechange` declared, and
    # `statechange` kept but @deprecated (listed first): the current name
    "renamed-1.x": (
        "1.7.1",
        {"event": "appstatechange", "deprecated_event": "statechange"},
        ['bridge.addEventListener("appstatechange", (params) =>'],
    ),
    "renamed-2.x": (
        "2.0.4",
        {"event": "appstatechange", "deprecated_event": "statechange"},
        ['bridge.addEventListener("appstatechange", (params) =>'],
    ),
    # 2.x (shape C): the event key only
    "proposed-2.x": ("2.0.4", {"event": "statechange"}, ['bridge.addEventListener("statechange", (params) =>']),
}


_BASELINES: dict[str, set[str]] = {}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_sdk_mode_wires_what_the_installed_sdk_declares_and_type_checks(case: str, tmp_path: Path, tsc: Path) -> None:
    release, declared, wired = CASES[case]
    baseline_tree = _tree(tmp_path / "base", release)
    _install(baseline_tree, release, **declared)
    tree = _tree(tmp_path / "run", release)
    _install(tree, release, **declared)

    result = invoke("apply", "--repo", tree, "--json")
    assert result.exit_code == 0, result.output
    bridge = json.loads(result.stdout)["bridge"]
    assert bridge["mode"] == "sdk", bridge
    assert bridge["sdk_api"]["declared_in"].startswith(f"{PACKAGE.as_posix()}/dist/src/app-bridge.d.ts"), bridge
    text = (tree / BRIDGE).read_text()
    for line in wired:
        assert line in text, text
    # nothing else: neither another API nor a compat schema (one handler,
    # handing the declared params member to the render site)
    assert len(re.findall(r"this\.config\.onAppStateChange\?\.\(params\.\w+\)", text)) == 1, text
    assert "StateChangedNotificationSchema" not in text
    assert invoke("apply", "--repo", tree, "--check").exit_code == 0

    # the checkout's own errors under this SDK (the added API changes none of them)
    if release not in _BASELINES:
        _BASELINES[release] = _errors(tsc, _typecheck_tree(baseline_tree, tmp_path / "tsc-base"), "tsconfig.json")
    baseline = _BASELINES[release]
    work = _typecheck_tree(tree, tmp_path / "tsc-run")
    assert _errors(tsc, work, "tsconfig.json") <= baseline
    if release == "1.7.1":
        assert baseline == set(), baseline

    # the check can fail: the other params member is a type error
    path = work / BRIDGE
    other = "state" if "params.appState" in text else "appState"
    path.write_text(re.sub(r"params\.(appState|state)\b", f"params.{other}", path.read_text()))
    new = _errors(tsc, work, "tsconfig.json") - baseline
    assert any("use-app-bridge.ts" in e for e in new), new


def test_a_declared_state_type_the_url_cannot_promise_is_refused_naming_it(tmp_path: Path) -> None:
    tree = _tree(tmp_path, "1.7.1")
    _install(tree, "1.7.1", event="statechange", context_state="Record<string, unknown>")
    before = snapshot(tree)
    # No mode's code type-checks against it (compat's spread of the URL's
    # value into the host context too): every mode refuses, naming it.
    for bridge in ("auto", "compat", "sdk"):
        refused = invoke("apply", "--repo", tree, "--bridge", bridge, "--dry-run")
        assert refused.exit_code == 3, (bridge, refused.output)
        assert f"{PACKAGE.as_posix()}/dist/src/spec.types.d.ts" in refused.stderr
        assert "`McpUiHostContext.appState` is declared `Record<string, unknown>`" in refused.stderr
        assert refused.stdout == ""
    assert invoke("apply", "--repo", tree).exit_code == 3
    assert snapshot(tree) == before


def test_a_declared_state_type_is_refused_without_a_state_changed_api_too(tmp_path: Path) -> None:
    tree = _tree(tmp_path, "1.7.1")
    _install(tree, "1.7.1", context_state="Record<string, unknown>")  # no state-changed API either
    before = snapshot(tree)
    refused = invoke("apply", "--repo", tree)
    assert refused.exit_code == 3, refused.output
    assert "`McpUiHostContext.appState` is declared `Record<string, unknown>`" in refused.stderr
    assert snapshot(tree) == before


def test_an_sdk_without_state_changed_stays_compat_and_sdk_mode_is_refused(tmp_path: Path) -> None:
    tree = _tree(tmp_path, "1.7.1")
    _install(tree, "1.7.1")  # the release as it is: no state-changed API
    auto = invoke("apply", "--repo", tree, "--dry-run", "--json")
    bridge = json.loads(auto.stdout)["bridge"]
    assert bridge["mode"] == "compat"
    assert "declares no state-changed API" in bridge["reason"]
    before = snapshot(tree)
    forced = invoke("apply", "--repo", tree, "--bridge", "sdk")
    assert forced.exit_code == 3, forced.output
    assert "declares no state-changed API" in forced.stderr
    assert snapshot(tree) == before


def test_a_text_mention_is_not_a_declaration(tmp_path: Path) -> None:
    """Detection reads the syntax tree, not the text: the names in a comment
    or an unrelated type do not make an API."""
    tree = _tree(tmp_path, "1.7.1")
    package = _install(tree, "1.7.1")
    declarations = package / "dist/src/app-bridge.d.ts"
    declarations.write_text(
        declarations.read_text()
        + "\n/** onappstatechange and statechange are not shipped */\n"
        + "export type Unrelated = { statechange: unknown; onstatechange: unknown };\n"
    )
    bridge = json.loads(invoke("apply", "--repo", tree, "--dry-run", "--json").stdout)["bridge"]
    assert bridge["mode"] == "compat", bridge


@pytest.mark.parametrize("bridge", ["auto", "sdk"])
def test_the_bridge_line_names_the_declaration_once(bridge: str, tmp_path: Path) -> None:
    tree = _tree(tmp_path, "1.7.1")
    _install(tree, "1.7.1", accessor="onstatechange")
    result = invoke("apply", "--repo", tree, "--dry-run", "--bridge", bridge)
    assert result.exit_code == 0, result.output
    line = next(line for line in result.stderr.splitlines() if line.startswith("bridge: "))
    assert line.startswith("bridge: sdk: bridge.onstatechange, params.state ("), line
    assert line.count(f"{PACKAGE.as_posix()}/dist/src/app-bridge.d.ts (AppBridge.onstatechange)") == 1, line
