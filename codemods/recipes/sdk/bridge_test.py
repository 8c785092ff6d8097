"""src/app-bridge.test.ts: test cases for the state-changed notification,
in a `describe` block of their own right after the block that holds the
size-changed test, in the file's own style.

The size-changed test (the `it(...)` whose body calls `sendSizeChanged`)
gives the names of the app and the bridge and the statement that connects
the app; the file gives the one that connects the bridge (the block's
`beforeEach`) and the `new App(...)` and `new AppBridge(...)` of its setup.
Each case connects what it needs itself after the file's own `beforeEach`
has made the app, the bridge and the transports, and nothing is sent to
the app before it initialized (the spec forbids it). What the cases cover
follows the revision, read from its sources: a listener
(`addEventListener("statechange", ...)`) where the bridge dispatches events
(shapes B and C), the `onstatechange` accessor on 1.x (shapes A and B), the
guard where `App` has `_assertInitialized` (with `strict: true` where the
revision only warns otherwise, and the method's name in the error), an
initial `appState` given through the bridge's constructor in
`getHostContext()`, `setHostContext({ appState })` after the app
initialized reaching it (`null` included), the capability advertised where
the revision declares it, and the schema rejecting `params: {}`. Each case
fails when the line of the change it tests is removed (the line-removal
test proves it on the complete shape-C fixture). A revision without the
test file skips the step with that reason.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.outcome import AnchorMissing, Conflict
from ..base import Context
from typing import NamedTuple
from .common import SIZE_ACCESSOR, SIZE_EVENT, SIZE_SENDER, Words, fragment, read_text, words_of

PATH = "src/app-bridge.test.ts"
ABSENT = f"no {PATH} in this revision: there is no bridge test file to add cases to"
_TEST_CALLS = {"it", "test"}
# The capability a case gives the bridge.
MAX_LENGTH = 1024


def describe_title(w: Words) -> str:
    """What the cases are recognised by: a second run finds the block by its
    title (and 0.4.0's cases, which were named after the sender, by that)."""
    return f"view navigation state ({w.method}, hostContext.{w.field})"


class Revision:
    """What the revision's sources say about the API the cases can use."""

    def __init__(self, repo: Path) -> None:
        bridge = read_text(repo / "src/app-bridge.ts")
        app = read_text(repo / "src/app.ts")
        spec = read_text(repo / "src/spec.types.ts")
        self.events = "eventSchemas" in bridge
        # 2.x: Protocol<...> composing a dispatcher, accessors deprecated
        self.accessor = not (self.events and "ProtocolWithEvents" not in bridge)
        self.guard = re.search(r"\b_assertInitialized\s*\(", app) is not None
        # 2.x only warns before the handshake unless the app is strict
        self.strict = re.search(r"\bstrict\?\s*:", app) is not None
        # the app dispatches events where the bridge does (same revision)
        self.app_events = self.events or "addEventListener" in app
        self.initial_context = "hostContext?:" in bridge
        self.capability = "McpUiHostCapabilities" in spec and "getHostCapabilities" in app
        # where the test file can import the schema from
        reexports = re.search(r"""export \* from ["']\./types(?:\.js)?["']""", bridge) is not None
        self.schema_module = "./app-bridge" if reexports else ("./types" if (repo / "src/types.ts").is_file() else None)


def transform(editor: FileEditor, ctx: Context) -> None:
    w = words_of(ctx)
    size_test = _size_test(editor)
    if size_test is None:
        raise AnchorMissing(editor.path, f"a test (`it(...)`) that calls `{SIZE_SENDER}`")
    titles = (describe_title(w), f"app.{w.sender}")
    if any(any(t in editor.text(c) for t in titles) for c in _calls(editor, {"describe", *_TEST_CALLS})):
        return
    body = _callback_body(size_test)
    app, bridge = _receivers(editor, body)
    connect_app = [editor.text(s) for s in body.named_children if f"{app}.connect(" in editor.text(s)]
    if not connect_app:
        raise AnchorMissing(editor.path, f"the statement that connects `{app}` in the `{SIZE_SENDER}` test")
    block = _enclosing_describe(editor, size_test)
    anchor = editor.enclosing_statement(block if block is not None else size_test)
    connect_bridge = _bridge_connect(editor, bridge, block or size_test)
    if connect_bridge is None:
        raise AnchorMissing(editor.path, f"a statement that connects `{bridge}` (`await {bridge}.connect(...)`)")
    in_scope = _connected_in_scope(editor, bridge, anchor)
    revision = Revision(Path(ctx.repo)) if ctx is not None else Revision(Path("."))
    setup = Setup(
        app=app,
        bridge=bridge,
        connect_app=connect_app,
        connect_bridge=[] if in_scope else [connect_bridge],
        new_app=_constructor_arguments(editor, "App"),
        new_bridge=_constructor_arguments(editor, "AppBridge"),
        bridge_transport=_call_argument(connect_bridge),
        fresh_bridge=not in_scope,
    )
    cases = _cases(setup, revision, w)
    if revision.schema_module is not None:
        editor.ensure_import(revision.schema_module, [w.state_schema])
        cases.append(w.fill(fragment("test-schema.ts")))
    snippet = w.fill(fragment("test-describe.ts"), cases="\n\n".join(cases))
    indent = editor.source.indent_of(anchor)
    text = editor.laid_out(snippet, indent)
    if text is None:
        raise Conflict(editor.path, "internal error, please report it: the test cases cannot be laid out")
    editor.insert_after(anchor, text)
    editor.note(f"added {len(cases)} test case(s) in a `describe` block after the one that holds the `{SIZE_SENDER}` test")


class Setup(NamedTuple):
    """What the file's own setup gives the cases."""

    app: str
    bridge: str
    # statements that connect the app, from the size-changed test
    connect_app: list[str]
    # the statement that connects the bridge, unless its scope already does
    connect_bridge: list[str]
    # the arguments of the file's `new App(...)` and `new AppBridge(...)`
    new_app: list[str] | None
    new_bridge: list[str] | None
    # what the bridge is connected to (its transport)
    bridge_transport: str | None
    # whether a case may connect a bridge of its own to that transport
    fresh_bridge: bool


def _calls(editor: FileEditor, names: set[str]) -> list[Node]:
    found = []
    for node in editor.walk():
        if node.type == "call_expression":
            function = node.child_by_field_name("function")
            if function is not None and editor.text(function) in names:
                found.append(node)
    return found


def _tests(editor: FileEditor) -> list[Node]:
    return _calls(editor, _TEST_CALLS)


def _size_test(editor: FileEditor) -> Node | None:
    return next((t for t in _tests(editor) if f".{SIZE_SENDER}(" in editor.text(t)), None)


def _enclosing_describe(editor: FileEditor, node: Node) -> Node | None:
    parent = node.parent
    while parent is not None:
        if parent.type == "call_expression" and editor.text(parent.child_by_field_name("function")) == "describe":
            return parent
        parent = parent.parent
    return None


def _callback_body(test: Node) -> Node:
    arguments = test.child_by_field_name("arguments")
    callback = next(a for a in reversed(arguments.named_children) if a.type in {"arrow_function", "function_expression"})
    return callback.child_by_field_name("body")


def _receivers(editor: FileEditor, body: Node) -> tuple[str, str]:
    text = editor.text(body)
    app = re.search(rf"(\w+)\.{SIZE_SENDER}\(", text)
    bridge = re.search(rf"(\w+)\.(?:{SIZE_ACCESSOR}\s*=|addEventListener\(\s*[\"']{SIZE_EVENT}[\"'])", text)
    if app is None or bridge is None:
        raise AnchorMissing(editor.path, f"the app and the bridge of the `{SIZE_SENDER}` test")
    return app.group(1), bridge.group(1)


def _statements_calling(editor: FileEditor, within: Node, pattern: str) -> list[Node]:
    return [
        n for n in editor.walk(within)
        if n.type == "expression_statement" and re.search(pattern, editor.text(n))
    ]


def _bridge_connect(editor: FileEditor, bridge: str, near: Node) -> str | None:
    """The statement that connects the bridge: in the size test's block
    first (its `beforeEach`), else anywhere in the file."""
    pattern = rf"^(?:await\s+)?{re.escape(bridge)}\.connect\("
    found = _statements_calling(editor, near, pattern) or _statements_calling(editor, editor.source.root, pattern)
    return editor.text(found[0]) if found else None


def _connected_in_scope(editor: FileEditor, bridge: str, anchor: Node) -> bool:
    """Whether a `beforeEach` of a block that encloses ``anchor`` connects
    the bridge already (then the cases must not connect it again)."""
    parent = anchor.parent
    while parent is not None:
        if parent.type == "statement_block":
            for statement in parent.named_children:
                text = editor.text(statement)
                if statement.start_byte < anchor.start_byte and text.startswith("beforeEach(") and f"{bridge}.connect(" in text:
                    return True
        parent = parent.parent
    return False


class Argument(NamedTuple):
    """An argument of the setup's constructor call: its text, and its
    entries when it is an object literal."""

    text: str
    entries: list[str] | None


def _constructor_arguments(editor: FileEditor, cls: str) -> list[Argument] | None:
    for node in editor.walk():
        if node.type == "new_expression" and editor.text(node.child_by_field_name("constructor")) == cls:
            arguments = node.child_by_field_name("arguments")
            found = []
            for a in arguments.named_children if arguments is not None else []:
                entries = [editor.text(e) for e in a.named_children if e.type != "comment"] if a.type == "object" else None
                found.append(Argument(editor.text(a), entries))
            return found
    return None


def _call_argument(statement: str) -> str | None:
    match = re.search(r"\.connect\(([^()]*)\)", statement)
    return match.group(1).strip() if match else None


def _padded(arguments: list[Argument], count: int) -> list[Argument]:
    return list(arguments) + [Argument("{}", [])] * (count - len(arguments))


def _object(entries: list[str], extra: list[str]) -> list[str]:
    """An object literal's entries with ``extra`` ones (replacing an entry of
    the same key)."""
    keys = {e.split(":")[0].strip() for e in extra}
    return [e for e in entries if e.split(":")[0].strip() not in keys] + extra


def _named(name: str, argument: Argument, extra: list[str]) -> tuple[list[str], str]:
    """A constructor argument as a plain name (so that no argument is
    hugged and the printer's one breaking rule applies): an object literal
    (with ``extra`` entries) becomes a `const` of that name."""
    if argument.entries is None:
        if not extra:
            return [], argument.text
        return [f"const {name} = {{ ...{argument.text}, {', '.join(extra)} }};"], name
    entries = _object(argument.entries, extra)
    return [f"const {name} = {{ {', '.join(entries)} }};" if entries else f"const {name} = {{}};"], name


def _cases(setup: Setup, revision: Revision, w: Words) -> list[str]:
    """Each case's text, from its fragment: the table's names and the
    file's own setup in its holes."""
    app, bridge = setup.app, setup.bridge
    connect = "\n".join([*setup.connect_bridge, *setup.connect_app])
    holes = {"app": app, "bridge": bridge, "connect": connect, "connect_app": "\n".join(setup.connect_app)}
    cases: list[str] = []
    if revision.events:
        cases.append(w.fill(fragment("test-listener.ts"), **holes))
    if revision.accessor:
        cases.append(w.fill(fragment("test-accessor.ts"), **holes))
    if revision.guard:
        made: list[str] = []
        receiver, under = app, ""
        if revision.strict and setup.new_app is not None:
            info, capabilities, options = _padded(setup.new_app, 3)[:3]
            made, name = _named("options", options, ["strict: true"])
            if capabilities.entries == []:
                arguments = [info.text, "{}", name]
            else:
                more, second = _named("capabilities", capabilities, [])
                made, arguments = more + made, [info.text, second, name]
            made.append(f"const strictApp = new App({', '.join(arguments)});")
            receiver, under = "strictApp", " under strict: true"
        cases.append(w.fill(fragment("test-guard.ts"), made="\n".join(made), receiver=receiver, under=under))
    fresh = setup.fresh_bridge and setup.new_bridge is not None and setup.bridge_transport
    if fresh and revision.initial_context:
        client, info, capabilities = _padded(setup.new_bridge, 3)[:3]
        made, name = _named("capabilities", capabilities, [])
        arguments = ", ".join([client.text, info.text, name])
        cases.append(w.fill(fragment("test-initial-context.ts"), **holes, made="\n".join(made),
                            arguments=arguments, transport=setup.bridge_transport))
    if revision.app_events:
        changed = f'new Promise((resolve) => {app}.addEventListener("hostcontextchanged", resolve))'
    else:
        changed = f"new Promise((resolve) => ({app}.onhostcontextchanged = resolve))"
    cases.append(w.fill(fragment("test-context-changed.ts"), **holes, changed=changed))
    if fresh and revision.capability:
        client, info, capabilities = _padded(setup.new_bridge, 3)[:3]
        made, name = _named("capabilities", capabilities, [f"{w.capability}: {{ maxLength: {MAX_LENGTH} }}"])
        arguments = ", ".join([client.text, info.text, name])
        cases.append(w.fill(fragment("test-capability.ts"), **holes, made="\n".join(made),
                            arguments=arguments, transport=setup.bridge_transport))
    return cases
