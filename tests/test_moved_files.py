"""The feature is found wherever the team moved it (SPEC 5a, "Recognition
by role"; issue 30, item 2): the bridge store moved into
`mcp-apps/bridge/`, the created module moved (or renamed), the hook moved.
A created file that was moved is the same file: a second run has nothing
to do, creates no file and adds no second import; a fresh checkout whose
bridge store is elsewhere gets one module, and imports that resolve; the
mode the checkout is wired in is read where the bridge store is."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from codemods.recipes.base import Bridge
from codemods.recipes.host.bridge_mode import current_wiring

from .gitrepo import BOT, commit_all, fixture_repo, git
from .node_tools import BIN, NODE_MODULES, require
from .support import invoke, snapshot

SRC = "apps/mesh/src"
MCP = f"{SRC}/mcp-apps"
STORE = f"{MCP}/use-app-bridge.ts"
STORE_TESTS = f"{MCP}/use-app-bridge.test.ts"
MODULE = f"{MCP}/app-state.ts"
MODULE_TESTS = f"{MCP}/app-state.test.ts"
RENDERER = f"{MCP}/mcp-app-renderer.tsx"
HOOK = f"{SRC}/web/hooks/use-app-state-param.ts"
HOOK_TESTS = f"{SRC}/web/hooks/use-app-state-param.test.ts"
GENERIC = f"{SRC}/web/components/chat/message/parts/tool-call-part/generic.tsx"
PANEL = f"{SRC}/web/routes/project-app-view.tsx"
ROUTES = f"{SRC}/web/index.tsx"
MOVED_STORE = f"{MCP}/bridge/use-app-bridge.ts"
MOVED_STORE_TESTS = f"{MCP}/bridge/use-app-bridge.test.ts"
ESBUILD = BIN / "esbuild"


def _edit(repo: Path, path: str, *pairs: tuple[str, str]) -> None:
    """Replace each ``old`` by ``new`` in the file (each must be there)."""
    text = (repo / path).read_text()
    for old, new in pairs:
        assert old in text, f"{old!r} not in {path}"
        text = text.replace(old, new)
    (repo / path).write_text(text)


def _move(repo: Path, source: str, destination: str) -> None:
    (repo / destination).parent.mkdir(parents=True, exist_ok=True)
    git(repo, "mv", source, destination)


def _move_store(repo: Path, types_import: str = "../types") -> None:
    """The team moves the bridge store and its tests into bridge/ and fixes
    every import of and in them (the protocol types imported as
    ``types_import``)."""
    _move(repo, STORE, MOVED_STORE)
    _edit(repo, MOVED_STORE, ('from "./host-styles"', 'from "../host-styles"'))
    text = (repo / MOVED_STORE).read_text()
    if 'from "./app-state"' in text:  # the push decision reads the format
        _edit(repo, MOVED_STORE, ('from "./app-state"', 'from "../app-state"'))
    if 'from "./types"' in text:  # compat mode: the schema
        _edit(repo, MOVED_STORE, ('from "./types"', f'from "{types_import}"'))
    _edit(repo, RENDERER, ('"./use-app-bridge', '"./bridge/use-app-bridge'))
    if (repo / STORE_TESTS).exists():
        _move(repo, STORE_TESTS, MOVED_STORE_TESTS)
        _edit(repo, MOVED_STORE_TESTS, ('from "./app-state.ts"', 'from "../app-state.ts"'))


def _applied(tmp_path: Path, *args: str) -> Path:
    repo = fixture_repo(tmp_path / "repo")
    result = invoke("apply", "--repo", repo, *args)
    assert result.exit_code == 0, result.output
    commit_all(repo, "feat: appState")
    return repo


def _nothing_to_do(repo: Path, *args: str) -> None:
    """A second run changes nothing: no file written or created, no note that
    a created file was edited."""
    before = snapshot(repo)
    check = invoke("apply", "--repo", repo, "--check", *args)
    assert check.exit_code == 0, check.output
    assert "nothing to do" in check.stderr + check.output, check.output
    assert "edited since" not in check.stderr, check.stderr
    result = invoke("apply", "--repo", repo, *args)
    assert result.exit_code == 0, result.output
    assert snapshot(repo) == before


_SPECIFIER = re.compile(r"""^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']""", re.M | re.S)
_FEATURE = ("app-state", "use-app-bridge", "use-app-state-param", "host-styles", "mcp-app-renderer")


