"""docs/patterns.md (with the docs/patterns.tsx region its snippets are
synced from) and docs/migrate_from_openai_apps.md, where the checkout has
them (SPEC section 6): the pages that told View authors the host keeps no
state are brought up to date.

- patterns.tsx: a function after the one that holds the persistence
  pattern's client-side region, holding a region of its own (the View's
  side: restore a validated state, report a new one within the size the
  host keeps), and its `void` line where the file lists its functions so.
- patterns.md: the "Persisting view state" pattern gets a subsection of its
  own at its end, on letting a host that advertises the capability keep
  the state, the `localStorage` pattern above it staying the fallback; its
  snippet is synced from that region (`source="./patterns.tsx#..."`), as
  the page's other snippets are, and a bare block only where the checkout
  has no patterns.tsx.
- migrate_from_openai_apps.md: the table rows for `widgetState` and
  `setWidgetState` name their partial counterparts in short cells; how
  they differ (the OpenAI widget state is model-visible, a View's
  navigation state is not model context) is said in a paragraph under the
  table.

Each page is recognised as done by the sender's name in the section, the
region or the rows, so a second run changes nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.markdown import Document
from ..base import Context
from . import app
from .common import Words, read_text, words_of

PATTERNS_PATH = "docs/patterns.md"
PATTERNS_ABSENT = f"no {PATTERNS_PATH} in this revision: no persistence pattern to bring up to date"
PATTERNS_TSX = "docs/patterns.tsx"
PATTERNS_TSX_ABSENT = f"no {PATTERNS_TSX} in this revision: the patterns' snippets are written in the page"
MIGRATE_PATH = "docs/migrate_from_openai_apps.md"
MIGRATE_ABSENT = f"no {MIGRATE_PATH} in this revision: no migration table to bring up to date"
SUBSECTION = "Letting the host keep it"
REGION = "persistDataWithHost"
_PERSIST = re.compile(r"persist\w*\s.*state|state\s.*persist", re.IGNORECASE)
_SOURCE = re.compile(r'source="\./patterns\.tsx#(\w+)"')


def _heading_level(doc: Document, section: Node) -> int:
    heading = next(c for c in section.named_children if c.type in {"atx_heading", "setext_heading"})
    text = doc.text(heading)
    return len(text) - len(text.lstrip("#")) or 2


def _persistence_section(doc: Document) -> Node | None:
    return next((node for node, title in doc.sections() if _PERSIST.search(title)), None)


# ----------------------------------------------------------------------
# patterns.tsx
# ----------------------------------------------------------------------


def transform_patterns_examples(editor: FileEditor, ctx: Context) -> None:
    """The region after the function that holds the last region the
    persistence pattern's snippets come from."""
    w = words_of(ctx)
    source = editor.text(editor.source.root)
    if f"//#region {REGION}" in source:
        return
    page = read_text(Path(ctx.repo) / PATTERNS_PATH).encode()
    section = _persistence_section(Document(page)) if page else None
    regions = _SOURCE.findall(Document(page).text(section)) if section is not None else []
    marker = next(
        (n for n in editor.walk() if n.type == "comment" and regions and editor.text(n).strip() == f"//#region {regions[-1]}"),
        None,
    )
    if marker is None:
        editor.note(f"no snippet of the persistence pattern is synced from {PATTERNS_TSX}: nothing to add")
        return
    function = _top_level(marker)
    name = _name(editor, function)
    unit = editor.style.indent
    body = [f"{unit}//#region {REGION}", *[f"{unit}{line}" if line else line for line in app.sender_example(w)],
            f"{unit}//#endregion {REGION}"]
    parameters = app.example_parameters(True)
    head = f"function {REGION}({parameters}) {{"
    if len(head) > editor.style.line_width:
        head = "\n".join([f"function {REGION}(", *[f"{unit}{p}," for p in parameters.split(", ")], ") {"])
    text = "\n".join(["/**", " * Example: Persisting view state with a host that keeps it", " */", head, *body, "}"])
    editor.insert_after(function, text)
    keep = next((n for n in editor.walk() if n.type == "expression_statement" and editor.text(n) == f"void {name};"), None)
    if keep is not None:
        editor.insert_after(keep, f"void {REGION};", blank_line=False)


def _top_level(node: Node) -> Node:
    while node.parent is not None and node.parent.type != "program":
        node = node.parent
    return node


def _name(editor: FileEditor, statement: Node) -> str:
    declaration = statement.child_by_field_name("declaration") or statement
    name = declaration.child_by_field_name("name")
    return editor.text(name) if name is not None else ""


# ----------------------------------------------------------------------
# patterns.md
# ----------------------------------------------------------------------


