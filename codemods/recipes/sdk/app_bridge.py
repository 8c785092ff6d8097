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
    APP_STATE,
    CAPABILITY,
    SIZE_ACCESSOR,
    SIZE_EVENT,
    STATE,
    STATE_ACCESSOR,
    STATE_EVENT,
    STATE_METHOD,
    STATE_SENDER,
    DocStyle,
    companion,
    indented,
    insert_documented,
    jsdoc,
    region_name,
    rename,
)
from .imports import ensure_imported_beside_twins

PATH = "src/app-bridge.ts"
CLASS = "AppBridge"
EVENT_MAP = "AppBridgeEventMap"
# The example's cap on the URL value: the host half's (SPEC section 2).
URL_CAP = 2048


def transform(editor: FileEditor, ctx: Context) -> None:
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
        inserted += _ensure_event_key(editor, event_map, _app_link_prefix(editor.doc_text(cls)), ctx)
    if schemas is not None:
        value = schemas.child_by_field_name("value")
        if value is None or value.type != "object":
            raise AnchorMissing(editor.path, f"the object literal of `{CLASS}.eventSchemas`")
        inserted += _mirror_entry(editor, value, SIZE_EVENT)
    editor.note(f"shape {_shape(editor, cls, schemas)}")

    if two_x:
        # 2.x: listeners only (`addEventListener("statechange", ...)`)
        ensure_imported_beside_twins(editor, inserted)
        return
    copy = rename(editor.span(accessors[0], accessors[-1]))
    inserted.append(copy)
    if not editor.class_members(cls, STATE_ACCESSOR, "method_definition"):
        twin_doc = editor.doc_text(accessors[0])
        doc = accessor_doc(DocStyle.of(twin_doc), _app_link_prefix(twin_doc), example_fence(ctx, twin_doc))
        insert_documented(editor, accessors[0], accessors[-1], doc, copy)
    ensure_imported_beside_twins(editor, inserted)


def _mirror_entry(editor: FileEditor, container: Node, key: str) -> list[str]:
    """The `statechange` twin of the `sizechange` entry of an object (type)."""
    entries = editor.entries(container)
    entry = next((e for e in entries if editor.item_key(e) == key), None)
    if entry is None:
        raise AnchorMissing(editor.path, f"`{key}` in `{editor.text(container)[:30]}...`")
    text = rename(editor.text(entry)).rstrip(";,")
    ensure = editor.ensure_members if container.type in MEMBER_CONTAINERS else editor.ensure_list_items
    ensure(container, [Item(rename(key), text)], after=key)
    return [text]


def _schemas(editor: FileEditor, cls: Node) -> Node | None:
    return next(iter(editor.class_members(cls, "eventSchemas", "public_field_definition")), None)


def _ensure_event_key(editor: FileEditor, event_map: Node, app_link: str, ctx: Context | None) -> list[str]:
    """The `statechange` key of the event map, after `sizechange`, under a
    TSDoc comment of its own (the key is the API 2.x documents: listeners
    take its `params`)."""
    entries = editor.entries(event_map)
    twin = next((e for e in entries if editor.item_key(e) == SIZE_EVENT), None)
    if twin is None:
        raise AnchorMissing(editor.path, f"`{SIZE_EVENT}` in `{EVENT_MAP}`")
    text = rename(editor.text(twin)).rstrip(";,")
    if any(editor.item_key(e) == STATE_EVENT for e in entries):
        return [text]
    cls = editor.class_(CLASS)
    accessors = editor.class_members(cls, SIZE_ACCESSOR, "method_definition")
    twin_doc = editor.doc_text(accessors[0]) if accessors else editor.doc_text(cls)
    style = DocStyle.of(twin_doc)
    fence = example_fence(ctx, twin_doc, listener=True) if is_shape_c(editor, cls, _schemas(editor, cls)) else ""
    separator = ";" if editor.text(event_map).count(";") >= editor.text(event_map).count(",") else ","
    indent = editor.source.indent_of(twin)
    lines = jsdoc(event_key_doc(style, app_link, fence), indent, width=editor.style.line_width)
    editor.insert_after(twin, indented(lines, indent) + "\n" + indent + text + separator, blank_line=False)
    return [text]


def event_key_doc(style: DocStyle, app_link: str, fence: str = "") -> list[str]:
    """The TSDoc of the `statechange` key: what a listener gets and what a
    host that keeps the state does with it; on 2.x (``fence`` given) the
    host's example, synced from its companion region."""
    example = ["", "@example Keep the state in the page URL", fence, *listener_example(), "```"] if fence else []
    return [
        f"The {style.party}'s navigation state changed (`{STATE_METHOD}`). `state` is a JSON value"
        f" the {style.party} can show its place from, or `null` for its initial view; it is never"
        " missing. A host that keeps it (in its page URL, say, within the size it advertises as"
        f" the `{CAPABILITY}` capability's `maxLength`) hands it back in `hostContext.{APP_STATE}`"
        f" when the same {style.party} loads again. Not model context.",
        *example,
        "",
        f"@see {style.link(f'{app_link}App.{STATE_SENDER}', f'App.{STATE_SENDER}')}, the {style.party}'s side of this",
    ]


