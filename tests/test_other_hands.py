"""The feature by other hands (SPEC 5a): mesh writes part of the feature
itself, its own way, while the tool's PR is open.

fixtures/host/team-wrote-it is mesh's newest tree where the team registered
`ui/notifications/state-changed` with a schema of its own (in types.ts,
under its own name) and takes `appState: z.string().optional()` in the
route's search schema. The steps that would write those stand down and say
where: never a second registration (ext-apps throws "already registered"
on one, and no app loads), never an import nothing uses (tsc's TS6133 under
mesh's `noUnusedLocals`). The slow tests run the output: mesh's compiler
flags over the real packages, and the real AppBridge of ext-apps 1.7.1 and
2.0.4 under Bun.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .node_tools import BIN, NODE_MODULES, require
from .support import FIXTURES, invoke
from .test_typescript_tools import _errors, _typecheck_tree

CASE = FIXTURES / "team-wrote-it"
STORE = "apps/mesh/src/mcp-apps/use-app-bridge.ts"
TYPES = "apps/mesh/src/mcp-apps/types.ts"
INDEX = "apps/mesh/src/web/index.tsx"
METHOD = "ui/notifications/state-changed"
# What the tool's handler does, in every mode and form: hand the state to
# the render site.
TOOLS_HANDLER = re.compile(r"this\.config\.onAppStateChange\?\.\(params\.")
TEAMS_LINE = 213  # of the team's registration in the fixture's store


def _world(tmp_path: Path) -> Path:
    repo = tmp_path / "mesh"
    shutil.copytree(CASE / "input", repo)
    return repo


def _apply(repo: Path, mode: str = "compat"):
    result = invoke("apply", "--repo", repo, "--bridge", mode)
    assert result.exit_code == 0, result.output
    return result


def _registrations(text: str) -> int:
    """How many times the store's text registers the method: by a schema
    naming it, by its name, or by the SDK's own API."""
    return len(re.findall(r"setNotificationHandler\(|fallbackNotificationHandler =|\.onstatechange =|addEventListener\(\s*\"statechange\"", text))


@pytest.mark.parametrize("mode", ["compat", "sdk"])
def test_mesh_s_own_handler_and_param_stand_the_steps_down(mode: str, tmp_path: Path) -> None:
    repo = _world(tmp_path)
    result = _apply(repo, mode)
    store = (repo / STORE).read_text()
    assert _registrations(store) == 1 and "AppViewReportSchema, ({ params })" in store
    assert not TOOLS_HANDLER.search(store)
    # no schema of the tool's, nor its import: the registration is the team's
    assert "StateChangedNotificationSchema" not in store + (repo / TYPES).read_text()
    assert (repo / TYPES).read_bytes() == (CASE / "input" / TYPES).read_bytes()
    # the team's key is the param: the tool's constant is imported by nothing
    assert (repo / INDEX).read_bytes() == (CASE / "input" / INDEX).read_bytes()
    # the tool's store tests test the tool's handler: not written
    assert not (repo / "apps/mesh/src/mcp-apps/use-app-bridge.test.ts").exists()
    # each step says where
    assert f"mesh handles {METHOD} itself at {STORE}:{TEAMS_LINE}" in result.stderr
    assert f"appState search param at {INDEX}:67" in result.stderr
    lines = {line.split()[0]: line.split()[1] for line in result.stderr.splitlines() if line.startswith("  ") and len(line.split()) > 2}
    assert lines["protocol-types"] == "already" and lines["search-schema"] == "already", result.stderr


# The team's registration in other shapes, each replacing the fixture's.
TEAMS = """    bridge.setNotificationHandler(AppViewReportSchema, ({ params }) => {
      if (this.disposed) return;
      this.config.onViewReport?.(params.state);
    });
"""
SHAPES = {
    "the 2.x form, by the method's name": TEAMS.replace(
        "AppViewReportSchema, ({ params }) => {",
        "\n      'ui/notifications/state-changed',\n      { params: AppViewReportSchema.shape.params },\n      (params) => {",
    ).replace("    });\n", "      },\n    );\n"),
    "a fallback handler that checks the method": """    bridge.fallbackNotificationHandler = async ({ method, params }) => {
      if (method === "ui/notifications/state-changed") {
        this.config.onViewReport?.(params?.state);
      }
    };
""",
    "the SDK's accessor wired by hand": """    bridge.onstatechange = ({ state }) => {
      this.config.onViewReport?.(state);
    };
""",
    "the SDK's event wired by hand": """    bridge.addEventListener("statechange", ({ state }) => {
      this.config.onViewReport?.(state);
    });
""",
}


