"""The SDK recipes on the real modelcontextprotocol/ext-apps sources.

Their text is not ours and is never committed: the tests read it from the
folder named by SDK_REAL_DIR, one subfolder per shape (shape-a, shape-b,
shape-c), each laid out as the repository (`package.json`, `src/...`). Only
the files of a shape that could be collected are there; the steps of the
others are left out with `--only`. Skipped when SDK_REAL_DIR is unset.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from codemods.engine.parsing import first_error, language_for, parse

from .sdk_generator_rules import problems
from .node_tools import require
from .sdk_support import BUN, STEP_FILES, missing_pieces, zod_json_schema
from .support import invoke, snapshot

REAL = os.environ.get("SDK_REAL_DIR")
pytestmark = pytest.mark.skipif(not REAL, reason="SDK_REAL_DIR is not set (a folder of real ext-apps sources)")


def _shapes() -> list[str]:
    if not REAL:
        return ["unset"]
    return sorted(p.name for p in Path(REAL).iterdir() if (p / "package.json").is_file())


@pytest.mark.parametrize("shape", _shapes())
def test_recipes_apply_once_and_hold_every_piece(shape: str, tmp_path: Path) -> None:
    source = Path(REAL) / shape
    repo = tmp_path / shape
    shutil.copytree(source, repo)
    only = [f"--only={step}" for step, path in STEP_FILES.items() if (repo / path).is_file()]
    assert only, f"{source} holds none of the SDK files"

    first = invoke("apply", "--repo", repo, *only)
    assert first.exit_code == 0, first.output
    after = snapshot(repo)
    touched = [p for p, data in after.items() if snapshot(source).get(p) != data]
    assert sorted(touched) == sorted(STEP_FILES[o.removeprefix("--only=")] for o in only)

    again = invoke("apply", "--repo", repo, *only)
    assert again.exit_code == 0 and "nothing to do" in again.stderr, again.output
    assert snapshot(repo) == after
    assert invoke("apply", "--repo", repo, "--check", *only).exit_code == 0

    for path in touched:
        data = (repo / path).read_bytes()
        if path.endswith(".json"):
            json.loads(data)
        elif path.endswith(".mdx"):
            from codemods.engine.markdown import Document

            assert not Document(data).has_error(), path
        else:
            assert first_error(parse(data, language_for(path))) is None, path
    assert missing_pieces(source, repo) == []
    if (source / STEP_FILES["spec-types"]).is_file() and (source / STEP_FILES["schema"]).is_file():
        new_problems = set(problems(repo)) - set(problems(source))
        assert not new_problems, sorted(new_problems)


@pytest.mark.parametrize("shape", _shapes())
def test_the_json_additions_are_what_zod_makes_of_the_edited_schema(shape: str, tmp_path: Path) -> None:
    """Where a shape has both schema.ts and schema.json, the new `$defs`
    entry and `appState` written into the JSON equal zod's own JSON Schema
    of the edited schema.ts (the rest of the two files may come from
    different releases, so only the additions are compared)."""
    source = Path(REAL) / shape
    if not all((source / STEP_FILES[s]).is_file() for s in ("spec-types", "schema", "schema-json")):
        pytest.skip("this shape has no schema.json beside its schema.ts")
    require(BUN, "Bun")
    repo = tmp_path / shape
    shutil.copytree(source, repo)
    result = invoke("apply", "--repo", repo, "--only=spec-types", "--only=schema", "--only=schema-json")
    assert result.exit_code == 0, result.output
    zod = json.loads(zod_json_schema((repo / STEP_FILES["schema"]).read_text(), {}, tmp_path / "zod"))["$defs"]
    written = json.loads((repo / STEP_FILES["schema-json"]).read_text())["$defs"]
    assert written["McpUiStateChangedNotification"] == zod["McpUiStateChangedNotification"]
    assert written["McpUiHostContext"]["properties"]["appState"] == zod["McpUiHostContext"]["properties"]["appState"]


@pytest.mark.parametrize("shape", _shapes())
def test_the_real_draft_gets_the_sep_text_where_spec_6_puts_it(shape: str, tmp_path: Path) -> None:
    """On the real SEP text: the state-changed entry lands between
    size-changed and the entry that follows it, `appState` in HostContext,
    the capability with its `maxLength`; the security subsection is the
    next numbered one of the top-level Security Implications › Mitigations
    (the draft's first heading of that name is App-Provided Tools' own);
    Extensibility drops the covered future-work bullet and lists nothing
    new under the MVP; every other old line survives in order, the dated
    copies are untouched, and a second run changes nothing."""
    from codemods.engine.markdown import Document
    from codemods.recipes.sdk.common import words
    from codemods.recipes.sdk.spec_sections import _FUTURE_STATE, security_title

    source = Path(REAL) / shape
    draft = STEP_FILES["spec"]
    if not (source / draft).is_file():
        pytest.skip("this shape has no specification/draft/apps.mdx")
    repo = tmp_path / shape
    shutil.copytree(source, repo)
    first = invoke("apply", "--repo", repo, "--only=spec")
    assert first.exit_code == 0, first.output
    old, new = (source / draft).read_text(), (repo / draft).read_text()

    doc = Document(new.encode())
    methods = [lead[0] for node in doc.walk() if node.type == "paragraph" for lead in [doc.leading_code_span(node)] if lead]
    at = methods.index("ui/notifications/size-changed")
    assert methods[at + 1] == "ui/notifications/state-changed"
    assert methods.count("ui/notifications/state-changed") == 1
    assert new.count("MUST include `state`") == 1 and new.count("durably identifies") == 1
    entry = new[new.index("`ui/notifications/state-changed` - "):]
    entry = entry[:entry.index("\n`ui/", 1)].strip()
    print(f"{shape}: the state-changed entry is {len(entry.split())} words with its JSON example")
    assert len(entry.split()) <= 250
    host_context = new[new.index("interface HostContext {"):]
    assert "appState?: unknown;" in host_context[:host_context.index("\n}\n")]
    if "interface HostCapabilities {" in old:
        capabilities = new[new.index("interface HostCapabilities {"):]
        capabilities = capabilities[:capabilities.index("\n}\n")]
        assert "  downloadFile?: {};\n  /** Host keeps View navigation state" in capabilities
        assert "  appState?: {\n" in capabilities and "    maxLength?: number;\n  };" in capabilities

    sections = list(doc.sections())
    top = [n for n, t in sections if t == "Security Implications"]
    if top:
        shallowest = min(top, key=lambda n: len(doc.text(n)) - len(doc.text(n).lstrip("#")))
        own = [n for n, t in sections if t.endswith(security_title(words()))]
        assert len(own) == 1
        parent = own[0].parent
        assert parent.parent == shallowest, "not under the top-level Security Implications"
        siblings = [t for n, t in sections if n.parent == parent and n != parent]
        assert siblings[-1].startswith(f"{len(siblings)}. ") or not siblings[0][:1].isdigit()
    if "Extensibility" in [t for _, t in sections]:
        extensibility = next(doc.text(n) for n, t in sections if t == "Extensibility")
        assert not any(_FUTURE_STATE.search(line) for line in extensibility.splitlines() if line.startswith("- ")
                       and "state-changed" not in line)
        if "**Included in MVP:**" in extensibility:
            mvp = extensibility[extensibility.index("**Included in MVP:**"):]
            mvp = mvp[: mvp.index("\n\n**", len("**Included in MVP:**"))]
            assert "state-changed" not in mvp

    lines, cursor = new.splitlines(), 0
    for line in old.splitlines():
        if line.startswith("- ") and _FUTURE_STATE.search(line) and line not in lines:
            continue  # the future-work bullet the feature now covers
        cursor = lines.index(line, cursor) + 1  # ValueError: a line was changed or moved

    for dated in (source / "specification").iterdir():
        if dated.name != "draft" and dated.is_dir():
            for path in dated.rglob("*"):
                if path.is_file():
                    assert (repo / path.relative_to(source)).read_bytes() == path.read_bytes()

    again = invoke("apply", "--repo", repo, "--only=spec")
    assert again.exit_code == 0 and "nothing to do" in again.stderr
    assert (repo / draft).read_text() == new