def _resolve(repo: Path, importer: str, specifier: str) -> Path | None:
    if specifier.startswith("@/"):
        base = repo / SRC / specifier[2:]
    elif specifier.startswith("."):
        base = (repo / importer).parent / specifier
    else:
        return None
    for candidate in (base, *(base.with_name(base.name + ext) for ext in (".ts", ".tsx"))):
        if candidate.is_file():
            return candidate.resolve()
    return base


def _imports_resolve(repo: Path) -> None:
    """Every import of a file of the feature, in every TypeScript file of
    the checkout, names a file that exists, and no file imports one module
    twice (a second import of a schema does not compile)."""
    for path in sorted(repo.rglob("*.ts*")):
        if ".git" in path.parts:
            continue
        importer = path.relative_to(repo).as_posix()
        seen: dict[Path, str] = {}
        for specifier in _SPECIFIER.findall(path.read_text()):
            target = _resolve(repo, importer, specifier)
            if target is None:
                continue
            if os.path.basename(specifier).split(".")[0] in _FEATURE:
                assert target.is_file(), f"{importer}: {specifier!r} does not resolve"
            assert target not in seen, f"{importer} imports {target.name} twice: {seen.get(target)!r}, {specifier!r}"
            seen[target] = specifier


def _bundles(repo: Path, *entries: str) -> None:
    """esbuild resolves every import of ``entries`` (the packages aside,
    `@/` through a tsconfig like mesh's) and builds them."""
    require(ESBUILD, "esbuild")
    tsconfig = repo / "apps/mesh/tsconfig.json"
    if not tsconfig.exists():
        tsconfig.write_text('{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["./src/*"]}}}\n')
    for entry in entries:
        done = subprocess.run(
            [str(ESBUILD), entry, "--bundle", "--packages=external", "--format=esm", "--log-level=error",
             "--outfile=" + os.devnull],
            cwd=repo, capture_output=True, text=True,
        )
        assert done.returncode == 0, f"{entry}: {done.stderr}"


# ------------------------------------------------ the bridge store moved


@pytest.mark.parametrize("types_import", ["../types", "../types.ts", "@/mcp-apps/types"])
def test_the_bridge_moved_into_bridge_is_nothing_to_do(tmp_path: Path, types_import: str) -> None:
    repo = _applied(tmp_path)
    _move_store(repo, types_import)
    commit_all(repo, "refactor: the bridge store in its own folder")
    _nothing_to_do(repo)
    assert not (repo / f"{MCP}/bridge/types.ts").exists()
    assert not (repo / f"{MCP}/bridge/app-state.ts").exists()
    assert not (repo / f"{MCP}/bridge/app-state.test.ts").exists()
    store = (repo / MOVED_STORE).read_text()
    assert store.count("StateChangedNotificationSchema }") == 1, store
    _imports_resolve(repo)


def test_the_status_names_where_each_moved_file_was_found(tmp_path: Path) -> None:
    repo = _applied(tmp_path)
    _move_store(repo)
    result = invoke("status", "--repo", repo)
    assert result.exit_code == 0, result.output
    out = result.stdout + result.stderr
    assert MOVED_STORE in out and MOVED_STORE_TESTS in out, out
    assert f"{MCP}/bridge/app-state" not in out, out


def test_the_module_moved_with_the_bridge_is_the_same_module(tmp_path: Path) -> None:
    repo = _applied(tmp_path)
    _move_store(repo)
    # the module and its tests follow it; every import of the module is fixed
    _move(repo, MODULE, f"{MCP}/bridge/app-state.ts")
    _move(repo, MODULE_TESTS, f"{MCP}/bridge/app-state.test.ts")
    _edit(repo, MOVED_STORE_TESTS, ('from "../app-state.ts"', 'from "./app-state.ts"'))
    _edit(repo, MOVED_STORE, ('from "../app-state"', 'from "./app-state"'))
    for path in (GENERIC, ROUTES, HOOK, HOOK_TESTS):
        _edit(repo, path, ('"@/mcp-apps/app-state', '"@/mcp-apps/bridge/app-state'))
    commit_all(repo, "refactor: the bridge folder")
    _nothing_to_do(repo)
    assert not (repo / MODULE).exists() and not (repo / MODULE_TESTS).exists()
    _imports_resolve(repo)


