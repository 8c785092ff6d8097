"""The Studio host (decocms/mesh): SPEC section 4, one step per file."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from ...engine.style import FORMATTER_FILES
from ...engine.outcome import NotApplicable
from ..base import CommitGroup, Context, NewFile, Step
from . import (
    bridge_role,
    bridge_store,
    bridge_wiring,
    by_other_hands,
    capability,
    iframe_renderer,
    panel_app_view,
    protocol_types,
    releases,
    sdk_api,
    search_schema,
    tool_call_part,
)
from ..names import KNOWN
from .common import ALIASES, HOOK, HOOK_PATH, MODULE_PATH, fill

TESTS_PATH = "apps/mesh/src/mcp-apps/app-state.test.ts"
STORE_TESTS_PATH = "apps/mesh/src/mcp-apps/use-app-bridge.test.ts"
HOOK_TESTS_PATH = "apps/mesh/src/web/hooks/use-app-state-param.test.ts"
# A host checkout is recognised by the bridge hook the feature builds on.
MARKER = bridge_store.PATH

# 0.6.0 put the schema of each compat form into app-state.ts (the
# template's {{compat_import}} and {{compat_schema}} holes): the templates
# that release holds, by wiring. This release keeps it in types.ts.
_SCHEMA_TEMPLATES = {
    bridge_wiring.COMPAT_1X: "app-state.compat-schema.ts",
    bridge_wiring.COMPAT_2X: "app-state.compat-params-schema.ts",
}


def render_module(ctx: Context, templates: Mapping[str, str], wiring: str, kept: Sequence[str] = ()) -> str:
    """app-state.ts as a release with ``templates`` writes it for
    ``wiring`` (the same in every wiring since 0.7.0), with the schemas
    named in ``kept`` (another wiring's, which a file of the checkout
    still imports from it)."""
    schemas = [
        template for label, template in _SCHEMA_TEMPLATES.items()
        if template in templates and (label == wiring or bridge_wiring.SCHEMAS[label] in kept)
    ]
    text = templates["app-state.ts"]
    if "{{compat_schema}}" not in text and schemas:
        # this release's module, keeping an earlier release's export
        text = "{{compat_import}}" + text + "{{compat_schema}}"
    return fill(
        text.replace("{{compat_import}}", 'import { z } from "zod";\n\n' if schemas else "")
        .replace("{{compat_schema}}", "".join(templates[schema] for schema in schemas)),
        ctx.names,
    )


def render_module_keeping(ctx: Context, kept: Sequence[str]) -> str:
    """This release's app-state.ts keeping the schemas ``kept`` that 0.6.0
    put there (a file of the checkout still imports them from it)."""
    current = dict(releases.current().templates)
    for release in releases.releases():
        for template in _SCHEMA_TEMPLATES.values():
            if template in release.templates:
                current.setdefault(template, release.templates[template])
    return render_module(ctx, current, "", kept)


def module_wirings(ctx: Context) -> list[str]:
    """The wirings app-state.ts was written for, the run's first: 0.6.0's
    file written for another is migrated to the run's."""
    wiring = bridge_wiring.wiring(ctx)
    return [wiring, *(label for label in bridge_wiring.SCHEMAS if label != wiring)]


# What the created module exports.
MODULE_EXPORTS = ("APP_STATE_PARAM", "APP_STATE_MAX_LENGTH", "readAppState", "writeAppState", "copyAppState")


def module_exports(ctx: Context) -> list[str]:
    return list(MODULE_EXPORTS)


def render_store_tests(ctx: Context, templates: Mapping[str, str], wiring: str) -> str:
    """use-app-bridge.test.ts, testing the store's class under the name it
    has in this checkout (the team may have renamed it): as this run leaves
    the store's file, else as it is. Where the team hears state-changed
    itself, they test the tool's handler, which the store does not have:
    not written. They speak the wire names and assert the capability of
    ``wiring`` (``capability: shape``; the shape empty where it is left
    out)."""
    team = by_other_hands.in_store(ctx, bridge_store.PATH)
    if team is not None:
        f, node = team
        raise NotApplicable(f"mesh handles {ctx.names.method} itself at {by_other_hands.where(f, node)}: "
                            "these tests are of the tool's handler")
    key, _, shape = wiring.partition(": ")
    names = next((n for n in (ctx.names, *KNOWN) if n.capability == key), ctx.names)
    template = fill(templates["use-app-bridge.test.ts"], names, capability_value=shape or "undefined")
    name = bridge_role.class_name(ctx, "bridge-store", bridge_store.PATH)
    return template if name == bridge_role.CLASS else re.sub(rf"\b{bridge_role.CLASS}\b", name, template)


