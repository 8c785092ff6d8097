"""The names come from one table (SPEC 6 and 10), passed in the run's
context: a run with the table renamed to the names the proposal for #465
recommends (`viewState`, every row and the prose term) regenerates the
SDK half, which then passes the complete fixture's own checks (tsc, bun
test, Prettier, the generator check), and no name of the seed's table is
left where the table's name is meant. (The host half of the same rename
comes with the `[names]` configuration.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from codemods.checks.tools import TOOLS
from codemods.plan.runner import plan
from codemods.plan.writing import write
from codemods.recipes.names import NAMES, RECOMMENDED, Names, fill

from .node_tools import NODE_MODULES, require, require_pinned_schemas
from .sdk_support import BUN, SDK_FIXTURES

FIXTURE = SDK_FIXTURES / "shape-c-full" / "input"
TSC = NODE_MODULES / ".bin" / "tsc"
PRETTIER = NODE_MODULES / "prettier" / "bin" / "prettier.cjs"


def test_a_template_hole_is_filled_from_the_table_and_an_unknown_one_is_an_error() -> None:
    assert fill("app.{{sender}}({ state }); // {{Term_title}}", RECOMMENDED) == "app.sendViewStateChanged({ state }); // View State"
    with pytest.raises(KeyError):
        fill("{{nothing}}", NAMES)


def test_every_row_of_the_recommended_table_differs_from_the_seed() -> None:
    assert isinstance(RECOMMENDED, Names)
    assert all(a != b for a, b in zip(NAMES, RECOMMENDED))


@pytest.mark.slow
def test_the_sdk_half_regenerates_under_the_recommended_names_and_passes_its_checks(tmp_path: Path) -> None:
    require(BUN, "Bun")
    require(TSC, "tsc (tools/node_modules)")
    require(PRETTIER, "Prettier (tools/node_modules)")
    require_pinned_schemas()
    tree = tmp_path / "sdk"
    shutil.copytree(FIXTURE, tree)
    planned = plan(tree, tools=TOOLS, names=RECOMMENDED)
    assert planned.refused == [], planned.refused
    write(tree, planned.changes)
    assert plan(tree, tools=TOOLS, names=RECOMMENDED).changes == []  # a second run has nothing to do

    changed = {c.path: c.new.decode() for c in planned.changes}
    for path, text in changed.items():
        old = (FIXTURE / path).read_text()
        for seed in (NAMES.context_field, NAMES.event, NAMES.sender, NAMES.notification_type, "STATE_CHANGED_METHOD",
                     "App State"):
            word = re.compile(rf"(?<![\w$]){re.escape(seed)}(?![\w$])")
            assert len(word.findall(text)) == len(word.findall(old)), (path, seed)
    spec = changed["specification/draft/apps.mdx"]
    assert "`ui/notifications/view-state-changed` - View's navigation state changed" in spec
    assert "View State from Links\n" in spec and "View State Kept by the Host\n" in spec
    assert "viewState?: unknown;" in changed["src/spec.types.ts"]
    assert 'this._assertInitialized("sendViewStateChanged");' in changed["src/app.ts"]
    assert re.search(r'viewstatechange: McpUiViewStateChangedNotification\["params"\]', changed["src/app-bridge.ts"])
    assert "McpUiViewStateChangedNotificationSchema rejects a notification without state" in changed["src/app-bridge.test.ts"]

    os.symlink(NODE_MODULES, tree / "node_modules")
    for name, command in (
        ("tsc", [str(BUN), str(TSC), "--noEmit", "-p", "."]),
        ("bun test", [str(BUN), "test", "src"]),
        ("prettier", [str(BUN), str(PRETTIER), "--check", "src/**/*.ts", "docs/**/*.md", "docs/**/*.tsx"]),
    ):
        result = subprocess.run(command, cwd=tree, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"{name}\n{result.stdout}\n{result.stderr}"
        if name == "bun test":
            assert " 0 fail" in result.stdout + result.stderr
            assert "sendViewStateChanged reaches viewstatechange listeners" in result.stdout + result.stderr

    # the generator check: the pinned toolchain makes the same bytes again
    from codemods.recipes.base import Planned
    from codemods.recipes.sdk import pinned

    def run(command, cwd, timeout=600):
        return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)

    made = pinned.regenerate(str(tree), Planned("src/spec.types.ts", (tree / "src/spec.types.ts").read_bytes()),
                             pinned.toolchain(), run)
    assert made and all(made[path] == (tree / path).read_bytes() for path in made)
