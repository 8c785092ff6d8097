"""The change over time (SPEC 5a): a checkout that has the feature in an
earlier form is brought to the current one.

These tests assert behaviour, not committed bytes: each result is compared
with what the current release writes on a clean tree in the same run, so a
broken migration rule fails here even after UPDATE_FIXTURES=1.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from . import earlier_release
from .gitrepo import BOT, commit_all, git, with_remote
from .support import FIXTURES, invoke, snapshot

SRC = "apps/mesh/src/mcp-apps"
BRIDGE = f"{SRC}/use-app-bridge.ts"
MODULE = f"{SRC}/app-state.ts"
TYPES = f"{SRC}/types.ts"
# wiring -> (--bridge, the SDK range apps/mesh/package.json asks for)
WIRINGS = {"compat-1x": ("compat", "^1.2.2"), "compat-2x": ("compat", "^2.0.4"), "sdk": ("sdk", "^1.2.2")}
MARKS = {
    "compat-1x": "bridge.setNotificationHandler(\n      StateChangedNotificationSchema,",
    "compat-2x": 'bridge.setNotificationHandler(\n      "ui/notifications/state-changed",\n      { params: StateChangedParamsSchema },',
    "sdk": 'bridge.addEventListener("statechange", (params) => {',
}


def _ask_for_sdk(repo: Path, wanted: str) -> None:
    """apps/mesh/package.json asks for ``wanted`` (no SDK is installed)."""
    path = repo / "apps/mesh/package.json"
    text = re.sub(r'("@modelcontextprotocol/ext-apps": )"[^"]*"', rf'\1"{wanted}"', path.read_text())
    path.write_text(text)
    assert f'"{wanted}"' in text


def _wired(into: Path, wiring: str, source: Path = FIXTURES / "newest" / "input") -> Path:
    """A copy of ``source`` with the feature applied in ``wiring``."""
    shutil.copytree(source, into)
    bridge, wanted = WIRINGS[wiring]
    _ask_for_sdk(into, wanted)
    result = invoke("apply", "--repo", into, "--bridge", bridge)
    assert result.exit_code == 0, result.output
    return into


def _wired_keeping_the_accessor(into: Path) -> Path:
    """What this release writes in sdk mode for a checkout wired with
    ``bridge.onappstatechange`` and no installed SDK: it keeps that API (no
    migration without evidence). Made as a clean run on an SDK that declares
    that accessor, installed for the run only."""
    shutil.copytree(FIXTURES / "newest" / "input", into)
    _ask_for_sdk(into, WIRINGS["sdk"][1])
    (into / ".git/info").mkdir(parents=True)
    _install_sdk_with_setter(into)
    result = invoke("apply", "--repo", into)
    assert result.exit_code == 0, result.output
    shutil.rmtree(into / "apps/mesh/node_modules")
    shutil.rmtree(into / ".git")
    assert "bridge.onappstatechange = (params) => {" in (into / BRIDGE).read_text()
    return into


def _run(repo: Path, wiring: str, *extra: str):
    bridge, wanted = WIRINGS[wiring]
    _ask_for_sdk(repo, wanted)
    return invoke("apply", "--repo", repo, "--bridge", bridge, *extra)


@pytest.mark.parametrize("was", sorted(WIRINGS))
@pytest.mark.parametrize("now", sorted(WIRINGS))
def test_every_wiring_migrates_to_every_other(was: str, now: str, tmp_path: Path) -> None:
    repo = _wired(tmp_path / "repo", was)
    clean = _wired(tmp_path / "clean", now)
    check = _run(repo, now, "--check")
    result = _run(repo, now, "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0, result.output
    assert snapshot(repo) == snapshot(clean), "the migrated tree is not what a clean run writes"
    if was == now:
        assert check.exit_code == 0 and report["changes_of_form"] == [] and not report["files"]
        return
    assert check.exit_code == 1, "a pending migration must fail --check"
    changes = {(c["path"], c["kind"]) for c in report["changes_of_form"]}
    # compat mode's schema goes with its wiring; sdk mode had none
    retired = {(TYPES, "migrate")} if was != "sdk" else set()
    assert changes == {(BRIDGE, "migrate")} | retired, report["changes_of_form"]
    assert sorted(f["path"] for f in report["files"]) == [TYPES, BRIDGE], "only the wiring's two files change"
    for change in report["changes_of_form"]:
        assert report["bridge"]["reason"] in change["why"]
        assert (report["bridge"]["form_reason"] in change["why"]) == (now != "sdk")
    bridge = (repo / BRIDGE).read_text()
    assert MARKS[now] in bridge and MARKS[was] not in bridge
    # what only the earlier wiring used is gone, in both files
    types = (repo / TYPES).read_text()
    for name in ("StateChangedNotificationSchema", "StateChangedParamsSchema"):
        assert (name in bridge) == (name in types) == (name in MARKS[now])
    assert ('from "zod"' in types) == (now != "sdk")
    again = _run(repo, now)
    assert again.exit_code == 0 and "nothing to do" in again.stderr


def test_an_edited_handler_is_refused_with_its_file_and_lines(tmp_path: Path) -> None:
    repo = _wired(tmp_path / "repo", "compat-1x")
    path = repo / BRIDGE
    text = path.read_text()
    # next to the lines a migration changes (the registration's first lines):
    # no three-way merge takes it, so it is refused
    edited = text.replace(
        "({ params }) => {\n        if (this.bridge !== bridge) return;",
        "({ params }) => {\n        track(params);\n        if (this.bridge !== bridge) return;",
    )
    assert edited != text
    path.write_text(edited)
    before = snapshot(repo)
    start = edited[: edited.index("StateChangedNotificationSchema,\n")].count("\n")  # the line before the schema
    for now in ("sdk", "compat-2x"):
        result = _run(repo, now)
        assert result.exit_code == 3, result.output
        assert BRIDGE in result.stderr
        assert f"lines {start}-{start + 8}" in result.stderr, result.stderr
        assert "changed since mesh-codemod wrote it" in result.stderr
        assert 'opt out of this step with `skip = ["bridge-store"]`' in result.stderr, result.stderr
        assert {k: v for k, v in snapshot(repo).items() if "package.json" not in k} == {
            k: v for k, v in before.items() if "package.json" not in k
        }
    # in its own wiring, the edit is the user's: kept
    result = _run(repo, "compat-1x")
    assert result.exit_code == 0 and "nothing to do" in result.stderr, result.output


def test_an_edited_created_file_keeps_its_edit_and_migrates_by_a_merge(tmp_path: Path) -> None:
    repo = _wired(tmp_path / "repo", "compat-1x")
    module = repo / MODULE
    module.write_text(module.read_text().replace("= 2048;", "= 4096;"))
    edited = module.read_bytes()
    # this release's output, edited: nothing to bring over, left alone and named
    for args in (("apply", "--repo", repo, "--bridge", "compat", "--check"), ("status", "--repo", repo)):
        result = invoke(*args)
        assert result.exit_code == 0, result.output
        assert f"{MODULE} was edited since mesh-codemod wrote it: left alone" in result.stderr, result.stderr
    report = json.loads(invoke("apply", "--repo", repo, "--bridge", "compat", "--json").stdout)
    assert [item["path"] for item in report["left_alone"]] == [MODULE] and module.read_bytes() == edited
    # a migration merges: the compat schema goes, the team's cap stays
    clean = _wired(tmp_path / "clean", "sdk")
    result = _run(repo, "sdk")
    assert result.exit_code == 0, result.output
    assert module.read_text() == (clean / MODULE).read_text().replace("= 2048;", "= 4096;")
    assert "StateChangedNotificationSchema" not in module.read_text()
    assert MARKS["sdk"] in (repo / BRIDGE).read_text()


# --- pr on a bare remote -------------------------------------------------------


def _install_sdk_with_setter(checkout: Path) -> None:
    """An installed SDK that declares onappstatechange (node_modules is not
    committed: the checkout decides `auto`)."""
    package = checkout / "apps/mesh/node_modules/@modelcontextprotocol/ext-apps"
    (package / "dist/src").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "@modelcontextprotocol/ext-apps", "version": "1.8.0-double"}))
    (package / "dist/src/app-bridge.d.ts").write_text(
        "export declare class AppBridge {\nset onsizechange(cb: unknown);\n"
        "set onappstatechange(cb: ((params: { state: unknown }) => void) | undefined);\n}\n"
    )
    (checkout / ".git/info/exclude").write_text("node_modules\n")


def _merged_base(tmp_path: Path, source: Path) -> tuple[Path, Path]:
    """A bare remote whose main has ``source``'s files merged on top of the fixture."""
    remote, work = with_remote(tmp_path)
    for path, data in snapshot(source).items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_bytes(data)
    commit_all(work, "feat: deep-link app state (mesh-codemod)")
    git(work, "push", "-q", "origin", "main")
    return remote, work