def store_test_wirings(ctx: Context) -> list[str]:
    """The capabilities (``capability: shape``) the store tests were
    written for, in each name set and shape the tool knows, the run's
    first (its shape empty where it is left out)."""
    current = ctx.sdk_api.capability if ctx.sdk_api is not None else sdk_api.DEFAULT_CAPABILITY
    return list(dict.fromkeys([
        f"{ctx.names.capability}: {current}",
        *(f"{names.capability}: {shape}" for names in (ctx.names, *KNOWN) for shape in capability.SHAPES),
    ]))


def _as_written(name: str, exports: Sequence[str] = ()) -> NewFile:
    """A created file that is its template, its holes filled."""
    return NewFile(
        name, lambda ctx, templates, wiring: fill(templates[name], ctx.names), lambda ctx: list(exports), releases.releases
    )


STEPS: tuple[Step, ...] = (
    Step(
        id="app-state-module",
        path=MODULE_PATH,
        description="new app-state.ts: the appState URL format (one slot per app, cap)",
        new_file=NewFile(
            "app-state.ts",
            render_module,
            module_exports,
            releases.releases,
            wirings=module_wirings,
            keeping=render_module_keeping,
        ),
        # moved: the one file that defines the format's param (every release's does)
        defines="export const APP_STATE_PARAM",
        beside="bridge-store",
        together="app-state-tests",
    ),
    Step(
        id="app-state-tests",
        path=TESTS_PATH,
        description="new app-state.test.ts: bun tests for the URL format",
        new_file=_as_written("app-state.test.ts"),
        # they test the module: beside it, wherever it is
        beside="app-state-module",
        together="app-state-module",
    ),
    Step(
        id="protocol-types",
        path=protocol_types.PATH,
        description="types.ts: compat mode's schema of ui/notifications/state-changed",
        transform=protocol_types.transform,
        defines=protocol_types.DEFINES,
    ),
    Step(
        id="bridge-store",
        path=bridge_store.PATH,
        description="use-app-bridge.ts: appState in the host context, state-changed handler, URL pushes",
        transform=bridge_store.transform,
        defines=bridge_store.DEFINES,
        role=bridge_store.ROLE,
    ),
    Step(
        id="bridge-store-tests",
        path=STORE_TESTS_PATH,
        description="new use-app-bridge.test.ts: bun tests of the bridge store with the SDK's AppBridge and App",
        new_file=NewFile(
            "use-app-bridge.test.ts", render_store_tests, lambda ctx: [], releases.releases, wirings=store_test_wirings
        ),
        beside="bridge-store",
    ),
    Step(
        id="iframe-renderer",
        path=iframe_renderer.PATH,
        description="mcp-app-renderer.tsx: appState and onAppStateChange props to the bridge",
        transform=iframe_renderer.transform,
        defines="export function MCPAppRenderer(",
        role=iframe_renderer.ROLE,
    ),
    Step(
        id="app-state-hook",
        path=HOOK_PATH,
        description="new use-app-state-param.ts: the hook both render sites read and write their app's slot with",
        new_file=_as_written("use-app-state-param.ts", [HOOK]),
        defines=f"export function {HOOK}(",
        together="app-state-hook-tests",
    ),
    Step(
        id="app-state-hook-tests",
        path=HOOK_TESTS_PATH,
        description="new use-app-state-param.test.ts: bun tests of the hook's writes on a real router",
        new_file=_as_written("use-app-state-param.test.ts"),
        beside="app-state-hook",
        together="app-state-hook",
    ),
    Step(
        id="tool-call-part",
        path=tool_call_part.PATH,
        description="generic.tsx: the chat tool-call app reads and writes the appState param",
        transform=tool_call_part.transform,
        defines="export function GenericToolCallPart(",
        role=tool_call_part.ROLE,
    ),
    Step(
        id="panel-app-view",
        path=panel_app_view.PATH,
        description="project-app-view.tsx: the panel app reads and writes the appState param",
        transform=panel_app_view.transform,
        defines="export function AppViewContent(",
        role=panel_app_view.ROLE,
    ),
    Step(
        id="search-schema",
        path=search_schema.PATH,
        description="index.tsx: appState in unifiedChatSearchSchema (invalid values dropped)",
        transform=search_schema.transform,
        defines=f"const {search_schema.SCHEMA} =",
        role=search_schema.ROLE,
    ),
)

