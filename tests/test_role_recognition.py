"""The render sites, the search schema and the iframe renderer are found by
role wherever the team moved and renamed them (SPEC 5a, "Recognition by
role"; issue 30, item 2): a file renamed with its component, the search
schema moved into a module of its own under another name, the renderer
renamed with its component. `apply` writes the feature into the moved
files, exactly what it writes into the unmoved ones (modulo the renames);
a second run has nothing to do; two files playing one role are a
Conflict naming both, and nothing is written."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from codemods.recipes.host import reads

from .gitrepo import BOT, commit_all, fixture_repo, git, with_remote
from .node_tools import BIN, NODE_MODULES, require
from .support import FIXTURES, invoke, snapshot
from .team_action import gh_state, read_state, run_action
from .test_moved_files import GENERIC, PANEL, RENDERER, ROUTES, SRC, _bundles, _imports_resolve, _nothing_to_do
from .test_second_year import _merge_the_pr

MOVED_GENERIC = f"{SRC}/web/components/chat/message/parts/tool-call-part/tool-app-part.tsx"
MOVED_PANEL = f"{SRC}/web/routes/panel-app.tsx"
SEARCH = f"{SRC}/web/routes/search.ts"
MOVED_RENDERER = f"{SRC}/mcp-apps/app-frame.tsx"

# A file's text -> the team's refactor of it.
Refactor = Callable[[str], str]


def _words(*pairs: tuple[str, str]) -> Refactor:
    """Each whole word ``old`` renamed ``new``."""

    def apply(text: str) -> str:
        for old, new in pairs:
            assert re.search(rf"\b{re.escape(old)}\b", text), old
            text = re.sub(rf"\b{re.escape(old)}\b", new, text)
        return text

    return apply


# (a) generic.tsx renamed with its component (and its props' interface)
PART = _words(("GenericToolCallPart", "ToolAppPart"), ("GenericToolCallPartProps", "ToolAppPartProps"))
# (c) project-app-view.tsx renamed with its components
PANEL_VIEW = _words(("AppViewContent", "PanelAppContent"), ("AppRenderer", "PanelApp"))

_SCHEMA = re.compile(r"^const unifiedChatSearchSchema = z\.object\(\{\n.*?^\}\);\n", re.M | re.S)
# The format's param, as 0.7.0 spells its import (an earlier release without `.ts`).
_APP_STATE_IMPORT = re.compile(r'^import \{ APP_STATE_PARAM \} from "@/mcp-apps/app-state(?:\.ts)?";\n', re.M)


def _route_file(text: str) -> str:
    """(b) index.tsx without its search schema, which it imports from
    ./routes/search under another name."""
    text = _SCHEMA.sub("", text, count=1).replace("// Search params shared by every task view under /$org/$taskId.\n\n", "")
    text = _APP_STATE_IMPORT.sub("", text)
    text = text.replace('import * as z from "zod";\n', 'import * as z from "zod";\nimport { chatSearch } from "./routes/search";\n')
    return text.replace("validateSearch: unifiedChatSearchSchema,", "validateSearch: chatSearch,")


def _search_module(index: str) -> str:
    """(b) the search schema in a module of its own, exported as
    ``chatSearch``, from the index.tsx it was in (with the import of the
    format's param when that has it)."""
    schema = _SCHEMA.search(index).group(0).replace("const unifiedChatSearchSchema", "export const chatSearch")
    found = _APP_STATE_IMPORT.search(index)
    imports = 'import * as z from "zod";\n' + (found.group(0) if found else "")
    return imports + "\n// Search params shared by every task view under /$org/$taskId.\n" + schema


def _refactored(tree: dict[str, bytes]) -> dict[str, bytes]:
    """A tree (path -> bytes) as the team refactors it: (a), (b), (c)."""
    out = dict(tree)
    text = {path: out.pop(path).decode() for path in (GENERIC, PANEL)}
    out[MOVED_GENERIC] = PART(text[GENERIC]).encode()
    out[MOVED_PANEL] = PANEL_VIEW(text[PANEL]).encode()
    index = out[ROUTES].decode()
    out[ROUTES] = _route_file(index).encode()
    out[SEARCH] = _search_module(index).encode()
    return out


def _tree(root: Path, paths: dict[str, bytes]) -> None:
    for path in [p for p in snapshot(root) if not p.startswith(".git/")]:
        (root / path).unlink()
    for path, data in paths.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)