@pytest.mark.parametrize("mode", ["compat", "sdk"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_team_s_registration_in_any_shape_is_present(shape: str, mode: str, tmp_path: Path) -> None:
    repo = _world(tmp_path)
    store = repo / STORE
    text = store.read_text()
    assert TEAMS in text
    store.write_text(text.replace(TEAMS, SHAPES[shape]))
    result = _apply(repo, mode)
    after = store.read_text()
    assert _registrations(after) == 1 and not TOOLS_HANDLER.search(after), after
    assert "StateChangedNotificationSchema" not in after and "StateChangedParamsSchema" not in after
    assert f"mesh handles {METHOD} itself at {STORE}:" in result.stderr


@pytest.mark.parametrize(
    "where",
    ["declared in the store's file", "imported through mesh's alias", "imported as a namespace", "imported from the SDK"],
)
def test_the_team_s_schema_is_found_wherever_it_is_declared(where: str, tmp_path: Path) -> None:
    repo = _world(tmp_path)
    store, types = repo / STORE, repo / TYPES
    text = store.read_text()
    if where == "declared in the store's file":
        schema = types.read_text().split("// An app tells Studio", 1)[1]
        text = text.replace('import { AppViewReportSchema } from "./types";\n', 'import { z } from "zod";\n')
        text = text.replace("interface BridgeSnapshot {", "// An app tells Studio" + schema.replace("export ", "") + "\ninterface BridgeSnapshot {")
    elif where == "imported through mesh's alias":
        text = text.replace('from "./types";', 'from "@/mcp-apps/types.ts";')
    elif where == "imported as a namespace":
        text = text.replace("import { AppViewReportSchema } from", "import * as protocol from")
        text = text.replace("setNotificationHandler(AppViewReportSchema,", "setNotificationHandler(protocol.AppViewReportSchema,")
    else:  # the schema the SDK generates of the notification, once it ships one
        text = text.replace('import { AppViewReportSchema } from "./types";\n', 'import { McpUiStateChangedNotificationSchema as AppViewReportSchema } from "@modelcontextprotocol/ext-apps/app-bridge";\n')
    store.write_text(text)
    _apply(repo)
    assert _registrations(store.read_text()) == 1, store.read_text()


def test_a_schema_of_another_method_is_not_the_registration(tmp_path: Path) -> None:
    """The role is the method, not the call: the team's registration of
    another notification leaves the tool's to be added."""
    repo = _world(tmp_path)
    types = repo / TYPES
    types.write_text(types.read_text().replace(f'z.literal("{METHOD}")', 'z.literal("ui/notifications/view-ready")'))
    result = _apply(repo)
    store = (repo / STORE).read_text()
    assert _registrations(store) == 2 and TOOLS_HANDLER.search(store), store
    assert "mesh handles" not in result.stderr


def test_the_team_s_capability_is_kept(tmp_path: Path) -> None:
    repo = _world(tmp_path)
    store = repo / STORE
    store.write_text(store.read_text().replace("  updateModelContext: { text: {} },\n", "  updateModelContext: { text: {} },\n  appState: { maxLength: 2048 },\n"))
    result = _apply(repo)
    text = store.read_text()
    assert text.count("appState: { maxLength: 2048 }") == 1 and "{ maxLength: 1024 }" not in text, text
    assert f"mesh advertises the appState capability itself at {STORE}:" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("context", [False, True], ids=["handler-and-param", "and-host-context"])
def test_the_output_type_checks_with_mesh_s_flags(context: bool, tmp_path: Path) -> None:
    """mesh's compiler options (noUnusedLocals among them), the real
    packages: the tool's output adds no error to the team's tree."""
    tsc = require(BIN / "tsc", "TypeScript (tsc)")
    repo = _world(tmp_path)
    if context:
        _with_the_team_s_context(repo / STORE)
    before = _errors(tsc, _typecheck_tree(repo, tmp_path / "before"), "tsconfig.json")
    _apply(repo)
    after = _errors(tsc, _typecheck_tree(repo, tmp_path / "after"), "tsconfig.json")
    assert after <= before, sorted(after - before)


SDKS = {"1.7.1": "@modelcontextprotocol/ext-apps", "2.0.4": "ext-apps-2"}


@pytest.mark.slow
@pytest.mark.parametrize("sdk", list(SDKS))
def test_the_real_bridge_constructs_with_the_patched_store(sdk: str, tmp_path: Path) -> None:
    """ext-apps throws `Handler for "ui/notifications/state-changed" already
    registered` on a second registration; the store catches it into its
    snapshot's error and no app loads. With the tool's output the bridge
    constructs, and a report reaches the team's handler once."""
    bun = require(BIN / "bun", "Bun")
    require(NODE_MODULES / SDKS[sdk], f"ext-apps {sdk} (tools/package.json)")
    repo = _world(tmp_path)
    _apply(repo)
    work = tmp_path / "app"
    shutil.copytree(repo / "apps/mesh/src/mcp-apps", work)
    shutil.copy(Path(__file__).parent / "bridge" / "team-registration.test.ts", work / "team-registration.test.ts")
    modules = work / "node_modules"
    modules.mkdir()
    for entry in NODE_MODULES.iterdir():
        if entry.name != "@modelcontextprotocol":
            (modules / entry.name).symlink_to(entry)
    scope = modules / "@modelcontextprotocol"
    scope.mkdir()
    for entry in (NODE_MODULES / "@modelcontextprotocol").iterdir():
        if entry.name != "ext-apps":
            (scope / entry.name).symlink_to(entry)
    (scope / "ext-apps").symlink_to(NODE_MODULES / SDKS[sdk])
    run = subprocess.run(
        [str(bun), "test", "./team-registration.test.ts"], cwd=work, capture_output=True, text=True, timeout=300
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0 and " 1 pass" in output and " 0 fail" in output, output


def _with_the_team_s_context(store: Path) -> None:
    """The team's builder puts the state in the context, from a config
    field of its own."""
    text = store.read_text()
    for old, new in (
        ("  orgId?: string,\n): McpUiHostContext {", "  orgId?: string,\n  view?: unknown,\n): McpUiHostContext {"),
        ("    ...(orgId != null && { orgId }),\n", "    ...(orgId != null && { orgId }),\n    ...(view !== undefined && { appState: view }),\n"),
        ("  onViewReport?: (state: unknown) => void;\n}\n", "  onViewReport?: (state: unknown) => void;\n  view?: unknown;\n}\n"),
        ("const { displayMode, maxHeight, toolInfo, orgId } = this.config;", "const { displayMode, maxHeight, toolInfo, orgId, view } = this.config;"),
        ("buildHostContext(displayMode, toolInfo, maxHeight, orgId),", "buildHostContext(displayMode, toolInfo, maxHeight, orgId, view),"),
        ("const { client, displayMode, maxHeight, toolInfo, orgId } = this.config;", "const { client, displayMode, maxHeight, toolInfo, orgId, view } =\n        this.config;"),
        ("        orgId,\n      );\n", "        orgId,\n        view,\n      );\n"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    store.write_text(text)


def test_the_team_s_host_context_field_is_kept(tmp_path: Path) -> None:
    repo = _world(tmp_path)
    store = repo / STORE
    _with_the_team_s_context(store)
    before = store.read_text()
    result = _apply(repo)
    text = store.read_text()
    # the team's builder and its calls stay; the store keeps no context state of its own
    assert "...(view !== undefined && { appState: view })" in text
    assert text.count("buildHostContext(") == before.count("buildHostContext(")
    assert "contextAppState" not in text and "hostContext()" not in text, text
    assert f"mesh puts appState in the host context itself at {STORE}:" in result.stderr
    # the app's state still reaches a live app
    assert "this.bridge.sendHostContextChange({ appState: this.shownAppState })" in text
    again = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert again.exit_code == 0 and "nothing to do" in again.stderr, again.output


@pytest.mark.slow
def test_a_no_to_the_rest_holds_while_main_moves_on(tmp_path: Path) -> None:
    """The scheduled job on mesh's own feature: its PR holds no second
    registration and no unused import; closed without merging, it is a "no"
    the next days keep, though main moves on (lines above the team's
    handler too, so the step's note names another line)."""
    from .gitrepo import bun_lock, commit_all, fixture_repo, git
    from .team_action import edit_pull, gh_state, run_action

    seed = fixture_repo(tmp_path / "seed", case="team-wrote-it", files={"bun.lock": bun_lock("1.7.1")})
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(remote), str(work))
    state = gh_state(tmp_path)
    day1 = run_action(tmp_path, work, "1")
    assert day1.outputs["pr-action"] == "open", day1
    branch = "refs/heads/codemod/app-state"
    store = git(remote, "show", f"{branch}:{STORE}")
    assert _registrations(store) == 1 and not TOOLS_HANDLER.search(store)
    assert git(remote, "show", f"{branch}:{INDEX}") == git(remote, "show", f"main:{INDEX}")
    edit_pull(state, 1, state="closed")

    path = work / STORE
    path.write_text(path.read_text().replace("const INIT_TIMEOUT_MS", "// How long an app may take to say hello.\nconst INIT_TIMEOUT_MS"))
    commit_all(work, "chore: say why the timeout")
    git(work, "push", "-q", "origin", "main")
    day2 = run_action(tmp_path, work, "2")
    assert day2.outputs["pr-action"] == "declined" and day2.outputs["pr-number"] == "1", day2
