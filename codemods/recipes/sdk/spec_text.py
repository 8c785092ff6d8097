"""specification/draft/apps.mdx, the SEP text (SPEC section 6): a
`ui/notifications/state-changed` entry right after the size-changed entry
under "Notifications (View -> Host)", in that entry's form (the method in
backticks with a one-line summary, a JSON-RPC example, then the behaviour
in RFC 2119 terms); `appState` in the draft's `HostContext` interface and
the `appState` capability in its `HostCapabilities`; and, where the draft
has those sections, a Security Implications subsection on link-supplied
state, a Rationale design decision that weighs the View-side `localStorage`
pattern, and an Extensibility bullet where future work lists state
persistence.

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
from tree_sitter import Node
from typing import NamedTuple
from ...engine.editor import FileEditor
from ...engine.edits import EditSet
from ...engine.markdown import Document, Fence
from ...engine.parsing import TYPESCRIPT, parse
from ...engine.outcome import AnchorMissing, Conflict, NotUtf8, SyntaxProblem, parsed_or_refused
from ...engine.source import BOM
from ..base import Context
from .common import APP_STATE, CAPABILITY, SIZE_METHOD, STATE_METHOD
from .spec_sections import _STATE_CHANGING, compatibility_insertion, extensibility_edits, rationale_insertion, security_insertion


# What the draft's `HostCapabilities` block is called (the SDK's name too).
HOST_CAPABILITIES_NAMES = ("HostCapabilities", "McpUiHostCapabilities")


# Smallest state (its JSON text, in bytes) a Host that keeps states accepts.
MIN_STATE_BYTES = 1024












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

    interface = _interface_block(doc, path, ctx, HOST_CONTEXT_NAMES)
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
        _splice(editor, fence, edits)
        if len(editor.edits):
            notes.append(f"added `{APP_STATE}?: unknown` to `{editor.name_of(node)}`")

    capabilities = _interface_block(doc, path, ctx, HOST_CAPABILITIES_NAMES)
    if capabilities is None:
        notes.append("no `HostCapabilities` block in the draft: the capability is not listed")
    else:
        fence, editor, node = capabilities
        if _ensure_capability(editor, node, party):
            notes.append(f"added `{CAPABILITY}?: {{ maxLength?: number }}` to `{editor.name_of(node)}`")
        _splice(editor, fence, edits)

    for insert in (security_insertion, compatibility_insertion, rationale_insertion):
        found = insert(doc, party, eol)
        if found is None:
            continue
        offset, text, note = found
        if text:
            edits.insert(offset, text)
        if note:
            notes.append(note)
    extensibility, extensibility_notes = extensibility_edits(doc, party, eol)
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
            f"{i * 2}state: unknown  // JSON value the {party} can show its current place from; null: its initial view",
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
        _state_rule(party),
        "",
        f"The {party} SHOULD send this notification when its own navigation changes (another item opened,"
        f" another tab chosen), SHOULD debounce bursts of changes, SHOULD NOT report a state the Host has just"
        f" handed back to it, and SHOULD keep the state small: within the `maxLength` of the `{CAPABILITY}`"
        f" host capability. The {party} MUST NOT put secrets (tokens, passwords, keys) in the state and"
        " SHOULD NOT put personal data in it: a Host may keep the state in a URL that the user sees, that"
        f" browser history stores and that the user may share. The {party} SHOULD check the `{CAPABILITY}`"
        f" host capability before sending; a Host without it keeps nothing, and the {party} MAY keep its state"
        " itself instead (for example in `localStorage`, keyed by `viewUUID`).",
        "",
        f"The state is not model context: it lets the {party} restore itself and is never given to the model."
        " What the model should know goes through `ui/update-model-context`; this also sets the state apart"
        " from the model-visible widget state of other app platforms.",
        "",
        f"A {party} treats an absent `hostContext.{APP_STATE}` and `{APP_STATE}: null` alike: it shows its"
        f" initial view. A state handed back is untrusted input, since it may come from a link that someone"
        f" else wrote. The {party} MUST validate it before use (showing its initial view when it is not"
        f" valid), and MUST NOT take a state-changing action ({_STATE_CHANGING}) only because a restored"
        f" state asks for it, without the user's own action in the {party}. Loading what the state points at"
        " with read-only tool calls is expected.",
        "",
        "**Host behavior:**",
        f"- Host MAY keep the latest state a {party} reported, for example in the URL of the page that shows"
        f" it. A Host that hands states back in `hostContext.{APP_STATE}` MUST advertise the `{CAPABILITY}`"
        f" host capability, and SHOULD give its `maxLength`: the largest state, in bytes of its JSON text,"
        " that it keeps.",
        f"- Host SHOULD hand a kept state back in `hostContext.{APP_STATE}` of the `ui/initialize` result when"
        f" it renders the same {party} again; with no state kept, `hostContext` has no `{APP_STATE}` key.",
        "- Host MAY send a state that changed on its side (a link followed, a step back in history) with"
        f" `ui/notifications/host-context-changed`, where `{APP_STATE}: null` means the initial view (a"
        " missing key means \"unchanged\"). Host SHOULD NOT send back a state the"
        f" {party} has just reported.",
        f"- Host MUST NOT hand a state to another {party}. {_same_view(party)}",
        f"- Host MAY drop a state whose JSON text exceeds its `maxLength` (keeping no state rather than an"
        f" older one), and SHOULD accept states of at least {MIN_STATE_BYTES} bytes of JSON text.",
        "- Host SHOULD keep states out of its logs and analytics, SHOULD replace the current history entry"
        " rather than add one for each report, SHOULD coalesce reports that arrive in quick succession, and,"
        " where states are kept in page URLs, SHOULD send a `Referrer-Policy` (such as"
        " `strict-origin-when-cross-origin`) that keeps those URLs from other sites.",
    ]




def _state_rule(party: str) -> str:
    """The one rule for `state`, said once (the SDK's schema enforces it)."""
    return (
        f"`state` is required: a JSON value from which the {party} can show its current place again, or"
        f" `null` for its initial view. A notification whose `params` has no `state` is malformed; the Host"
        " MUST ignore it (it neither clears nor replaces a kept state)."
    )


def _same_view(party: str) -> str:
    """"The same View", per tool call, in the protocol's own terms."""
    return (
        f"The same {party} is the one shown for the same MCP server (as the Host identifies that server),"
        f" the same `ui://` resource, and the same tool and tool call (the `hostContext.toolInfo` the {party}"
        f" was initialized with); or the {party} the user explicitly opened in its place (that tool call's"
        f" {party} moved to a panel or a page of its own); or the {party} a link addresses in these terms."
        f" A link can carry a state into another user's Host: such a state is in scope of this rule, as"
        " untrusted input."
    )


def _field_doc(party: str) -> str:
    return (
        f"A state for the {party} to restore: its last `{STATE_METHOD}` report, or one that came from a link"
        f" (untrusted: validate it before use). The {party} treats absent and `null` alike: its initial view"
    )


def _capability_doc(party: str) -> str:
    return (
        f"Host keeps the {party}'s navigation state ({STATE_METHOD}) and hands it back in"
        f" hostContext.{APP_STATE}; a Host that hands it back advertises this."
    )


_MAX_LENGTH_DOC = "Largest state the Host keeps, in bytes of its JSON text."


def _ensure_capability(editor: FileEditor, node: Node, party: str) -> bool:
    """`appState?: { maxLength?: number }` after `downloadFile` (the
    capability documented like it), else after the last member; False when
    it is there already."""
    body = node.child_by_field_name("body")
    members = editor.entries(body)
    if any(editor.item_key(m) == CAPABILITY for m in members):
        return False
    doc = f"/** {_capability_doc(party)} */"
    twin = next((m for m in members if editor.item_key(m) == "downloadFile"), None)
    anchor = twin if twin is not None else (members[-1] if members else None)
    indent = editor.source.indent_of(anchor) if anchor is not None else "  "
    lines = [doc, f"{CAPABILITY}?: {{", f"{indent}/** {_MAX_LENGTH_DOC} */", f"{indent}maxLength?: number;", "};"]
    if twin is None:
        editor.ensure_entry_lines(
            body, CAPABILITY, lambda i: [i + line for line in lines[:-1]] + [i + "}"], separator=";"
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
