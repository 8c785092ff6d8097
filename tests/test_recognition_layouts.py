"""Recognition survives any formatter (issue 19): the tool's clean output,
laid out again by Biome under a random configuration, is still the tool's.

Each case draws, from a seeded generator, a Biome configuration: quotes,
semicolons "asNeeded" or "always", trailing commas, a line width from 60
to 120, tabs or spaces of a random width, parentheses around a single
arrow parameter or not. Biome lays out the 7 files of two clean outputs
with it (compat 1.x, and compat 2.x or sdk mode, in turns). Then:

- `apply --check` exits 0 on both, and `apply` inserts nothing;
- the 1.x -> 2.x migration of the first succeeds and gives, modulo layout,
  what a clean 2.x run writes.

RECOGNITION_CASES and RECOGNITION_SEED change the count and the seed; the
count and seed are printed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from codemods.engine.equivalence import layout_key

from .node_tools import BIN, require
from .support import snapshot
from .test_recognition import BRIDGE, MODULE, WIRINGS, _run, wired

CASES = int(os.environ.get("RECOGNITION_CASES", "200"))
SEED = int(os.environ.get("RECOGNITION_SEED", "19"))
SRC = "apps/mesh/src"
FILES = [
    f"{SRC}/mcp-apps/app-state.ts",
    f"{SRC}/mcp-apps/app-state.test.ts",
    f"{SRC}/mcp-apps/use-app-bridge.ts",
    f"{SRC}/mcp-apps/mcp-app-renderer.tsx",
    f"{SRC}/web/components/chat/message/parts/tool-call-part/generic.tsx",
    f"{SRC}/web/routes/project-app-view.tsx",
    f"{SRC}/web/index.tsx",
]


def biome_config(rng: random.Random) -> dict:
    tabs = rng.random() < 0.3
    return {
        "formatter": {
            "enabled": True,
            "indentStyle": "tab" if tabs else "space",
            "indentWidth": rng.choice([2, 4]),
            "lineWidth": rng.randint(60, 120),
        },
        "linter": {"enabled": False},
        "assist": {"enabled": False},
        "javascript": {
            "formatter": {
                "quoteStyle": rng.choice(["double", "single"]),
                "jsxQuoteStyle": rng.choice(["double", "single"]),
                "semicolons": rng.choice(["always", "asNeeded"]),
                "trailingCommas": rng.choice(["all", "es5", "none"]),
                "arrowParentheses": rng.choice(["always", "asNeeded"]),
            }
        },
    }


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("clean")
    return {wiring: wired(root / wiring, wiring) for wiring in WIRINGS}


def _lay_out(biome: Path, config: dict, trees: list[Path], work: Path) -> None:
    (work / "biome.json").write_text(json.dumps(config))
    for tree in trees:
        (tree / "biome.json").unlink(missing_ok=True)  # Biome takes one root configuration
    result = subprocess.run(
        [str(biome), "format", "--write", "--config-path", str(work), *[str(t / f) for t in trees for f in FILES]],
        cwd=work, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for tree in trees:
        # the team's configuration, as the tool reads it
        shutil.copy(work / "biome.json", tree / "biome.json")


def test_every_layout_of_the_clean_output_is_recognised(clean, tmp_path: Path, capsys) -> None:
    biome = require(BIN / "biome", "Biome")
    rng = random.Random(SEED)
    changed_layouts = 0
    for case in range(CASES):
        config = biome_config(rng)
        other = "compat-2x" if case % 2 else "sdk"
        work = tmp_path / f"case-{case}"
        work.mkdir()
        trees = {wiring: work / wiring for wiring in ("compat-1x", other)}
        for wiring, tree in trees.items():
            shutil.copytree(clean[wiring], tree)
        _lay_out(biome, config, list(trees.values()), work)
        changed_layouts += any(
            (trees["compat-1x"] / f).read_bytes() != (clean["compat-1x"] / f).read_bytes() for f in FILES
        )
        label = f"case {case} (seed {SEED}): {json.dumps(config)}"
        for wiring, tree in trees.items():
            before = snapshot(tree)
            check = _run(tree, wiring, "--check")
            assert check.exit_code == 0, f"{label}, {wiring}:\n{check.output}"
            assert snapshot(tree) == before
        migrated = _run(trees["compat-1x"], "compat-2x", "--json")
        assert migrated.exit_code == 0, f"{label}: the 1.x -> 2.x migration failed:\n{migrated.output}"
        report = json.loads(migrated.stdout)
        assert {c["kind"] for c in report["changes_of_form"]} == {"migrate"}, f"{label}: {report['changes_of_form']}"
        for path in (BRIDGE, MODULE):
            got = layout_key((trees["compat-1x"] / path).read_bytes(), path, comments=False)
            want = layout_key((clean["compat-2x"] / path).read_bytes(), path, comments=False)
            assert got == want, f"{label}: {path} is not what a clean 2.x run writes"
        shutil.rmtree(work)
    assert changed_layouts > CASES // 2, "the configurations hardly changed the layout: the test tests nothing"
    with capsys.disabled():
        print(f"\nrecognition layouts: {CASES} cases (seed {SEED}), {changed_layouts} with a changed layout: all passed")
