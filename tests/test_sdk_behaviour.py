"""What the SDK recipes write, run with Bun (tests/sdk/state-changed.test.ts).

The fixtures are ours and only shaped like the SDK, so they do not run; the
released SDK does. For shape B (1.x) and shape C (2.x), the members the
recipes wrote into that shape's fixture (the `statechange` entry of
`eventSchemas`, the 1.x accessor, `App.sendStateChanged`, the generated
schema) are copied onto the released SDK of that major version (1.7.1,
2.0.4), as a TEST DOUBLE, and the cases run over the MCP SDK's real
InMemoryTransport: the notification reaches listeners (and the accessor on
1.x), `null` included; an initial `appState` shows in `getHostContext()`;
`setHostContext({ appState })` reaches the app and `null` clears; the
guard refuses a call before `connect()`; the schema requires `state`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codemods.engine.editor import FileEditor
from codemods.engine.source import SourceFile
from codemods.recipes.names import NAMES

from .node_tools import NODE_MODULES, require
from .sdk_support import BUN, sdk_tree
from .support import ROOT, invoke

# shape -> (the released SDK it is copied onto, where InMemoryTransport is)
RELEASES = {
    "shape-b": ("@modelcontextprotocol/ext-apps", "@modelcontextprotocol/sdk/inMemory.js"),
    "shape-c": ("ext-apps-2", "@modelcontextprotocol/client"),
}


def recipe_output(tmp: Path, shape: str) -> Path:
    tree = sdk_tree(tmp, shape)
    result = invoke("apply", "--repo", tree)
    assert result.exit_code == 0, result.output
    return tree


def double_module(tree: Path, package: str) -> str:
    """The released SDK plus what the recipes wrote into ``tree``."""

    def finder(path: str) -> FileEditor:
        return FileEditor(SourceFile.from_bytes(path, (tree / path).read_bytes()))

    bridge = finder("src/app-bridge.ts")
    cls = bridge.class_("AppBridge")
    schemas = bridge.class_member(cls, "eventSchemas").child_by_field_name("value")
    [entry] = [e for e in bridge.entries(schemas) if bridge.item_key(e) == NAMES.event]
    accessors = bridge.class_members(cls, NAMES.accessor, "method_definition")
    app = finder("src/app.ts")
    [sender] = app.class_members(app.class_("App"), NAMES.sender)
    sender_text = app.text(sender)
    generated = finder("src/generated/schema.ts")
    schema = generated.enclosing_statement(generated.variable(f"{NAMES.notification_type}Schema"))
    accessor_text = bridge.span(accessors[0], accessors[-1]) if accessors else ""
    return (
        "// TEST DOUBLE, not a release of @modelcontextprotocol/ext-apps: the released\n"
        f"// SDK ({package}) plus the members mesh-codemod's SDK recipes wrote into\n"
        "// the fixture of this shape, copied from their output.\n"
        f'import {{ AppBridge as ReleasedAppBridge }} from "{package}/app-bridge";\n'
        f'import {{ App as ReleasedApp }} from "{package}";\n'
        'import { z } from "zod/v4";\n\n'
        f"type {NAMES.notification_type} = {{ method: string; params: {{ state: unknown }} }};\n"
        f"{generated.text(schema)}\n\n"
        f"export const ACCESSOR: string | null = {repr(NAMES.accessor) if accessors else 'null'};\n"
        f"export const GUARDED = {'true' if '_assertInitialized(' in sender_text else 'false'};\n\n"
        "export class AppBridge extends ReleasedAppBridge {\n"
        f"  eventSchemas = {{ ...(this as any).eventSchemas, {bridge.text(entry)} }};\n\n"
        f"  {accessor_text}\n"
        "}\n\n"
        "export class App extends ReleasedApp {\n"
        f"  {sender_text}\n"
        "}\n"
    ).replace("this._assertInitialized(", "(this as any)._assertInitialized(")


@pytest.mark.parametrize("shape", sorted(RELEASES))
def test_the_recipes_output_works_on_the_released_sdk(shape: str, tmp_path: Path) -> None:
    require(BUN, "Bun")
    package, in_memory = RELEASES[shape]
    require(NODE_MODULES / package, package)
    tree = recipe_output(tmp_path, shape)
    work = tmp_path / "run"
    work.mkdir()
    os.symlink(NODE_MODULES, work / "node_modules")
    (work / "double.ts").write_text(double_module(tree, package))
    (work / "in-memory.ts").write_text(f'export {{ InMemoryTransport }} from "{in_memory}";\n')
    shutil.copy(ROOT / "tests" / "sdk" / "state-changed.test.ts", work / "state-changed.test.ts")
    result = subprocess.run(
        [str(BUN), "test", "./state-changed.test.ts"], cwd=work, capture_output=True, text=True, timeout=300
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert " 0 fail" in output
    passed = int(output.split(" pass")[0].split()[-1])
    # the accessor case runs on 1.x only, the guard case where the revision guards
    expected = {"shape-b": 6, "shape-c": 6}[shape]
    assert passed == expected, output


@pytest.mark.parametrize("shape", sorted(RELEASES))
def test_the_test_cases_the_recipe_adds_pass_with_bun(shape: str, tmp_path: Path) -> None:
    """The fixture's src/app-bridge.test.ts, as the `bridge-test` step
    leaves it, run with `bun test` against the same double: the size-changed
    case it had and every case the step added pass."""
    require(BUN, "Bun")
    package, _ = RELEASES[shape]
    require(NODE_MODULES / package, package)
    tree = recipe_output(tmp_path, shape)
    work = tmp_path / "run"
    work.mkdir()
    os.symlink(NODE_MODULES, work / "node_modules")
    (work / "double.ts").write_text(double_module(tree, package))
    (work / "app.ts").write_text('export { App } from "./double";\n')
    (work / "app-bridge.ts").write_text(
        f'export {{ AppBridge, {NAMES.notification_type}Schema }} from "./double";\n'
    )
    test = (tree / "src/app-bridge.test.ts").read_text()
    block = test[test.index("describe(\"view navigation state"):]
    added = block[: block.index("\n  });\n") + 1].count("\n    it(")
    # listener, initial context, setHostContext, schema; the accessor on 1.x, the guard where App has it
    assert added == {"shape-b": 5, "shape-c": 5}[shape]
    (work / "app-bridge.test.ts").write_text(test)
    result = subprocess.run(
        [str(BUN), "test", "./app-bridge.test.ts"], cwd=work, capture_output=True, text=True, timeout=300
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert f" {added + 1} pass" in output and " 0 fail" in output, output
