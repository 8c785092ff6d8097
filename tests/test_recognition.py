"""Recognition by role (SPEC 5a, issue 19): the tool knows its own work
whatever a team did to it afterwards: a formatter's quotes and semicolons,
renamed locals and members, a handler moved into a helper method, renamed
anchors. What is present is never inserted again, and a run that must
refuse shows no diff.

Each case starts from the tool's own output on the newest fixture (our copy
of mesh's file shapes), makes the team's edit, and runs the command line.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from codemods.engine.equivalence import layout_key

from . import perturb
from .support import FIXTURES, fixture_tree, invoke, snapshot

SRC = "apps/mesh/src/mcp-apps"
BRIDGE = f"{SRC}/use-app-bridge.ts"
MODULE = f"{SRC}/app-state.ts"
TYPES = f"{SRC}/types.ts"
GENERIC = "apps/mesh/src/web/components/chat/message/parts/tool-call-part/generic.tsx"
PANEL = "apps/mesh/src/web/routes/project-app-view.tsx"
# wiring -> (--bridge, the SDK range apps/mesh/package.json asks for)
WIRINGS = {"compat-1x": ("compat", "^1.2.2"), "compat-2x": ("compat", "^2.0.4"), "sdk": ("sdk", "^1.2.2")}
LOCAL = ("identifier",)
MEMBER = ("property_identifier",)


def _ask_for_sdk(repo: Path, wanted: str) -> None:
    path = repo / "apps/mesh/package.json"
    text = re.sub(r'("@modelcontextprotocol/ext-apps": )"[^"]*"', rf'\1"{wanted}"', path.read_text())
    path.write_text(text)


def _run(repo: Path, wiring: str, *extra: str):
    bridge, wanted = WIRINGS[wiring]
    _ask_for_sdk(repo, wanted)
    return invoke("apply", "--repo", repo, "--bridge", bridge, *extra)


def wired(into: Path, wiring: str = "compat-1x") -> Path:
    """A copy of the newest fixture with the feature applied in ``wiring``."""
    shutil.copytree(FIXTURES / "newest" / "input", into)
    result = _run(into, wiring)
    assert result.exit_code == 0, result.output
    return into


def edit(repo: Path, path: str, change) -> None:
    """Apply ``change(bytes, path) -> bytes`` to one file; it must change it."""
    before = (repo / path).read_bytes()
    after = change(before, path)
    assert after != before, f"the edit of {path} changed nothing"
    (repo / path).write_bytes(after)


def assert_recognised(repo: Path, wiring: str) -> None:
    """`apply --check` exits 0, and `apply` inserts nothing and writes nothing."""
    before = snapshot(repo)
    check = _run(repo, wiring, "--check")
    assert check.exit_code == 0, check.output
    result = _run(repo, wiring, "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0 and report["files"] == [], result.output
    assert snapshot(repo) == before


# --- case 1: quotes -------------------------------------------------------------


def test_a_single_quoted_2x_registration_is_not_added_again(tmp_path: Path) -> None:
    repo = wired(tmp_path / "repo", "compat-2x")
    edit(repo, BRIDGE, lambda d, p: d.replace(b'"ui/notifications/state-changed"', b"'ui/notifications/state-changed'"))
    assert_recognised(repo, "compat-2x")
    assert (repo / BRIDGE).read_text().count("ui/notifications/state-changed") == 1


@pytest.mark.parametrize("wiring", sorted(WIRINGS))
def test_every_file_single_quoted_is_recognised(wiring: str, tmp_path: Path) -> None:
    repo = wired(tmp_path / "repo", wiring)
    for path in (BRIDGE, GENERIC, PANEL, MODULE):
        edit(repo, path, perturb.single_quote)
    assert_recognised(repo, wiring)


# --- case 2: semicolons ---------------------------------------------------------


def test_a_semicolon_free_reformat_still_migrates_1x_to_2x(tmp_path: Path) -> None:
    repo = wired(tmp_path / "repo", "compat-1x")
    clean = wired(tmp_path / "clean", "compat-2x")
    for path in (BRIDGE, GENERIC, PANEL):
        edit(repo, path, perturb.drop_semicolons)
    assert_recognised(repo, "compat-1x")
    result = _run(repo, "compat-2x", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {(c["path"], c["kind"]) for c in report["changes_of_form"]} == {(BRIDGE, "migrate"), (TYPES, "migrate")}
    for path in (BRIDGE, TYPES):
        assert layout_key((repo / path).read_bytes(), path) == layout_key((clean / path).read_bytes(), path), path
    assert_recognised(repo, "compat-2x")


# --- case 3: renamed locals and members -----------------------------------------

RENAMES = [
    # (file, function the local lives in or None for the whole file, old, new, kinds)
    pytest.param(BRIDGE, None, "shownAppState", "appShows", MEMBER, id="member-shownAppState"),
    pytest.param(BRIDGE, None, "lastAppState", "lastSlotJson", MEMBER, id="member-lastAppState"),
    pytest.param(BRIDGE, None, "contextAppState", "heldState", MEMBER, id="member-contextAppState"),
    pytest.param(BRIDGE, None, "hostContext", "contextNow", MEMBER, id="member-hostContext"),
    pytest.param(GENERIC, "GenericToolCallPart", "appState", "decoded", LOCAL, id="generic-appState"),
    pytest.param(PANEL, "AppRenderer", "appState", "decoded", LOCAL, id="panel-appState"),
]


@pytest.mark.parametrize("path, function, old, new, kinds", RENAMES)
@pytest.mark.parametrize("wiring", sorted(WIRINGS))
def test_a_renamed_local_or_member_is_recognised(wiring, path, function, old, new, kinds, tmp_path: Path) -> None:
    repo = wired(tmp_path / "repo", wiring)

    def change(data: bytes, p: str) -> bytes:
        within = perturb.function_named(data, p, function) if function else None
        return perturb.rename(data, p, old, new, kinds, within)

    edit(repo, path, change)
    assert_recognised(repo, wiring)
    if wiring != "sdk":  # status runs `auto`: sdk mode needs an installed SDK
        status = invoke("status", "--repo", repo)
        assert status.exit_code == 0, status.output
        assert "pending" not in status.stdout


def test_a_renamed_member_is_used_by_what_is_inserted(tmp_path: Path) -> None:
    """A partly applied store whose fields a team renamed: the members
    added use the fields' names, so the file still type-checks."""
    repo = wired(tmp_path / "repo", "compat-1x")
    edit(repo, BRIDGE, lambda d, p: perturb.rename(d, p, "lastAppState", "lastJson", MEMBER))
    text = (repo / BRIDGE).read_text()
    # remove the push decision at the end of updateConfig: it must come back
    # with the new name
    start = text.index("\n    // The app's slot changed:")
    end = text.index("\n    }\n", text.index("this.bridge.sendHostContextChange", start)) + len("\n    }")
    (repo / BRIDGE).write_text(text[:start] + text[end:])
    assert "this.lastJson" not in (repo / BRIDGE).read_text().split("updateConfig(")[1].split("private ")[0]
    result = _run(repo, "compat-1x")
    assert result.exit_code == 0, result.output
    text = (repo / BRIDGE).read_text()
    assert "appState === this.lastJson) return;" in text and "this.lastAppState" not in text
    assert_recognised(repo, "compat-1x")


