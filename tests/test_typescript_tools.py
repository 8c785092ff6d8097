"""The generated TypeScript, checked by the real tools mesh uses.

Biome (mesh's formatter, at mesh's version) must leave every file the
codemod writes unchanged, and Bun must pass the generated app-state tests
against the generated module. The tools come from tools/package-lock.json
(`scripts/setup --node`); without them these tests are skipped.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .support import FIXTURES, ROOT, snapshot

TOOLS = ROOT / "tools" / "node_modules"
BIOME = TOOLS / ".bin" / "biome"
BUN = TOOLS / ".bin" / "bun"

needs_biome = pytest.mark.skipif(not BIOME.exists(), reason="Biome not installed (scripts/setup --node)")
needs_bun = pytest.mark.skipif(not BUN.exists(), reason="Bun not installed (scripts/setup --node)")

# Trees whose input is formatted as Biome prints it, so their output must be.
FORMATTED_CASES = ["newest", "earliest", "partial"]


def _changed_files(case: str, mode: str) -> list[str]:
    before = snapshot(FIXTURES / case / "input")
    after = snapshot(FIXTURES / case / f"expected-{mode}")
    return sorted(p for p, data in after.items() if before.get(p) != data and p.endswith((".ts", ".tsx")))


@needs_biome
@pytest.mark.parametrize("mode", ["compat", "sdk"])
@pytest.mark.parametrize("case", FORMATTED_CASES)
def test_output_is_biome_formatted(case: str, mode: str) -> None:
    tree = FIXTURES / case / f"expected-{mode}"
    if not tree.exists():
        pytest.skip("no output tree in this mode")
    files = _changed_files(case, mode)
    assert files, "the codemod changed no TypeScript file"
    result = subprocess.run(
        [str(BIOME), "format", "--config-path", str(FIXTURES / case / "input"), *files],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@needs_biome
def test_biome_notices_a_misformatted_file(tmp_path: Path) -> None:
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


@needs_bun
@pytest.mark.parametrize("mode", ["compat", "sdk"])
def test_generated_app_state_tests_pass_under_bun(mode: str, tmp_path: Path) -> None:
    source = FIXTURES / "newest" / f"expected-{mode}" / "apps/mesh/src/mcp-apps"
    # inside tools/ so that `import { z } from "zod"` resolves
    work = TOOLS.parent / f".bun-{mode}-{tmp_path.name}"
    work.mkdir()
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
