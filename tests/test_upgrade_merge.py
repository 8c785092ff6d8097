"""Upgrades merge (SPEC 5a, "Earlier releases"; issue 30 item 4): a file
the tool created and the team edited since is upgraded by a three-way merge
(the earlier release's output it was made from, the team's file, this
release's output), so a license header or an added helper survives; only a
conflict leaves it alone, named in the report, `--check` and `status`.

Every expectation is computed in the test: the clean result is what this
release writes on a clean checkout in the same run, with the team's lines
put back where they were."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from codemods.engine.merge3 import differing_lines, merge3

from .node_tools import BIN, require
from .support import FIXTURES, invoke

SRC = "apps/mesh/src/mcp-apps"
MODULE = f"{SRC}/app-state.ts"
TESTS = f"{SRC}/app-state.test.ts"
HEADER = "// Copyright 2026 the Studio authors. SPDX-License-Identifier: Apache-2.0\n\n"
HELPER = (
    "\n/** Whether a search param holds some app state (the team's helper). */\n"
    "export function hasAppState(value: string | null): boolean {\n"
    "  return value !== null && value.length > 0;\n"
    "}\n"
)


# --- the merge itself -----------------------------------------------------------


def test_merge3_takes_each_sides_changes_and_names_a_collision() -> None:
    base = "a\nb\nc\nd\ne\n"
    # ours adds a header and a last line, theirs changes a middle line
    assert merge3(base, "h\na\nb\nc\nd\ne\nz\n", "a\nb\nC\nd\ne\n") == ("h\na\nb\nC\nd\ne\nz\n", ())
    # both made the same change: taken once
    assert merge3(base, "a\nB\nc\nd\ne\n", "a\nB\nc\nd\ne\n").text == "a\nB\nc\nd\ne\n"
    # both changed line 3 differently: a conflict at the team's line 3
    assert merge3(base, "a\nb\nX\nd\ne\n", "a\nb\nY\nd\ne\n").conflicts == ((3, 3),)
    # one side deletes what the other changes: a conflict
    assert merge3(base, "a\nb\nd\ne\n", "a\nb\nY\nd\ne\n").conflicts
    assert differing_lines(base, "a\nb\nX\nd\ne\n") == 2 and differing_lines(base, base) == 0


# --- on the checkout -------------------------------------------------------------


def _clean(tmp_path: Path, bridge: str) -> dict[str, str]:
    """What this release writes on a clean checkout (the newest fixture)."""
    repo = tmp_path / f"clean-{bridge}"
    shutil.copytree(FIXTURES / "newest" / "input", repo)
    result = invoke("apply", "--repo", repo, "--bridge", bridge)
    assert result.exit_code == 0, result.output
    return {path: (repo / path).read_text() for path in (MODULE, TESTS)}


def _release(tmp_path: Path, fixture: str) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / fixture / "input", repo)
    return repo


@pytest.mark.parametrize(
    ("fixture", "bridge"),
    [("release-0.1.0-compat", "compat"), ("release-0.3.0-sdk", "sdk"), ("release-0.1.0-sdk", "compat")],
)
def test_a_license_header_and_an_added_helper_survive_the_upgrade(fixture: str, bridge: str, tmp_path: Path) -> None:
    clean = _clean(tmp_path, bridge)
    repo = _release(tmp_path, fixture)
    for path in (MODULE, TESTS):
        (repo / path).write_text(HEADER + (repo / path).read_text())
    (repo / MODULE).write_text((repo / MODULE).read_text() + HELPER)

    check = invoke("apply", "--repo", repo, "--bridge", bridge, "--check")
    assert check.exit_code == 1, check.output  # the upgrade is pending
    result = invoke("apply", "--repo", repo, "--bridge", bridge, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["left_alone"] == [], report["left_alone"]
    assert (repo / MODULE).read_text() == HEADER + clean[MODULE] + HELPER
    assert (repo / TESTS).read_text() == HEADER + clean[TESTS]
    assert any("three-way merge" in n for n in report["notices"]), report["notices"]
    # done: a second run changes nothing
    again = invoke("apply", "--repo", repo, "--bridge", bridge, "--check")
    assert again.exit_code == 0, again.output
    assert "was edited since" not in again.stderr


def test_the_merged_module_and_its_tests_pass_under_bun(tmp_path: Path) -> None:
    bun = require(BIN / "bun", "bun (tools/node_modules)")
    repo = _release(tmp_path, "release-0.3.0-sdk")
    for path in (MODULE, TESTS):
        (repo / path).write_text(HEADER + (repo / path).read_text())
    (repo / MODULE).write_text((repo / MODULE).read_text() + HELPER)
    (repo / TESTS).write_text(
        (repo / TESTS).read_text()
        + '\nimport { hasAppState } from "./app-state";\n'
        + 'it("the team\'s helper", () => {\n  expect(hasAppState("x")).toBe(true);\n  expect(hasAppState(null)).toBe(false);\n});\n'
    )
    result = invoke("apply", "--repo", repo, "--bridge", "sdk")
    assert result.exit_code == 0, result.output
    folder = tmp_path / "run"
    folder.mkdir()
    for path in (MODULE, TESTS):
        shutil.copy(repo / path, folder / Path(path).name)
    ran = subprocess.run([bun, "test", "app-state.test.ts"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "the team's helper" in ran.stderr and " 0 fail" in ran.stderr, ran.stderr
    # the upgrade's own tests ran too (0.5.0's slots)
    assert "keeps other apps' slots and gives each app its own" in ran.stderr


def test_an_edit_that_collides_with_the_upgrade_refuses_naming_the_lines(tmp_path: Path) -> None:
    """A conflict leaves the file as the team has it; since this release's
    hook imports what the upgrade adds to it, the run refuses, naming the
    conflicting lines and what is missing, and writes nothing."""
    repo = _release(tmp_path, "release-0.3.0-sdk")
    module = repo / MODULE
    text = module.read_text()
    line = "  if (state === undefined) return null;\n"
    assert text.count(line) == 1
    module.write_text(text.replace(line, "  if (state === undefined || state === 0) return null;\n"))
    where = text[: text.index(line)].count("\n") + 1
    edited = module.read_bytes()
    tests_before = (repo / TESTS).read_bytes()
    for args in (("apply", "--repo", repo, "--bridge", "sdk", "--check"), ("status", "--repo", repo)):
        result = invoke(*args)
        assert result.exit_code == 3, result.output
        assert f"{MODULE} was edited since mesh-codemod wrote it (0.2.0 and 0.3.0, sdk mode)" in result.output, result.output
        assert "does not define readAppState" in result.output, result.output
        found = re.search(r"conflicts with the edits at lines? (\d+)(?:-(\d+))?: left alone", result.output)
        assert found is not None, result.output
        assert int(found[1]) <= where <= int(found[2] or found[1]), (found[0], where)
    result = invoke("apply", "--repo", repo, "--bridge", "sdk", "--json")
    assert result.exit_code == 3, result.output
    [step] = [s for s in json.loads(result.stdout)["steps"] if s["path"] == MODULE]
    assert step["status"] == "refused" and step["kind"] == "conflict", step
    assert module.read_bytes() == edited
    assert (repo / TESTS).read_bytes() == tests_before


def test_an_edited_copy_of_this_releases_output_is_already_done(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "newest" / "input", repo)
    assert invoke("apply", "--repo", repo, "--bridge", "compat").exit_code == 0
    for path in (MODULE, TESTS):
        (repo / path).write_text(HEADER + (repo / path).read_text())
    edited = {path: (repo / path).read_bytes() for path in (MODULE, TESTS)}
    result = invoke("apply", "--repo", repo, "--bridge", "compat", "--check")
    assert result.exit_code == 0 and "was edited since" not in result.stderr, result.output
    # a migration merges too: sdk mode drops the compat schema, the header stays
    result = invoke("apply", "--repo", repo, "--bridge", "sdk")
    assert result.exit_code == 0, result.output
    clean = _clean(tmp_path, "sdk")
    assert (repo / MODULE).read_text() == HEADER + clean[MODULE]
    assert (repo / TESTS).read_bytes() == edited[TESTS]


def test_the_carried_texts_are_the_recorded_outputs() -> None:
    from codemods.engine.equivalence import layout_digest
    from codemods.recipes.host.releases import CREATED, RECORDED, TEXTS, texts

    from .support import ROOT

    for (step, label), path in RECORDED.items():
        assert texts(step)[label] == (ROOT / path).read_text(), (step, label)
    for step, labels in TEXTS.items():
        carried = texts(step)
        for label, text in carried.items():
            digest = layout_digest(text, "x.ts")
            if label in CREATED[step]:
                assert digest == CREATED[step][label], (step, label)
        # every release's texts differ from one another
        assert len({layout_digest(t, "x.ts") for t in carried.values()}) == len(carried), step


def test_an_addition_next_to_a_change_is_kept_beside_it() -> None:
    base = "import z\n\nconst a = 1;\n"
    # a header above the import the new release drops
    assert merge3(base, "// header\nimport z\n\nconst a = 1;\n", "const a = 1;\n") == ("// header\nconst a = 1;\n", ())
    # both added lines at the top: ours first
    assert merge3("a\n", "h\na\n", "i\na\n").text == "h\ni\na\n"


def test_changes_to_adjacent_lines_are_both_applied() -> None:
    base = "cap = 2048\nschema start\nschema end\nrest\n"
    ours = "cap = 4096\nschema start\nschema end\nrest\n"
    theirs = "cap = 2048\nrest\n"
    assert merge3(base, ours, theirs) == ("cap = 4096\nrest\n", ())
    # the same line: a conflict
    assert merge3(base, ours, "cap = 1024\nrest\n").conflicts == ((1, 3),)
