"""Recognition survives any formatter (issue 19): the tool's clean output,
laid out again by Biome under another configuration, is still the tool's.

The configurations cover every pair of values of the options that change
layout (quotes, JSX quotes, semicolons "asNeeded" or "always", trailing
commas, a line width of 60, 90 or 120, tabs or spaces, an indent width,
parentheses around a single arrow parameter or not): each pair of values
of two options is in at least one configuration, chosen greedily from a
seeded generator's draws; then more drawn configurations, up to
RECOGNITION_CASES. Biome lays out the 7 files of two clean outputs with
each (compat 1.x, and compat 2.x or sdk mode, in turns). Then:

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

pytestmark = pytest.mark.property

CASES = int(os.environ.get("RECOGNITION_CASES", "16"))
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


# The options whose values every pair of configurations covers.
OPTIONS = {
    "indentStyle": ["tab", "space"],
    "indentWidth": [2, 4],
    "lineWidth": [60, 90, 120],
    "quoteStyle": ["double", "single"],
    "jsxQuoteStyle": ["double", "single"],
    "semicolons": ["always", "asNeeded"],
    "trailingCommas": ["all", "es5", "none"],
    "arrowParentheses": ["always", "asNeeded"],
}


def _pairs(choice: dict) -> set[tuple]:
    items = sorted(choice.items())
    return {(a, b) for i, a in enumerate(items) for b in items[i + 1:]}


def configurations(rng: random.Random, count: int) -> list[dict]:
    """Choices of OPTIONS that hold every pair of values of two options
    (each time the draw, of 50, that holds the most pairs not held yet),
    then drawn ones up to ``count``."""
    def draw() -> dict:
        return {option: rng.choice(values) for option, values in OPTIONS.items()}

    missing = set().union(*(_pairs({a: x, b: y}) for a in OPTIONS for b in OPTIONS if a < b
                            for x in OPTIONS[a] for y in OPTIONS[b]))
    chosen = []
    while missing:
        best = max((draw() for _ in range(50)), key=lambda choice: len(_pairs(choice) & missing))
        missing -= _pairs(best)
        chosen.append(best)
    return chosen + [draw() for _ in range(count - len(chosen))]


def biome_config(choice: dict) -> dict:
    return {
        "formatter": {key: choice[key] for key in ("indentStyle", "indentWidth", "lineWidth")} | {"enabled": True},
        "linter": {"enabled": False},
        "assist": {"enabled": False},
        "javascript": {
            "formatter": {
                key: choice[key]
                for key in ("quoteStyle", "jsxQuoteStyle", "semicolons", "trailingCommas", "arrowParentheses")
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
    choices = configurations(random.Random(SEED), CASES)
    changed_layouts = 0
    for case, choice in enumerate(choices):
        config = biome_config(choice)
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
    assert changed_layouts > len(choices) // 2, "the configurations hardly changed the layout: the test tests nothing"
    with capsys.disabled():
        print(f"\nrecognition layouts: {len(choices)} cases (seed {SEED}; every pair of option values), "
              f"{changed_layouts} with a changed layout: all passed")