# --- case 4: a handler moved into a helper method --------------------------------


@pytest.mark.parametrize("wiring", sorted(WIRINGS))
def test_a_handler_moved_into_a_helper_method_is_not_added_again(wiring: str, tmp_path: Path) -> None:
    repo = wired(tmp_path / "repo", wiring)
    text = (repo / BRIDGE).read_text()
    data = text.encode()
    handlers = perturb.function_named(data, BRIDGE, "registerHandlers")
    body = handlers.child_by_field_name("body")
    registration = next(
        s for s in body.named_children
        if any(word in perturb.text(data, s) for word in ("state-changed", "StateChanged", "statechange"))
    )
    moved = perturb.text(data, registration)
    start = perturb.line_start(data, registration.start_byte)
    end = perturb.next_line(data, registration.end_byte)
    helper = (
        "\n  private registerAppStateHandler(bridge: AppBridge) {\n    "
        + moved.replace("\n  ", "\n")
        + "\n  }\n"
    )
    text = (
        data[:start].decode() + "    this.registerAppStateHandler(bridge);\n" + data[end:handlers.end_byte].decode()
        + "\n" + helper + data[handlers.end_byte:].decode()
    )
    (repo / BRIDGE).write_text(text)
    assert_recognised(repo, wiring)
    assert text.count(moved.split("(")[0].strip()) == 1


