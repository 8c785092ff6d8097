"""specification/draft/apps.mdx, the SEP text: a `ui/notifications/state-changed`
entry right after the size-changed entry under "Notifications (View -> Host)",
in that entry's form (the method in backticks with a one-line summary, a
JSON-RPC example, then the behaviour in RFC 2119 terms), and `appState` in
the draft's `HostContext` interface.

The document is read with the tree-sitter Markdown grammar: the section by
its heading, the entries by the code span that opens their paragraph, the
interface inside its fenced typescript block with the TypeScript grammar
(where the engine's ensure operation adds the member). Only insertions;
dated versions of the text (specification/2026-01-26/ ...) are frozen and
not targeted. A revision without the draft has nothing to edit: the step
is skipped with that reason (see the Step's `absent`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.edits import EditSet
from ...engine.markdown import Document, Fence
from ...engine.parsing import TYPESCRIPT, parse
from ...engine.outcome import AnchorMissing, Conflict, NotUtf8, SyntaxProblem, parsed_or_refused
from ...engine.source import BOM
from ..base import Context
from .common import APP_STATE, SIZE_METHOD, STATE_METHOD

PATH = "specification/draft/apps.mdx"
ABSENT = f"no {PATH} in this revision: the SEP text is not part of this checkout"
# The interface the draft shows the host context as; the SDK's own name too.
HOST_CONTEXT_NAMES = ("HostContext", "McpUiHostContext")
_SECTION = re.compile(r"^Notifications \((?P<party>[^()]+?) -> Host\):?$")
_TS_INFO = re.compile(r"^(typescript|ts|tsx)\b", re.IGNORECASE)


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

    section = _notifications_section(doc)
    party = section.party if section else "View"
    if _has_entry(doc, STATE_METHOD):
        pass
    elif section is None:
        missing.append('the section "Notifications (View -> Host)"')
    elif section.size is None:
        missing.append(f'the `{SIZE_METHOD}` entry under "{section.title}"')
    else:
        offset, text = _entry_insertion(doc, section, eol)
        edits.insert(offset, text)
        notes.append(f"added the `{STATE_METHOD}` entry after `{SIZE_METHOD}` under \"{section.title}\"")

    interface = _host_context(doc, path, ctx)
    if interface is None:
        missing.append("the `HostContext` interface in a typescript code block")
    else:
        fence, editor, node = interface
        editor.ensure_entry_lines(
            node.child_by_field_name("body"),
            APP_STATE,
            lambda indent: [f"{indent}/** {_field_doc(party)} */", f"{indent}{APP_STATE}?: unknown"],
            separator=";",
        )
        editor.result()  # re-parses the block: refuses a member that breaks it
        for edit in editor.edits:
            edits.replace(fence.start + edit.start, fence.start + edit.end, edit.text)
        if len(editor.edits):
            notes.append(f"added `{APP_STATE}?: unknown` to `{editor.name_of(node)}`")

    if missing:
        raise AnchorMissing(path, " and ".join(missing))
    if not edits:
        return data, []
    if any(edit.start != edit.end for edit in edits):
        raise Conflict(path, "internal error, please report it: the spec step only inserts")
    new = edits.apply(body)
    if doc.edited(new, edits).has_error() and not doc.has_error():
        raise SyntaxProblem(path, "the edited text would not parse as Markdown")
    return (BOM + new if bom else new), notes


# ----------------------------------------------------------------------
# The entry
# ----------------------------------------------------------------------


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


def _entry_insertion(doc: Document, section: Section, eol: str) -> tuple[int, str]:
    """Where the new entry goes (before the entry that follows size-changed,
    else after size-changed's last block) and its text."""
    blocks, size = section.blocks, section.size
    summary = blocks[size]
    _, after_code = doc.leading_code_span(summary)
    separator = re.match(r"^\s*(?:[-\u2013\u2014:]\s*)?", after_code).group(0) or " - "
    following = next((i for i in range(size + 1, len(blocks)) if _method_of(doc, blocks[i]) is not None), None)
    own = blocks[size + 1:following]
    example = next((doc.fence(b) for b in own if b.type == "fenced_code_block"), None)
    lines = _entry_lines(section.party, separator, example and _ExampleForm.of(doc, example))
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


def _entry_lines(party: str, separator: str, form: _ExampleForm | None) -> list[str]:
    form = form or _ExampleForm("```typescript", "```", "  ", False)
    i = form.indent
    if form.quoted_keys:
        example = [
            "{",
            f'{i}"jsonrpc": "2.0",',
            f'{i}"method": "{STATE_METHOD}",',
            f'{i}"params": {{',
            f'{i * 2}"state": {{ "tab": "invoices", "selected": "inv-2041" }}',
            f"{i}}}",
            "}",
        ]
    else:
        example = [
            "{",
            f'{i}jsonrpc: "2.0",',
            f'{i}method: "{STATE_METHOD}",',
            f"{i}params: {{",
            f"{i * 2}state: unknown  // Any JSON value from which the {party} can rebuild what it shows now",
            f"{i}}}",
            "}",
        ]
    return [
        f"`{STATE_METHOD}`{separator}{party}'s navigation state changed",
        "",
        form.opener,
        *example,
        form.closer,
        "",
        f"The {party} SHOULD send this notification each time its own navigation changes (another item"
        f" opened, another tab chosen), with a `state` that is enough to show that place again. The {party}"
        " SHOULD keep the state small and SHOULD NOT put anything secret in it, since a Host may keep it"
        " in a URL that is visible, stored in history and shared. A state received back in"
        f" `hostContext.{APP_STATE}` SHOULD be checked by the {party} before use, like any other input.",
        "",
        "**Host behavior:**",
        f"- Host MAY keep the latest state a {party} reported, for example in the URL of the page that shows it.",
        f"- A Host that keeps it SHOULD hand it back in `hostContext.{APP_STATE}` of the `ui/initialize` result"
        f" the next time it renders the same {party}, so that a reload or a shared link opens the same place.",
        "- Host MAY send a state that changed on its side (a link followed, a step back in history) with"
        f" `ui/notifications/host-context-changed`.",
        "- Host MUST treat a state it hands back as untrusted input: it can come from a link that anyone"
        f" wrote, not from the {party}.",
    ]


# ----------------------------------------------------------------------
# The HostContext field
# ----------------------------------------------------------------------


def _field_doc(party: str) -> str:
    return f"What the {party} last sent in `{STATE_METHOD}`, to restore its view"


def _host_context(doc: Document, path: str, ctx: Context) -> tuple[Fence, FileEditor, Node] | None:
    """The fenced typescript block that declares the host context interface,
    an editor over its content, and the interface. Other typescript blocks
    (message examples that are not TypeScript) are only looked at, never
    required to parse."""
    for fence in doc.fences():
        if not _TS_INFO.match(fence.info):
            continue
        content = doc.data[fence.start:fence.end]
        if not any(name.encode() in content for name in HOST_CONTEXT_NAMES):
            continue
        root = parse(content, TYPESCRIPT).root_node
        if not any(_declares(root, content, name) for name in HOST_CONTEXT_NAMES):
            continue
        block = f"{path} (typescript block at line {fence.node.start_point[0] + 1})"
        editor = FileEditor(parsed_or_refused(block, content, ctx.formatter))
        for name in HOST_CONTEXT_NAMES:
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