def test_a_module_moved_and_renamed_is_found_by_its_export(tmp_path: Path) -> None:
    """The module renamed into another folder, its tests left where they
    were: it is the one file that defines `APP_STATE_PARAM`."""
    repo = _applied(tmp_path)
    moved = f"{SRC}/lib/deep-link-state.ts"
    _move(repo, MODULE, moved)
    _edit(repo, MODULE_TESTS, ('from "./app-state.ts"', 'from "../lib/deep-link-state.ts"'))
    _edit(repo, STORE_TESTS, ('from "./app-state.ts"', 'from "../lib/deep-link-state.ts"'))
    _edit(repo, STORE, ('from "./app-state"', 'from "../lib/deep-link-state"'))
    for path in (GENERIC, ROUTES, HOOK, HOOK_TESTS):
        _edit(repo, path, ('"@/mcp-apps/app-state', '"@/lib/deep-link-state'))
    commit_all(repo, "refactor: the URL format in lib/")
    status = invoke("status", "--repo", repo)
    assert re.search(rf"app-state-module +applied +{re.escape(moved)}$", status.stdout, re.M), status.output
    dry = invoke("apply", "--repo", repo, "--dry-run")
    assert f"found {moved} (not at {MODULE}): it defines `export const APP_STATE_PARAM`" in dry.stderr, dry.output
    _nothing_to_do(repo)
    assert not (repo / MODULE).exists()
    _imports_resolve(repo)


def test_the_hook_moved_is_the_same_hook(tmp_path: Path) -> None:
    repo = _applied(tmp_path)
    moved = f"{SRC}/hooks/app-state/use-app-state-param.ts"
    _move(repo, HOOK, moved)
    _move(repo, HOOK_TESTS, moved.replace(".ts", ".test.ts"))
    for path in (GENERIC, PANEL):
        _edit(repo, path, ('"@/web/hooks/use-app-state-param.ts"', '"@/hooks/app-state/use-app-state-param.ts"'))
    commit_all(repo, "refactor: hooks by feature")
    _nothing_to_do(repo)
    assert not (repo / HOOK).exists() and not (repo / HOOK_TESTS).exists()
    for path in (GENERIC, PANEL):
        assert (repo / path).read_text().count("useAppStateParam }") == 1
    _imports_resolve(repo)


def test_a_moved_file_defined_twice_is_refused_not_created(tmp_path: Path) -> None:
    """Two files define the module's key export and neither is where the
    module goes: which one is the module is not the tool's guess."""
    repo = _applied(tmp_path)
    for folder in ("one", "two"):
        (repo / SRC / folder).mkdir()
        shutil.copy(repo / MODULE, repo / SRC / folder / "app-state.ts")
    (repo / MODULE).unlink()
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo)
    assert result.exit_code == 3, result.output
    assert "defined in more than one file" in result.stderr, result.stderr
    assert snapshot(repo) == before


# ------------------------------------------------ a fresh checkout


def _fresh_with_the_store_moved(tmp_path: Path) -> Path:
    repo = fixture_repo(tmp_path / "repo")
    _move_store(repo)
    commit_all(repo, "refactor: the bridge store in its own folder")
    return repo


