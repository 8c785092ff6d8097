"""src/app-bridge.test.ts: test cases for the state-changed notification,
right after the size-changed test they mirror, in the file's own style.

The size-changed test (the `it(...)` whose body calls `sendSizeChanged`)
gives the names of the app and the bridge and the statements that connect
the app; the new cases reuse them, so they run under the file's own setup
(its `beforeEach`). What the cases cover follows the revision, read from
its sources: a listener (`addEventListener("statechange", ...)`) where the
bridge dispatches events (shapes B and C), the `onstatechange` accessor on
1.x (shapes A and B), the guard where `App` has `_assertInitialized`, an
initial `appState` in `getHostContext()`, `setHostContext({ appState })`
reaching the app and `null` clearing it. A revision without the test file
skips the step with that reason.
"""

from __future__ import annotations

import re
from pathlib import Path

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.outcome import AnchorMissing
from ..base import Context
from .common import (
    APP_STATE,
    SIZE_ACCESSOR,
    SIZE_EVENT,
    SIZE_SENDER,
    STATE_ACCESSOR,
    STATE_EVENT,
    STATE_SENDER,
    read_text,
)

PATH = "src/app-bridge.test.ts"
ABSENT = f"no {PATH} in this revision: there is no bridge test file to add cases to"
_TEST_CALLS = {"it", "test"}
# What the cases mark as theirs: a second run finds them by this title.
TITLE = f"app.{STATE_SENDER}"


class Revision:
    """What the revision's sources say about the API the cases can use."""

    def __init__(self, repo: Path) -> None:
        bridge = read_text(repo / "src/app-bridge.ts")
        app = read_text(repo / "src/app.ts")
        self.events = "eventSchemas" in bridge
        # 2.x: Protocol<...> composing a dispatcher, accessors deprecated
        self.accessor = not (self.events and "ProtocolWithEvents" not in bridge)
        self.guard = re.search(r"\b_assertInitialized\s*\(", app) is not None
        # the app dispatches events where the bridge does (same revision)
        self.app_events = self.events or "addEventListener" in app


def transform(editor: FileEditor, ctx: Context) -> None:
    size_test = _size_test(editor)
    if size_test is None:
        raise AnchorMissing(editor.path, f"a test (`it(...)`) that calls `{SIZE_SENDER}`")
    if any(TITLE in editor.text(t) for t in _tests(editor)):
        return
    body = _callback_body(size_test)
    app, bridge = _receivers(editor, body)
    connect = [
        editor.text(s) for s in body.named_children if f"{app}.connect(" in editor.text(s)
    ]
    if not connect:
        raise AnchorMissing(editor.path, f"the statement that connects `{app}` in the `{SIZE_SENDER}` test")
    revision = Revision(Path(ctx.repo)) if ctx is not None else Revision(Path("."))
    unit = editor.style.indent
    cases = _cases(app, bridge, connect, revision, unit, editor.style.quote)
    indent = editor.source.indent_of(size_test)
    text = ("\n\n" + indent).join("\n".join(indent + l if i and l else l for i, l in enumerate(c)) for c in cases)
    editor.insert_after(editor.enclosing_statement(size_test), text)
    editor.note(f"added {len(cases)} test case(s) after the `{SIZE_SENDER}` test")


def _tests(editor: FileEditor) -> list[Node]:
    found = []
    for node in editor.walk():
        if node.type == "call_expression":
            function = node.child_by_field_name("function")
            if function is not None and editor.text(function) in _TEST_CALLS:
                found.append(node)
    return found


def _size_test(editor: FileEditor) -> Node | None:
    return next((t for t in _tests(editor) if f".{SIZE_SENDER}(" in editor.text(t)), None)


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


def _cases(app: str, bridge: str, connect: list[str], revision: Revision, u: str, q: str) -> list[list[str]]:
    """Each case's lines, the first unindented, the rest relative to it."""

    def s(text: str) -> str:
        return q + text + q

    cases: list[list[str]] = []
    if revision.events:
        cases.append([
            f"it({s(f'{TITLE} reaches {STATE_EVENT} listeners, null included')}, async () => {{",
            f"{u}const receivedStates: unknown[] = [];",
            f"{u}{bridge}.addEventListener({s(STATE_EVENT)}, ({{ state }}) => {{",
            f"{u * 2}receivedStates.push(state);",
            f"{u}}});",
            "",
            *[f"{u}{c}" for c in connect],
            f"{u}await {app}.{STATE_SENDER}({{ state: {{ tab: {s('invoices')} }} }});",
            f"{u}await {app}.{STATE_SENDER}({{ state: null }});",
            "",
            f"{u}expect(receivedStates).toEqual([{{ tab: {s('invoices')} }}, null]);",
            "});",
        ])
    if revision.accessor:
        cases.append([
            f"it({s(f'{TITLE} triggers {bridge}.{STATE_ACCESSOR}')}, async () => {{",
            f"{u}const receivedStates: unknown[] = [];",
            f"{u}{bridge}.{STATE_ACCESSOR} = ({{ state }}) => {{",
            f"{u * 2}receivedStates.push(state);",
            f"{u}}};",
            "",
            *[f"{u}{c}" for c in connect],
            f"{u}await {app}.{STATE_SENDER}({{ state: {{ tab: {s('details')} }} }});",
            "",
            f"{u}expect(receivedStates).toEqual([{{ tab: {s('details')} }}]);",
            "});",
        ])
    if revision.guard:
        cases.append([
            f"it({s(f'{TITLE} before connect() throws')}, () => {{",
            f"{u}expect(() => {app}.{STATE_SENDER}({{ state: null }})).toThrow();",
            "});",
        ])
    # laid out as Prettier prints it at the default width
    if revision.app_events:
        changed = [
            "new Promise((resolve) =>",
            f"{u}{app}.addEventListener({s('hostcontextchanged')}, resolve),",
            ");",
        ]
    else:
        changed = ["new Promise(", f"{u}(resolve) => ({app}.onhostcontextchanged = resolve),", ");"]
    cases.append([
        f"it({s(f'{TITLE}: an initial {APP_STATE} shows in getHostContext()')}, async () => {{",
        f"{u}{bridge}.setHostContext({{ {APP_STATE}: {{ tab: {s('invoices')} }} }});",
        "",
        *[f"{u}{c}" for c in connect],
        "",
        f"{u}expect({app}.getHostContext()?.{APP_STATE}).toEqual({{ tab: {s('invoices')} }});",
        "});",
    ])
    cases.append([
        f"it({s(f'{TITLE}: setHostContext({{ {APP_STATE} }}) reaches the app, null clears it')}, async () => {{",
        *[f"{u}{c}" for c in connect],
        "",
        f"{u}let changed = {changed[0]}",
        *[f"{u}{line}" for line in changed[1:]],
        f"{u}{bridge}.setHostContext({{ {APP_STATE}: {{ tab: {s('details')} }} }});",
        f"{u}await changed;",
        f"{u}expect({app}.getHostContext()?.{APP_STATE}).toEqual({{ tab: {s('details')} }});",
        "",
        f"{u}changed = {changed[0]}",
        *[f"{u}{line}" for line in changed[1:]],
        f"{u}{bridge}.setHostContext({{ {APP_STATE}: null }});",
        f"{u}await changed;",
        f"{u}expect({app}.getHostContext()?.{APP_STATE}).toBeNull();",
        "});",
    ])
    return cases
