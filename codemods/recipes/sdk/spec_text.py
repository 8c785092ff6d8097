"""specification/draft/apps.mdx, the SEP text (SPEC section 6): a
`ui/notifications/state-changed` entry right after the size-changed entry
under "Notifications (View -> Host)", in the form of its siblings (the
method in backticks with a one-line summary, a JSON-RPC example, then its
rules as short RFC 2119 lists, as request-teardown's **Host behavior:**);
`appState` in the draft's `HostContext` interface, whose doc defines "the
same View", and the `appState` capability in its `HostCapabilities`; and,
where the draft has those sections, a Security Implications subsection
with the host guidance on link-supplied state, a Rationale design decision
that weighs the View-side `localStorage` pattern, a Backward Compatibility
paragraph, and the Extensibility edits. Each normative sentence is written
once. The prose is in fragments/spec-*.md, its names holes filled from the
run's names table.

The document is read with the tree-sitter Markdown grammar: the section by
its heading, the entries by the code span that opens their paragraph, the
interface inside its fenced typescript block with the TypeScript grammar
(where the engine's ensure operation adds the member). Only insertions;
dated versions of the text (specification/2026-01-26/ ...) are frozen and
not targeted. A revision without the draft has nothing to edit: the step
is skipped with that reason (see the Step's `absent`). The entry and the
`HostContext` field are required anchors; the other pieces are added where
their section exists and noted as left out where it does not. Each piece
is recognised by its own marker (the entry's method, the member's name, a
heading's title, the bullet's method), so a second run adds nothing.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from tree_sitter import Node
from typing import NamedTuple

from ...engine.edits import EditSet
from ...engine.editor import FileEditor
from ...engine.markdown import Document, Fence
from ...engine.outcome import AnchorMissing, Conflict, NotUtf8, SyntaxProblem, parsed_or_refused
from ...engine.parsing import TYPESCRIPT, parse
from ...engine.source import BOM

from ..base import Context
from .common import SIZE_METHOD, Words, fragment, jsdoc, words_of
from .spec_sections import compatibility_insertion, extensibility_edits, rationale_insertion, security_insertion

PATH = "specification/draft/apps.mdx"
ABSENT = f"no {PATH} in this revision: the SEP text is not part of this checkout"
# The interfaces the draft shows the host context and capabilities as (the
# SDK's own names too).
HOST_CONTEXT_NAMES = ("HostContext", "McpUiHostContext")
HOST_CAPABILITIES_NAMES = ("HostCapabilities", "McpUiHostCapabilities")
_SECTION = re.compile(r"^Notifications \((?P<party>[^()]+?) -> Host\):?$")
_TS_INFO = re.compile(r"^(typescript|ts|tsx)\b", re.IGNORECASE)
# The draft's comments are not laid out by a formatter: wrapped to this.
_COMMENT_WIDTH = 80


def rewrite(path: str, data: bytes, ctx: Context) -> tuple[bytes, list[str]]:
    bom = data.startswith(BOM)
    body = data[len(BOM):] if bom else data
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise NotUtf8(path, f"not UTF-8 (byte {err.start})") from None
    doc = Document(body)
    crlf = body.count(b"\r\n")
    eol = "\r\n" if crlf and crlf * 2 >= body.count(b"\n") else "\n"
    edits, notes, missing = EditSet(), [], []
    w = words_of(ctx)

    section = _notifications_section(doc)
    party = section.party if section else "View"
    if _has_entry(doc, w.method):
        pass
    elif section is None:
        missing.append('the section "Notifications (View -> Host)"')
    elif section.size is None:
        missing.append(f'the `{SIZE_METHOD}` entry under "{section.title}"')
    else:
        offset, text = _entry_insertion(doc, section, eol, w)
        edits.insert(offset, text)
        notes.append(f"added the `{w.method}` entry after `{SIZE_METHOD}` under \"{section.title}\"")

    interface = _interface_block(doc, path, ctx, HOST_CONTEXT_NAMES)
    if interface is None:
        missing.append("the `HostContext` interface in a typescript code block")
    else:
        fence, editor, node = interface
        editor.ensure_entry_lines(
            node.child_by_field_name("body"),
            w.field,
            lambda indent: [
                *(indent + line for line in jsdoc(field_doc(party, w), indent, width=_COMMENT_WIDTH)),
                f"{indent}{w.field}?: unknown",
            ],
            separator=";",
        )
        _splice(editor, fence, edits)
        if len(editor.edits):
            notes.append(f"added `{w.field}?: unknown` to `{editor.name_of(node)}`")

    capabilities = _interface_block(doc, path, ctx, HOST_CAPABILITIES_NAMES)
    if capabilities is None:
        notes.append("no `HostCapabilities` block in the draft: the capability is not listed")
    else:
        fence, editor, node = capabilities
        if _ensure_capability(editor, node, party, w):
            notes.append(f"added `{w.capability}?: {{ maxLength?: number }}` to `{editor.name_of(node)}`")
        _splice(editor, fence, edits)

    for insert in (security_insertion, compatibility_insertion, rationale_insertion):
        found = insert(doc, party, eol, w)
        if found is None:
            continue
        offset, text, note = found
        if text:
            edits.insert(offset, text)
        if note:
            notes.append(note)
    extensibility, extensibility_notes = extensibility_edits(doc, party, eol, w)
    removals = {(start, end) for start, end, text in extensibility if start != end}
    for start, end, text in extensibility:
        edits.replace(start, end, text)
    notes.extend(extensibility_notes)

    if missing:
        raise AnchorMissing(path, " and ".join(missing))
    if not edits:
        return data, []
    if any(edit.start != edit.end and (edit.start, edit.end) not in removals for edit in edits):
        raise Conflict(path, "internal error, please report it: the spec step only inserts (and drops one future-work line)")
    new = edits.apply(body)
    if doc.edited(new, edits).has_error() and not doc.has_error():
        raise SyntaxProblem(path, "the edited text would not parse as Markdown")
    return (BOM + new if bom else new), notes


class Section(NamedTuple):
    node: Node
    title: str
    # who sends (the heading's left side: "View", in early drafts "Guest UI")
    party: str
    # the size-changed entry: its summary paragraph's index among the blocks
    size: int | None
    blocks: list[Node]


def _notifications_section(doc: Document) -> Section | None:
    """The "Notifications (View -> Host)" section, preferring the one that
    holds the size-changed entry."""
    found = []
    for node, title in doc.sections():
        match = _SECTION.match(title.replace("\u2192", "->").replace("&rarr;", "->"))
        if not match or match["party"].strip() == "Host":
            continue
        blocks = doc.blocks(node)
        size = next((i for i, b in enumerate(blocks) if _method_of(doc, b) == SIZE_METHOD), None)
        found.append(Section(node, title, match["party"].strip(), size, blocks))
    return next((s for s in found if s.size is not None), found[0] if found else None)


def _method_of(doc: Document, block: Node) -> str | None:
    """The method an entry's summary paragraph names (`ui/...` - summary)."""
    lead = doc.leading_code_span(block)
    if lead is None:
        return None
    method, _ = lead
    return method if "/" in method and " " not in method else None