# --- case 5: renamed anchors ------------------------------------------------------


@pytest.mark.parametrize(
    "path, old, new, kinds",
    [
        pytest.param(BRIDGE, "unsubTheme", "stopThemeWatch", MEMBER, id="unsubTheme"),
        pytest.param(GENERIC, "hasMCPApp", "hasApp", LOCAL, id="hasMCPApp"),
    ],
)
@pytest.mark.parametrize("wiring", sorted(WIRINGS))
def test_an_anchor_renamed_after_the_merge_does_not_block_the_tool(wiring, path, old, new, kinds, tmp_path) -> None:
    repo = wired(tmp_path / "repo", wiring)
    edit(repo, path, lambda d, p: perturb.rename(d, p, old, new, kinds))
    assert_recognised(repo, wiring)
    assert invoke("status", "--repo", repo).exit_code == 0


def test_a_missing_anchor_still_refuses_where_something_must_be_inserted(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "newest" / "input", repo)
    edit(repo, GENERIC, lambda d, p: perturb.rename(d, p, "hasMCPApp", "hasApp", LOCAL))
    result = _run(repo, "compat-1x")
    assert result.exit_code == 3
    assert "hasMCPApp" in result.stderr and GENERIC in result.stderr


# --- case 9: a refused dry run prints the refusal only ---------------------------


def test_a_refused_dry_run_prints_no_diff(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "newest" / "input", repo)
    edit(repo, GENERIC, lambda d, p: perturb.rename(d, p, "hasMCPApp", "hasApp", LOCAL))
    before = snapshot(repo)
    result = _run(repo, "compat-1x", "--dry-run")
    assert result.exit_code == 3
    assert result.stdout == "", "a refused run must not print a (partial) diff"
    assert "refused" in result.stderr
    report = json.loads(_run(repo, "compat-1x", "--dry-run", "--json").stdout)
    assert "diff" not in report and report["refused"]
    assert snapshot(repo) == before


# --- status says why a step is pending --------------------------------------------


@pytest.mark.parametrize("case", ["newest", "partial"])
def test_status_gives_a_reason_for_every_pending_step(case: str, tmp_path: Path) -> None:
    repo = fixture_tree(FIXTURES / case, tmp_path / "repo")
    result = invoke("status", "--repo", repo, "--json")
    assert result.exit_code == 0, result.output
    steps = json.loads(result.stdout)["steps"]
    pending = [s for s in steps if s["status"] == "pending"]
    assert pending, "the case has pending steps"
    for step in pending:
        assert step.get("reason"), step
    text = invoke("status", "--repo", repo).stdout.splitlines()
    for index, line in enumerate(text):
        if " pending " in line:
            assert text[index + 1].startswith(" ") and text[index + 1].strip(), line


# --- case 6: an export another file imports is kept --------------------------------

IMPORTER = "apps/mesh/src/web/lib/state-changed-log.ts"
IMPORTER_TEXT = (
    'import { StateChangedNotificationSchema } from "@/mcp-apps/types";\n\n'
    "export const isStateChanged = (message: unknown) =>\n"
    "  StateChangedNotificationSchema.safeParse(message).success;\n"
)


