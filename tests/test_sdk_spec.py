"""The SDK's `spec` step: the SEP text (specification/draft/apps.mdx).

The fixture harness (test_fixtures.py) runs it on every shape, twice, and
checks that only lines are added; these tests cover what the harness does
not: refusals, a revision without the draft, a partly edited draft, the
frozen dated copy and the Markdown structure of the result."""

from __future__ import annotations

import json
import re
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
        field = re.search(r"  /\*\*\n   \* State of this View.*?\*/\n  appState\?: unknown;\n", expected, re.DOTALL)
        partial = expected.replace(field.group(0), "")
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
    own = [entry for entry in outline if entry[1].endswith("App State from Links")]
    assert len(own) == 1
    level, title, path = own[0]
    assert path[-2:] == ("Security Implications", "Mitigations") and len(path) == 3  # under the SEP title only
    siblings = [t for lvl, t, p in outline if p == path and lvl == level]
    assert siblings[-1] == title and title == f"{len(siblings)}. App State from Links"
    tools_security = next(p + (t,) for _, t, p in outline if t == "Security Implications" and "App-Provided Tools" in p)
    assert not any(p[: len(tools_security)] == tools_security for _, t, p in outline if "App State" in t)


def _entry(text: str) -> str:
    """The state-changed entry: from its summary to the next entry."""
    start = text.index("`ui/notifications/state-changed` - ")
    return text[start:text.index("\n`ui/notifications/request-teardown`", start)].strip()


def _security(text: str) -> str:
    start = text.index(". App State from Links\n")
    return text[start:text.index("\n### ", start)]


def test_the_entry_is_in_the_form_and_voice_of_its_siblings(tmp_path: Path) -> None:
    """Method and summary, the JSON-RPC example, one sentence, then short
    RFC 2119 lists as request-teardown's **Host behavior:**; at most about
    250 words with its example (0.6.0's was 656)."""
    text, _ = _applied_draft(tmp_path)
    entry = _entry(text)
    words = len(entry.split())
    print(f"the state-changed entry: {words} words with its JSON example")
    assert words <= 250
    blocks = entry.split("\n\n")
    assert blocks[0] == "`ui/notifications/state-changed` - View's navigation state changed"
    assert blocks[1].startswith("```typescript\n{\n  jsonrpc: \"2.0\",") and blocks[1].endswith("```")
    assert blocks[2].startswith("The View SHOULD send this notification")
    assert [b.split("\n")[0] for b in blocks[3:]] == ["**View behavior:**", "**Host behavior:**"]
    for block, party in zip(blocks[3:], ("View", "Host")):
        for item in block.split("\n")[1:]:
            assert re.match(rf"- {party} (MUST|SHOULD|MAY)", item), item


def test_each_normative_sentence_is_written_once(tmp_path: Path) -> None:
    """The definition of the same View in the `appState` field's doc, the
    host guidance and the link-supplied-state risks in the Security
    subsection, the rest in the entry: none of them twice."""
    text, doc = _applied_draft(tmp_path)
    entry, security = _entry(text), _security(text)
    context = next(doc.data[f.start:f.end].decode() for f in doc.fences() if b"interface HostContext" in doc.data[f.start:f.end])
    field = context[context.index("State of this View"):context.index("appState?: unknown;")]
    assert "durably identifies" in field and "durably identifies" not in entry + security
    assert text.count("durably identifies") == 1
    assert "(see `HostContext.appState`)" in entry  # the entry points at the definition
    for guidance in ("out of its logs and analytics", "replace the current history entry", "coalesce reports",
                     "`Referrer-Policy`", "untrusted input"):
        assert guidance in security and text.count(guidance) == 1, guidance
    for rule in ("MUST NOT hand it to another View", "MUST include `state`", "MUST validate a restored state",
                 "MUST NOT put secrets", "1024 when absent", "2 KB URL"):
        assert rule in entry and text.count(rule) == 1, rule
    sentences = [s.strip() for s in re.split(r"(?<=[.;])\s", text) if re.search(r"\b(MUST|SHOULD|MAY)\b", s)]
    repeated = {s for s in sentences if sentences.count(s) > 1 and len(s) > 20}
    assert not repeated, repeated


def test_the_same_view_is_the_hosts_durable_identity_of_the_tool_call(tmp_path: Path) -> None:
    """Not `hostContext.toolInfo` (optional) nor its `id`, the JSON-RPC id
    unique within one connection; a View without a tool call by the place
    the Host shows it in."""
    text, doc = _applied_draft(tmp_path)
    context = next(doc.data[f.start:f.end].decode() for f in doc.fences() if b"interface HostContext" in doc.data[f.start:f.end])
    field = " ".join(line.strip().lstrip("*").strip() for line in context[context.index("State of this View"):].splitlines())
    for words in ("the same server (as the Host identifies it) and `ui://` resource",
                  "rendered for the same tool call as the Host durably identifies it",
                  "not the JSON-RPC id of `tools/call`, which is unique only within one connection",
                  "for a View shown without a tool call, in the same place",
                  "(e.g., a panel addressed by server and tool)", "after the user moved it",
                  "the View a link addresses", "a link brought (untrusted)"):
        assert words in field, words
    assert "toolInfo`" not in text[text.index("State of this View"):]
    assert first_error(parse(context.encode(), TYPESCRIPT)) is None


def test_the_must_not_covers_state_changing_actions_only(tmp_path: Path) -> None:
    text, _ = _applied_draft(tmp_path)
    assert "MUST NOT perform side effects, such as tool calls" not in text
    rule = next(line for line in _entry(text).splitlines() if "MUST NOT take" in line)
    assert "MUST NOT take a state-changing action" in rule and "without the user" in rule
    assert "`ui/message`, `ui/open-link`, a tool not marked `readOnlyHint`" in rule and "read-only loading is fine" in rule


def test_the_capability_counts_utf8_bytes_with_1024_by_default_and_says_why(tmp_path: Path) -> None:
    text, doc = _applied_draft(tmp_path)
    entry = _entry(text)
    assert "`maxLength`: UTF-8 bytes of its JSON text, 1024 when absent (base64 of 1024 bytes and a key naming the View fit a 2 KB URL)" in entry
    assert "MUST advertise the `appState` capability and SHOULD give its `maxLength`; without it, it MUST keep at least 1024 bytes" in entry
    capabilities = next(doc.data[f.start:f.end].decode() for f in doc.fences() if b"interface HostCapabilities" in doc.data[f.start:f.end])
    assert "  appState?: {\n    /** Largest state it keeps, in UTF-8 bytes of its JSON text (see ui/notifications/state-changed). */\n    maxLength?: number;\n  };" in capabilities
    assert first_error(parse(capabilities.encode(), TYPESCRIPT)) is None
    assert "MUST NOT put secrets in the state, and SHOULD NOT put personal data in it" in entry


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
