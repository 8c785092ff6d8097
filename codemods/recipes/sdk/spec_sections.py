"""The SEP text's sections beyond the notification entry: the security
subsection under the top-level "Security Implications" > "Mitigations"
(found by heading depth, never the first heading of that name), the
Rationale, Backward Compatibility and Extensibility, each edited in place
with as few changed lines as keep the text consistent."""

from __future__ import annotations

import re
from tree_sitter import Node
from ...engine.markdown import Document
from .common import APP_STATE, CAPABILITY, STATE_METHOD

SECURITY_TITLE = "View State from Links"
RATIONALE_TITLE = "View State Kept by the Host"
# Extensibility: where the feature is listed (the MVP shipped without it).
ADDED_LABEL = "**Added after the MVP:**"
_NUMBERED = re.compile(r"^(\d+)\.\s")
# Future work that this feature covers ("State persistence and restoration").
_FUTURE_STATE = re.compile(r"persist|restor|keep\w* [\w ]*state", re.IGNORECASE)
# Actions a restored state alone must not trigger.
_STATE_CHANGING = "`ui/message`, `ui/open-link`, or a call to a tool not annotated `readOnlyHint: true`"


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


def security_insertion(doc: Document, party: str, eol: str) -> tuple[int, str, str] | None:
    """A numbered subsection on link-supplied state after the last one of
    the top-level Security Implications › Mitigations."""
    if has_heading(doc, SECURITY_TITLE):
        return None
    security = top_level_section(doc, "Security Implications", "Security Considerations")
    if security is None:
        return 0, "", "no Security Implications section in the draft: link-supplied state is not discussed there"
    parent = child_section(doc, security, "Mitigations") or security
    body = [
        f"A Host that keeps {party} state (`{STATE_METHOD}`) in URLs hands back what a URL holds, and anyone"
        f" can write such a URL: a link from another user, or from a crafted page, can put any state into"
        f" `hostContext.{APP_STATE}`.",
        "",
        f"- {party}s MUST validate a restored state and MUST NOT take a state-changing action"
        f" ({_STATE_CHANGING}) only because a restored state asks for it, without the user's action in the"
        f" {party}. Read-only tool calls that load what the state shows are expected.",
        f"- Hosts MUST NOT hand a state to a {party} other than the one it was kept for or that the link"
        f" addresses (the same server, `ui://` resource, tool and tool call), and treat a state that came"
        f" in a link as untrusted input even when the link names the right {party}.",
        f"- {party}s MUST NOT put secrets in the state and SHOULD NOT put personal data in it. Hosts SHOULD"
        " treat a state as readable by anyone the URL reaches, keep it out of logs and analytics, and send a"
        " `Referrer-Policy` that keeps it from other sites.",
    ]
    offset, text = numbered_subsection(doc, parent, SECURITY_TITLE, body, eol)
    return offset, text, f'added "{SECURITY_TITLE}" under "{heading_title(doc, security)} › {heading_title(doc, parent)}"'


def rationale_insertion(doc: Document, party: str, eol: str) -> tuple[int, str, str] | None:
    """A design decision under Rationale that weighs the View-side
    `localStorage` + `viewUUID` pattern."""
    if has_heading(doc, RATIONALE_TITLE):
        return None
    rationale = top_level_section(doc, "Rationale")
    if rationale is None:
        return 0, "", "no Rationale section in the draft: the design decision is not recorded there"
    parent = child_section(doc, rationale, "Design Decisions") or rationale
    body = [
        f"**Decision:** The {party} reports its navigation state with `{STATE_METHOD}`; a Host that"
        f" advertises the `{CAPABILITY}` capability keeps it and hands it back in `hostContext.{APP_STATE}`.",
        "",
        "**Rationale:**",
        "",
        f"- Only the Host can turn a {party}'s place into something the user can reload, bookmark or share:"
        f" its own URL, history and conversation, none of which a sandboxed {party} can reach.",
        "- It reuses the host context: no new request, no new lifecycle step, and a Host that keeps no"
        " state only ignores a notification.",
        f"- `null` and the capability make \"no state\" and \"not kept\" explicit, so a {party} knows when"
        " to fall back.",
        "",
        "**Alternatives considered:**",
        "",
        f"- **{party}-side storage (`localStorage` keyed by `viewUUID`):** The pattern the SDK documents for"
        " persisting view state. It survives a reload on the same device, but not a shared link or another"
        " device; storage may be partitioned or unavailable in a sandboxed iframe; and the Host cannot tell"
        f" the {party} that its place changed (a link followed, back and forward). It stays the fallback"
        f" where the Host lacks the `{CAPABILITY}` capability.",
        "- **Model context (`ui/update-model-context`):** Meant for what the model should know; navigation"
        " state would add noise to every turn, and each update replaces the last.",
        f"- **Host-specific URL conventions:** Each Host would need its own {party} code; one notification"
        f" keeps {party}s portable.",
    ]
    offset, text = numbered_subsection(doc, parent, RATIONALE_TITLE, body, eol)
    return offset, text, f'added "{RATIONALE_TITLE}" under "{heading_title(doc, parent)}"'


def compatibility_insertion(doc: Document, party: str, eol: str) -> tuple[int, str, str] | None:
    """A paragraph in Backward Compatibility: the feature is additive both
    ways, and SDKs that predate the capability strip it."""
    section = top_level_section(doc, "Backward Compatibility")
    if section is None:
        return 0, "", "no Backward Compatibility section in the draft: compatibility is not discussed there"
    if STATE_METHOD in doc.text(section):
        return None
    paragraph = (
        f"{party} navigation state (`{STATE_METHOD}`, `hostContext.{APP_STATE}` and the `{CAPABILITY}` host"
        f" capability) is additive. A Host that does not know it advertises no such capability and ignores"
        f" the notification; a {party} that does not know it never sends the notification and ignores the"
        f" extra context field; a {party} that checks the capability sends nothing to an older Host. SDK"
        f" releases that predate the capability drop its unknown key when they parse the host capabilities,"
        f" so a {party} built on one falls back to keeping its state itself until it updates."
    )
    end = section_own_end(doc, section)
    offset, text = append_at(doc, end, [paragraph], eol)
    return offset, text, f'added navigation state to "{heading_title(doc, section)}"'


def section_own_end(doc: Document, section: Node) -> int:
    """Where the section's own blocks end (before its first subsection)."""
    children = subsections(section)
    return children[0].start_byte if children else section.end_byte


def extensibility_edits(doc: Document, party: str, eol: str) -> tuple[list[tuple[int, int, str]], list[str]]:
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
            if len(items) > 1 and _FUTURE_STATE.search(text) and STATE_METHOD not in text:
                start, end = line_range(doc, item)
                edits.append((start, end, ""))
                notes.append(f'removed "{bullet_text(text)}" from the future work under "{heading_title(doc, section)}"')
    if STATE_METHOD in doc.text(section):
        return edits, notes
    bullet = (
        f"- **{party} navigation state:** {party}s report it with `{STATE_METHOD}`; Hosts that advertise the"
        f" `{CAPABILITY}` capability keep it and hand it back in `hostContext.{APP_STATE}`"
    )
    lines = [ADDED_LABEL, "", bullet]
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