@pytest.mark.parametrize("now", ["compat-2x", "sdk"])
def test_a_migration_keeps_an_export_another_file_imports(now: str, tmp_path: Path) -> None:
    repo = wired(tmp_path / "repo", "compat-1x")
    (repo / IMPORTER).parent.mkdir(parents=True, exist_ok=True)
    (repo / IMPORTER).write_text(IMPORTER_TEXT)
    result = _run(repo, now, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    module = (repo / TYPES).read_text()
    assert "export const StateChangedNotificationSchema" in module, "the imported export was removed"
    assert 'import { z } from "zod";' in module
    kept = [n for n in report["notices"] if "StateChangedNotificationSchema" in n]
    assert kept and IMPORTER in kept[0] and "imports it" in kept[0], report["notices"]
    # the wiring itself moved: the bridge no longer imports the 1.x schema
    assert "StateChangedNotificationSchema" not in (repo / BRIDGE).read_text()
    assert_recognised(repo, now)
    # without the importer the same migration removes the export
    clean = wired(tmp_path / "clean", "compat-1x")
    assert _run(clean, now).exit_code == 0
    assert "StateChangedNotificationSchema" not in (clean / TYPES).read_text()


def test_an_importer_is_found_through_git_in_a_git_checkout(tmp_path: Path) -> None:
    from .gitrepo import commit_all

    repo = wired(tmp_path / "repo", "compat-1x")
    (repo / IMPORTER).parent.mkdir(parents=True, exist_ok=True)
    (repo / IMPORTER).write_text(IMPORTER_TEXT.replace('"@/mcp-apps/types"', '"../../mcp-apps/types.ts"'))
    import subprocess

    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    commit_all(repo, "base")
    result = _run(repo, "compat-2x")
    assert result.exit_code == 0, result.output
    assert "export const StateChangedNotificationSchema" in (repo / TYPES).read_text()


def test_the_kept_export_type_checks(tmp_path: Path) -> None:
    """The migrated branch with an importer type-checks against the 2.0.4
    declarations (no error beyond the checkout's own), and would not had
    the export gone."""
    from .node_tools import BIN, require
    from .test_typescript_tools import _errors, _sdk2_config, _typecheck_tree

    tsc = require(BIN / "tsc", "TypeScript (tsc)")
    baseline_work = _typecheck_tree(FIXTURES / "newest-sdk-2x" / "input", tmp_path / "input")
    baseline = _errors(tsc, baseline_work, _sdk2_config(baseline_work))
    repo = wired(tmp_path / "repo", "compat-1x")
    (repo / IMPORTER).parent.mkdir(parents=True, exist_ok=True)
    (repo / IMPORTER).write_text(IMPORTER_TEXT)
    assert _run(repo, "compat-2x").exit_code == 0
    work = _typecheck_tree(repo, tmp_path / "work")
    config = _sdk2_config(work)
    assert not any("state-changed-log" in e or "types.ts" in e for e in _errors(tsc, work, config) - baseline)
    # the check can fail: the export removed, the importer breaks
    module = work / TYPES
    text = module.read_text()
    start = text.index("// `ui/notifications/state-changed`: the app reports")
    end = text.index("});\n", start) + 4
    module.write_text(text[:start] + text[end:])
    assert any("state-changed-log" in e for e in _errors(tsc, work, config) - baseline)


# --- case 7: a created file reformatted ----------------------------------------------

TESTS = f"{SRC}/app-state.test.ts"


def test_a_reformatted_current_file_is_already_there(tmp_path: Path) -> None:
    repo = wired(tmp_path / "repo", "compat-2x")
    for path in (MODULE, TESTS):
        edit(repo, path, lambda d, p: perturb.reindent(perturb.single_quote(d, p), p, b"    "))
    assert_recognised(repo, "compat-2x")


# --- parentheses around a single arrow parameter ------------------------------------


@pytest.mark.parametrize("wiring", sorted(WIRINGS))
def test_arrow_parameters_with_or_without_parentheses_are_recognised(wiring: str, tmp_path: Path) -> None:
    repo = wired(tmp_path / "repo", wiring)
    for path in (BRIDGE, GENERIC, PANEL):
        edit(repo, path, lambda d, p: perturb.toggle_arrow_parentheses(d, p, perturb.arrow_parameter_points(d, p)))
    assert_recognised(repo, wiring)
    # the handler (`(params) => ...` in sdk mode and the 2.x form) is still
    # what was written: it migrates
    result = _run(repo, "compat-2x" if wiring == "compat-1x" else "compat-1x", "--json")
    assert result.exit_code == 0, result.output
    assert {c["kind"] for c in json.loads(result.stdout)["changes_of_form"]} == {"migrate"}
