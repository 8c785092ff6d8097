"""The generated files the SDK recipes edit follow the generator's rules
(tests/sdk_generator_rules.py), and the JSON Schema they write is what zod,
run for real on the edited schema.ts, makes of it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codemods.engine.json_layout import layout

from .sdk_generator_rules import problems
from .node_tools import require
from .sdk_support import BUN, SDK_FIXTURES, SHAPES, zod_json_schema


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("tree", ["input", "expected-auto"])
def test_fixture_trees_follow_the_generator_rules(shape: str, tree: str) -> None:
    assert problems(SDK_FIXTURES / shape / tree) == []


def test_the_rules_catch_a_describe_that_differs_from_its_description(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SDK_FIXTURES / "shape-c" / "expected-auto", tree)
    schema = tree / "src/generated/schema.ts"
    schema.write_text(schema.read_text().replace('"The view\'s navigation state, a JSON value', '"The current view state'))
    assert any("rule 2" in p and "`state`" in p for p in problems(tree))


def test_the_rules_catch_expect_type_checks_out_of_schema_order(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SDK_FIXTURES / "shape-a" / "expected-auto", tree)
    test = tree / "src/generated/schema.test.ts"
    text = test.read_text()
    state = "expectType<spec.McpUiStateChangedNotification>(\n  {} as McpUiStateChangedNotificationSchemaInferredType,\n);\n"
    assert state in text
    test.write_text(text.replace(state, "").replace("expectType<spec.McpUiTheme>", state + "expectType<spec.McpUiTheme>"))
    assert any("rule 3" in p for p in problems(tree))


@pytest.mark.parametrize("shape", SHAPES)
def test_schema_json_is_what_zod_makes_of_the_edited_schema(shape: str, tmp_path: Path) -> None:
    """Run zod's toJSONSchema on the edited schema.ts (the MCP SDK's schemas
    it imports from tools/node_modules, as the pinned toolchain does): its
    document is byte for byte the schema.json that the tool wrote."""
    require(BUN, "Bun")
    generated = SDK_FIXTURES / shape / "expected-auto" / "src/generated"
    written = (generated / "schema.json").read_text()
    header = {k: v for k, v in json.loads(written).items() if k != "$defs"}
    assert zod_json_schema((generated / "schema.ts").read_text(), header, tmp_path, stub_sdk=False) == written


def test_zod_json_check_can_fail(tmp_path: Path) -> None:
    """The comparison above notices a schema whose JSON was not updated."""
    require(BUN, "Bun")
    generated = SDK_FIXTURES / "shape-c"
    before = (generated / "input/src/generated/schema.json").read_text()
    header = {k: v for k, v in json.loads(before).items() if k != "$defs"}
    after_ts = (generated / "expected-auto/src/generated/schema.ts").read_text()
    assert zod_json_schema(after_ts, header, tmp_path, stub_sdk=False) != before


def test_json_layout_round_trips_prettier_output() -> None:
    text = (SDK_FIXTURES / "shape-b/expected-auto/src/generated/schema.json").read_text()
    assert layout(json.loads(text)) == text
    reflowed = text.replace('"required": ["method", "params"]', '"required": [\n"method", "params"]', 1)
    assert reflowed != text and layout(json.loads(reflowed)) != reflowed
    assert layout({"a": ["x" * 40, "y" * 40], "b": {}}) == '{\n  "a": [\n    "' + "x" * 40 + '",\n    "' + "y" * 40 + '"\n  ],\n  "b": {}\n}\n'
    assert layout({"required": ["method", "params"]}) == '{\n  "required": ["method", "params"]\n}\n'
