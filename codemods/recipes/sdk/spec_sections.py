"""The SEP text's sections beyond the notification entry: the security
subsection under the top-level "Security Implications" > "Mitigations"
(found by heading depth, never the first heading of that name), the
Rationale, Backward Compatibility and Extensibility, each edited in place
with as few changed lines as keep the text consistent."""

from __future__ import annotations

import re
from tree_sitter import Node
from ...engine.markdown import Document
from .common import Words, fragment

_NUMBERED = re.compile(r"^(\d+)\.\s")
# Future work that this feature covers ("State persistence and restoration").
_FUTURE_STATE = re.compile(r"persist|restor|keep\w* [\w ]*state", re.IGNORECASE)


def security_title(w: Words) -> str:
    return w.fill("{{Term_title}} from Links")


def rationale_title(w: Words) -> str:
    return w.fill("{{Term_title}} Kept by the Host")


def _lines(name: str, w: Words, party: str) -> list[str]:
    return w.fill(fragment(name), party=party).rstrip("\n").split("\n")


def subsections(section: Node) -> list[Node]:
    return [c for c in section.named_children if c.type == "section"]


def heading_level(doc: Document, section: Node) -> int:
    heading = next(c for c in section.named_children if c.type in {"atx_heading", "setext_heading"})
    return len(doc.text(heading)) - len(doc.text(heading).lstrip("#")) or 2


def append_at(doc: Document, end: int, lines: list[str], eol: str) -> tuple[int, str]:
    """Insert ``lines`` as blocks ending at ``end`` (a section's end), set
    apart by blank lines from what comes before and after."""
    before = doc.data[:end]
    if before.endswith(b"\n\n") or before.endswith(b"\r\n\r\n") or not before:
        lead = ""
    elif before.endswith(b"\n"):
        lead = eol
    else:
        lead = eol + eol
    tail = eol + eol if end < len(doc.data) else eol
    return end, lead + eol.join(lines) + tail


def numbered_subsection(doc: Document, parent: Node, title: str, body: list[str], eol: str) -> tuple[int, str]:
    """A subsection titled ``title`` at the end of ``parent``, numbered and
    at the level of its numbered subsections when it has them."""
    children = subsections(parent)
    numbers = [int(m.group(1)) for c in children if (m := _NUMBERED.match(heading_title(doc, c)))]
    level = heading_level(doc, children[-1]) if children else heading_level(doc, parent) + 1
    heading = "#" * level + " " + (f"{max(numbers) + 1}. " if numbers else "") + title
    return append_at(doc, parent.end_byte, [heading, "", *body], eol)


def heading_title(doc: Document, section: Node) -> str:
    heading = next(c for c in section.named_children if c.type in {"atx_heading", "setext_heading"})
    return doc.heading_text(heading)


def has_heading(doc: Document, title: str) -> bool:
    return any(_NUMBERED.sub("", t).strip() == title for _, t in doc.sections())


def top_level_section(doc: Document, *titles: str) -> Node | None:
    """The shallowest section titled one of ``titles``: the document's own
    "Security Implications", not a feature's subsection of that name that
    comes first (the real draft has "App-Provided Tools › Security
    Implications" before the top-level one)."""
    wanted = {t.lower() for t in titles}
    found = [n for n, t in doc.sections() if _NUMBERED.sub("", t).strip().lower() in wanted]
    return min(found, key=lambda n: heading_level(doc, n), default=None)


def child_section(doc: Document, parent: Node, title: str) -> Node | None:
    """``parent``'s own subsection titled ``title`` (not a deeper one)."""
    return next((c for c in subsections(parent) if _NUMBERED.sub("", heading_title(doc, c)).strip().lower() == title.lower()), None)


def security_insertion(doc: Document, party: str, eol: str, w: Words) -> tuple[int, str, str] | None:
    """A numbered subsection with the host guidance on link-supplied state,
    after the last one of the top-level Security Implications › Mitigations."""
    title = security_title(w)
    if has_heading(doc, title):
        return None
    security = top_level_section(doc, "Security Implications", "Security Considerations")
    if security is None:
        return 0, "", "no Security Implications section in the draft: link-supplied state is not discussed there"
    parent = child_section(doc, security, "Mitigations") or security
    offset, text = numbered_subsection(doc, parent, title, _lines("spec-security.md", w, party), eol)
    return offset, text, f'added "{title}" under "{heading_title(doc, security)} › {heading_title(doc, parent)}"'


