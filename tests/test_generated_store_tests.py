"""The tests the tool writes into mesh, run there: `bun test` on the generated
app-state.test.ts, use-app-bridge.test.ts and use-app-state-param.test.ts.

The codemod (compat mode) is applied to a copy of the newest fixture's
input; its apps/mesh/src/mcp-apps runs under Bun with the released
@modelcontextprotocol/ext-apps from tools/package-lock.json: 1.7.1 for a
checkout that asks for ^1.2.2, 2.0.4 (tools/package.json: ext-apps-2) for
one that asks for ^2.0.4 (the 2.x form). The store tests drive several
stores at once with the SDK's real AppBridge and App over in-memory
postMessage windows. A store that breaks rule 3 (the 0.4.0 comparison with
the app's last report) must fail them. The hook's tests run on the real
@tanstack/react-router at mesh's version, with mesh's `@/` alias; writes
that do not compose on the current search (rule 2) must fail them.
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

SDKS = {"1.7.1": ("^1.2.2", "ext-apps"), "2.0.4": ("^2.0.4", "ext-apps-2")}
STORE_TESTS = ("use-app-bridge.test.ts", "app-state.test.ts")


def _generated(tmp: Path, sdk: str) -> Path:
    """The tool's apps/mesh/src/mcp-apps, beside a node_modules with ``sdk``."""
    wanted, package = SDKS[sdk]
    tree = tmp / "mesh"
    shutil.copytree(FIXTURES / "newest" / "input", tree)
    manifest = tree / "apps/mesh/package.json"
    data = json.loads(manifest.read_text())
    data["dependencies"]["@modelcontextprotocol/ext-apps"] = wanted
    manifest.write_text(json.dumps(data, indent=2) + "\n")
    result = invoke("apply", "--repo", tree, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    work = tmp / "work"
    shutil.copytree(tree / "apps/mesh/src/mcp-apps", work)
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
    (scope / "ext-apps").symlink_to(NODE_MODULES / package if package != "ext-apps" else NODE_MODULES / "@modelcontextprotocol/ext-apps")
    return work


def _bun_test(work: Path, *files: str) -> tuple[int, str]:
    bun = require(BIN / "bun", "Bun")
    run = subprocess.run(
        [str(bun), "test", *(f"./{name}" for name in files)], cwd=work, capture_output=True, text=True, timeout=300
    )
    return run.returncode, run.stdout + run.stderr


@pytest.mark.parametrize("sdk", list(SDKS))
def test_the_generated_tests_pass_in_the_patched_tree(sdk: str, tmp_path: Path) -> None:
    if sdk == "2.0.4":
        require(NODE_MODULES / "ext-apps-2", "ext-apps 2.0.4 (tools/package.json: ext-apps-2)")
    work = _generated(tmp_path, sdk)
    code, output = _bun_test(work, *STORE_TESTS)
    assert code == 0, output
    assert " 0 fail" in output, output
    # every store test ran: the rules' describe blocks are all there
    for rule in ("rule 1", "rule 3", "rule 4", "rules 5 and 6", "rule 8"):
        assert f"(pass) {rule}" in output, output


# A test file of mesh's that runs after the store tests in the same `bun
# test` process (mesh's CI runs its shards so): it must find the globals as
# they were, not the store tests' fake page (a leaked `window` broke
# pglite's tests in mesh's shard 2).
AFTER = """import { expect, it } from "bun:test";

it("finds the globals as they were", () => {
  expect(typeof window).toBe("undefined");
  expect(typeof document).toBe("undefined");
  expect(typeof MutationObserver).toBe("undefined");
  expect(typeof getComputedStyle).toBe("undefined");
});
"""


def test_the_store_tests_leave_the_globals_as_they_found_them(tmp_path: Path) -> None:
    work = _generated(tmp_path, "1.7.1")
    (work / "zz-after.test.ts").write_text(AFTER)
    code, output = _bun_test(work, "use-app-bridge.test.ts", "zz-after.test.ts")
    assert code == 0 and " 0 fail" in output, output
    # the other file did run after the store tests, in the same process
    assert output.index("use-app-bridge.test.ts:") < output.index("zz-after.test.ts:"), output
    assert "(pass) finds the globals as they were" in output, output


LEAKY = """import { expect, it } from "bun:test";

Object.assign(globalThis, { window: {}, document: {} });

it("fakes a page and keeps it", () => {
  expect(typeof window).toBe("object");
});
"""


def test_verify_names_the_browser_globals_a_test_file_leaves_behind(tmp_path: Path, monkeypatch) -> None:
    """`verify`'s test check runs the touched tests between two files of its
    own in one process, as a shard of mesh's CI does: the generated store
    tests pass it; a test file that keeps its fake page fails it, named."""
    from codemods.checks import bun_tests

    require(BIN / "bun", "Bun")
    monkeypatch.setenv("PATH", f"{BIN}:{os.environ.get('PATH', '')}")
    work = _generated(tmp_path, "1.7.1")
    clean = bun_tests.run_tests(work, list(STORE_TESTS), per_package=False)
    assert clean.outcome is bun_tests.Outcome.PASSED, clean
    (work / "leaky.test.ts").write_text(LEAKY)
    leaky = bun_tests.run_tests(work, [*STORE_TESTS, "leaky.test.ts"], per_package=False)
    assert leaky.outcome is bun_tests.Outcome.FAILED, leaky
    assert leaky.summary == "the tests leave browser globals behind (document, window)", leaky


# The store as 0.4.0 wrote it: the URL's state compared with the app's last
# report, whoever changed the URL (the bug of issue 27).
LAST_REPORT = """  private followUrlAppState() {
    const json = JSON.stringify(this.config.appState);
    if (json !== this.appStateJson) {
      this.appStateJson = json;
      this.pushAppState(this.config.appState ?? null);
    }
  }
"""


def test_a_store_that_breaks_rule_3_fails_them(tmp_path: Path) -> None:
    work = _generated(tmp_path, "1.7.1")
    store = work / "use-app-bridge.ts"
    text = store.read_text()
    start = text.index("  private followUrlAppState() {")
    end = text.index("\n  }\n", start) + 5
    store.write_text(text[:start] + LAST_REPORT + text[end:])
    code, output = _bun_test(work, "use-app-bridge.test.ts")
    assert code != 0, output
    assert "(fail) rule 3: pushes only for navigations > does not push back a report the URL shows late" in output
    assert "(fail) rule 3: pushes only for navigations > pushes nothing for a prop change" in output


HOOK_TESTS = "src/web/hooks/use-app-state-param.test.ts"


def _generated_app(tmp: Path) -> Path:
    """The tool's apps/mesh/src (compat, 1.x), with mesh's `@/` alias and
    the real @tanstack/react-router (mesh's version, tools/package-lock.json)."""
    tree = tmp / "mesh"
    shutil.copytree(FIXTURES / "newest" / "input", tree)
    result = invoke("apply", "--repo", tree, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    work = tmp / "app"
    shutil.copytree(tree / "apps/mesh/src", work / "src")
    (work / "tsconfig.json").write_text(json.dumps({"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}))
    (work / "node_modules").symlink_to(NODE_MODULES)
    return work


def test_the_generated_hook_tests_pass_on_a_real_router(tmp_path: Path) -> None:
    work = _generated_app(tmp_path)
    code, output = _bun_test(work, HOOK_TESTS)
    assert code == 0 and " 0 fail" in output, output
    for name in (
        "keeps the other apps' slots: each report composes on the URL as it is now",
        "ends at the last of reports that come faster than renders",
        "a state over the cap stays out of the URL and is kept in the entry",
        "replaces the history entry instead of adding one",
    ):
        assert f"(pass) writeAppStateReport > {name}" in output, output


# Writes that break rule 2 (compose on the current search), each with a test
# of the generated file that must fail: (the hook's line, its replacement,
# the test).
BROKEN_WRITES = {
    "the app's slot written alone, the other apps' dropped": (
        "[APP_STATE_PARAM]: written(paramIn(prev), {}, appKey, state).param,",
        "[APP_STATE_PARAM]: written(undefined, {}, appKey, state).param,",
        "keeps the other apps' slots: each report composes on the URL as it is now",
    ),
    "the other params dropped": (
        "      ...prev,\n      [APP_STATE_PARAM]",
        "      [APP_STATE_PARAM]",
        "writes the app's slot and keeps the other params",
    ),
    "the page left for the root": (
        '    to: ".",',
        '    to: "/",',
        "writes the app's slot and keeps the other params",
    ),
    "a history entry per report": (
        "    replace: true,\n  });",
        "    replace: false,\n  });",
        "replaces the history entry instead of adding one",
    ),
}


@pytest.mark.parametrize("broken", list(BROKEN_WRITES))
def test_a_hook_whose_writes_do_not_compose_fails_them(broken: str, tmp_path: Path) -> None:
    line, replacement, name = BROKEN_WRITES[broken]
    work = _generated_app(tmp_path)
    hook = work / "src/web/hooks/use-app-state-param.ts"
    text = hook.read_text()
    assert text.count(line) == 1, line
    hook.write_text(text.replace(line, replacement))
    code, output = _bun_test(work, HOOK_TESTS)
    assert code != 0, output
    assert f"(fail) writeAppStateReport > {name}" in output, output
