"""The MCP Apps SDK (modelcontextprotocol/ext-apps): SPEC section 6.

`ui/notifications/state-changed` and `hostContext.appState`, mirroring the
size-changed notification wherever it appears, in the shape the revision
uses (A: early 1.x setters, B: later 1.x `ProtocolWithEvents`, C: 2.x)."""

from __future__ import annotations

from pathlib import Path

from ..manifest import read_manifest
from ..base import Bridge, CommitGroup, ModeChoice, Step
from . import app, app_bridge, bridge_test, docs_pages, examples, generated, spec_text, spec_types, types_exports
from ..names import NAMES
from .common import STATE

PACKAGE_NAME = "@modelcontextprotocol/ext-apps"


def is_sdk(repo: Path) -> bool:
    """An SDK checkout: its package.json is named like the SDK package."""
    return read_manifest(repo).get("name") == PACKAGE_NAME


def choose_mode(repo: Path, requested: Bridge) -> ModeChoice:
    """The SDK has no bridge mode: the host's --bridge does not apply."""
    if requested is Bridge.AUTO:
        return ModeChoice(Bridge.AUTO, "not used: the SDK target has no bridge mode")
    return ModeChoice(requested, f"--bridge {requested.value} has no effect on the SDK target")


STEPS: tuple[Step, ...] = (
    Step(
        id="spec",
        path=spec_text.PATH,
        description="draft/apps.mdx (the SEP text): the ui/notifications/state-changed entry, appState in HostContext",
        rewrite=spec_text.rewrite,
        absent=spec_text.ABSENT,
    ),
    Step(
        id=spec_types.STEP,
        path=spec_types.PATH,
        description="spec.types.ts: McpUiStateChangedNotification, appState on McpUiHostContext, the appState capability, STATE_CHANGED_METHOD",
        transform=spec_types.transform,
        defines="export interface McpUiSizeChangedNotification",
    ),
    Step(
        id="schema",
        path=generated.SCHEMA_PATH,
        description="generated/schema.ts: McpUiStateChangedNotificationSchema, appState in McpUiHostContextSchema",
        rewrite=generated.rewrite_schema,
    ),
    Step(
        id="schema-test",
        path=generated.TEST_PATH,
        description="generated/schema.test.ts: the inferred-type check of the new schema",
        rewrite=generated.rewrite_test,
        absent=f"no {generated.TEST_PATH} in this revision: no inferred-type checks to extend",
    ),
    Step(
        id="schema-json",
        path=generated.JSON_PATH,
        description="generated/schema.json: the new $defs entry and appState in the host context",
        rewrite=generated.rewrite_json,
        absent=f"no {generated.JSON_PATH} in this revision: no JSON Schema to extend",
    ),
    Step(
        id="types",
        path=types_exports.PATH,
        description="types.ts: re-exports of the new type, schema and constant; the app-to-host union",
        transform=types_exports.transform,
        defines="export type AppNotification",
    ),
    Step(
        id="app-bridge",
        path=app_bridge.PATH,
        description=f"app-bridge.ts: the {NAMES.event} event (and AppBridge.{NAMES.accessor} on 1.x), wired like sizechange",
        transform=app_bridge.transform,
        defines="export class AppBridge",
    ),
    Step(
        id="app",
        path=app.PATH,
        description=f"app.ts: App.{NAMES.sender}(params), like sendSizeChanged",
        transform=app.transform,
        defines="export class App ",
    ),
    Step(
        id="bridge-examples",
        path=app_bridge.EXAMPLES_PATH,
        description="app-bridge.examples.ts: the region the onstatechange example is synced from (1.x)",
        transform=examples.transform_bridge,
        absent=examples.BRIDGE_ABSENT,
    ),
    Step(
        id="app-examples",
        path=app.EXAMPLES_PATH,
        description="app.examples.ts: the region the sendStateChanged example is synced from",
        transform=examples.transform_app,
        absent=examples.APP_ABSENT,
    ),
    Step(
        id="bridge-test",
        path=bridge_test.PATH,
        description="app-bridge.test.ts: test cases for the notification, appState and null, after the size-changed test",
        transform=bridge_test.transform,
        absent=bridge_test.ABSENT,
    ),
    Step(
        id="docs-patterns",
        path=docs_pages.PATTERNS_PATH,
        description="docs/patterns.md: the persistence pattern, with a host that keeps the state",
        rewrite=docs_pages.rewrite_patterns,
        absent=docs_pages.PATTERNS_ABSENT,
    ),
    Step(
        id="docs-migrate",
        path=docs_pages.MIGRATE_PATH,
        description="docs/migrate_from_openai_apps.md: the widgetState rows name their counterparts",
        rewrite=docs_pages.rewrite_migrate,
        absent=docs_pages.MIGRATE_ABSENT,
    ),
)