# The patch series: each commit builds (and type-checks) on its own.
COMMITS: tuple[CommitGroup, ...] = (
    CommitGroup(
        id="app-state-format",
        subject="feat(mcp-apps): keep each app's state in the appState URL param",
        body=(
            "An MCP app reports its view with ui/notifications/state-changed so that\n"
            "a reload, a shared link or back/forward can hand it back. The page shows\n"
            "several apps, so the param holds one slot per app: base64url of the\n"
            "UTF-8 JSON {v: 2, s: {[appKey]: state}}, slots in the order they were\n"
            "last written, capped at 2048 characters (the least recently written\n"
            "slots of other apps go first; a state over the cap on its own is not\n"
            "kept, with one warning per app). Decoding never throws and runs once\n"
            "per param value for the whole page."
        ),
        steps=("app-state-module", "app-state-tests"),
    ),
    CommitGroup(
        id="bridge-plumbing",
        subject="feat(mcp-apps): carry app state through the bridge and renderer",
        body=(
            "MCPAppRenderer takes appState and onAppStateChange. The bridge store\n"
            "starts the app from appState in the ui/initialize host context (only\n"
            "when there is one, and kept there through theme and display-mode\n"
            "pushes), advertises the appState capability where the render site\n"
            "keeps state, and hands the app's state-changed reports to\n"
            "onAppStateChange (a report without a state is ignored). When a link or\n"
            "back/forward changes the app's slot, and the app does not already show\n"
            "that state, the store pushes it with host-context-changed; writes of\n"
            "the apps' states replace the history entry, so the app never hears its\n"
            "own reports, another app's, or a slot the URL could not keep. Bun tests\n"
            "drive several stores with the SDK's AppBridge and App."
        ),
        steps=("protocol-types", "bridge-store", "bridge-store-tests", "iframe-renderer"),
    ),
    CommitGroup(
        id="render-sites",
        subject="feat(mcp-apps): keep chat and panel apps' state in the URL",
        body=(
            "useAppStateParam reads an app's slot of the appState param and writes\n"
            "the app's reports there: the last report of each app, once per\n"
            "animation frame for the whole page, composed on the router's current\n"
            "location with replace. A chat tool-call part keys its app by the tool\n"
            "call id, the main panel by connection and tool; Open in panel starts\n"
            "the panel's app from the part's state. The hook's tests render it under\n"
            "a router on a memory history."
        ),
        steps=("app-state-hook", "app-state-hook-tests", "tool-call-part", "panel-app-view"),
    ),
    CommitGroup(
        id="search-schema",
        subject="feat(mcp-apps): accept the appState search param on the chat route",
        body="An invalid value is dropped instead of failing the route.",
        steps=("search-schema",),
    ),
)


def is_host(repo: Path) -> bool:
    return (repo / "apps/mesh/package.json").is_file() or (repo / MARKER).is_file()


# Files any plan may read besides the steps' own: the configuration, the
# formatter's settings and the manifests, wherever they are.
_SETTINGS = frozenset({".mesh-codemod.toml", "tsconfig.json", ".oxlintrc.json", *FORMATTER_FILES})


def reads(names: list[str], grep) -> set[str] | None:
    """The files of a commit (its ``names``) a plan of the host reads: every
    file named like a step's file (wherever it was moved), every file that
    holds a step's ``defines``, a needle of its role or a name the created
    module exports (a moved file, an importer of an export), and the
    settings files; None when the
    names are not a mesh checkout's."""
    import posixpath

    if "apps/mesh/package.json" not in names and MARKER not in names:
        return None
    basenames = {posixpath.basename(step.path) for step in STEPS}
    wanted = {n for n in names if posixpath.basename(n) in basenames or posixpath.basename(n) in _SETTINGS}
    needles = [step.defines for step in STEPS if step.defines]
    needles += MODULE_EXPORTS
    needles += [schema for schema in bridge_wiring.SCHEMAS.values() if schema]
    # what a file playing a step's role holds (a render site renamed, the
    # search schema moved into a module of its own)
    needles += [needle for step in STEPS if step.role is not None for needle in step.role.needles]
    # the module the team moved `buildHostContext` into (the store's step
    # reads it there)
    needles.append(bridge_role.HOST_CONTEXT)
    wanted.update(grep(needles))
    return wanted
