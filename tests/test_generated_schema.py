"""The generated search-schema entry, run with zod (SPEC section 2).

The route must never fail on the `appState` param: TanStack Router parses
`?appState=123` to a number, `?appState={}` to an object, and a value of the
wrong type has to be dropped (`.catch(undefined)`), not turned into an error
screen. The entry is taken from the fixture's expected output and evaluated
by Bun with the zod from tools/ (`scripts/setup --node`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from codemods.engine.editor import FileEditor
from codemods.engine.source import SourceFile

from .node_tools import BIN, TOOLS, require
from .support import FIXTURES

BUN = BIN / "bun"


def _schema_entry(index_tsx: Path) -> str:
    """The text of the `appState` entry of `unifiedChatSearchSchema` (keyed
    `[APP_STATE_PARAM]` since 0.5.0)."""
    ed = FileEditor(SourceFile.from_bytes("index.tsx", index_tsx.read_bytes()))
    shape = ed.object_argument(ed.variable("unifiedChatSearchSchema").child_by_field_name("value"))
    entries = [
        pair for pair in shape.named_children
        if pair.type == "pair" and ed.text(pair.child_by_field_name("key")) in ("appState", "[APP_STATE_PARAM]")
    ]
    assert len(entries) == 1
    return ed.text(entries[0].child_by_field_name("value"))


@pytest.mark.parametrize("mode", ["compat", "sdk"])
def test_schema_entry_drops_an_invalid_param(mode: str, tmp_path: Path) -> None:
    require(BUN, "Bun")
    entry = _schema_entry(FIXTURES / "newest" / f"expected-{mode}" / "apps/mesh/src/web/index.tsx")
    work = Path(tempfile.mkdtemp(prefix=f".bun-schema-{mode}-", dir=TOOLS))  # inside tools/ so that zod resolves
    try:
        (work / "check.ts").write_text(
            'import { z } from "zod";\n'
            f"const schema = z.object({{ appState: {entry} }});\n"
            'const values = ["eyJ2IjoxfQ", undefined, 123, {}, null, ["a"], true];\n'
            "const out = values.map((appState) => {\n"
            "  const parsed = schema.safeParse({ appState });\n"
            '  return parsed.success ? (parsed.data.appState ?? "<none>") : "<error>";\n'
            "});\n"
            "console.log(JSON.stringify(out));\n"
        )
        result = subprocess.run([str(BUN), "run", "./check.ts"], cwd=work, capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout) == ["eyJ2IjoxfQ"] + ["<none>"] * 6