def rewrite_patterns(path: str, data: bytes, ctx: Context) -> tuple[bytes, list[str]]:
    w = words_of(ctx)
    text = data.decode("utf-8")
    doc = Document(data)
    section = _persistence_section(doc)
    if section is None:
        return data, ["no \"Persisting view state\" section: the pattern is not described there"]
    if w.sender in doc.text(section):
        return data, []
    eol = "\r\n" if "\r\n" in text else "\n"
    level = min(_heading_level(doc, section) + 1, 6)
    lines = [
        "#" * level + " " + SUBSECTION,
        "",
        f"A host that advertises the `{w.capability}` capability keeps the state for the View and hands it"
        f" back in `app.getHostContext()?.{w.field}` when the View loads again, also after a reload on another"
        f" device or from a shared link. Report the state with `app.{w.sender}()` when it changes, within the"
        f" capability's `maxLength` (UTF-8 bytes of its JSON text; {app.DEFAULT_MAX_LENGTH} when absent), and"
        " validate what comes back: it may come from a link someone else wrote. Keep the `localStorage`"
        " pattern above for hosts without the capability.",
        "",
        *_snippet(ctx, doc, section, w),
    ]
    end = section.end_byte
    before = data[:end]
    lead = "" if before.endswith(b"\n\n") else ("\n" if before.endswith(b"\n") else "\n\n")
    tail = "\n" if end < len(data) else ""
    insert = (lead + "\n".join(lines) + "\n" + tail).replace("\n", eol)
    new = data[:end] + insert.encode() + data[end:]
    return new, [f'added "{SUBSECTION}" to "{_title(doc, section)}"']


def _snippet(ctx: Context, doc: Document, section: Node, w: Words) -> list[str]:
    """The snippet, synced from its patterns.tsx region (as the section's
    other snippets are, with their `prettier-ignore` where they have one)
    when the run adds that region, else a block of its own."""
    planned = ctx.earlier.get("docs-patterns-examples")
    examples = planned.data if planned is not None else read_text(Path(ctx.repo) / PATTERNS_TSX).encode()
    code = app.sender_example(w)
    if f"//#region {REGION}".encode() not in examples:
        return ["```ts", *code, "```"]
    text = doc.text(section)
    sourced = re.search(r'^(<!-- prettier-ignore -->\r?\n)?```(\w+) source="\./patterns\.tsx#', text, re.MULTILINE)
    ignore = ["<!-- prettier-ignore -->"] if sourced is None or sourced.group(1) else []
    language = sourced.group(2) if sourced else "tsx"
    return [*ignore, f'```{language} source="./patterns.tsx#{REGION}"', *code, "```"]


def _title(doc: Document, section: Node) -> str:
    heading = next(c for c in section.named_children if c.type in {"atx_heading", "setext_heading"})
    return doc.heading_text(heading)


# ----------------------------------------------------------------------
# The migration table
# ----------------------------------------------------------------------


def _counterparts(w: Words) -> tuple[tuple[re.Pattern[str], str], ...]:
    return (
        (re.compile(r"\bsetWidgetState\b"), f"`app.{w.sender}()` (partly)"),
        (re.compile(r"\bwidgetState\b"), f"`app.getHostContext()?.{w.field}` (partly)"),
    )


def _explanation(w: Words) -> str:
    return (
        f"`app.{w.sender}()` reports the View's navigation state to hosts that advertise the `{w.capability}`"
        f" capability, which hand it back in `hostContext.{w.field}`. Unlike `widgetState`, the model never"
        " sees it: send what the model should know with `app.updateModelContext()`."
    )


def rewrite_migrate(path: str, data: bytes, ctx: Context) -> tuple[bytes, list[str]]:
    w = words_of(ctx)
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
            if len(row) < 2 or any(w.sender in cell or w.field in cell for cell in row[1:]):
                continue
            for pattern, counterpart in _counterparts(w):
                if pattern.search(row[0]):
                    row[1] = counterpart
                    changed = True
                    notes.append(row[0])
                    break
        if changed:
            laid = _layout(rows)
            lines[start:i] = [*laid, "", _explanation(w)]
            i = start + len(laid) + 2
    if not notes:
        return data, []
    return eol.join(lines).encode(), [f"the table gives the counterparts of {' and '.join(notes)}, explained under it"]


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|") and line.rstrip().endswith("|")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip()[1:-1].split("|")]


def _is_delimiter(row: list[str]) -> bool:
    return all(re.fullmatch(r":?-+:?", cell) for cell in row)


def _layout(rows: list[list[str]]) -> list[str]:
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
