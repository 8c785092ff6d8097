"""The SDK's `spec` step: the SEP text (specification/draft/apps.mdx).

The fixture harness (test_fixtures.py) runs it on every shape, twice, and
checks that only lines are added; these tests cover what the harness does
not: refusals, a revision without the draft, a partly edited draft, the
frozen dated copy and the Markdown structure of the result."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codemods.engine.markdown import Document
from codemods.engine.parsing import TYPESCRIPT, first_error, parse

from .sdk_support import SDK_FIXTURES, SHAPES, sdk_tree
from .support import invoke, snapshot

DRAFT = "specification/draft/apps.mdx"
DATED = "specification/2026-01-26/apps.mdx"
STATE = "ui/notifications/state-changed"


def _entries(text: bytes) -> list[str]:
    """The methods of the entries (paragraphs that open with `ui/...`), in order."""
    doc = Document(text)
    methods = []
    for node in doc.walk():
        lead = doc.leading_code_span(node) if node.type == "paragraph" else None
        if lead and lead[0].startswith("ui/"):
            methods.append(lead[0])
    return methods


@pytest.mark.parametrize("shape", SHAPES)
def test_the_entry_follows_size_changed_and_the_dated_copy_is_untouched(shape: str, tmp_path: Path) -> None:
    repo = sdk_tree(tmp_path, shape)
    dated = (repo / DATED).read_bytes()
    result = invoke("apply", "--repo", repo, "--only", "spec")
    assert result.exit_code == 0, result.output
    new = (repo / DRAFT).read_bytes()
    methods = _entries(new)
    assert methods.count(STATE) == 1
    assert methods[methods.index("ui/notifications/size-changed") + 1] == STATE
    assert (repo / DATED).read_bytes() == dated
    assert not Document(new).has_error()
    # every typescript block that declares the host context still parses
    doc = Document(new)
    blocks = [doc.data[f.start:f.end] for f in doc.fences() if b"interface HostContext" in doc.data[f.start:f.end]]
    assert len(blocks) == 1 and b"appState?: unknown" in blocks[0]
    assert first_error(parse(blocks[0], TYPESCRIPT)) is None


def test_a_draft_without_its_anchors_is_refused_naming_both(tmp_path: Path) -> None:
    repo = sdk_tree(tmp_path, "shape-c")
    shutil.copy(SDK_FIXTURES / "refused-draft" / "apps.mdx", repo / DRAFT)
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo, "--json")
    assert result.exit_code == 3, result.output
    step = next(s for s in json.loads(result.stdout)["steps"] if s["step"] == "spec")
    assert (step["status"], step["kind"], step["path"]) == ("refused", "anchor-missing", DRAFT)
    assert "the `ui/notifications/size-changed` entry under \"Notifications (View → Host)\"" in step["reason"]
    assert "the `HostContext` interface in a typescript code block" in step["reason"]
    assert snapshot(repo) == before

    text = invoke("apply", "--repo", repo)
    assert text.exit_code == 3
    assert "anchor missing: the `ui/notifications/size-changed` entry" in text.stderr


def test_a_draft_without_the_section_is_refused(tmp_path: Path) -> None:
    repo = sdk_tree(tmp_path, "shape-b")
    draft = repo / DRAFT
    draft.write_text(draft.read_text().replace("#### Notifications (View -> Host)", "#### Messages the View sends"))
    result = invoke("apply", "--repo", repo, "--only", "spec")
    assert result.exit_code == 3
    assert 'anchor missing: the section "Notifications (View -> Host)"' in result.stderr


def test_a_revision_without_the_draft_skips_the_step_with_its_reason(tmp_path: Path) -> None:
    repo = sdk_tree(tmp_path, "shape-a")
    shutil.rmtree(repo / "specification")
    result = invoke("apply", "--repo", repo, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    step = next(s for s in report["steps"] if s["step"] == "spec")
    assert (step["status"], step["kind"]) == ("skipped", "not-applicable")
    assert step["reason"] == f"no {DRAFT} in this revision: the SEP text is not part of this checkout"
    assert len(report["files"]) == 7
    status = invoke("status", "--repo", repo)
    assert status.exit_code == 0
    assert "skipped" in status.stdout and "the SEP text is not part of this checkout" in status.stdout


@pytest.mark.parametrize("missing", ["entry", "field"])
def test_a_partly_edited_draft_is_completed(missing: str, tmp_path: Path) -> None:
    repo = sdk_tree(tmp_path, "shape-c")
    expected = (SDK_FIXTURES / "shape-c" / "expected-auto" / DRAFT).read_text()
    original = (repo / DRAFT).read_text()
    if missing == "field":  # the entry is there, the field not
        partial = expected.replace(
            "  /** A state for the View to restore: what it last reported in `ui/notifications/state-changed`, or one"
            " that came from a link (validate before use). Absent when there is none */\n  appState?: unknown;\n",
            "",
        )
    else:  # the field is there, the entry not
        partial = expected[: expected.index("\n`ui/notifications/state-changed`")] + original[original.index(
            "\n`ui/notifications/request-teardown`"):]
    assert partial not in (expected, original)
    (repo / DRAFT).write_text(partial)
    result = invoke("apply", "--repo", repo, "--only", "spec")
    assert result.exit_code == 0, result.output
    assert (repo / DRAFT).read_text() == expected


def test_a_broken_host_context_block_is_refused_as_a_syntax_error(tmp_path: Path) -> None:
    repo = sdk_tree(tmp_path, "shape-c")
    draft = repo / DRAFT
    draft.write_text(draft.read_text().replace("  locale?: string;\n}", "  locale?: string;\n}}"))
    result = invoke("apply", "--repo", repo, "--only", "spec", "--json")
    assert result.exit_code == 3, result.output
    step = json.loads(result.stdout)["steps"][0]
    assert step["kind"] == "syntax-error"
    assert "typescript block at line" in step["reason"] or "typescript block at line" in step["path"]


def test_bom_and_crlf_are_kept(tmp_path: Path) -> None:
    repo = sdk_tree(tmp_path, "shape-b")
    draft = repo / DRAFT
    draft.write_bytes(b"\xef\xbb\xbf" + draft.read_bytes().replace(b"\n", b"\r\n"))
    assert invoke("apply", "--repo", repo, "--only", "spec").exit_code == 0
    expected = (SDK_FIXTURES / "shape-b" / "expected-auto" / DRAFT).read_bytes()
    assert draft.read_bytes() == b"\xef\xbb\xbf" + expected.replace(b"\n", b"\r\n")
