"""The generated TypeScript, checked by the real tools mesh uses.

Biome (mesh's formatter, at mesh's version) must leave every file the
codemod writes unchanged, and Bun must pass the generated app-state tests
against the generated module. The tools come from tools/package-lock.json
(`scripts/setup --node`); without them these tests are skipped on a
developer machine and fail in CI.

The fixture's compat output, and its input, must also pass `tsc --noEmit`
against the real packages at mesh's versions (tools/package.json), with our
declaration stubs (tests/typecheck/) only for mesh-internal modules.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from .support import FIXTURES, ROOT, fixture_files, snapshot

from .node_tools import BIN, NODE_MODULES, require

TOOLS = NODE_MODULES
BIOME = BIN / "biome"
BUN = BIN / "bun"
TSC = BIN / "tsc"
TYPECHECK = ROOT / "tests" / "typecheck"


@pytest.fixture
def biome() -> Path:
    return require(BIOME, "Biome")


@pytest.fixture
def bun() -> Path:
    return require(BUN, "Bun")


@pytest.fixture
def tsc() -> Path:
    return require(TSC, "TypeScript (tsc)")

# Trees whose input is formatted as Biome prints it, so their output must be.
FORMATTED_CASES = ["newest", "earliest", "partial"]


def _changed_files(case: str, mode: str) -> list[str]:
    before = fixture_files(FIXTURES / case, "input")
    after = snapshot(FIXTURES / case / f"expected-{mode}")
    return sorted(p for p, data in after.items() if before.get(p) != data and p.endswith((".ts", ".tsx")))


@pytest.mark.parametrize(
    ("case", "mode"),
    [(c, m) for c in FORMATTED_CASES for m in ("compat", "sdk") if (FIXTURES / c / f"expected-{m}").is_dir()],
)
def test_output_is_biome_formatted(case: str, mode: str, biome: Path) -> None:
    tree = FIXTURES / case / f"expected-{mode}"
    files = _changed_files(case, mode)
    assert files, "the codemod changed no TypeScript file"
    result = subprocess.run(
        [str(BIOME), "format", "--config-path", str(FIXTURES / case / "input"), *files],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_biome_notices_a_misformatted_file(tmp_path: Path, biome: Path) -> None:
    """The check above can fail: Biome rejects a line the codemod must break."""
    shutil.copy(FIXTURES / "newest" / "input" / "biome.json", tmp_path / "biome.json")
    (tmp_path / "a.ts").write_text(
        "const { client, displayMode, maxHeight, toolInfo, orgId, appState } = this.config;\n"
    )
    result = subprocess.run(
        [str(BIOME), "format", "--config-path", str(tmp_path), "a.ts"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert result.returncode != 0


@pytest.mark.parametrize("mode", ["compat", "sdk"])
def test_generated_app_state_tests_pass_under_bun(mode: str, tmp_path: Path, bun: Path) -> None:
    source = FIXTURES / "newest" / f"expected-{mode}" / "apps/mesh/src/mcp-apps"
    # inside tools/ so that `import { z } from "zod"` resolves
    work = Path(tempfile.mkdtemp(prefix=f".bun-{mode}-", dir=TOOLS.parent))
    try:
        for name in ("app-state.ts", "app-state.test.ts"):
            shutil.copy(source / name, work / name)
        result = subprocess.run(
            [str(BUN), "test", "./app-state.test.ts"],
            cwd=work, capture_output=True, text=True, timeout=300,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert " 0 fail" in output and "pass" in output, output


def _typecheck_tree(tree: Path, work: Path) -> Path:
    """A copy of ``tree``'s apps/ with our tsconfig, stubs and node_modules."""
    shutil.copytree(tree / "apps", work / "apps")
    shutil.copy(TYPECHECK / "tsconfig.json", work / "tsconfig.json")
    shutil.copytree(TYPECHECK / "stubs", work / "stubs")
    src = work / "apps" / "mesh" / "src"
    for stub in sorted((TYPECHECK / "src").rglob("*")):
        if stub.is_file():
            target = src / stub.relative_to(TYPECHECK / "src")
            # a stub never hides a file of the fixture
            assert not target.exists(), f"stub shadows fixture file {target}"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(stub, target)
    (work / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
    return work


def _run_tsc(tsc: Path, work: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(tsc), "--noEmit", "-p", "tsconfig.json", "--pretty", "false"],
        cwd=work, capture_output=True, text=True, timeout=300,
    )


@pytest.mark.parametrize("tree", ["input", "expected-compat"])
def test_fixture_type_checks_with_the_real_packages(tree: str, tmp_path: Path, tsc: Path) -> None:
    work = _typecheck_tree(FIXTURES / "newest" / tree, tmp_path)
    result = _run_tsc(tsc, work)
    assert result.returncode == 0, result.stdout + result.stderr