@pytest.mark.parametrize("bridge", ["compat", "sdk"])
def test_a_fresh_checkout_with_the_bridge_in_bridge_gets_one_module_and_imports_that_resolve(
    tmp_path: Path, bridge: str
) -> None:
    repo = _fresh_with_the_store_moved(tmp_path)
    result = invoke("apply", "--repo", repo, "--bridge", bridge)
    assert result.exit_code == 0, result.output
    modules = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("app-state.ts"))
    assert modules == [f"{MCP}/bridge/app-state.ts"]
    assert (repo / f"{MCP}/bridge/app-state.test.ts").is_file()
    assert (repo / MOVED_STORE_TESTS).is_file() and not (repo / STORE_TESTS).exists()
    assert 'from "@/mcp-apps/bridge/app-state' in (repo / HOOK).read_text()
    assert 'from "@/mcp-apps/bridge/app-state' in (repo / ROUTES).read_text()
    test_text = (repo / MOVED_STORE_TESTS).read_text()
    assert 'from "./app-state.ts"' in test_text and 'from "./use-app-bridge.ts"' in test_text
    _imports_resolve(repo)
    _bundles(repo, MOVED_STORE, MOVED_STORE_TESTS, f"{MCP}/bridge/app-state.test.ts", HOOK)
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", bridge)
    if bridge == "compat":
        # the created tests run where they were created, against the SDK
        bun = require(BIN / "bun", "Bun")
        require(NODE_MODULES / "@modelcontextprotocol/ext-apps", "the SDK")
        (repo / "node_modules").symlink_to(NODE_MODULES)
        run = subprocess.run(
            [str(bun), "test", f"./{MCP}/bridge/"], cwd=repo, capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 0 and " 0 fail" in run.stderr, run.stdout + run.stderr
        assert re.search(r"Ran [1-9][0-9]* tests across 2 files", run.stderr), run.stderr


def test_the_patch_series_on_a_moved_bridge_is_the_applied_tree(tmp_path: Path) -> None:
    """The series plans each commit group on an exported tree: its imports
    name the module where the first commit created it."""
    repo = _fresh_with_the_store_moved(tmp_path)
    out = tmp_path / "series"
    result = invoke("patch", "--repo", repo, "--out", out, "--author", BOT, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    patches = sorted(str(p) for p in out.glob("*.patch"))
    git(repo, "am", "-q", *patches, env={"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    # the first commit, which has no bridge step, creates the module beside the moved store too
    modules = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("app-state*.ts"))
    assert modules == [f"{MCP}/bridge/app-state.test.ts", f"{MCP}/bridge/app-state.ts"]
    _imports_resolve(repo)
    _nothing_to_do(repo, "--bridge", "compat")


# ------------------------------------------------ the wiring read where the store is


def test_sdk_wiring_stays_sdk_after_the_move(tmp_path: Path) -> None:
    """On a laptop (no installed SDK), the checkout's own wiring is the
    evidence: read where the bridge store is, an sdk-wired checkout is not
    migrated to compat."""
    repo = _applied(tmp_path, "--bridge", "sdk")
    _move_store(repo)
    commit_all(repo, "refactor: the bridge store in its own folder")
    assert current_wiring(repo) == (Bridge.SDK, "")
    result = invoke("apply", "--repo", repo, "--check")
    assert result.exit_code == 0, result.output
    assert "the checkout is wired in sdk mode and stays so" in result.stderr, result.stderr
    assert "migrat" not in result.stderr.replace("no migration without evidence", ""), result.stderr
    _nothing_to_do(repo)


def test_compat_wiring_is_read_where_the_store_is(tmp_path: Path) -> None:
    repo = _applied(tmp_path, "--bridge", "compat")
    _move_store(repo)
    assert current_wiring(repo) == (Bridge.COMPAT, "1.x")


# --- a moved definition, found by git grep or by a walk of the tree -------------


@pytest.mark.parametrize("with_git", [True, False], ids=["git-grep", "walk"])
def test_a_moved_hook_is_found_with_or_without_git(tmp_path: Path, with_git: bool) -> None:
    """A file the plan must look for by its definition (the hook, moved)
    is found in a git checkout and in a plain tree alike."""
    from codemods.plan.runner import plan

    repo = fixture_repo(tmp_path / "repo") if with_git else shutil.copytree(
        Path(__file__).parent.parent / "fixtures" / "host" / "newest" / "input", tmp_path / "repo")
    hook = repo / "apps/mesh/src/web/lib/app-state-hook.ts"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text("export function useAppStateParam() {}\n")
    found = {r.step: r.path for r in plan(repo).results}
    assert found["app-state-hook"] == "apps/mesh/src/web/lib/app-state-hook.ts", found
