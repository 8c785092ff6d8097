"""The installed SDK's declarations decide the names and the capability's
shape, and `[names]` sets the table for both halves (SPEC 5, 10; issue 40
items 2-4).

Each SDK here is a released package (1.7.1, 2.0.4) copied and edited as an
SDK release could ship the feature: `appState?: { maxBytes?: number }` or
`appState?: boolean` in `McpUiHostCapabilities`; the feature under the
view-state names (method, event key, 1.x accessor, context field,
capability); or under names no set of the tool knows. The output is
type-checked with the real `tsc` against those declarations.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from codemods.plan.runner import plan
from codemods.recipes.names import NAMES, RECOMMENDED, Names

from .sdk_support import SDK_FIXTURES
from .support import invoke, snapshot
from .test_sdk_declarations import BRIDGE, PACKAGE, _tree, installed
from .test_typescript_tools import _errors, _typecheck_tree, tsc  # noqa: F401 (fixture)

TYPES = "apps/mesh/src/mcp-apps/types.ts"
STORE_TESTS = "apps/mesh/src/mcp-apps/use-app-bridge.test.ts"


def _sdk(tree: Path, release: str, *, names: Names | None = None, capability: str = "") -> None:
    """``release``'s declarations installed in ``tree``, plus: the feature
    under ``names`` (its notification, context field, event key, and on 1.x
    an accessor no doc comment deprecates), and the capability member typed
    ``capability`` when given."""
    src = installed(tree, release) / "dist" / "src"
    spec = (src / "spec.types.d.ts").read_text()
    cap_name = (names or NAMES).capability
    if capability:
        anchor = "export interface McpUiHostCapabilities {\n"
        spec = spec.replace(anchor, f"{anchor}    {cap_name}?: {capability};\n", 1)
    if names is not None:
        anchor = "export interface McpUiHostContext {\n"
        spec = spec.replace(anchor, f"{anchor}    {names.context_field}?: unknown;\n", 1)
        spec += (
            f"\nexport interface {names.notification_type} {{\n"
            f'    method: "{names.method}";\n    params: {{ state: unknown }};\n}}\n'
        )
        bridge = f'import type {{ {names.notification_type} }} from "./spec.types.js";\n' + (src / "app-bridge.d.ts").read_text()
        anchor = '    sizechange: McpUiSizeChangedNotification["params"];\n'
        bridge = bridge.replace(anchor, f'{anchor}    {names.event}: {names.notification_type}["params"];\n', 1)
        if release.startswith("1."):
            setter = re.search(r"    set onsizechange\(.*\);\n", bridge)
            signature = f'(params: {names.notification_type}["params"]) => void'
            added = f"    get {names.accessor}(): ({signature}) | undefined;\n    set {names.accessor}(callback: ({signature}) | undefined);\n"
            bridge = bridge[: setter.end()] + added + bridge[setter.end():]
        (src / "app-bridge.d.ts").write_text(bridge)
    (src / "spec.types.d.ts").write_text(spec)


def _names_toml(names: Names) -> str:
    return "[names]\n" + "".join(f'{field} = "{value}"\n' for field, value in names._asdict().items())


def _apply(tree: Path, *args: str) -> dict:
    result = invoke("apply", "--repo", tree, "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _type_checks(tsc: Path, tmp: Path, release: str, tree: Path, **sdk) -> set[str]:
    """tsc's errors in the output that the checkout without the feature,
    on the same SDK, does not have."""
    base = _tree(tmp / "base", release)
    _sdk(base, release, **sdk)
    baseline = _errors(tsc, _typecheck_tree(base, tmp / "tsc-base"), "tsconfig.json")
    work = _typecheck_tree(tree, tmp / "tsc-run")
    return _errors(tsc, work, "tsconfig.json") - baseline, work, baseline


# ---- item 2: the capability in the shape McpUiHostCapabilities declares ----

SHAPES = {"maxBytes": ("{ maxBytes?: number }", "{ maxBytes: 1024 }"), "boolean": ("boolean", "true")}


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_capability_is_written_in_the_shape_the_sdk_declares_and_type_checks(
    shape: str, tmp_path: Path, tsc: Path
) -> None:
    declared, written = SHAPES[shape]
    tree = _tree(tmp_path / "run", "1.7.1")
    _sdk(tree, "1.7.1", capability=declared)
    _apply(tree)
    store = (tree / BRIDGE).read_text()
    assert f"appState: {written} }}" in store, store
    assert "maxLength" not in store
    assert f"expect(one.capability()).toEqual({written});" in (tree / STORE_TESTS).read_text()

    new, work, baseline = _type_checks(tsc, tmp_path, "1.7.1", tree, capability=declared)
    assert new == set(), new
    # the check can fail: 0.6.0's shape does not fit this SDK (TS2345 at `new AppBridge`)
    path = work / BRIDGE
    path.write_text(path.read_text().replace(f"appState: {written} }}", "appState: { maxLength: 1024 } }"))
    assert any("use-app-bridge.ts" in e for e in _errors(tsc, work, "tsconfig.json") - baseline)


def test_a_shape_the_tool_cannot_fill_is_left_out_and_said(tmp_path: Path) -> None:
    tree = _tree(tmp_path, "1.7.1")
    _sdk(tree, "1.7.1", capability="{ maxBytes?: number; encoding: string }")
    result = invoke("apply", "--repo", tree)
    assert result.exit_code == 0, result.output
    assert "`McpUiHostCapabilities.appState` is declared `{ maxBytes?: number; encoding: string }`" in result.stderr
    assert "capability is left out" in result.stderr
    assert "appState: {" not in (tree / BRIDGE).read_text()
    assert "expect(one.capability()).toEqual(undefined);" in (tree / STORE_TESTS).read_text()


def test_a_change_of_the_sdk_s_shape_is_a_migration_of_the_store_and_its_test(tmp_path: Path) -> None:
    tree = _tree(tmp_path, "1.7.1")
    _sdk(tree, "1.7.1")  # the release as it is: the capability undeclared
    _apply(tree)
    assert "appState: { maxLength: 1024 } }" in (tree / BRIDGE).read_text()
    shutil.rmtree(tree / PACKAGE)
    _sdk(tree, "1.7.1", capability="{ maxBytes?: number }")  # the SDK ships its shape
    assert invoke("apply", "--repo", tree, "--check").exit_code == 1
    result = invoke("apply", "--repo", tree)
    assert result.exit_code == 0, result.output
    assert re.search(r"migrate lines? [0-9-]+: the capability `appState: \{ maxLength: 1024 \}`", result.stderr), result.stderr
    assert re.search(r"migrate the file: appState: \{ maxLength: 1024 \}", result.stderr), result.stderr
    assert "appState: { maxBytes: 1024 } }" in (tree / BRIDGE).read_text()
    assert "toEqual({ maxBytes: 1024 });" in (tree / STORE_TESTS).read_text()
    assert invoke("apply", "--repo", tree, "--check").exit_code == 0


def test_a_migration_to_the_sdk_s_names_or_shape_says_so_in_its_commit(tmp_path: Path) -> None:
    """`patch` on a checkout wired for the released SDK, once the SDK ships
    the view-state names and a `maxBytes` capability: one commit, titled
    as following the SDK."""
    from .gitrepo import BOT, commit_all, git

    tree = _tree(tmp_path, "1.7.1")
    git(tree, "init", "-q")
    _sdk(tree, "1.7.1")
    _apply(tree)
    commit_all(tree, "the feature")
    shutil.rmtree(tree / PACKAGE)
    _sdk(tree, "1.7.1", names=RECOMMENDED, capability="{ maxBytes?: number }")
    out = tmp_path / "patches"
    result = invoke("patch", "--repo", tree, "--author", BOT, "--out", out)
    assert result.exit_code == 0, result.output
    patches = sorted(out.glob("*.patch"))
    assert len(patches) == 1, patches
    header = patches[0].read_text().split("\n\n", 1)[0]
    subject = re.search(r"^Subject: (.*(?:\n .*)*)", header, re.M)[1].replace("\n", "")
    assert "refactor(mcp-apps): follow the SDK's names and capability shape" in subject, subject


# ---- item 3: the names the SDK declares ----

WIRED = {
    "1.7.1": "bridge.onviewstatechange = (params) => {",
    "2.0.4": 'bridge.addEventListener("viewstatechange", (params) => {',
}


@pytest.mark.slow
@pytest.mark.parametrize("release", sorted(WIRED))
def test_an_sdk_under_the_view_state_names_is_wired_with_them_and_type_checks(
    release: str, tmp_path: Path, tsc: Path
) -> None:
    sdk = {"names": RECOMMENDED, "capability": "{ maxLength?: number }"}
    tree = _tree(tmp_path / "run", release)
    _sdk(tree, release, **sdk)
    report = _apply(tree)
    assert report["bridge"]["mode"] == "sdk", report["bridge"]
    store = (tree / BRIDGE).read_text()
    assert WIRED[release] in store, store
    for wire in ("sendHostContextChange({ viewState: this.shownAppState })", "...(viewState !== undefined && { viewState })",
                 "viewState: { maxLength: 1024 } }"):
        assert wire in store, wire
    assert NAMES.method not in store and "setNotificationHandler(" not in store.split("onsizechange", 1)[1]
    tests = (tree / STORE_TESTS).read_text()
    assert f'const method = "{RECOMMENDED.method}";' in tests and "getHostContext()?.viewState" in tests
    assert "StateChangedNotificationSchema" not in (tree / TYPES).read_text()

    new, _work, _baseline = _type_checks(tsc, tmp_path, release, tree, **sdk)
    assert new == set(), new

    # compat registers the method the SDK's Views send
    compat = _tree(tmp_path / "compat", release)
    _sdk(compat, release, **sdk)
    _apply(compat, "--bridge", "compat")
    registered = (compat / BRIDGE).read_text() + (compat / TYPES).read_text()
    assert RECOMMENDED.method in registered and NAMES.method not in registered


@pytest.mark.parametrize("release", sorted(WIRED))
def test_a_checkout_wired_under_our_names_migrates_to_the_sdk_s_names(release: str, tmp_path: Path) -> None:
    """Applied on the released SDK (compat, our names), then the SDK ships
    the feature under the view-state names: one migration, whose result is
    what a fresh run on that SDK writes."""
    sdk = {"names": RECOMMENDED}
    fresh = _tree(tmp_path / "fresh", release)
    _sdk(fresh, release, **sdk)
    _apply(fresh)
    tree = _tree(tmp_path / "run", release)
    _sdk(tree, release)
    assert _apply(tree)["bridge"]["mode"] == "compat"
    shutil.rmtree(tree / PACKAGE)
    _sdk(tree, release, **sdk)
    assert invoke("apply", "--repo", tree, "--check").exit_code == 1
    result = invoke("apply", "--repo", tree)
    assert result.exit_code == 0, result.output
    assert "migrate" in result.stderr and "-> sdk mode" in result.stderr
    assert snapshot(tree / "apps/mesh/src") == snapshot(fresh / "apps/mesh/src")
    assert invoke("apply", "--repo", tree, "--check").exit_code == 0


def test_the_team_s_own_wiring_of_the_sdk_s_api_is_kept(tmp_path: Path) -> None:
    tree = _tree(tmp_path, "1.7.1")
    _sdk(tree, "1.7.1", names=RECOMMENDED)
    path = tree / BRIDGE
    text = path.read_text()
    anchor = re.search(r"\n( *)bridge\.onsizechange = ", text)
    indent = anchor.group(1)
    theirs = f"{indent}bridge.onviewstatechange = ({{ state }}) => {{\n{indent}  this.config.onAppStateChange?.(state);\n{indent}}};\n"
    path.write_text(text[: anchor.start() + 1] + theirs + text[anchor.start() + 1:])
    _apply(tree)
    after = path.read_text()
    assert theirs in after
    assert after.count("bridge.onviewstatechange") == 1
    assert "setNotificationHandler(" not in after.split("onsizechange", 1)[1]
    assert "StateChangedNotificationSchema" not in (tree / TYPES).read_text()
    assert invoke("apply", "--repo", tree, "--check").exit_code == 0


UNKNOWN = Names(
    method="ui/notifications/ui-state-changed", notification_type="McpUiUiStateChangedNotification",
    method_constant="UI_STATE_CHANGED_METHOD", context_field="uiState", capability="uiState", event="uistatechange",
    accessor="onuistatechange", sender="sendUiStateChanged", term="ui state",
)


def test_names_the_tool_does_not_know_block_the_run_until_names_settles_them(tmp_path: Path) -> None:
    tree = _tree(tmp_path, "2.0.4")
    _sdk(tree, "2.0.4", names=UNKNOWN)
    for bridge in ("auto", "compat"):
        refused = invoke("apply", "--repo", tree, "--bridge", bridge, "--dry-run")
        assert refused.exit_code == 3, refused.output
        assert f"the method `{UNKNOWN.method}`" in refused.stderr and "the event `uistatechange`" in refused.stderr
        assert "[names]" in refused.stderr
    (tree / ".mesh-codemod.toml").write_text(_names_toml(UNKNOWN))
    _apply(tree)
    assert 'bridge.addEventListener("uistatechange", (params) => {' in (tree / BRIDGE).read_text()


# ---- item 4: `[names]` in .mesh-codemod.toml, both halves ----


def test_names_sets_the_host_half_s_names(tmp_path: Path) -> None:
    tree = _tree(tmp_path, "1.7.1")
    _sdk(tree, "1.7.1")  # declares nothing of the feature: compat, under the team's names
    (tree / ".mesh-codemod.toml").write_text(_names_toml(RECOMMENDED))
    report = _apply(tree)
    assert report["bridge"]["mode"] == "compat"
    store, types = (tree / BRIDGE).read_text(), (tree / TYPES).read_text()
    assert f'method: z.literal("{RECOMMENDED.method}")' in types and NAMES.method not in types
    for wire in ("sendHostContextChange({ viewState: this.shownAppState })", "viewState: { maxLength: 1024 } }"):
        assert wire in store
    assert f'const method = "{RECOMMENDED.method}";' in (tree / STORE_TESTS).read_text()
    assert invoke("apply", "--repo", tree, "--check").exit_code == 0


def test_names_sets_the_sdk_half_s_names(tmp_path: Path) -> None:
    tree = tmp_path / "sdk"
    shutil.copytree(SDK_FIXTURES / "shape-c-full" / "input", tree)
    (tree / ".mesh-codemod.toml").write_text(_names_toml(RECOMMENDED))
    changed = {c.path: c.new.decode() for c in plan(tree, only=["spec-types", "app"]).changes}
    assert "viewState?: unknown;" in changed["src/spec.types.ts"]
    assert NAMES.method not in changed["src/spec.types.ts"]
    assert 'this._assertInitialized("sendViewStateChanged");' in changed["src/app.ts"]


@pytest.mark.parametrize(
    ("table", "named"),
    [
        ({**RECOMMENDED._asdict(), "colour": "x"}, "names.colour: not a row"),
        ({k: v for k, v in RECOMMENDED._asdict().items() if k != "event"}, "names.event: missing"),
        ({**RECOMMENDED._asdict(), "event": "view state"}, "names.event: 'view state' is not a TypeScript identifier"),
    ],
)
def test_a_names_table_that_is_not_the_table_s_rows_is_a_usage_error(table: dict, named: str, tmp_path: Path) -> None:
    tree = _tree(tmp_path, "1.7.1")
    (tree / ".mesh-codemod.toml").write_text("[names]\n" + "".join(f'{k} = "{v}"\n' for k, v in table.items()))
    result = invoke("apply", "--repo", tree, "--dry-run")
    assert result.exit_code == 2, result.output
    assert f".mesh-codemod.toml: {named}" in result.stderr


def test_publish_rebuilds_with_the_names_and_shape_the_build_job_read(tmp_path: Path) -> None:
    """The build job reads the view-state names and a `maxBytes` capability
    from an SDK the tool does not know (1.8.0); publish, with nothing
    installed, takes them from its record and rebuilds the same series."""
    from .gitrepo import bun_lock, git, with_remote
    from .publish_support import BRANCH, build, manifest, publish, publisher

    remote, work = with_remote(tmp_path, lock=bun_lock("1.7.1", nested="1.8.0"))
    _sdk(work, "1.7.1", names=RECOMMENDED, capability="{ maxBytes?: number }")
    package = work / PACKAGE
    data = json.loads((package / "package.json").read_text())
    (package / "package.json").write_text(json.dumps({**data, "version": "1.8.0"}))
    artifact = build(tmp_path, work)
    choice = manifest(artifact)["choice"]
    assert choice["names"] == "view-state" and choice["capability"] == "{ maxBytes: 1024 }", choice
    result = publish(publisher(tmp_path, remote), artifact)
    assert result.exit_code == 0, result.output
    assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == manifest(artifact)["tip"]
    wired = git(remote, "show", f"refs/heads/{BRANCH}:{BRIDGE}")
    assert "bridge.onviewstatechange = (params) => {" in wired and "viewState: { maxBytes: 1024 } }" in wired


def test_the_job_is_blocked_green_while_the_tool_cannot_tell_the_sdk_s_names(tmp_path: Path) -> None:
    """`pr` on a checkout whose installed SDK declares names the tool does
    not know: no commit, blocked naming what the SDK declares (exit 0;
    `--fail-on-blocked`: exit 3)."""
    from .gitrepo import BOT, git, with_remote

    _remote, work = with_remote(tmp_path)
    _sdk(work, "1.7.1", names=UNKNOWN)  # installed, not committed
    args = ("pr", "--repo", work, "--branch", "codemod/next", "--author", BOT, "--no-verify", "--json")
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["commits"] == [] and UNKNOWN.method in json.dumps(report["blocked"]), report
    assert "codemod/next" not in git(work, "branch", "--list")
    red = invoke(*args[:-1], "--fail-on-blocked")
    assert red.exit_code == 3 and UNKNOWN.method in red.output, red.output