def test_type_check_notices_a_broken_prop(tmp_path: Path, tsc: Path) -> None:
    """The check above can fail: without the renderer's `appState` prop the
    render sites no longer type-check (real React and SDK types, no `any`)."""
    work = _typecheck_tree(FIXTURES / "newest" / "expected-compat", tmp_path)
    renderer = work / "apps/mesh/src/mcp-apps/mcp-app-renderer.tsx"
    text = renderer.read_text()
    assert text.count("  appState?: unknown;\n") == 1
    renderer.write_text(text.replace("  appState?: unknown;\n", ""))
    result = _run_tsc(tsc, work)
    assert result.returncode != 0
    assert "project-app-view.tsx" in result.stdout and "appState" in result.stdout, result.stdout


# The packages the type check and the browser test use, pinned in
# tools/package.json at the versions mesh's lock file installs.
MESH_PACKAGES = [
    "@modelcontextprotocol/ext-apps",
    "@modelcontextprotocol/sdk",
    "@tanstack/react-router",
    "@types/bun",
    "@types/react",
    "@types/react-dom",
    "ai",
    "react",
    "react-dom",
    "typescript",
    "zod",
]


@pytest.mark.skipif(not os.environ.get("MESH_GIT_DIR"), reason="MESH_GIT_DIR is not set")
def test_tools_pin_mesh_versions() -> None:
    """tools/package.json pins what mesh's bun.lock installs (MESH_REV, default HEAD)."""
    lock = subprocess.run(
        ["git", "-C", os.environ["MESH_GIT_DIR"], "show", f"{os.environ.get('MESH_REV', 'HEAD')}:bun.lock"],
        check=True, capture_output=True, text=True,
    ).stdout
    pinned = json.loads((TOOLS.parent / "package.json").read_text())["devDependencies"]
    for name in MESH_PACKAGES:
        # a top-level entry: `"name": ["name@version", ...`
        found = re.search(rf'^\s*"{re.escape(name)}": \["{re.escape(name)}@([^"]+)"', lock, re.M)
        assert found, f"{name} is not in mesh's bun.lock"
        assert pinned[name] == found.group(1), f"{name}: tools pins {pinned[name]}, mesh installs {found.group(1)}"


def _sdk2_config(work: Path) -> str:
    """A tsconfig beside ``work``'s that resolves the SDK to the pinned 2.0.4
    (tools/package.json: ext-apps-2)."""
    require(NODE_MODULES / "ext-apps-2", "ext-apps 2.0.4 (tools/package.json: ext-apps-2)")
    base = json.loads(
        "\n".join(l for l in (TYPECHECK / "tsconfig.json").read_text().splitlines() if not l.strip().startswith("//"))
    )
    paths = dict(base["compilerOptions"]["paths"])
    paths["@modelcontextprotocol/ext-apps"] = ["./node_modules/ext-apps-2/dist/src/app.d.ts"]
    paths["@modelcontextprotocol/ext-apps/app-bridge"] = ["./node_modules/ext-apps-2/dist/src/app-bridge.d.ts"]
    config = {"extends": "./tsconfig.json", "compilerOptions": {"paths": paths}}
    (work / "tsconfig.sdk2.json").write_text(json.dumps(config, indent=2))
    return "tsconfig.sdk2.json"


def _errors(tsc: Path, work: Path, config: str) -> set[str]:
    """tsc's errors, by file and message (the edit moves lines)."""
    result = subprocess.run(
        [str(tsc), "--noEmit", "-p", config, "--pretty", "false"], cwd=work, capture_output=True, text=True, timeout=300
    )
    return {re.sub(r"\(\d+,\d+\)", "", line) for line in result.stdout.splitlines() if ": error TS" in line}


def test_the_2x_form_type_checks_against_2_0_4(tmp_path: Path, tsc: Path) -> None:
    """The compat output for a checkout on ext-apps 2.x, checked against the
    2.0.4 declarations: the code the tool writes adds no error to what the
    checkout already has under 2.x (mesh's own code predates 2.x: its 1.x
    Client and tool types are the baseline's errors), and a handler in the
    wrong shape for the 2.x form is caught."""
    case = FIXTURES / "newest-sdk-2x"
    baseline_work = _typecheck_tree(case / "input", tmp_path / "input")
    baseline = _errors(tsc, baseline_work, _sdk2_config(baseline_work))
    work = _typecheck_tree(case / "expected-compat", tmp_path / "output")
    config = _sdk2_config(work)
    bridge = work / "apps/mesh/src/mcp-apps/use-app-bridge.ts"
    assert '{ params: StateChangedParamsSchema },' in bridge.read_text()
    assert _errors(tsc, work, config) <= baseline

    # the 1.x handler shape in the 2.x form: its params hold no `params`
    text = bridge.read_text()
    broken = text.replace("      (params) => {\n", "      ({ params }) => {\n", 1)
    assert broken != text
    bridge.write_text(broken)
    new = _errors(tsc, work, config) - baseline
    assert any("use-app-bridge.ts" in e for e in new), new