def _has_entry(doc: Document, method: str) -> bool:
    return any(_method_of(doc, node) == method for node in doc.walk() if node.type == "paragraph")


def _entry_insertion(doc: Document, section: Section, eol: str, w: Words) -> tuple[int, str]:
    """Where the new entry goes (before the entry that follows size-changed,
    else after size-changed's last block) and its text."""
    blocks, size = section.blocks, section.size
    summary = blocks[size]
    _, after_code = doc.leading_code_span(summary)
    separator = re.match(r"^\s*(?:[-\u2013\u2014:]\s*)?", after_code).group(0) or " - "
    following = next((i for i in range(size + 1, len(blocks)) if _method_of(doc, blocks[i]) is not None), None)
    own = blocks[size + 1:following]
    example = next((doc.fence(b) for b in own if b.type == "fenced_code_block"), None)
    lines = entry_lines(section.party, separator, example and _ExampleForm.of(doc, example), w)
    text = eol.join(lines) + eol
    if following is not None:
        return blocks[following].start_byte, text + eol
    last = (own or [summary])[-1]
    end = last.end_byte
    lead = "" if doc.data[:end].endswith(b"\n") else eol
    return end, lead + eol + text


class _ExampleForm(NamedTuple):
    """How the size-changed example is written, for its twin."""

    opener: str  # the fence line, e.g. "```typescript"
    closer: str
    indent: str
    quoted_keys: bool

    @classmethod
    def of(cls, doc: Document, fence: Fence) -> "_ExampleForm":
        node = fence.node
        opener = doc.data[node.start_byte:doc.data.index(b"\n", node.start_byte)].decode().rstrip("\r")
        delimiters = [c for c in node.children if c.type == "fenced_code_block_delimiter"]
        closer = doc.text(delimiters[-1]) if len(delimiters) > 1 else "```"
        content = doc.data[fence.start:fence.end].decode()
        indents = [m.group(1) for m in re.finditer(r"^([ \t]+)\S", content, re.MULTILINE)]
        indent = min(indents, key=len) if indents else "  "
        return cls(opener.strip(), closer.strip(), indent, '"jsonrpc"' in content)


