"""The build job's reading of the installed SDK reaches publish as a choice
among the tool's own wirings (issue 30, item 1; SPEC 8): publish rebuilds
with it when it fits the checkout's package.json range, and the current,
non-deprecated name is chosen where the SDK declares both (item 3)."""

from __future__ import annotations

import json
from pathlib import Path

from .gitrepo import git, with_remote
from .publish_support import BRANCH, build, manifest, publish, publisher
from .test_sdk_declarations import BRIDGE, NOTIFICATION, _install

STATE_PARAMS = f'{NOTIFICATION}["params"]'


def test_publish_wires_the_api_the_build_job_read_from_the_installed_sdk(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    _install(work, "1.7.1", event="appstatechange")  # installed, not committed: the build job's
    artifact = build(tmp_path, work)
    choice = manifest(artifact)["choice"]
    assert choice == {"mode": "sdk", "form": "1.x", "installed": "1.7.1",
                      "api": {"kind": "event", "name": "appstatechange", "field": "state"}}
    clone = publisher(tmp_path, remote)  # nothing installed here
    report = tmp_path / "report.json"
    result = publish(clone, artifact, "--report-out", report)
    assert result.exit_code == 0, result.output
    # publish's own series is the build's, id for id: the same wiring
    assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == manifest(artifact)["tip"]
    wired = git(remote, "show", f"refs/heads/{BRANCH}:{BRIDGE}")
    assert 'bridge.addEventListener("appstatechange", (params) =>' in wired
    assert json.loads(report.read_text())["notes"] == []


def test_without_the_choice_publish_decides_from_git_objects_and_says_so(tmp_path: Path) -> None:
    remote, work = with_remote(tmp_path)
    _install(work, "1.7.1", event="appstatechange")
    artifact = build(tmp_path, work)
    data = manifest(artifact)
    data["choice"]["installed"] = "3.0.0"  # outside ^1.2.2
    (artifact / "manifest.json").write_text(json.dumps(data))
    clone = publisher(tmp_path, remote)
    report = tmp_path / "report.json"
    assert publish(clone, artifact, "--report-out", report).exit_code == 0
    wired = git(remote, "show", f"refs/heads/{BRANCH}:{BRIDGE}")
    assert "appstatechange" not in wired
    notes = json.loads(report.read_text())["notes"]
    assert any("3.0.0 does not satisfy ^1.2.2" in n for n in notes), notes
    # its verdict was for the build's series, which publish did not make
    assert any("counts for nothing" in n for n in notes)


def test_the_current_name_is_chosen_where_the_sdk_declares_both(tmp_path: Path) -> None:
    from codemods.recipes.host import sdk_api

    package = _install(tmp_path / "mesh", "1.7.1", event="appstatechange")
    declarations = package / "dist" / "src" / "app-bridge.d.ts"
    text = declarations.read_text()
    anchor = f"    appstatechange: {STATE_PARAMS};\n"
    assert anchor in text
    old = f"    /** @deprecated Use `appstatechange`. */\n    statechange: {STATE_PARAMS};\n"
    declarations.write_text(text.replace(anchor, old + anchor, 1))
    api = sdk_api.read(package, "1.x", tmp_path / "mesh")
    assert (api.kind, api.name, api.field) == ("event", "appstatechange", "state")
    # undeprecated, ours comes first as before
    declarations.write_text(text.replace(anchor, f"    statechange: {STATE_PARAMS};\n" + anchor, 1))
    assert sdk_api.read(package, "1.x", tmp_path / "mesh").name == "statechange"