# The patch series. The SEP text is a commit of its own, first: it is the
# protocol change that the code then implements, it is reviewed by the
# spec's readers as prose (apart from the generated schemas' churn), and it
# builds and type-checks on its own since no code reads it. The types step comes before the methods because the
# methods import through it (and in 1.x App only sends what its union holds),
# so each commit type-checks on its own.
COMMITS: tuple[CommitGroup, ...] = (
    CommitGroup(
        id="spec",
        subject="spec(draft): add ui/notifications/state-changed",
        body=(
            "The draft SEP text gains a ui/notifications/state-changed entry under\n"
            "\"Notifications (View -> Host)\", right after size-changed and in its\n"
            "form, appState in its HostContext interface and the appState host\n"
            "capability (with maxLength): a View reports its navigation state\n"
            "(null for its initial view; state is required), a Host that hands it\n"
            "back in hostContext.appState advertises the capability, only to the\n"
            "same View of the same tool call. Security, Backward Compatibility,\n"
            "Extensibility and Rationale say what it changes there. The dated\n"
            "versions of the text are left as they are.\n"
            "\n"
            "A commit of its own, ahead of the code: it is the protocol change the\n"
            "following commits implement, and it can be read and discussed as prose\n"
            "without the generated schemas' churn."
        ),
        steps=("spec",),
    ),
    CommitGroup(
        id="types-and-schemas",
        subject="feat: add ui/notifications/state-changed",
        body=(
            "A View reports its navigation state with\n"
            f"ui/notifications/state-changed ({STATE},\n"
            "params: { state }: a JSON value, null for its initial view, never\n"
            "missing: the generated schema rejects params: {}). A host that\n"
            "advertises the appState capability (with the maxLength it keeps) may\n"
            "keep that state and hand it back in hostContext.appState when the\n"
            "same View loads again. The generated\n"
            "zod schemas, their type checks and the JSON Schema follow\n"
            "spec.types.ts."
        ),
        steps=("spec-types", "schema", "schema-test", "schema-json"),
    ),
    CommitGroup(
        id="exports",
        subject="feat: export the state-changed type, schema and method",
        body=(
            "types.ts re-exports McpUiStateChangedNotification, its schema and\n"
            "STATE_CHANGED_METHOD where the method constants exist. An\n"
            "app-to-host notification union gains the notification unless it is\n"
            "deprecated."
        ),
        steps=("types",),
    ),
    CommitGroup(
        id="bridge-and-app",
        subject=f"feat: add the {NAMES.event} event and App.{NAMES.sender}",
        body=(
            f"Wired like sizechange and sendSizeChanged in this revision: the bridge\n"
            f"hears the View's state through its {NAMES.event} event (and an\n"
            f"{NAMES.accessor} accessor only where the revision's accessors are\n"
            "not deprecated), the View sends it, guarded like its other\n"
            "host-bound calls where the revision guards them. The bridge tests\n"
            "cover the listener, the guard, an initial appState given to the\n"
            "constructor, setHostContext after the View initialized (null\n"
            "included), the capability and the schema."
        ),
        steps=("app-bridge", "app", "bridge-examples", "app-examples", "bridge-test"),
    ),
    CommitGroup(
        id="docs",
        subject="docs: keep a view's navigation state with the host where it can",
        body=(
            "The persistence pattern gains the host-kept alternative (report\n"
            f"with App.{NAMES.sender}, restore from hostContext.appState after\n"
            "validation, localStorage where the host lacks the appState\n"
            "capability), and the\n"
            "migration guide names the counterparts of widgetState and\n"
            "setWidgetState, which, unlike these, are not model context."
        ),
        steps=("docs-patterns", "docs-migrate"),
    ),
)
