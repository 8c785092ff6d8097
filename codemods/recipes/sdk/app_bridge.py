"""src/app-bridge.ts: `onappstatechange` on AppBridge, wired like `onsizechange`.

Shape A (early 1.x) has a setter that registers the schema with
`setNotificationHandler`; shapes B (`ProtocolWithEvents`) and C (2.x,
`Protocol<BaseContext>` with an event dispatcher) have get/set accessors
over an event, so the event map gets `appstatechange` and `eventSchemas`
its schema. In every shape the new accessors are the size-changed ones
renamed, under a doc comment in the style of theirs."""

from __future__ import annotations

import re

from tree_sitter import Node

from ...engine.editor import MEMBER_CONTAINERS, FileEditor, Item
from ...engine.outcome import AnchorMissing
from ..base import Context
from .common import APP_STATE, STATE, DocStyle, insert_documented, rename
from .imports import ensure_imported_beside_twins

PATH = "src/app-bridge.ts"
CLASS = "AppBridge"
EVENT_MAP = "AppBridgeEventMap"
SIZE_ACCESSOR = "onsizechange"
STATE_ACCESSOR = "onappstatechange"


def transform(editor: FileEditor, ctx: Context) -> None:
    cls = editor.class_(CLASS)
    accessors = editor.class_members(cls, SIZE_ACCESSOR, "method_definition")
    if not accessors:
        raise AnchorMissing(editor.path, f"accessor `{SIZE_ACCESSOR}` of class `{CLASS}`")
    inserted: list[str] = []

    aliases = editor.type_aliases(EVENT_MAP)
    if aliases:
        event_map = aliases[0].child_by_field_name("value")
        if event_map is None or event_map.type != "object_type":
            raise AnchorMissing(editor.path, f"the object type of `{EVENT_MAP}`")
        inserted += _mirror_entry(editor, event_map, "sizechange")
    schemas = next(iter(editor.class_members(cls, "eventSchemas", "public_field_definition")), None)
    if schemas is not None:
        value = schemas.child_by_field_name("value")
        if value is None or value.type != "object":
            raise AnchorMissing(editor.path, f"the object literal of `{CLASS}.eventSchemas`")
        inserted += _mirror_entry(editor, value, "sizechange")
    editor.note(f"shape {_shape(editor, cls, schemas)}")

    copy = rename(editor.span(accessors[0], accessors[-1]))
    inserted.append(copy)
    if not editor.class_members(cls, STATE_ACCESSOR, "method_definition"):
        twin_doc = editor.doc_text(accessors[0])
        doc = accessor_doc(DocStyle.of(twin_doc), _app_link_prefix(twin_doc))
        insert_documented(editor, accessors[0], accessors[-1], doc, copy)
    ensure_imported_beside_twins(editor, inserted)


def _mirror_entry(editor: FileEditor, container: Node, key: str) -> list[str]:
    """The `appstatechange` twin of the `sizechange` entry of an object (type)."""
    entries = editor.entries(container)
    entry = next((e for e in entries if editor.item_key(e) == key), None)
    if entry is None:
        raise AnchorMissing(editor.path, f"`{key}` in `{editor.text(container)[:30]}...`")
    text = rename(editor.text(entry)).rstrip(";,")
    ensure = editor.ensure_members if container.type in MEMBER_CONTAINERS else editor.ensure_list_items
    ensure(container, [Item(rename(key), text)], after=key)
    return [text]


def _shape(editor: FileEditor, cls: Node, schemas: Node | None) -> str:
    heritage = editor.text(next((c for c in cls.named_children if c.type == "class_heritage"), cls))
    if schemas is None:
        return "A: an onsizechange setter over setNotificationHandler"
    if "ProtocolWithEvents" in heritage:
        return "B: a ProtocolWithEvents subclass with an event map"
    return "C: Protocol<BaseContext> with a composed event dispatcher"


def _app_link_prefix(doc: str) -> str:
    match = re.search(r"\{@link (app[.!])App\.", doc)
    return match.group(1) if match else "app!"


def accessor_doc(style: DocStyle, app_link: str) -> list[str]:
    party, Party = style.party, style.Party
    lines = [
        f"Register a handler for app state change notifications from the {party}.",
        "",
        f"The {party} sends `ui/notifications/state-changed` when its own view changes"
        " (which item is open, which tab is shown). The state is any JSON value. Keep"
        f" it (in the page URL, say) and hand it back in `hostContext.{APP_STATE}` when the"
        f" {party} loads again, so that a reload or a shared link restores the same view.",
        "",
        f"Note: This is for {Party} → Host communication. To hand a state back to the"
        f" {Party}, set `{APP_STATE}` in the host context with {style.link('setHostContext')}.",
        "",
        "@example",
        style.fence,
        f"bridge.{STATE_ACCESSOR} = ({{ state }}) => {{",
        "  const url = new URL(window.location.href);",
        f'  url.searchParams.set("{APP_STATE}", JSON.stringify(state));',
        '  window.history.replaceState(null, "", url);',
        "};",
        "```",
        "",
        f"@see {style.link(STATE)} for the notification type",
        f"@see {style.link(f'{app_link}App.sendStateChanged', 'App.sendStateChanged')} - the {Party} method that sends these notifications",
    ]
    if style.deprecated:
        lines.append(style.deprecated)
    return lines