def _checkout(tmp_path: Path, refactor: Callable[[dict[str, bytes]], dict[str, bytes]], case: str = "newest") -> Path:
    repo = fixture_repo(tmp_path / "repo", case)
    files = {p: d for p, d in snapshot(repo).items() if not p.startswith(".git/")}
    _tree(repo, refactor(files))
    commit_all(repo, "refactor: the team's second year")
    return repo


def _files(root: Path) -> dict[str, bytes]:
    return {p: d for p, d in snapshot(root).items() if not p.startswith(".git/")}


def test_the_refactor_is_what_the_tests_say() -> None:
    """The refactored input holds none of the usual names or paths the
    steps look for: each step's file is found by role or not at all."""
    moved = _refactored(_files(FIXTURES / "newest" / "input"))
    assert GENERIC not in moved and PANEL not in moved
    text = b"".join(moved.values()).decode()
    for symbol in ("GenericToolCallPart", "AppViewContent", "function AppRenderer", "unifiedChatSearchSchema"):
        assert symbol not in text, symbol
    assert "validateSearch: chatSearch," in moved[ROUTES].decode()
    assert "export const chatSearch = z.object({" in moved[SEARCH].decode()


@pytest.mark.parametrize("bridge", ["compat", "sdk"])
@pytest.mark.parametrize("case", ["newest", "partial"])
def test_the_feature_goes_into_the_moved_files_and_matches_the_unmoved_output(
    tmp_path: Path, bridge: str, case: str
) -> None:
    """A fresh checkout, and one where part of the feature is there
    (completed in the moved files)."""
    repo = _checkout(tmp_path, _refactored, case)
    dry = invoke("apply", "--repo", repo, "--bridge", bridge, "--dry-run")
    assert dry.exit_code == 0, dry.output
    for moved, why in (
        (MOVED_GENERIC, "it renders the iframe renderer from a tool-call part"),
        (MOVED_PANEL, "it renders the iframe renderer for the app `main` addresses"),
        (SEARCH, "it declares the zod schema a route validates its search with"),
    ):
        assert f"found {moved} (not at " in dry.stderr and why in dry.stderr, dry.stderr
    result = invoke("apply", "--repo", repo, "--bridge", bridge)
    assert result.exit_code == 0, result.output
    expected = _refactored(_files(FIXTURES / case / f"expected-{bridge}"))
    got = _files(repo)
    assert sorted(got) == sorted(expected)
    for path in sorted(expected):
        assert got[path].decode() == expected[path].decode(), path
    # the route file is not touched: the schema is not in it
    assert got[ROUTES] == _refactored(_files(FIXTURES / case / "input"))[ROUTES]
    _imports_resolve(repo)
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", bridge)


def test_a_refactor_after_the_feature_merged_is_nothing_to_do(tmp_path: Path) -> None:
    """The second year: the feature merged, then the team renames and moves
    the files it is in; the job has nothing to do (not a red day)."""
    repo = fixture_repo(tmp_path / "repo")
    assert invoke("apply", "--repo", repo, "--bridge", "compat").exit_code == 0
    commit_all(repo, "feat: appState")
    _tree(repo, _refactored(_files(repo)))
    commit_all(repo, "refactor: the team's second year")
    _nothing_to_do(repo, "--bridge", "compat")
    status = invoke("status", "--repo", repo)
    assert status.exit_code == 0, status.output
    for step, path in (("tool-call-part", MOVED_GENERIC), ("panel-app-view", MOVED_PANEL), ("search-schema", SEARCH)):
        assert re.search(rf"^{step} +applied +{re.escape(path)}$", status.stdout, re.M), status.stdout