def entry_lines(party: str, separator: str, form: _ExampleForm | None, w: Words) -> list[str]:
    """The entry (fragments/spec-entry.md), its example in the form of the
    size-changed one."""
    form = form or _ExampleForm("```typescript", "```", "  ", False)
    i = form.indent
    if form.quoted_keys:
        state = f'{i * 2}"state": {{ "tab": "invoices" }}'
        keys = ('"jsonrpc"', '"method"', '"params"')
    else:
        state = f"{i * 2}state: unknown  // a JSON value; null: the {party}'s initial view"
        keys = ("jsonrpc", "method", "params")
    example = [
        form.opener,
        "{",
        f'{i}{keys[0]}: "2.0",',
        f'{i}{keys[1]}: "{w.method}",',
        f"{i}{keys[2]}: {{",
        state,
        f"{i}}}",
        "}",
        form.closer,
    ]
    text = w.fill(fragment("spec-entry.md"), party=party, separator=separator, example="\n".join(example))
    return text.rstrip("\n").split("\n")


def field_doc(party: str, w: Words) -> list[str]:
    """The doc of `appState` in `HostContext`: what it holds, and the one
    definition of "the same View" (fragments/spec-field.md)."""
    return w.fill(fragment("spec-field.md"), party=party).rstrip("\n").split("\n")


def _ensure_capability(editor: FileEditor, node: Node, party: str, w: Words) -> bool:
    """`appState?: { maxLength?: number }` after `downloadFile` (the
    capability documented like it), else after the last member; False when
    it is there already. Its rules are the entry's: the docs point there."""
    body = node.child_by_field_name("body")
    members = editor.entries(body)
    if any(editor.item_key(m) == w.capability for m in members):
        return False
    doc = f"/** Host keeps {party} navigation state ({w.method}). */"
    max_length = f"/** Largest state it keeps, in UTF-8 bytes of its JSON text (see {w.method}). */"
    twin = next((m for m in members if editor.item_key(m) == "downloadFile"), None)
    anchor = twin if twin is not None else (members[-1] if members else None)
    indent = editor.source.indent_of(anchor) if anchor is not None else "  "
    lines = [doc, f"{w.capability}?: {{", f"{indent}{max_length}", f"{indent}maxLength?: number;", "};"]
    if twin is None:
        editor.ensure_entry_lines(
            body, w.capability, lambda i: [i + line for line in lines[:-1]] + [i + "}"], separator=";"
        )
    else:
        editor.insert_after(twin, ("\n" + indent).join(lines), blank_line=False)
    return True


def _splice(editor: FileEditor, fence: Fence, edits: EditSet) -> None:
    """The block editor's edits, as edits of the document."""
    editor.result()  # re-parses the block: refuses a member that breaks it
    for edit in editor.edits:
        edits.replace(fence.start + edit.start, fence.start + edit.end, edit.text)


def _interface_block(
    doc: Document, path: str, ctx: Context, names: tuple[str, ...]
) -> tuple[Fence, FileEditor, Node] | None:
    """The fenced typescript block that declares one of the interfaces
    ``names`` (the first such block), an editor over its content, and the
    interface. Other typescript blocks (message examples that are not
    TypeScript) are only looked at, never required to parse."""
    for fence in doc.fences():
        if not _TS_INFO.match(fence.info):
            continue
        content = doc.data[fence.start:fence.end]
        if not any(name.encode() in content for name in names):
            continue
        root = parse(content, TYPESCRIPT).root_node
        if not any(_declares(root, content, name) for name in names):
            continue
        block = f"{path} (typescript block at line {fence.node.start_point[0] + 1})"
        editor = FileEditor(parsed_or_refused(block, content, ctx.formatter))
        for name in names:
            found = editor.interfaces(name)
            if found:
                return fence, editor, found[0]
    return None


def _declares(root: Node, content: bytes, name: str) -> bool:
    for node in root.named_children:
        if node.type == "export_statement":
            node = node.child_by_field_name("declaration") or node
        if node.type == "interface_declaration":
            ident = node.child_by_field_name("name")
            if ident is not None and content[ident.start_byte:ident.end_byte].decode() == name:
                return True
    return False
