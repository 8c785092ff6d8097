"""docs/patterns.md and docs/migrate_from_openai_apps.md, where the
checkout has them (SPEC section 6): the pages that told View authors the
host keeps no state are brought up to date.

- patterns.md: the "Persisting view state" pattern gets a subsection of its
  own at its end, on letting a host that advertises the `appState`
  capability keep the state (report, restore after validation), the
  `localStorage` pattern above it staying the fallback.
- migrate_from_openai_apps.md: the table rows for `widgetState` and
  `setWidgetState` name their counterparts, and say how they differ (the
  OpenAI widget state is model-visible; a View's navigation state is not
  model context). The table is laid out again as Prettier lays tables out
  (columns padded to their widest cell), which the changed cells need.

Each page is recognised as done by the sender's name in the section or
the rows, so a second run changes nothing.
"""

from __future__ import annotations

import re

from ...engine.markdown import Document
from ..base import Context
from .common import APP_STATE, CAPABILITY, STATE_SENDER

PATTERNS_PATH = "docs/patterns.md"
PATTERNS_ABSENT = f"no {PATTERNS_PATH} in this revision: no persistence pattern to bring up to date"
MIGRATE_PATH = "docs/migrate_from_openai_apps.md"
MIGRATE_ABSENT = f"no {MIGRATE_PATH} in this revision: no migration table to bring up to date"
SUBSECTION = "Letting the host keep it"
_PERSIST = re.compile(r"persist\w*\s.*state|state\s.*persist", re.IGNORECASE)
_NUMBERED = re.compile(r"^\d+\.\s")


def _heading_level(doc: Document, section) -> int:
    heading = next(c for c in section.named_children if c.type in {"atx_heading", "setext_heading"})
    text = doc.text(heading)
    return len(text) - len(text.lstrip("#")) or 2


def rewrite_patterns(path: str, data: bytes, ctx: Context) -> tuple[bytes, list[str]]:
    text = data.decode("utf-8")
    doc = Document(data)
    section = next((node for node, title in doc.sections() if _PERSIST.search(title)), None)
    if section is None:
        return data, ["no \"Persisting view state\" section: the pattern is not described there"]
    if STATE_SENDER in doc.text(section):
        return data, []
    eol = "\r\n" if "\r\n" in text else "\n"
    level = min(_heading_level(doc, section) + 1, 6)
    lines = [
        "#" * level + " " + SUBSECTION,
        "",
        f"A host that advertises the `{CAPABILITY}` capability keeps the state for the View: report it with"
        f" `app.{STATE_SENDER}()` (a small JSON value, `null` for the initial view) and read it back from"
        f" `app.getHostContext()?.{APP_STATE}` when the View loads again. Such a host can also restore the"
        " state after a reload on another device or from a shared link, which `localStorage` cannot. What it"
        " hands back may come from a link that someone else wrote: validate it before use, and never take an"
        " action that changes anything only because a restored state asks for it. Keep the `localStorage`"
        " pattern above for hosts without the capability.",
        "",
        "```ts",
        f"const kept = app.getHostContext()?.{APP_STATE};",
        "// untrusted (it may come from a link): accept only a known tab",
        'const tab = kept === "details" || kept === "invoices" ? kept : null;',
        "",
        "// when the user opens another tab",
        f"if (app.getHostCapabilities()?.{CAPABILITY}) {{",
        f'  app.{STATE_SENDER}({{ state: "details" }});',
        "}",
        "```",
    ]
    end = section.end_byte
    before = data[:end]
    lead = "" if before.endswith(b"\n\n") else ("\n" if before.endswith(b"\n") else "\n\n")
    tail = "\n" if end < len(data) else ""
    insert = (lead + "\n".join(lines) + "\n" + tail).replace("\n", eol)
    new = data[:end] + insert.encode() + data[end:]
    return new, [f'added "{SUBSECTION}" to "{_title(doc, section)}"']


def _title(doc: Document, section) -> str:
    heading = next(c for c in section.named_children if c.type in {"atx_heading", "setext_heading"})
    return doc.heading_text(heading)


# ----------------------------------------------------------------------
# The migration table
# ----------------------------------------------------------------------

_COUNTERPARTS = (
    (
        re.compile(r"\bsetWidgetState\b"),
        f"`app.{STATE_SENDER}()`: the View's navigation state, kept by hosts with the `{CAPABILITY}`"
        " capability and not shown to the model (use `app.updateModelContext()` for that)",
    ),
    (
        re.compile(r"\bwidgetState\b"),
        f"`app.getHostContext()?.{APP_STATE}`: the View's own state, handed back by hosts with the"
        f" `{CAPABILITY}` capability (validate it)",
    ),
)


def rewrite_migrate(path: str, data: bytes, ctx: Context) -> tuple[bytes, list[str]]:
    text = data.decode("utf-8")
    eol = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(eol)
    notes: list[str] = []
    i = 0
    while i < len(lines):
        if not _is_row(lines[i]):
            i += 1
            continue
        start = i
        while i < len(lines) and _is_row(lines[i]):
            i += 1
        table = lines[start:i]
        rows = [_cells(line) for line in table]
        if len(rows) < 3 or not _is_delimiter(rows[1]):
            continue
        changed = False
        for row in rows[2:]:
            if len(row) < 2 or any(STATE_SENDER in cell or APP_STATE in cell for cell in row[1:]):
                continue
            for pattern, counterpart in _COUNTERPARTS:
                if pattern.search(row[0]):
                    row[1] = counterpart
                    changed = True
                    notes.append(f"the counterpart of {row[0]} in the migration table")
                    break
        if changed:
            lines[start:i] = _layout(rows, table[1])
    if not notes:
        return data, []
    return eol.join(lines).encode(), ["updated " + "; ".join(notes)]


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|") and line.rstrip().endswith("|")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip()[1:-1].split("|")]


def _is_delimiter(row: list[str]) -> bool:
    return all(re.fullmatch(r":?-+:?", cell) for cell in row)


def _layout(rows: list[list[str]], delimiter: str) -> list[str]:
    """The table as Prettier prints it: every column padded to its widest
    cell, the delimiter row's dashes to that width, alignment colons kept."""
    header, aligns, body = rows[0], rows[1], rows[2:]
    count = len(header)
    widths = [max(3, *(len(r[c]) for r in [header, *body] if c < len(r))) for c in range(count)]
    out = ["| " + " | ".join(header[c].ljust(widths[c]) for c in range(count)) + " |"]
    marks = []
    for c in range(count):
        align = aligns[c] if c < len(aligns) else "-"
        left, right = align.startswith(":"), align.endswith(":")
        marks.append((":" if left else "-") + "-" * (widths[c] - 2) + (":" if right else "-"))
    out.append("| " + " | ".join(marks) + " |")
    for row in body:
        cells = row + [""] * (count - len(row))
        out.append("| " + " | ".join(cells[c].ljust(widths[c]) for c in range(count)) + " |")
    return out
