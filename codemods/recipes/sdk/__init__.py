"""The MCP Apps SDK (modelcontextprotocol/ext-apps): SPEC section 6.

`ui/notifications/state-changed` and `hostContext.appState`, mirroring the
size-changed notification wherever it appears, in the shape the revision
uses (A: early 1.x setters, B: later 1.x `ProtocolWithEvents`, C: 2.x)."""

from __future__ import annotations

from pathlib import Path

from ..manifest import read_manifest
from ..base import Bridge, CommitGroup, ModeChoice, Step
from . import app, app_bridge, bridge_test, docs_pages, examples, generated, spec_text, spec_types, summary, types_exports

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
        description="draft/apps.mdx (the SEP text): the notification's entry, the context field, the capability",
        rewrite=spec_text.rewrite,
        absent=spec_text.ABSENT,
    ),
    Step(
        id=spec_types.STEP,
        path=spec_types.PATH,
        description="spec.types.ts: the notification's interface, the context field, the capability, the method constant",
        transform=spec_types.transform,
        defines="export interface McpUiSizeChangedNotification",
    ),
    Step(
        id="schema",
        path=generated.SCHEMA_PATH,
        description="generated/schema.ts: the notification's schema, the context field and capability in theirs",
        rewrite=generated.rewrite_schema,
    ),
    Step(
        id="schema-test",
        path=generated.TEST_PATH,
        description="generated/schema.test.ts: the inferred-type checks of the new schema",
        rewrite=generated.rewrite_test,
        absent=f"no {generated.TEST_PATH} in this revision: no inferred-type checks to extend",
    ),
    Step(
        id="schema-json",
        path=generated.JSON_PATH,
        description="generated/schema.json: the new $defs entry, the context field and the capability",
        rewrite=generated.rewrite_json,
        absent=f"no {generated.JSON_PATH} in this revision: no JSON Schema to extend",
    ),
    Step(
        id="types",
        path=types_exports.PATH,
        description="types.ts: re-exports of the new type, schema and constant; the app-to-host union unless deprecated",
        transform=types_exports.transform,
        defines="export type AppNotification",
    ),
    Step(
        id="app-bridge",
        path=app_bridge.PATH,
        description="app-bridge.ts: the bridge's event (and, on 1.x, its on* accessor), wired like sizechange",
        transform=app_bridge.transform,
        defines="export class AppBridge",
    ),
    Step(
        id="app",
        path=app.PATH,
        description="app.ts: the App's sender, like sendSizeChanged",
        transform=app.transform,
        defines="export class App ",
    ),
    Step(
        id="bridge-examples",
        path=app_bridge.EXAMPLES_PATH,
        description="app-bridge.examples.ts: the region the bridge's new example is synced from",
        transform=examples.transform_bridge,
        absent=examples.BRIDGE_ABSENT,
    ),
    Step(
        id="app-examples",
        path=app.EXAMPLES_PATH,
        description="app.examples.ts: the region the sender's example is synced from",
        transform=examples.transform_app,
        absent=examples.APP_ABSENT,
    ),
    Step(
        id="bridge-test",
        path=bridge_test.PATH,
        description="app-bridge.test.ts: test cases for the notification, the context field and the capability",
        transform=bridge_test.transform,
        absent=bridge_test.ABSENT,
    ),
    Step(
        id="docs-patterns-examples",
        path=docs_pages.PATTERNS_TSX,
        description="docs/patterns.tsx: the region the persistence pattern's new snippet is synced from",
        transform=docs_pages.transform_patterns_examples,
        absent=docs_pages.PATTERNS_TSX_ABSENT,
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
# builds and type-checks on its own since no code reads it. The types step
# comes before the methods because the methods import through it (and in
# 1.x App only sends what its union holds), so each commit type-checks on
# its own. Each group's subject and body are written for the plan
# (`summary.commit_text`): what this revision's commit holds, in plain words.
COMMITS: tuple[CommitGroup, ...] = tuple(
    CommitGroup(id=group, subject="", body="", steps=steps, describe=summary.commit_text(group))
    for group, steps in (
        ("spec", ("spec",)),
        ("types-and-schemas", ("spec-types", "schema", "schema-test", "schema-json")),
        ("exports", ("types",)),
        ("bridge-and-app", ("app-bridge", "app", "bridge-examples", "app-examples", "bridge-test")),
        ("docs", ("docs-patterns-examples", "docs-patterns", "docs-migrate")),
    )
)
