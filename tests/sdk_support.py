"""Helpers for the SDK tests: the fixture trees and zod's own JSON Schema."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from codemods.engine.json_layout import layout

from .node_tools import BIN, NODE_MODULES
from .support import ROOT

SDK_FIXTURES = ROOT / "fixtures" / "sdk"
BUN = BIN / "bun"
SHAPES = ("shape-a", "shape-b", "shape-c")


@pytest.fixture
def hand_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs without the pinned schema toolchain: the generated files are
    edited in the generator's style (the last resort)."""
    from codemods.recipes.sdk import pinned

    monkeypatch.setenv(pinned.ENV, "/nonexistent/node_modules")


def sdk_tree(tmp_path: Path, case: str, which: str = "input") -> Path:
    """A writable copy of an SDK fixture tree."""
    import shutil

    target = tmp_path / f"{case}-{which}"
    shutil.copytree(SDK_FIXTURES / case / which, target)
    return target


_IMPORT = re.compile(r'import\s*\{([^}]*)\}\s*from\s*"(@modelcontextprotocol/[^"]+)";')
_ZOD_IMPORT = re.compile(r'^import (?:\{ z \}|\* as z) from "zod(?:/v[34])?";$', re.MULTILINE)


def runnable_schema_module(source: str, stub_sdk: bool = True) -> str:
    """A generated schema.ts made runnable with the zod of tools/node_modules
    and, unless ``stub_sdk`` is false (the MCP SDK's schemas of
    tools/node_modules then), without the MCP SDK: its imports of the SDK's
    own schemas become stand-in zod objects."""

    def stubs(match: re.Match[str]) -> str:
        names = [n.strip() for n in match.group(1).split(",") if n.strip()]
        return "\n".join(f"const {n} = z.object({{ stub: z.string() }});" for n in names)

    source = _ZOD_IMPORT.sub('import { z } from "zod/v4";', source, count=1)
    return _IMPORT.sub(stubs, source) if stub_sdk else source


def zod_json_schema(schema_ts: str, header: dict, work: Path, stub_sdk: bool = True) -> str:
    """The schema.json the generator writes for this schema.ts (through
    zod's toJSONSchema, laid out as prettier prints it)."""
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "node_modules").exists():
        os.symlink(NODE_MODULES, work / "node_modules")
    module = work / "schema.ts"
    module.write_text(runnable_schema_module(schema_ts, stub_sdk))
    script = work / "print-json.ts"
    script.write_text((ROOT / "tests" / "sdk_schema_json.ts").read_text())
    result = subprocess.run(
        [str(BUN), str(script), str(module), json.dumps(header)], capture_output=True, text=True, cwd=work
    )
    assert result.returncode == 0, result.stderr
    return layout(json.loads(result.stdout))


STEP_FILES = {
    "spec": "specification/draft/apps.mdx",
    "spec-types": "src/spec.types.ts",
    "schema": "src/generated/schema.ts",
    "schema-test": "src/generated/schema.test.ts",
    "schema-json": "src/generated/schema.json",
    "types": "src/types.ts",
    "app-bridge": "src/app-bridge.ts",
    "app": "src/app.ts",
    "bridge-examples": "src/app-bridge.examples.ts",
    "app-examples": "src/app.examples.ts",
    "bridge-test": "src/app-bridge.test.ts",
}


