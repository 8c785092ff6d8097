"""src/app-bridge.ts: the state-changed event on AppBridge, wired like size-changed.

Shape A (early 1.x) has an `onsizechange` setter that registers the schema
with `setNotificationHandler`; shapes B (`ProtocolWithEvents`) and C (2.x,
`Protocol<BaseContext>` with an event dispatcher) dispatch events, so the
event map gets `statechange` and `eventSchemas` its schema. The 1.x shapes
(A, B) also get the `onstatechange` accessor, the size-changed one renamed
under a doc comment in the style of its own. Shape C gets no accessor: 2.x
deprecates every event-backed `on*` accessor in favour of
`addEventListener`, so a new one would be deprecated on arrival."""

from __future__ import annotations

import re
from pathlib import Path

from tree_sitter import Node

from ...engine.list_edits import MEMBER_CONTAINERS

from ...engine.editor import FileEditor
from ...engine.statements import Item
from ...engine.outcome import AnchorMissing
from ..base import Context
from .common import (
    SIZE_ACCESSOR,
    SIZE_EVENT,
    DocStyle,
    Words,
    companion,
    indented,
    insert_documented,
    jsdoc,
    region_name,
    words_of,
)
from .imports import ensure_imported_beside_twins

PATH = "src/app-bridge.ts"
CLASS = "AppBridge"
EVENT_MAP = "AppBridgeEventMap"
# The largest state the examples' host keeps and advertises, in UTF-8 bytes
# of its JSON text: the host half's.
MAX_STATE = 1024


def transform(editor: FileEditor, ctx: Context) -> None:
    w = words_of(ctx)
    cls = editor.class_(CLASS)
    accessors = editor.class_members(cls, SIZE_ACCESSOR, "method_definition")
    schemas = next(iter(editor.class_members(cls, "eventSchemas", "public_field_definition")), None)
    two_x = is_shape_c(editor, cls, schemas)
    if not accessors and not two_x:
        raise AnchorMissing(editor.path, f"accessor `{SIZE_ACCESSOR}` of class `{CLASS}`")
    inserted: list[str] = []

    aliases = editor.type_aliases(EVENT_MAP)
    if aliases:
        event_map = aliases[0].child_by_field_name("value")
        if event_map is None or event_map.type != "object_type":
            raise AnchorMissing(editor.path, f"the object type of `{EVENT_MAP}`")
        inserted += _ensure_event_key(editor, event_map, _app_link_prefix(editor.doc_text(cls)), w)
    if schemas is not None:
        value = schemas.child_by_field_name("value")
        if value is None or value.type != "object":
            raise AnchorMissing(editor.path, f"the object literal of `{CLASS}.eventSchemas`")
        inserted += _mirror_entry(editor, value, SIZE_EVENT, w)
    editor.note(f"shape {_shape(editor, cls, schemas, w)}")

    if two_x:
        # 2.x: listeners only (`addEventListener("statechange", ...)`)
        ensure_imported_beside_twins(editor, inserted, w)
        return
    copy = w.rename(editor.span(accessors[0], accessors[-1]))
    inserted.append(copy)
    if not editor.class_members(cls, w.accessor, "method_definition"):
        twin_doc = editor.doc_text(accessors[0])
        style = DocStyle.of(twin_doc, w)
        doc = accessor_doc(style, w, _app_link_prefix(twin_doc), example_fence(ctx, twin_doc, w))
        insert_documented(editor, accessors[0], accessors[-1], doc, copy)
    ensure_imported_beside_twins(editor, inserted, w)


def _mirror_entry(editor: FileEditor, container: Node, key: str, w: Words) -> list[str]:
    """The `statechange` twin of the `sizechange` entry of an object (type)."""
    entries = editor.entries(container)
    entry = next((e for e in entries if editor.item_key(e) == key), None)
    if entry is None:
        raise AnchorMissing(editor.path, f"`{key}` in `{editor.text(container)[:30]}...`")
    text = w.rename(editor.text(entry)).rstrip(";,")
    ensure = editor.ensure_members if container.type in MEMBER_CONTAINERS else editor.ensure_list_items
    ensure(container, [Item(w.rename(key), text)], after=key)
    return [text]


def _ensure_event_key(editor: FileEditor, event_map: Node, app_link: str, w: Words) -> list[str]:
    """The `statechange` key of the event map, after `sizechange`, under a
    short TSDoc comment of its own (listeners take its `params`)."""
    entries = editor.entries(event_map)
    twin = next((e for e in entries if editor.item_key(e) == SIZE_EVENT), None)
    if twin is None:
        raise AnchorMissing(editor.path, f"`{SIZE_EVENT}` in `{EVENT_MAP}`")
    text = w.rename(editor.text(twin)).rstrip(";,")
    if any(editor.item_key(e) == w.event for e in entries):
        return [text]
    cls = editor.class_(CLASS)
    accessors = editor.class_members(cls, SIZE_ACCESSOR, "method_definition")
    style = DocStyle.of(editor.doc_text(accessors[0]) if accessors else editor.doc_text(cls), w)
    separator = ";" if editor.text(event_map).count(";") >= editor.text(event_map).count(",") else ","
    indent = editor.source.indent_of(twin)
    lines = jsdoc(event_key_doc(style, w, app_link), indent, width=editor.style.line_width)
    editor.insert_after(twin, indented(lines, indent) + "\n" + indent + text + separator, blank_line=False)
    return [text]


def event_key_doc(style: DocStyle, w: Words, app_link: str) -> list[str]:
    """The TSDoc of the `statechange` key: two lines and the View's side
    (the revision documents its other keys less, if at all)."""
    party = style.party
    return [
        f"The {party}'s navigation state changed (`{w.method}`); a host that keeps it hands it back in"
        f" `hostContext.{w.field}`.",
        "",
        f"@see {style.link(f'{app_link}App.{w.sender}', f'App.{w.sender}')}, the {party}'s side of this",
    ]