def _pr_twice(remote: Path, work: Path) -> dict:
    args = ("pr", "--repo", work, "--branch", "codemod/app-state", "--push", "origin", "--author", BOT, "--json")
    first = invoke(*args)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    objects, refs = git(remote, "count-objects", "-v"), git(remote, "for-each-ref")
    second = json.loads(invoke(*args).stdout)
    assert second["tip"] == report["tip"] and second["push"]["pushed"] is False
    assert git(remote, "count-objects", "-v") == objects and git(remote, "for-each-ref") == refs
    return report


def test_pr_after_the_sdk_upgrade_is_one_migration_commit(tmp_path: Path) -> None:
    remote, work = _merged_base(tmp_path, _wired(tmp_path / "compat", "compat-1x"))
    _install_sdk_with_setter(work)
    report = _pr_twice(remote, work)
    assert report["bridge"]["mode"] == "sdk"
    [commit] = report["commits"]
    assert commit["group"] == "change-over-time"
    assert commit["subject"] == "refactor(mcp-apps): migrate the state-changed wiring to sdk mode"
    assert sorted(f["path"] for f in commit["files"]) == [TYPES, BRIDGE]
    message = git(work, "log", "-1", "--format=%B", commit["sha"])
    assert "installed @modelcontextprotocol/ext-apps 1.8.0-double declares bridge.onappstatechange" in message
    tip = commit["sha"]
    # what that SDK declares, not the API proposed upstream
    assert "bridge.onappstatechange = (params) => {" in git(remote, "show", f"{tip}:{BRIDGE}")
    assert "StateChangedNotificationSchema" not in git(remote, "show", f"{tip}:{TYPES}")


