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
        from codemods.recipes.sdk.spec_text import _field_doc

        partial = expected.replace(f"  /** {_field_doc('View')} */\n  appState?: unknown;\n", "")
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


# ----------------------------------------------------------------------
# What the SEP text says, and where (SPEC 6), on the shape-C draft, whose
# headings are laid out as the real draft's: a feature's own "Security
# Implications" subsection comes before the top-level section of that name.
# ----------------------------------------------------------------------


def _applied_draft(tmp_path: Path) -> tuple[str, Document]:
    repo = sdk_tree(tmp_path, "shape-c")
    result = invoke("apply", "--repo", repo, "--only", "spec")
    assert result.exit_code == 0, result.output
    text = (repo / DRAFT).read_text()
    return text, Document(text.encode())


def _outline(doc: Document) -> list[tuple[int, str, tuple[str, ...]]]:
    """Each heading's level, title and the titles of the sections it sits in."""
    found = []
    for node, title in doc.sections():
        path, parent = [], node.parent
        while parent is not None:
            if parent.type == "section":
                heading = next(c for c in parent.named_children if c.type == "atx_heading")
                path.append(doc.heading_text(heading))
            parent = parent.parent
        heading = next(c for c in node.named_children if c.type == "atx_heading")
        level = len(doc.text(heading)) - len(doc.text(heading).lstrip("#"))
        found.append((level, title, tuple(reversed(path))))
    return found


def test_the_security_subsection_is_the_next_mitigation_of_the_top_level_section(tmp_path: Path) -> None:
    text, doc = _applied_draft(tmp_path)
    outline = _outline(doc)
    assert [t for _, t, _ in outline].count("Security Implications") == 2  # the fixture has both, as the real draft
    own = [entry for entry in outline if entry[1].endswith("View State from Links")]
    assert len(own) == 1
    level, title, path = own[0]
    assert path[-2:] == ("Security Implications", "Mitigations") and len(path) == 3  # under the SEP title only
    siblings = [t for lvl, t, p in outline if p == path and lvl == level]
    assert siblings[-1] == title and title == f"{len(siblings)}. View State from Links"
    tools_security = next(p + (t,) for _, t, p in outline if t == "Security Implications" and "App-Provided Tools" in p)
    assert not any(p[: len(tools_security)] == tools_security for _, t, p in outline if "View State" in t)


def test_the_state_rule_is_said_once_and_the_schema_rule_matches_it(tmp_path: Path) -> None:
    text, _ = _applied_draft(tmp_path)
    assert text.count("`state` is required") == 1
    assert "A notification whose `params` has no `state` is malformed; the Host MUST ignore it" in text
    assert "without `state` from an older" not in text  # the old contradicting bullet
    assert "clears the kept state" not in text


def test_the_same_view_is_per_tool_call_in_protocol_terms_and_links_are_in_scope(tmp_path: Path) -> None:
    text, _ = _applied_draft(tmp_path)
    rule = text[text.index("Host MUST NOT hand a state to another View."):]
    rule = rule[: rule.index("\n")]
    for words in ("the same MCP server (as the Host identifies that server)", "the same `ui://` resource",
                  "the same tool and tool call", "`hostContext.toolInfo`", "explicitly opened in its place",
                  "a link addresses", "another user's Host", "untrusted input"):
        assert words in rule, words
    assert "server connection" not in text


def test_the_must_not_covers_state_changing_actions_only(tmp_path: Path) -> None:
    text, _ = _applied_draft(tmp_path)
    assert "MUST NOT perform side effects, such as tool calls" not in text
    for part in (text[text.index("A View treats an absent"):], text[text.index("View State from Links"):]):
        paragraph = part[: part.index("\n\n", part.index("MUST NOT take"))]
        assert "MUST NOT take a state-changing action" in paragraph
        assert "not annotated `readOnlyHint: true`" in paragraph and "read-only tool calls" in paragraph.lower()


def test_capability_privacy_and_host_guidance(tmp_path: Path) -> None:
    text, doc = _applied_draft(tmp_path)
    assert "MUST advertise the `appState` host capability, and SHOULD give its `maxLength`" in text
    capabilities = next(doc.data[f.start:f.end].decode() for f in doc.fences() if b"interface HostCapabilities" in doc.data[f.start:f.end])
    assert "  appState?: {\n    /** Largest state the Host keeps, in bytes of its JSON text. */\n    maxLength?: number;\n  };" in capabilities
    assert first_error(parse(capabilities.encode(), TYPESCRIPT)) is None
    assert "MUST NOT put secrets (tokens, passwords, keys) in the state and SHOULD NOT put personal data in it" in text
    for guidance in ("out of its logs and analytics", "replace the current history entry", "coalesce reports",
                     "`Referrer-Policy`"):
        assert guidance in text, guidance
    assert "A View treats an absent `hostContext.appState` and `appState: null` alike" in text


def test_extensibility_no_longer_lists_it_as_future_work_nor_as_part_of_the_mvp(tmp_path: Path) -> None:
    text, doc = _applied_draft(tmp_path)
    section = next(doc.text(n) for n, t in doc.sections() if t == "Extensibility")
    assert "Keeping View state between sessions" not in section
    assert "- Views that talk to each other" in section  # the rest of future work stays
    mvp = section[section.index("**Included in MVP:**"):section.index("**Added after the MVP:**")]
    assert "state-changed" not in mvp
    added = section[section.index("**Added after the MVP:**"):section.index("**Content types")]
    assert "`ui/notifications/state-changed`" in added


def test_backward_compatibility_says_both_sides_are_unaffected(tmp_path: Path) -> None:
    text, doc = _applied_draft(tmp_path)
    section = next(doc.text(n) for n, t in doc.sections() if t == "Backward Compatibility")
    assert "Nothing changes for Hosts that show no Views." in section
    assert "is additive" in section and "drop its unknown key" in section