def _renderer_renamed(tree: dict[str, bytes]) -> dict[str, bytes]:
    """The iframe renderer renamed with its component (AppFrame), every
    import of it fixed; the render sites keep their own names."""
    out = dict(tree)
    renderer = out.pop(RENDERER).decode()
    out[MOVED_RENDERER] = _words(("MCPAppRenderer", "AppFrame"), ("MCPAppRendererProps", "AppFrameProps"))(renderer).encode()
    generic = out[GENERIC].decode().replace(
        'import { MCPAppRenderer as MCPAppIframeRenderer } from "@/mcp-apps/mcp-app-renderer.tsx";',
        'import { AppFrame as MCPAppIframeRenderer } from "@/mcp-apps/app-frame.tsx";',
    )
    out[GENERIC] = generic.encode()
    panel = out[PANEL].decode().replace('"@/mcp-apps/mcp-app-renderer.tsx"', '"@/mcp-apps/app-frame.tsx"')
    out[PANEL] = _words(("MCPAppRenderer", "AppFrame"))(panel).encode()
    return out


def test_the_iframe_renderer_renamed_with_its_component_is_found_by_role(tmp_path: Path) -> None:
    repo = _checkout(tmp_path, _renderer_renamed)
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    assert f"found {MOVED_RENDERER} (not at {RENDERER}): it renders an app through the bridge hook" in result.stderr
    expected = _renderer_renamed(_files(FIXTURES / "newest" / "expected-compat"))
    got = _files(repo)
    assert sorted(got) == sorted(expected)
    for path in sorted(expected):
        assert got[path].decode() == expected[path].decode(), path
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", "compat")


def test_a_render_site_importing_the_renderer_relatively_under_another_name_is_found(tmp_path: Path) -> None:
    """The role is the renderer rendered, whatever the import's spelling:
    relative, without an extension, under another local name."""

    def refactor(tree: dict[str, bytes]) -> dict[str, bytes]:
        out = _refactored(tree)
        text = out[MOVED_GENERIC].decode().replace(
            'import { MCPAppRenderer as MCPAppIframeRenderer } from "@/mcp-apps/mcp-app-renderer.tsx";',
            'import { MCPAppRenderer as Frame } from "../../../../../../mcp-apps/mcp-app-renderer";',
        )
        out[MOVED_GENERIC] = text.replace("<MCPAppIframeRenderer", "<Frame").encode()
        return out

    repo = _checkout(tmp_path, refactor)
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    assert f"found {MOVED_GENERIC} (not at {GENERIC})" in result.stderr, result.stderr
    text = (repo / MOVED_GENERIC).read_text()
    assert "useAppStateParam(\n    hasMCPApp ? part.toolCallId : null,\n  );" in text, text
    frame = re.search(r"<Frame\b[^>]*>", text, re.S).group(0)
    assert "appState={appState}" in frame and "onAppStateChange={onAppStateChange}" in frame, frame
    _imports_resolve(repo)
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", "compat")


def test_the_schema_renamed_in_place_is_edited_under_its_new_name(tmp_path: Path) -> None:
    """index.tsx is where it was, its schema renamed: the schema by role."""
    rename = _words(("unifiedChatSearchSchema", "chatRouteSearch"))
    repo = _checkout(tmp_path, lambda tree: {**tree, ROUTES: rename(tree[ROUTES].decode()).encode()})
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    expected = (FIXTURES / "newest" / "expected-compat" / ROUTES).read_text()
    assert (repo / ROUTES).read_text() == rename(expected)
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", "compat")


# ------------------------------------------------ two files play one role


def _two_parts(tree: dict[str, bytes]) -> dict[str, bytes]:
    out = dict(tree)
    text = out.pop(GENERIC).decode()
    folder = GENERIC.rsplit("/", 1)[0]
    out[f"{folder}/tool-app-part.tsx"] = PART(text).encode()
    out[f"{folder}/app-part.tsx"] = _words(("GenericToolCallPart", "AppPart"), ("GenericToolCallPartProps", "AppPartProps"))(text).encode()
    return out