def test_pr_on_an_earlier_releases_output_is_one_upgrade_commit(tmp_path: Path) -> None:
    with earlier_release.recorded():
        compat = earlier_release.as_written(_wired(tmp_path / "compat", "compat-1x"))
        remote, work = _merged_base(tmp_path, compat)
        report = _pr_twice(remote, work)
    [commit] = report["commits"]
    assert commit["subject"] == "refactor(mcp-apps): upgrade the appState feature to mesh-codemod " + __import__("codemods").__version__
    # both created files upgraded, the hook's tests (newer than that release) created
    assert sorted(f["path"] for f in commit["files"]) == sorted([MODULE, f"{SRC}/app-state.test.ts", earlier_release.HOOK_TESTS])
    clean = _wired(tmp_path / "clean", "compat-1x")
    for path in (f["path"] for f in commit["files"]):
        assert git(remote, "show", f"{commit['sha']}:{path}") == (clean / path).read_text(), path


def test_a_schema_used_elsewhere_blocks_the_migration(tmp_path: Path) -> None:
    """What only the old wiring used goes; what something else uses is not
    removed from under it: the run refuses instead of writing code that no
    longer builds."""
    repo = _wired(tmp_path / "repo", "compat-1x")
    bridge = repo / BRIDGE
    bridge.write_text(bridge.read_text() + "\nexport const stateChangedSchema = StateChangedNotificationSchema;\n")
    before = snapshot(repo)
    result = _run(repo, "sdk")
    assert result.exit_code == 3, result.output
    assert "`StateChangedNotificationSchema` (from types.ts) is used here" in result.stderr
    assert snapshot(repo) == before