def is_shape_c(editor: FileEditor, cls: Node, schemas: Node | None) -> bool:
    """2.x: an `eventSchemas` map on a class that is no `ProtocolWithEvents`
    (it composes an event dispatcher instead)."""
    heritage = editor.text(next((c for c in cls.named_children if c.type == "class_heritage"), cls))
    return schemas is not None and "ProtocolWithEvents" not in heritage


def _shape(editor: FileEditor, cls: Node, schemas: Node | None) -> str:
    if schemas is None:
        return f"A: an {SIZE_ACCESSOR} setter over setNotificationHandler"
    if not is_shape_c(editor, cls, schemas):
        return "B: a ProtocolWithEvents subclass with an event map"
    return (
        "C: Protocol<BaseContext> with a composed event dispatcher"
        f" (no `{STATE_ACCESSOR}` accessor: 2.x deprecates them for addEventListener)"
    )


def _app_link_prefix(doc: str) -> str:
    match = re.search(r"\{@link (app[.!])App\.", doc)
    return match.group(1) if match else "app!"


def listener_example() -> list[str]:
    """The 2.x host's example (on the `statechange` key): the capability
    advertised, the kept state handed back in the initial context (a link
    that does not parse is no state, never an exception), and the
    listener keeping reports in the page URL within the cap (`null`: the
    initial view). The doc shows it; the companion region holds the same
    lines."""
    return [
        "const url = new URL(window.location.href);",
        f'const kept = url.searchParams.get("{APP_STATE}");',
        f"const capabilities = {{ {CAPABILITY}: {{ maxLength: {MAX_STATE} }} }};",
        "let restored: unknown;",
        "try {",
        "  restored = kept === null ? undefined : JSON.parse(kept);",
        "} catch {",
        "  restored = undefined; // a link is untrusted text: what does not parse is no state",
        "}",
        f"const hostContext = restored === undefined ? {{}} : {{ {APP_STATE}: restored }};",
        "const bridge = new AppBridge(null, hostInfo, capabilities, { hostContext });",
        f'bridge.addEventListener("{STATE_EVENT}", ({{ state }}) => {{',
        "  // null: back at the initial view",
        '  const value = state === null ? "" : JSON.stringify(state);',
        f'  if (value && value.length <= {MAX_STATE}) url.searchParams.set("{APP_STATE}", value);',
        f'  else url.searchParams.delete("{APP_STATE}");',
        '  window.history.replaceState(null, "", url);',
        "});",
    ]


# The largest state the examples keep (bytes of JSON text): the host half's.
MAX_STATE = 1024


def bridge_example() -> list[str]:
    """The accessor's example: the state kept in the page URL within the
    host half's cap, and `null` (or an older view's missing state) as no
    state. The doc shows it; the companion region holds the same lines."""
    return [
        f"bridge.{STATE_ACCESSOR} = ({{ state }}) => {{",
        "  const url = new URL(window.location.href);",
        "  // null (or no state from an older view): back to the initial view",
        '  const value = state == null ? "" : JSON.stringify(state);',
        f"  if (value && value.length <= {URL_CAP}) {{",
        f'    url.searchParams.set("{APP_STATE}", value);',
        "  } else {",
        f'    url.searchParams.delete("{APP_STATE}");',
        "  }",
        '  window.history.replaceState(null, "", url);',
        "};",
    ]


EXAMPLES_PATH = "src/app-bridge.examples.ts"


def bridge_region(twin_region: str, listener: bool = False) -> str:
    member = STATE_EVENT if listener else STATE_ACCESSOR
    return region_name(twin_region, member, "keepStateInUrl", "keepStateInUrl")


def example_fence(ctx: Context | None, twin_doc: str, listener: bool = False) -> str:
    """The new example's opening fence: synced from a region of the
    companion file where the twin's example is (and the file is there)."""
    style = DocStyle.of(twin_doc)
    found = companion(twin_doc)
    if found is None or ctx is None or not _has_region(Path(ctx.repo) / "src" / found[0], found[1]):
        return style.fence
    return f'{style.fence} source="./{found[0]}#{bridge_region(found[1], listener)}"'


def _has_region(path: Path, region: str) -> bool:
    try:
        return f"//#region {region}" in path.read_text(encoding="utf-8")
    except OSError:
        return False


def accessor_doc(style: DocStyle, app_link: str, fence: str = "") -> list[str]:
    party, Party = style.party, style.Party
    lines = [
        f"Register a handler for navigation state reports from the {party}.",
        "",
        f"The {party} sends `{STATE_METHOD}` when its own navigation changes"
        " (which item is open, which tab is shown). The state is any JSON value; `null`"
        f" means no state (the initial view). Keep it (in the page URL, say, within a size"
        f" limit) and hand it back in `hostContext.{APP_STATE}` when the same {party} loads"
        " again, so that a reload or a shared link restores the same view. A host that"
        f" keeps it advertises the `{APP_STATE}` host capability.",
        "",
        f"Note: This is for {Party} → Host communication. To hand a state back to the"
        f" {Party}, set `{APP_STATE}` in the host context with {style.link('setHostContext')}.",
        "",
        "@example",
        fence or style.fence,
        *bridge_example(),
        "```",
        "",
        f"@see {style.link(STATE)} for the notification type",
        f"@see {style.link(f'{app_link}App.{STATE_SENDER}', f'App.{STATE_SENDER}')} - the {Party} method that sends these notifications",
    ]
    if style.deprecated:
        lines.append(style.deprecated)
    return lines