def _two_schemas(tree: dict[str, bytes]) -> dict[str, bytes]:
    """The schema in its own module, and a second route whose own search
    schema (with the panel's key) is in another."""
    out = _refactored(tree)
    other = out[SEARCH].decode().replace("chatSearch", "settingsSearch")
    out[f"{SRC}/web/routes/settings-search.ts"] = other.encode()
    index = out[ROUTES].decode()
    index = index.replace(
        'import { chatSearch } from "./routes/search";\n',
        'import { chatSearch } from "./routes/search";\nimport { settingsSearch } from "./routes/settings-search";\n',
    )
    out[ROUTES] = index.replace(
        '  path: "/apps/$connectionId/$toolName",\n', '  path: "/apps/$connectionId/$toolName",\n  validateSearch: settingsSearch,\n'
    ).encode()
    return out


@pytest.mark.parametrize(
    "refactor, step, files",
    [
        (
            _two_parts,
            "tool-call-part",
            [f"{SRC}/web/components/chat/message/parts/tool-call-part/app-part.tsx", MOVED_GENERIC],
        ),
        (_two_schemas, "search-schema", [SEARCH, f"{SRC}/web/routes/settings-search.ts"]),
    ],
    ids=["render-site", "search-schema"],
)
def test_two_files_playing_one_role_are_a_conflict_naming_both(tmp_path: Path, refactor, step: str, files) -> None:
    repo = _checkout(tmp_path, refactor)
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 3, result.output
    line = next((ln for ln in result.stderr.splitlines() if "more than one file plays its part" in ln), "")
    assert line and all(path in line for path in files), result.stderr
    assert snapshot(repo) == before


# ------------------------------------------------ the exported subset of pr --artifact


def test_reads_include_the_files_found_by_role(tmp_path: Path) -> None:
    """`pr --artifact` exports only the files a plan reads: the moved
    render sites and the schema's module are among them (found by the
    roles' needles, as `git grep` finds them in the commit)."""
    repo = _checkout(tmp_path, _refactored)
    names = git(repo, "ls-files").split()

    def grep(needles):
        args = ["grep", "-l", "-F", *(part for n in needles for part in ("-e", n)), "HEAD", "--", "*.ts", "*.tsx"]
        out = git(repo, *args, check=False)
        return [line.split(":", 1)[1] for line in out.splitlines() if ":" in line]

    wanted = reads(names, grep)
    assert {MOVED_GENERIC, MOVED_PANEL, SEARCH, ROUTES, RENDERER} <= wanted, sorted(wanted)