def is_shape_c(editor: FileEditor, cls: Node, schemas: Node | None) -> bool:
    """2.x: an `eventSchemas` map on a class that is no `ProtocolWithEvents`
    (it composes an event dispatcher instead)."""
    heritage = editor.text(next((c for c in cls.named_children if c.type == "class_heritage"), cls))
    return schemas is not None and "ProtocolWithEvents" not in heritage


def _shape(editor: FileEditor, cls: Node, schemas: Node | None, w: Words) -> str:
    if schemas is None:
        return f"A: an {SIZE_ACCESSOR} setter over setNotificationHandler"
    if not is_shape_c(editor, cls, schemas):
        return "B: a ProtocolWithEvents subclass with an event map"
    return (
        "C: Protocol<BaseContext> with a composed event dispatcher"
        f" (no `{w.accessor}` accessor: 2.x deprecates them for addEventListener)"
    )


def _app_link_prefix(doc: str) -> str:
    match = re.search(r"\{@link (app[.!])App\.", doc)
    return match.group(1) if match else "app!"


def listener_example(w: Words) -> list[str]:
    """The 2.x host's example, in its companion region (2.x has no accessor
    whose doc would show it): the capability advertised, the kept state
    handed back in the initial context (a link that does not parse is no
    state, never an exception), and the listener keeping reports in the
    page URL within the size it advertises (UTF-8 bytes; `null`: the
    initial view)."""
    return [
        "const url = new URL(window.location.href);",
        f'const kept = url.searchParams.get("{w.field}");',
        f"const capabilities = {{ {w.capability}: {{ maxLength: {MAX_STATE} }} }};",
        "let restored: unknown;",
        "try {",
        "  restored = kept === null ? undefined : JSON.parse(kept);",
        "} catch {",
        "  restored = undefined; // a link is untrusted text: what does not parse is no state",
        "}",
        f"const hostContext = restored === undefined ? {{}} : {{ {w.field}: restored }};",
        "const bridge = new AppBridge(null, hostInfo, capabilities, { hostContext });",
        f'bridge.addEventListener("{w.event}", ({{ state }}) => {{',
        "  // null: back at the initial view",
        '  const value = state === null ? "" : JSON.stringify(state);',
        "  const bytes = new TextEncoder().encode(value).length;",
        f'  if (value && bytes <= {MAX_STATE}) url.searchParams.set("{w.field}", value);',
        f'  else url.searchParams.delete("{w.field}");',
        '  window.history.replaceState(null, "", url);',
        "});",
    ]


def bridge_example(w: Words) -> list[str]:
    """The accessor's example: the state kept in the page URL within the
    size the host keeps (UTF-8 bytes of its JSON text), and `null` (or an
    older view's missing state) as no state. The doc shows it; the
    companion region holds the same lines."""
    return [
        f"bridge.{w.accessor} = ({{ state }}) => {{",
        "  const url = new URL(window.location.href);",
        "  // null (or no state from an older view): back to the initial view",
        '  const value = state == null ? "" : JSON.stringify(state);',
        "  const bytes = new TextEncoder().encode(value).length;",
        f"  if (value && bytes <= {MAX_STATE}) {{",
        f'    url.searchParams.set("{w.field}", value);',
        "  } else {",
        f'    url.searchParams.delete("{w.field}");',
        "  }",
        '  window.history.replaceState(null, "", url);',
        "};",
    ]


EXAMPLES_PATH = "src/app-bridge.examples.ts"


def bridge_region(twin_region: str, w: Words, listener: bool = False) -> str:
    member = w.event if listener else w.accessor
    return region_name(twin_region, member, "keepStateInUrl", "keepStateInUrl")


def example_fence(ctx: Context | None, twin_doc: str, w: Words) -> str:
    """The new example's opening fence: synced from a region of the
    companion file where the twin's example is (and the file is there)."""
    style = DocStyle.of(twin_doc, w)
    found = companion(twin_doc)
    if found is None or ctx is None or not _has_region(Path(ctx.repo) / "src" / found[0], found[1]):
        return style.fence
    return f'{style.fence} source="./{found[0]}#{bridge_region(found[1], w)}"'


def _has_region(path: Path, region: str) -> bool:
    try:
        return f"//#region {region}" in path.read_text(encoding="utf-8")
    except OSError:
        return False


def accessor_doc(style: DocStyle, w: Words, app_link: str, fence: str = "") -> list[str]:
    party, Party = style.party, style.Party
    lines = [
        f"Register a handler for navigation state reports from the {party}.",
        "",
        f"The {party} sends `{w.method}` when its own navigation changes (which item is open, which tab"
        " is shown). The state is a JSON value; `null` means the initial view. Keep it (e.g., in the page URL,"
        " within the `maxLength` you advertise) and hand it back in"
        f" `hostContext.{w.field}` when the same {party} loads again, so that a reload or a shared link"
        f" restores the same view. A host that keeps it advertises the `{w.capability}` host capability.",
        "",
        f"Note: This is for {Party} → Host communication. To hand a state back to the"
        f" {Party}, set `{w.field}` in the host context with {style.link('setHostContext')}.",
        "",
        "@example",
        fence or style.fence,
        *bridge_example(w),
        "```",
        "",
        f"@see {style.link(w.state)} for the notification type",
        f"@see {style.link(f'{app_link}App.{w.sender}', f'App.{w.sender}')} - the {Party} method that sends these notifications",
    ]
    if style.deprecated:
        lines.append(style.deprecated)
    return lines
