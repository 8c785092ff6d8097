"""The generated files the tool commits on an SDK checkout without
node_modules come from the schema toolchain pinned in tools/ (ts-to-zod at
the SDK's version, zod, Prettier, run with the pinned Bun), and they work:
tests/sdk/generated-schema.test.ts imports the whole generated schema.ts of
each shape with the zod and MCP SDK of tools/node_modules and runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .node_tools import NODE_MODULES, require, require_pinned_schemas
from .sdk_support import BUN, SDK_FIXTURES, SHAPES, sdk_tree
from .support import ROOT, invoke, snapshot

CASES = {"shape-a": 4, "shape-b": 5, "shape-c": 5}  # shape A has no host capabilities


def _applied(tmp_path: Path, shape: str) -> tuple[Path, dict]:
    import json

    tree = sdk_tree(tmp_path, shape)
    result = invoke("apply", "--repo", tree, "--json")
    assert result.exit_code == 0, result.output
    return tree, json.loads(result.stdout)


@pytest.mark.parametrize("shape", SHAPES)
def test_the_pinned_toolchain_makes_what_the_tool_commits(shape: str, tmp_path: Path) -> None:
    """Without the checkout's node_modules the generated files are the
    pinned toolchain's output (the fixtures' expected trees), and the
    report, in its notes and its text, says so."""
    require_pinned_schemas()
    tree, report = _applied(tmp_path, shape)
    notes = {s["step"]: s.get("notes", []) for s in report["steps"]}
    for step in ("schema", "schema-test", "schema-json"):
        assert any(n.startswith("regenerated with ts-to-zod 5.1.0, zod 4.3.6 and Prettier 3.6.2") for n in notes[step]), notes
    expected = snapshot(SDK_FIXTURES / shape / "expected-auto")
    for path in ("src/generated/schema.ts", "src/generated/schema.test.ts", "src/generated/schema.json"):
        assert (tree / path).read_bytes() == expected[path], path


@pytest.mark.parametrize("shape", SHAPES)
def test_the_generated_schema_runs_with_bun(shape: str, tmp_path: Path) -> None:
    require_pinned_schemas()
    require(BUN, "Bun")
    tree, _ = _applied(tmp_path, shape)
    work = tmp_path / "run"
    work.mkdir()
    os.symlink(NODE_MODULES, work / "node_modules")
    shutil.copytree(tree / "src/generated", work / "generated")
    (work / "spec.types.ts").write_bytes((tree / "src/spec.types.ts").read_bytes())
    shutil.copy(ROOT / "tests/sdk/generated-schema.test.ts", work / "generated-schema.test.ts")
    result = subprocess.run(
        [str(BUN), "test", "./generated-schema.test.ts"], cwd=work, capture_output=True, text=True, timeout=300
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert " 0 fail" in output
    assert int(output.split(" pass")[0].split()[-1]) == CASES[shape], output


@pytest.mark.parametrize("shape", SHAPES)
def test_the_publishing_side_runs_no_toolchain_and_gets_the_same_files(shape: str, tmp_path: Path) -> None:
    """Planned without the checks wing's tools (the publishing side's own
    build, which starts no process) the files are edited in the generator's
    style, and that hand edit gives the same bytes the pinned toolchain
    makes: the publish check takes a branch the build job regenerated."""
    from codemods.plan.model import NO_TOOLS
    from codemods.plan.runner import plan
    from codemods.plan.writing import write

    require_pinned_schemas()
    tree = sdk_tree(tmp_path, shape)
    planned = plan(tree, tools=NO_TOOLS)
    write(tree, planned.changes)
    report = planned.to_json()
    notes = {s["step"]: s.get("notes", []) for s in report["steps"]}
    assert any("edited in the generator's style" in n and "the publishing side runs no tools" in n for n in notes["schema"])
    expected = snapshot(SDK_FIXTURES / shape / "expected-auto")
    for path in ("src/generated/schema.ts", "src/generated/schema.test.ts", "src/generated/schema.json"):
        assert (tree / path).read_bytes() == expected[path], path


def test_when_the_pinned_toolchain_fails_the_files_are_edited_by_hand_saying_why(tmp_path: Path) -> None:
    """schema.json needs the written schema.ts imported; here it imports a
    module the checkout lacks, so the toolchain fails: the generated files
    are edited in the generator's style (never refused for it), and the
    report says what failed and asks for the confirmation."""
    require_pinned_schemas()
    tree = sdk_tree(tmp_path, "shape-c")
    schema = tree / "src/generated/schema.ts"
    schema.write_text(schema.read_text().replace('from "@modelcontextprotocol/core";', 'from "../sdk-compat.js";', 1))
    result = invoke("apply", "--repo", tree)
    assert result.exit_code == 0, result.output
    note = next(line for line in result.stderr.splitlines() if "src/generated/ was edited" in line)
    assert "ts-to-zod 5.1.0, zod 4.3.6 and Prettier 3.6.2" in note and "json failed" in note, note
    assert "confirm with `npm run generate:schemas`" in note
    assert "McpUiStateChangedNotificationSchema" in schema.read_text()
    assert "McpUiStateChangedNotification" in (tree / "src/generated/schema.json").read_text()


def test_a_toolchain_that_rewrites_unrelated_lines_is_another_generator(tmp_path: Path) -> None:
    """The checkout's schema.json was made by a generator whose output
    differs from the pinned toolchain's on lines the feature does not
    touch (here a description, as another zod version's `pattern`s would):
    the pinned output would rewrite them, so the files are edited in the
    generator's style instead, those lines kept, and the report says so."""
    require_pinned_schemas()
    tree = sdk_tree(tmp_path, "shape-c")
    schema_json = tree / "src/generated/schema.json"
    text = schema_json.read_text()
    other = text.replace('"Light or dark appearance of the host."', '"Light or dark, as another generator words it."')
    assert other != text
    schema_json.write_text(other)
    result = invoke("apply", "--repo", tree)
    assert result.exit_code == 0, result.output
    new = schema_json.read_text()
    assert new.count("as another generator words it") == other.count("as another generator words it")
    assert "McpUiStateChangedNotification" in new
    assert "also rewrote lines that the feature does not touch (schema.json), so the checkout's generator is another one" in result.stderr
    assert "confirm with `npm run generate:schemas`" in result.stderr
    # the three files are made one way, and the report says it once
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert len([n for n in notes if "src/generated/" in n or "regenerated with" in n]) == 1, notes
    assert "regenerated with" not in result.stderr
