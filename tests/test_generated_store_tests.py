"""The tests the tool writes into mesh, run there: `bun test` on the
generated app-state.test.ts, use-app-bridge.test.ts and
use-app-state-param.test.ts, and each of them failing when the behaviour it
names is taken out of the generated code.

The codemod (compat mode) is applied to a copy of the newest fixture's
input; its apps/mesh/src runs under Bun, with mesh's `@/` alias, against
the released @modelcontextprotocol/ext-apps from tools/package-lock.json:
1.7.1 for a checkout that asks for ^1.2.2 (the 1.x form), 2.0.4
(tools/package.json: ext-apps-2) for one that asks for ^2.0.4 (the 2.x
form). The store tests drive several stores at once with the SDK's real
AppBridge and App over in-memory postMessage windows; the hook's tests
render it with react-dom/server inside the real TanStack router (mesh's
version) on a memory history.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .node_tools import BIN, NODE_MODULES, require
from .support import FIXTURES, invoke

SDKS = {"1.7.1": ("^1.2.2", "@modelcontextprotocol/ext-apps"), "2.0.4": ("^2.0.4", "ext-apps-2")}
FORMAT_TESTS = "src/mcp-apps/app-state.test.ts"
STORE_TESTS = "src/mcp-apps/use-app-bridge.test.ts"
HOOK_TESTS = "src/web/hooks/use-app-state-param.test.ts"
ALL = (FORMAT_TESTS, STORE_TESTS, HOOK_TESTS)

# Every test the generated files hold, by file: each must run and pass.
NAMES = {
    FORMAT_TESTS: (
        "app state in the URL > round-trips each app's state, non-ASCII text included",
        "app state in the URL > keeps slots in the order last written, and removes them for null",
        "app state in the URL > evicts the least recently written slots of other apps at the cap",
        "app state in the URL > removes an app's slot over the cap on its own, warning once",
        "app state in the URL > reads standard base64, a space for +, and anything else as no state",
        "app state in the URL > copies one app's state to another key, keeping the rest",
    ),
    STORE_TESTS: (
        "BridgeStore app state > starts each app from its own slot, advertised where state is kept",
        "BridgeStore app state > another app's report pushes nothing, nor its own when reports come faster than renders, "
        "nor Open in panel's write",
        "BridgeStore app state > a quick burst then Back pushes the entry's state",
        "BridgeStore app state > Back to a slow route pushes the slot it removed, though another app's report lands first",
        "BridgeStore app state > after a link or Back, a later eviction or over-cap state pushes nothing, "
        "nor does an unrelated navigation",
        "BridgeStore app state > a report without state is ignored",
        "BridgeStore app state > starts a loading app from the newest state, whatever the display mode does; "
        "pushes a link back once",
    ),
    HOOK_TESTS: (
        "useAppStateParam > reads each app's slot across navigations",
        "useAppStateParam > writes a frame's reports in one navigation on the current location, replacing the entry, "
        "and nothing the slot holds",
    ),
}


def _tree(tmp: Path, sdk: str) -> Path:
    """The tool's apps/mesh/src (compat mode, in the form of ``sdk``'s major
    version), with mesh's `@/` alias and a node_modules holding ``sdk``."""
    wanted, package = SDKS[sdk]
    if sdk == "2.0.4":
        require(NODE_MODULES / package, "ext-apps 2.0.4 (tools/package.json: ext-apps-2)")
    repo = tmp / "mesh"
    shutil.copytree(FIXTURES / "newest" / "input", repo)
    manifest = repo / "apps/mesh/package.json"
    data = json.loads(manifest.read_text())
    data["dependencies"]["@modelcontextprotocol/ext-apps"] = wanted
    manifest.write_text(json.dumps(data, indent=2) + "\n")
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    work = tmp / "app"
    shutil.copytree(repo / "apps/mesh/src", work / "src")
    (work / "tsconfig.json").write_text(json.dumps({"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}))
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
    (scope / "ext-apps").symlink_to(NODE_MODULES / package)
    return work


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, Path]:
    """The generated tree for each SDK, made once for the module's tests
    (each test that changes it works on a copy)."""
    return {}


def _copy(generated: dict[str, Path], tmp: Path, sdk: str) -> Path:
    if sdk not in generated:
        generated[sdk] = _tree(tmp / f"made-{sdk}", sdk)
    work = tmp / f"work-{sdk}"
    shutil.copytree(generated[sdk], work, symlinks=True)
    return work


def _bun_test(work: Path, *files: str) -> tuple[int, str]:
    bun = require(BIN / "bun", "Bun")
    run = subprocess.run(
        [str(bun), "test", *(f"./{name}" for name in files)], cwd=work, capture_output=True, text=True, timeout=300
    )
    return run.returncode, run.stdout + run.stderr


@pytest.mark.parametrize("sdk", list(SDKS))
def test_the_generated_tests_pass_on_the_released_sdk(sdk: str, generated, tmp_path: Path) -> None:
    work = _copy(generated, tmp_path, sdk)
    code, output = _bun_test(work, *ALL)
    assert code == 0 and " 0 fail" in output, output
    for names in NAMES.values():
        for name in names:
            assert f"(pass) {name}" in output, f"{name}\n{output}"


# A test file of mesh's that runs after the store tests in the same `bun
# test` process (mesh's CI runs its shards so): it must find the globals as
# they were, not the store tests' fake page (a leaked `window` broke
# pglite's tests in mesh's shard 2).
AFTER = """import { expect, it } from "bun:test";

it("finds the globals as they were", () => {
  expect(typeof window).toBe("undefined");
  expect(typeof document).toBe("undefined");
  expect(typeof navigation).toBe("undefined");
  expect(typeof MutationObserver).toBe("undefined");
  expect(typeof getComputedStyle).toBe("undefined");
  expect(typeof requestAnimationFrame).toBe("undefined");
});
"""


def test_the_generated_tests_leave_the_globals_as_they_found_them(generated, tmp_path: Path) -> None:
    work = _copy(generated, tmp_path, "1.7.1")
    (work / "zz-after.test.ts").write_text(AFTER)
    code, output = _bun_test(work, STORE_TESTS, HOOK_TESTS, "zz-after.test.ts")
    assert code == 0 and " 0 fail" in output, output
    # the other file did run after the generated tests, in the same process
    assert output.index("use-app-state-param.test.ts:") < output.index("zz-after.test.ts:"), output
    assert "(pass) finds the globals as they were" in output, output


LEAKY = """import { expect, it } from "bun:test";

Object.assign(globalThis, { window: {}, document: {} });

it("fakes a page and keeps it", () => {
  expect(typeof window).toBe("object");
});
"""


def test_verify_names_the_browser_globals_a_test_file_leaves_behind(generated, tmp_path: Path, monkeypatch) -> None:
    """`verify`'s test check runs the touched tests between two files of its
    own in one process, as a shard of mesh's CI does: the generated store
    tests pass it; a test file that keeps its fake page fails it, named
    (one that runs after the store tests, which take their page away)."""
    from codemods.checks import bun_tests

    require(BIN / "bun", "Bun")
    monkeypatch.setenv("PATH", f"{BIN}:{os.environ.get('PATH', '')}")
    work = _copy(generated, tmp_path, "1.7.1")
    tests = [STORE_TESTS, FORMAT_TESTS]
    clean = bun_tests.run_tests(work, tests, per_package=False)
    assert clean.outcome is bun_tests.Outcome.PASSED, clean
    (work / "src/mcp-apps/zz-leaky.test.ts").write_text(LEAKY)
    leaky = bun_tests.run_tests(work, [*tests, "src/mcp-apps/zz-leaky.test.ts"], per_package=False)
    assert leaky.outcome is bun_tests.Outcome.FAILED, leaky
    assert leaky.summary == "the tests leave browser globals behind (document, window)", leaky


# Each behaviour taken out of the generated code, and the generated test
# that must then fail: (file, what it holds, what it holds instead, the
# test's file, the test). Run against 1.7.1 (the compat 1.x form).
MODULE = "src/mcp-apps/app-state.ts"
STORE = "src/mcp-apps/use-app-bridge.ts"
TYPES = "src/mcp-apps/types.ts"
HOOK = "src/web/hooks/use-app-state-param.ts"
REMOVED = {
    "UTF-8 encoding": (
        MODULE, "const bytes = new TextEncoder().encode(json);", "const bytes = Array.from(json, (c) => c.charCodeAt(0));",
        FORMAT_TESTS, 0,
    ),
    "a write moves its slot last": (
        MODULE, "encode([...others.slice(first), [appKey, state]])", "encode([[appKey, state], ...others.slice(first)])",
        FORMAT_TESTS, 1,
    ),
    "eviction of other apps' slots": (
        MODULE, "first <= others.length", "first < 1", FORMAT_TESTS, 2,
    ),
    "one warning per app": (MODULE, "    warnedOverCap.add(appKey);\n", "", FORMAT_TESTS, 3),
    "a space read as +": (MODULE, 'param.replace(/[ -]/g, "+")', 'param.replace(/-/g, "+")', FORMAT_TESTS, 4),
    "the copy of a slot": (
        MODULE, "readAppState(param, fromKey) ?? null", "null", FORMAT_TESTS, 5,
    ),
    "the state in the initial context": (
        STORE, "      this.contextAppState = appState;\n", "", STORE_TESTS, 0,
    ),
    "the capability where state is kept": (
        STORE, "? { ...HOST_CAPABILITIES, appState: { maxLength: 1024 } }", "? HOST_CAPABILITIES", STORE_TESTS, 0,
    ),
    "a write not taken for a navigation (an eviction pushed)": (
        STORE, '  if (navigationType === "replace") return;\n', "", STORE_TESTS, 4,
    ),
    "the navigation kept past a write (Back while another app reports)": (
        STORE, 'if (navigationType === "replace") return;', 'if (navigationType === "replace") return void (lastNavigation = undefined);',
        STORE_TESTS, 3,
    ),
    "the navigation's own change of the slot (an eviction after it pushed)": (
        STORE, "    if (appState !== JSON.stringify(navigated ?? null)) return;\n", "", STORE_TESTS, 4,
    ),
    "each navigation heard once": (STORE, "navigation === this.heardNavigation", "false", STORE_TESTS, 4),
    "only the navigations after the app started": (
        STORE, "      this.heardNavigation = lastNavigation;\n", "", STORE_TESTS, 1,
    ),
    "what the app shows, from its report": (STORE, "        this.shownAppState = params.state;\n", "", STORE_TESTS, 2),
    "the slot of the last location": (
        STORE, "appState === this.lastAppState) return;", "false) return;", STORE_TESTS, 4,
    ),
    "the schema's rejection of a report without state": (TYPES, "state: z.json()", "state: z.unknown()", STORE_TESTS, 5),
    "a loading app's newest state": (
        STORE, "      this.contextAppState = this.shownAppState;\n", "", STORE_TESTS, 6,
    ),
    "the state kept in the context by a display-mode push": (
        STORE, "const appState = this.contextAppState;",
        "const appState = this.snapshot.isLoading ? this.contextAppState : undefined;", STORE_TESTS, 6,
    ),
    "one navigation per frame": (
        HOOK, "if (reports.size === 0) requestAnimationFrame(() => writeReports(router));",
        "queueMicrotask(() => writeReports(router));", HOOK_TESTS, 1,
    ),
    "the other params kept": (HOOK, "      ...prev,\n", "", HOOK_TESTS, 1),
    "the entry replaced": (HOOK, "    replace: true,\n  });", "    replace: false,\n  });", HOOK_TESTS, 1),
    "no navigation for a write that changes nothing": (HOOK, "  if (next === param) return;\n", "", HOOK_TESTS, 1),
}


@pytest.mark.mutation
@pytest.mark.parametrize("removed", list(REMOVED))
def test_a_generated_test_fails_without_the_behaviour_it_names(removed: str, generated, tmp_path: Path) -> None:
    path, now, instead, tests, index = REMOVED[removed]
    work = _copy(generated, tmp_path, "1.7.1")
    target = work / path
    text = target.read_text()
    assert text.count(now) == 1, now
    target.write_text(text.replace(now, instead))
    code, output = _bun_test(work, tests)
    name = NAMES[tests][index]
    assert code != 0, output
    assert f"(fail) {name}" in output, f"{name}\n{output}"