def test_the_build_on_a_checkout_where_the_files_moved_writes_the_feature_into_them(tmp_path: Path) -> None:
    """The build on a git checkout where the files moved: the series (built
    from the exported subset) writes into the moved files, and applying it
    gives what `apply` gives."""
    repo = _checkout(tmp_path, _refactored)
    applied = _checkout(tmp_path / "applied", _refactored)
    assert invoke("apply", "--repo", applied, "--bridge", "compat").exit_code == 0
    out = tmp_path / "series"
    result = invoke("patch", "--repo", repo, "--out", out, "--author", BOT, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    patches = sorted(str(p) for p in out.glob("*.patch"))
    touched = "".join(Path(p).read_text() for p in patches)
    for path in (MOVED_GENERIC, MOVED_PANEL, SEARCH):
        assert f"+++ b/{path}" in touched, path
    git(repo, "am", "-q", *patches, env={"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    assert _files(repo) == _files(applied)
    shutil.rmtree(out)


# ------------------------------------------------ the bridge store by role

STORE = f"{SRC}/mcp-apps/use-app-bridge.ts"
STORE_TESTS = f"{SRC}/mcp-apps/use-app-bridge.test.ts"
SESSION_DIR = f"{SRC}/mcp-apps/session"
SESSION = f"{SESSION_DIR}/app-bridge-session.ts"
SESSION_TESTS = f"{SESSION_DIR}/use-app-bridge.test.ts"
HOST_CONTEXT = f"{SESSION_DIR}/host-context.ts"
# BridgeStore renamed with its config and options interfaces.
_SESSION_NAMES = (
    ("BridgeStore", "AppBridgeSession"),
    ("BridgeStoreConfig", "AppBridgeSessionConfig"),
    ("UseAppBridgeOptions", "AppBridgeSessionOptions"),
)


def _class_renamed(tree: dict[str, bytes]) -> dict[str, bytes]:
    """The store's class renamed `AppBridgeSession` with its interfaces, in
    the store and wherever the class is imported (its tests, when a release
    created them)."""
    out = dict(tree)
    out[STORE] = _words(*_SESSION_NAMES)(out[STORE].decode()).encode()
    if STORE_TESTS in out:
        out[STORE_TESTS] = _words(_SESSION_NAMES[0])(out[STORE_TESTS].decode()).encode()
    return out


def _store_moved(tree: dict[str, bytes]) -> dict[str, bytes]:
    """The store moved into session/ and renamed with its class (its tests
    beside it), every import of and in them fixed."""
    return _store_relocated(_class_renamed(tree))


def _store_relocated(tree: dict[str, bytes]) -> dict[str, bytes]:
    """The store moved into session/ as app-bridge-session.ts (its tests
    beside it), every import of and in them fixed."""
    out = dict(tree)
    text = out.pop(STORE).decode().replace('from "./host-styles"', 'from "../host-styles"')
    out[SESSION] = text.replace('from "./app-state"', 'from "../app-state"').replace('from "./types"', 'from "../types"').encode()
    renderer = out[RENDERER].decode()
    assert '"./use-app-bridge.ts"' in renderer
    out[RENDERER] = renderer.replace('"./use-app-bridge.ts"', '"./session/app-bridge-session.ts"').encode()
    if STORE_TESTS in out:
        tests = out.pop(STORE_TESTS).decode().replace('"./app-state.ts"', '"../app-state.ts"')
        out[SESSION_TESTS] = tests.replace('"./use-app-bridge.ts"', '"./app-bridge-session.ts"').encode()
    return out


_BUILD_HOST_CONTEXT = re.compile(r"^function buildHostContext\(.*?^\}\n\n", re.M | re.S)
_HOST_STYLES = re.compile(r'^import \{ readHostStyles \} from "[^"]+";\n', re.M)


def _host_context_moved(store: str) -> Callable[[dict[str, bytes]], dict[str, bytes]]:
    """`buildHostContext` moved out of the store at ``store`` into
    host-context.ts beside it, which the store imports it from."""

    def apply(tree: dict[str, bytes]) -> dict[str, bytes]:
        out = dict(tree)
        text = out[store].decode()
        function = _BUILD_HOST_CONTEXT.search(text).group(0)
        styles = _HOST_STYLES.search(text).group(0)
        text = text.replace(function, "", 1)
        text = text.replace(styles, styles + 'import { buildHostContext } from "./host-context";\n')
        out[store] = text.encode()
        out[store.rsplit("/", 1)[0] + "/host-context.ts"] = (
            'import type {\n  McpUiDisplayMode,\n  McpUiHostContext,\n} from "@modelcontextprotocol/ext-apps";\n'
            f'import {{ getDocumentTheme }} from "@modelcontextprotocol/ext-apps";\n{styles}\n'
            f"// What ui/initialize answers with, and every host-context change.\nexport {function.rstrip()}\n"
        ).encode()
        return out

    return apply


def _moved_out(tree: dict[str, bytes]) -> dict[str, bytes]:
    """The store moved and renamed with its class, and `buildHostContext`
    moved into a module of its own: no file is at the store's path or
    holds its class's name, and the one file defining `buildHostContext`
    is not the store."""
    return _host_context_moved(SESSION)(_store_moved(tree))


@pytest.mark.parametrize("bridge", ["compat", "sdk"])
@pytest.mark.parametrize("case", ["newest", "partial"])
def test_the_store_renamed_gets_the_feature_under_its_names(tmp_path: Path, bridge: str, case: str) -> None:
    """BridgeStore renamed with its interfaces: the class, its config and
    the hook's options are found by role; the output is the unrenamed
    checkout's modulo the rename, the created tests included (they import
    the class found)."""
    repo = _checkout(tmp_path, _class_renamed, case)
    result = invoke("apply", "--repo", repo, "--bridge", bridge)
    assert result.exit_code == 0, result.output
    expected = _class_renamed(_files(FIXTURES / case / f"expected-{bridge}"))
    got = _files(repo)
    assert sorted(got) == sorted(expected)
    for path in sorted(expected):
        assert got[path].decode() == expected[path].decode(), path
    assert "export class AppBridgeSession {" in got[STORE].decode()
    tests = got[STORE_TESTS].decode()
    assert 'import { AppBridgeSession } from "./use-app-bridge.ts";' in tests and "BridgeStore" not in tests
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", bridge)


def test_the_store_moved_and_renamed_with_its_class_is_found_and_its_tests_run(tmp_path: Path) -> None:
    """A fresh checkout whose store is session/app-bridge-session.ts, its
    class AppBridgeSession: the feature goes into it, the created files go
    beside it, and the created tests import the class found from where it
    is, and pass (bun, the SDK's real AppBridge)."""
    repo = _checkout(tmp_path, _store_moved)
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    assert f"found {SESSION} (not at {STORE})" in result.stderr, result.stderr
    assert not (repo / STORE).exists() and not (repo / STORE_TESTS).exists()
    store = (repo / SESSION).read_text()
    assert "export class AppBridgeSession {" in store and "appState?: unknown" in store
    tests = (repo / SESSION_TESTS).read_text()
    assert 'import { AppBridgeSession } from "./app-bridge-session.ts";' in tests, tests[:400]
    assert 'from "./app-state.ts"' in tests and "BridgeStore" not in tests
    _imports_resolve(repo)
    _bundles(repo, SESSION, SESSION_TESTS)
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", "compat")
    bun = require(BIN / "bun", "Bun")
    require(NODE_MODULES / "@modelcontextprotocol/ext-apps", "the SDK")
    (repo / "node_modules").symlink_to(NODE_MODULES)
    run = subprocess.run([str(bun), "test", f"./{SESSION_DIR}/"], cwd=repo, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and " 0 fail" in run.stderr, run.stdout + run.stderr
    assert re.search(r"Ran [1-9][0-9]* tests across 2 files", run.stderr), run.stderr


@pytest.mark.parametrize("bridge", ["compat", "sdk"])
def test_the_store_moved_renamed_and_without_build_host_context_is_found_by_role(tmp_path: Path, bridge: str) -> None:
    """The feature merged, then the team moves and renames the store with
    its class and moves `buildHostContext` into a module of its own (the
    one file defining it): the store is the file that constructs the SDK's
    AppBridge, `buildHostContext` has appState where it is, and there is
    nothing to do; the wiring is read where the store is (no migration)."""
    repo = fixture_repo(tmp_path / "repo")
    assert invoke("apply", "--repo", repo, "--bridge", bridge).exit_code == 0
    commit_all(repo, "feat: appState")
    _tree(repo, _moved_out(_files(repo)))
    commit_all(repo, "refactor: the app bridge session, its host context in a module of its own")
    _imports_resolve(repo)
    _nothing_to_do(repo)
    status = invoke("status", "--repo", repo)
    assert status.exit_code == 0, status.output
    assert re.search(rf"^bridge-store +applied +{re.escape(SESSION)}$", status.stdout, re.M), status.stdout
    assert re.search(rf"^bridge-store-tests +applied +{re.escape(SESSION_TESTS)}$", status.stdout, re.M), status.stdout
    check = invoke("apply", "--repo", repo, "--check")
    assert "it constructs the SDK's `AppBridge` in a class that calls `buildHostContext`" in check.stderr, check.stderr
    assert f"stays {bridge}" in check.stderr or f"wired in {bridge}" in check.stderr, check.stderr


def test_two_files_constructing_the_bridge_in_a_class_are_a_conflict_naming_both(tmp_path: Path) -> None:
    other = f"{SRC}/mcp-apps/preview/preview-session.ts"

    def refactor(tree: dict[str, bytes]) -> dict[str, bytes]:
        out = _moved_out(tree)
        copy = out[SESSION].decode().replace("AppBridgeSession", "PreviewSession")
        out[other] = copy.replace('from "./host-context"', 'from "../session/host-context"').encode()
        return out

    repo = _checkout(tmp_path, refactor)
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 3, result.output
    line = next((ln for ln in result.stderr.splitlines() if "more than one file plays its part" in ln), "")
    assert line and SESSION in line and other in line and "AppBridge" in line, result.stderr
    assert snapshot(repo) == before


def test_build_host_context_moved_on_a_fresh_checkout_is_left_where_it_is(tmp_path: Path) -> None:
    """The step edits only the store's file, and the store builds its
    context around `buildHostContext` wherever that is: in a module of its
    own, it is neither edited nor in the way."""
    repo = _checkout(tmp_path, _host_context_moved(STORE))
    moved = f"{SRC}/mcp-apps/host-context.ts"
    before = (repo / moved).read_bytes()
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    assert (repo / moved).read_bytes() == before
    assert "...buildHostContext(displayMode, toolInfo, maxHeight, orgId)," in (repo / STORE).read_text()
    assert "older revision" not in result.output


def test_reads_include_the_store_found_by_role_and_its_host_context(tmp_path: Path) -> None:
    """`pr --artifact` exports only the files a plan reads: the store found
    by role, and the module `buildHostContext` was moved into, even as an
    arrow function (no `function buildHostContext(` to find it by), where
    the step reads it. sdk mode: the store imports nothing of the created
    module."""
    repo = fixture_repo(tmp_path / "repo")
    assert invoke("apply", "--repo", repo, "--bridge", "sdk").exit_code == 0
    commit_all(repo, "feat: appState")
    tree = _moved_out(_files(repo))
    module = tree[HOST_CONTEXT].decode()
    module = module.replace("export function buildHostContext(", "export const buildHostContext = (")
    module = module.replace("): McpUiHostContext {", "): McpUiHostContext => {")
    tree[HOST_CONTEXT] = module.replace("\n}\n", "\n};\n").encode()
    assert "function buildHostContext" not in tree[HOST_CONTEXT].decode()
    _tree(repo, tree)
    commit_all(repo, "refactor: the app bridge session")
    names = git(repo, "ls-files").split()

    def grep(needles):
        args = ["grep", "-l", "-F", *(part for n in needles for part in ("-e", n)), "HEAD", "--", "*.ts", "*.tsx"]
        out = git(repo, *args, check=False)
        return [line.split(":", 1)[1] for line in out.splitlines() if ":" in line]

    assert {SESSION, HOST_CONTEXT, SESSION_TESTS} <= reads(names, grep)
    # the step finds appState in the arrow function where it is
    _nothing_to_do(repo, "--bridge", "sdk")


# ------------------------------------------------ the second year: the store refactored after the merge


def _merged_then(tmp_path: Path, refactor: Callable[[dict[str, bytes]], dict[str, bytes]], message: str):
    """The scheduled job opens the PR, the team merges it, then refactors
    the merged tree and pushes (the workflow harness, the stateful `gh`)."""
    remote, work = with_remote(tmp_path)
    state = gh_state(tmp_path)
    assert run_action(tmp_path, work, "1").outputs["pr-action"] == "open"
    _merge_the_pr(tmp_path, remote, work, state)
    _tree(work, refactor(_files(work)))
    commit_all(work, message)
    git(work, "push", "-q", "origin", "main")
    return remote, work, state


def _class_renamed_and_host_context_moved(tree: dict[str, bytes]) -> dict[str, bytes]:
    """Issue 30's refactor: `BridgeStore` renamed (its tests follow), and
    `buildHostContext` moved to its own file."""
    return _host_context_moved(STORE)(_class_renamed(tree))


def test_the_store_renamed_and_its_host_context_moved_after_the_merge_is_nothing_to_do(tmp_path: Path) -> None:
    remote, work, state = _merged_then(
        tmp_path, _class_renamed_and_host_context_moved, "refactor: AppBridgeSession, its host context in a file"
    )
    refs = git(remote, "for-each-ref")
    for day in ("2", "3"):
        run = run_action(tmp_path, work, day)
        assert set(run.exits.values()) == {0}, run.stderr
        assert run.outputs["pr-action"] == "none", run
        assert "older revision" not in run.summary + run.stderr
    assert git(remote, "for-each-ref") == refs  # nothing pushed
    assert len(read_state(state)["pulls"]) == 1  # nothing opened


def test_the_build_on_a_checkout_whose_store_moved_and_renamed_is_the_applied_tree(tmp_path: Path) -> None:
    """The series, built from the exported subset one commit group at a
    time, finds the moved store by role and names its class in the
    created tests as `apply` does."""
    repo = _checkout(tmp_path, _store_moved)
    applied = _checkout(tmp_path / "applied", _store_moved)
    assert invoke("apply", "--repo", applied, "--bridge", "sdk").exit_code == 0
    out = tmp_path / "series"
    result = invoke("patch", "--repo", repo, "--out", out, "--author", BOT, "--bridge", "sdk")
    assert result.exit_code == 0, result.output
    patches = sorted(str(p) for p in out.glob("*.patch"))
    git(repo, "am", "-q", *patches, env={"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    assert _files(repo) == _files(applied)
    assert 'import { AppBridgeSession } from "./app-bridge-session.ts";' in (repo / SESSION_TESTS).read_text()


def _bridge_aliased(tree: dict[str, bytes]) -> dict[str, bytes]:
    """The store imports the SDK's AppBridge under another local name."""
    out = dict(tree)
    path = SESSION if SESSION in out else STORE
    text = _words(("AppBridge", "SdkBridge"))(out[path].decode())
    assert "import {\n  SdkBridge,\n" in text
    out[path] = text.replace("import {\n  SdkBridge,\n", "import {\n  AppBridge as SdkBridge,\n", 1).encode()
    return out


@pytest.mark.parametrize("bridge", ["compat", "sdk"])
def test_the_sdks_bridge_under_another_local_name_is_the_store_s(tmp_path: Path, bridge: str) -> None:
    """`AppBridge as SdkBridge`, the class renamed: the store is still the
    class that constructs the SDK's bridge, and the capability goes into
    the host capabilities of `new SdkBridge(...)`."""
    refactor = lambda tree: _bridge_aliased(_class_renamed(tree))  # noqa: E731
    repo = _checkout(tmp_path, refactor)
    result = invoke("apply", "--repo", repo, "--bridge", bridge)
    assert result.exit_code == 0, result.output
    expected = refactor(_files(FIXTURES / "newest" / f"expected-{bridge}"))
    got = _files(repo)
    assert sorted(got) == sorted(expected)
    for path in sorted(expected):
        assert got[path].decode() == expected[path].decode(), path
    assert "new SdkBridge(client, HOST_INFO, capabilities, {" in got[STORE].decode()
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", bridge)
    # moved, with buildHostContext in a module of its own: the file is
    # found by the import of the SDK's bridge (no `new AppBridge(` in it)
    _tree(repo, _host_context_moved(SESSION)(_store_relocated(_files(repo))))
    commit_all(repo, "refactor: the session")
    assert "new AppBridge(" not in (repo / SESSION).read_text()
    check = invoke("apply", "--repo", repo, "--check", "--bridge", bridge)
    assert check.exit_code == 0, check.output
    assert f"found {SESSION} (not at {STORE}): it constructs the SDK's `AppBridge`" in check.stderr, check.stderr


def test_a_part_rendering_the_renderer_through_two_local_components_is_a_conflict_naming_both(tmp_path: Path) -> None:
    """Which of two wrappers shows the app is not the tool's guess (review
    of 0.6.0: the first one was wired, silently)."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "newest" / "input", repo)
    generic = repo / GENERIC
    text = generic.read_text()
    text = text.replace(
        "            <Suspense fallback={<div className=\"h-10 animate-pulse\" />}>\n",
        "            <Suspense fallback={<div className=\"h-10 animate-pulse\" />}>\n"
        "              <AppPreview uiResourceUri={uiResourceUri} />\n",
        1,
    )
    text += (
        "\nfunction AppPreview({ uiResourceUri }: { uiResourceUri: string }) {\n"
        "  return <MCPAppIframeRenderer uiResourceUri={uiResourceUri} />;\n"
        "}\n"
    )
    generic.write_text(text)
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 3, result.output
    assert "renders `<MCPAppIframeRenderer>` through more than one local component" in result.output, result.output
    assert "`MCPAppRenderer`" in result.output and "`AppPreview`" in result.output, result.output
    assert snapshot(repo) == before