def missing_pieces(before: Path, after: Path) -> list[str]:
    """Every piece of SPEC section 6 that the edited tree ``after`` should
    hold, given what the tree ``before`` it had; returns what is missing."""
    missing: list[str] = []

    def need(path: str, *pieces: str) -> None:
        text = (after / path).read_text(encoding="utf-8")
        missing.extend(f"{path}: {p}" for p in pieces if p not in text)

    def had(path: str, text: str) -> bool:
        return text in (before / path).read_text(encoding="utf-8")

    if (after / STEP_FILES["spec"]).is_file():
        spec = STEP_FILES["spec"]
        need(
            spec,
            "`ui/notifications/state-changed`",
            'method: "ui/notifications/state-changed"' if had(spec, "method: \"ui/notifications/size-changed\"") else '"method": "ui/notifications/state-changed"',
            "SHOULD send this notification, debounced, when its own navigation changes",
            "MUST include `state`: a JSON value, or `null` for its initial view",
            "MUST NOT put secrets in the state, and SHOULD NOT put personal data in it",
            "SHOULD check the `appState` host capability first",
            "keyed by `viewUUID`",
            "It is not model context (see `ui/update-model-context`)",
            "`maxLength`: UTF-8 bytes of its JSON text, 1024 when absent (base64 of 1024 bytes",
            "MUST validate a restored state, and MUST NOT take a state-changing action",
            "read-only loading is fine",
            "MUST advertise the `appState` capability and SHOULD give its `maxLength`; without it, it MUST keep at least 1024 bytes",
            "hand a kept state back in `hostContext.appState` of the `ui/initialize` result",
            "MAY push changes with `ui/notifications/host-context-changed` (`null`: the initial view)",
            "MUST NOT hand it to another",
            "appState?: unknown",
            "the Host durably identifies it",
            "not the JSON-RPC id of `tools/call`",
        )
        if had(spec, "interface HostCapabilities"):
            need(spec, "appState?: {", "maxLength?: number;")
        if had(spec, "## Security Implications"):
            need(spec, "App State from Links\n", "SHOULD keep states out of its logs and analytics", "`Referrer-Policy`")
        if had(spec, "## Rationale"):
            need(spec, "App State Kept by the Host\n", "(`localStorage` keyed by `viewUUID`)")
        if had(spec, "### Backward Compatibility"):
            need(spec, "is additive")
        if had(spec, "### Extensibility") and "Keeping View state" in (before / spec).read_text(encoding="utf-8"):
            need(spec, "**Added after the MVP:**", "navigation state:** ")
    if (after / STEP_FILES["spec-types"]).is_file():
        need(
            STEP_FILES["spec-types"],
            "export interface McpUiStateChangedNotification {",
            "method: \"ui/notifications/state-changed\";",
            "@description Notification that the view's navigation state changed (",
            "| { [key: string]: unknown }\n      | unknown[]\n      | string\n      | number\n      | boolean\n      | null;",
            "The view's navigation state, a JSON value; null for its initial view.",
            "appState?: unknown;",
        )
        if had(STEP_FILES["spec-types"], "SIZE_CHANGED_METHOD"):
            need(STEP_FILES["spec-types"], 'STATE_CHANGED_METHOD: McpUiStateChangedNotification["method"]')
        if had(STEP_FILES["spec-types"], "export interface McpUiHostCapabilities {"):
            need(
                STEP_FILES["spec-types"],
                "downloadFile?: {};\n  /** @description Host keeps the view's navigation state",
                "appState?: {\n    /** @description Largest state the host keeps, in UTF-8 bytes of its JSON text; 1024 when absent. */\n    maxLength?: number;\n  };",
            )
    if (after / STEP_FILES["schema"]).is_file():
        need(STEP_FILES["schema"], "export const McpUiStateChangedNotificationSchema = z.object({", "appState: z", ".passthrough()" if had(STEP_FILES["schema"], ".passthrough()") else "")
        if had(STEP_FILES["schema"], "McpUiHostCapabilitiesSchema = z"):
            need(STEP_FILES["schema"], "appState: z\n    .object({\n", "      maxLength: z\n        .number()\n        .optional()")
        need(STEP_FILES["schema"], ".union([\n", "z.record(z.string(), z.unknown()),", ".nullable(),")
    if (after / STEP_FILES["schema-test"]).is_file():
        need(
            STEP_FILES["schema-test"],
            "export type McpUiStateChangedNotificationSchemaInferredType = z.infer<",
            "expectType<spec.McpUiStateChangedNotification>(",
            "expectType<McpUiStateChangedNotificationSchemaInferredType>(",
        )
    if (after / STEP_FILES["schema-json"]).is_file():
        definitions = json.loads((after / STEP_FILES["schema-json"]).read_text())["$defs"]
        if "McpUiStateChangedNotification" not in definitions:
            missing.append("schema.json: $defs.McpUiStateChangedNotification")
        if "appState" not in definitions.get("McpUiHostContext", {}).get("properties", {}):
            missing.append("schema.json: appState in McpUiHostContext")
        state = definitions.get("McpUiStateChangedNotification", {}).get("properties", {}).get("params", {})
        if state.get("required") != ["state"]:
            missing.append("schema.json: state required in McpUiStateChangedNotification")
        if {"type": "null"} not in state.get("properties", {}).get("state", {}).get("anyOf", []):
            missing.append("schema.json: state a JSON value or null in McpUiStateChangedNotification")
        if "McpUiHostCapabilities" in definitions and "appState" not in definitions["McpUiHostCapabilities"]["properties"]:
            missing.append("schema.json: appState in McpUiHostCapabilities")
    if (after / STEP_FILES["types"]).is_file():
        need(STEP_FILES["types"], "McpUiStateChangedNotification,", "McpUiStateChangedNotificationSchema,")
        types_before = (before / STEP_FILES["types"]).read_text(encoding="utf-8")
        union_deprecated = "@deprecated Kept for 1.x callers" in types_before
        added_to_union = "| McpUiStateChangedNotification" in (after / STEP_FILES["types"]).read_text(encoding="utf-8")
        if "| McpUiSizeChangedNotification" in types_before and added_to_union == union_deprecated:
            missing.append(f"{STEP_FILES['types']}: the notification in the app-to-host union unless it is deprecated")
        imported = re.search(r"import type \{[^}]*\bMcpUiStateChangedNotification,", (after / STEP_FILES["types"]).read_text())
        if imported and not added_to_union:
            missing.append(f"{STEP_FILES['types']}: no import of McpUiStateChangedNotification that nothing uses")
        if had(STEP_FILES["types"], "SIZE_CHANGED_METHOD,"):
            need(STEP_FILES["types"], "STATE_CHANGED_METHOD,")
    if (after / STEP_FILES["app-bridge"]).is_file():
        need(STEP_FILES["app-bridge"], "McpUiStateChangedNotification")
        two_x = had(STEP_FILES["app-bridge"], "private readonly eventSchemas")
        if had(STEP_FILES["app-bridge"], "sizechange: McpUiSizeChangedNotification"):
            need(
                STEP_FILES["app-bridge"],
                'statechange: McpUiStateChangedNotification["params"];',
                "statechange: McpUiStateChangedNotificationSchema,",
            )
        if two_x:
            # 2.x deprecates every event-backed on* accessor: none is added
            if "onstatechange" in (after / STEP_FILES["app-bridge"]).read_text(encoding="utf-8"):
                missing.append(f"{STEP_FILES['app-bridge']}: no onstatechange accessor on 2.x")
        elif had(STEP_FILES["app-bridge"], "sizechange: McpUiSizeChangedNotification"):
            need(STEP_FILES["app-bridge"], "get onstatechange()", "set onstatechange(", 'this.setEventHandler("statechange", callback);')
        else:
            need(STEP_FILES["app-bridge"], "set onstatechange(", "this.setNotificationHandler(McpUiStateChangedNotificationSchema")
    if (after / STEP_FILES["app"]).is_file():
        need(
            STEP_FILES["app"],
            'sendStateChanged(params: McpUiStateChangedNotification["params"]) {',
            'method: "ui/notifications/state-changed",',
        )
        if had(STEP_FILES["app"], "private _assertInitialized("):
            need(STEP_FILES["app"], 'this._assertInitialized("sendStateChanged");')
    if (after / STEP_FILES["bridge-test"]).is_file() and (before / STEP_FILES["bridge-test"]).is_file():
        test = STEP_FILES["bridge-test"]
        need(
            test,
            'describe("view navigation state (ui/notifications/state-changed, hostContext.appState)", () => {',
            "an appState given to the AppBridge constructor shows in getHostContext()",
            "const options = { hostContext: { appState: { tab: \"invoices\" } } };",
            "setHostContext({ appState }) after the app initialized reaches it, null included",
            "expect(app.getHostContext()?.appState).toBeNull();",
            "McpUiStateChangedNotificationSchema rejects a notification without state",
            "expect(parse({}).success).toBe(false);",
        )
        app_text = (before / STEP_FILES["app"]).read_text(encoding="utf-8") if (before / STEP_FILES["app"]).is_file() else ""
        if "_assertInitialized(" in app_text:
            need(test, 'await expect(early()).rejects.toThrow("sendStateChanged");')
            if "strict?:" in app_text:
                need(test, "strict: true")
        if "getHostCapabilities" in app_text:
            need(test, "expect(app.getHostCapabilities()?.appState).toEqual({ maxLength: 1024 });")
        bridge = (before / STEP_FILES["app-bridge"]).read_text(encoding="utf-8") if (before / STEP_FILES["app-bridge"]).is_file() else ""
        if "eventSchemas" in bridge:
            need(test, 'bridge.addEventListener("statechange"', "[{ tab: \"invoices\" }, null]")
        if "private readonly eventSchemas" in bridge:
            if "onstatechange" in (after / test).read_text(encoding="utf-8"):
                missing.append(f"{test}: no onstatechange case on 2.x")
        elif bridge:
            need(test, "bridge.onstatechange = ({ state }) =>")
    return missing