def rationale_insertion(doc: Document, party: str, eol: str, w: Words) -> tuple[int, str, str] | None:
    """A design decision under Rationale that weighs the View-side
    `localStorage` + `viewUUID` pattern."""
    title = rationale_title(w)
    if has_heading(doc, title):
        return None
    rationale = top_level_section(doc, "Rationale")
    if rationale is None:
        return 0, "", "no Rationale section in the draft: the design decision is not recorded there"
    parent = child_section(doc, rationale, "Design Decisions") or rationale
    offset, text = numbered_subsection(doc, parent, title, _lines("spec-rationale.md", w, party), eol)
    return offset, text, f'added "{title}" under "{heading_title(doc, parent)}"'


def compatibility_insertion(doc: Document, party: str, eol: str, w: Words) -> tuple[int, str, str] | None:
    """A paragraph in Backward Compatibility: the feature is additive both
    ways, and SDKs that predate the capability strip it."""
    section = top_level_section(doc, "Backward Compatibility")
    if section is None:
        return 0, "", "no Backward Compatibility section in the draft: compatibility is not discussed there"
    if w.method in doc.text(section):
        return None
    end = section_own_end(doc, section)
    offset, text = append_at(doc, end, _lines("spec-compatibility.md", w, party), eol)
    return offset, text, f'added navigation state to "{heading_title(doc, section)}"'


def section_own_end(doc: Document, section: Node) -> int:
    """Where the section's own blocks end (before its first subsection)."""
    children = subsections(section)
    return children[0].start_byte if children else section.end_byte


def extensibility_edits(
    doc: Document, party: str, eol: str, w: Words
) -> tuple[list[tuple[int, int, str]], list[str]]:
    """Extensibility: the future-work bullet that this feature covers
    ("State persistence and restoration") leaves the list, and the feature
    is listed as added after the MVP, never among what the MVP included
    (the MVP shipped without it). Each half is recognised on its own, so a
    second run changes nothing."""
    section = top_level_section(doc, "Extensibility")
    if section is None:
        return [], []
    edits: list[tuple[int, int, str]] = []
    notes: list[str] = []
    blocks = doc.blocks(section)
    for block in blocks:
        if block.type != "list":
            continue
        items = [c for c in block.named_children if c.type == "list_item"]
        for item in items:
            text = doc.text(item)
            if len(items) > 1 and _FUTURE_STATE.search(text) and w.method not in text:
                start, end = line_range(doc, item)
                edits.append((start, end, ""))
                notes.append(f'removed "{bullet_text(text)}" from the future work under "{heading_title(doc, section)}"')
    if w.method in doc.text(section):
        return edits, notes
    lines = _lines("spec-extensibility.md", w, party)
    included = next(
        (i for i, b in enumerate(blocks) if b.type == "paragraph" and "included" in doc.text(b).lower()), None
    )
    if included is not None and included + 2 < len(blocks) and blocks[included + 1].type == "list":
        edits.append((blocks[included + 2].start_byte, blocks[included + 2].start_byte, eol.join(lines) + eol + eol))
    else:
        offset, text = append_at(doc, section_own_end(doc, section), lines, eol)
        edits.append((offset, offset, text))
    notes.append(f'listed the navigation state as added after the MVP under "{heading_title(doc, section)}"')
    return edits, notes


def line_range(doc: Document, node: Node) -> tuple[int, int]:
    """The whole lines ``node`` spans, with their line ending, without the
    blank lines a list item may end with."""
    start = doc.data.rfind(b"\n", 0, node.start_byte) + 1
    end = node.end_byte
    while end > start and doc.data[end - 1:end] in (b"\n", b"\r"):
        end -= 1
    newline = doc.data.find(b"\n", end)
    return start, len(doc.data) if newline < 0 else newline + 1


def bullet_text(text: str) -> str:
    return re.sub(r"^\s*[-*+]\s*", "", text).strip()
