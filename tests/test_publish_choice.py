"""The build job's reading of the installed SDK reaches publish as a choice
among the tool's own wirings (issue 30, item 1; SPEC 8), bound to the SDK
version the base's lockfile resolves (issue 39, item 2): publish rebuilds
with it when it is one the tool knows that version to declare, or, for a
version it does not know, one of its wirings, said in the PR. The current,
non-deprecated name is chosen where the SDK declares both (item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .gitrepo import bun_lock, fixture_repo, git, with_remote
from .publish_support import BRANCH, build, manifest, publish, publisher
from .test_sdk_declarations import BRIDGE, NOTIFICATION, _install

STATE_PARAMS = f'{NOTIFICATION}["params"]'


def test_publish_wires_the_api_the_build_job_read_from_an_sdk_it_does_not_know(tmp_path: Path) -> None:
    """bun.lock resolves 1.8.0 for mesh's app (its workspace's own entry,
    over the hoisted 1.7.1): the build job reads an event there, and publish
    wires it, saying in the PR that the version is not one it knows."""
    remote, work = with_remote(tmp_path, lock=bun_lock("1.7.1", nested="1.8.0"))
    package = _install(work, "1.7.1", event="appstatechange")  # installed, not committed: the build job's
    data = json.loads((package / "package.json").read_text())
    (package / "package.json").write_text(json.dumps({**data, "version": "1.8.0"}))
    artifact = build(tmp_path, work)
    choice = manifest(artifact)["choice"]
    assert choice == {"mode": "sdk", "form": "1.x", "installed": "1.8.0",
                      "api": {"kind": "event", "name": "appstatechange", "field": "state"}}
    clone = publisher(tmp_path, remote)  # nothing installed here
    report = tmp_path / "report.json"
    result = publish(clone, artifact, "--report-out", report)
    assert result.exit_code == 0, result.output
    # publish's own series is the build's, id for id: the same wiring
    assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == manifest(artifact)["tip"]
    wired = git(remote, "show", f"refs/heads/{BRANCH}:{BRIDGE}")
    assert 'bridge.addEventListener("appstatechange", (params) =>' in wired
    out = json.loads(report.read_text())
    assert out["notes"] == [] and "a version mesh-codemod does not know" in out["body"]


def _npm_lock(hoisted: str, nested: str = "") -> str:
    sdk = "@modelcontextprotocol/ext-apps"
    packages = {"": {"name": "mesh"}, f"node_modules/{sdk}": {"version": hoisted}}
    if nested:
        packages[f"apps/mesh/node_modules/{sdk}"] = {"version": nested}
    return json.dumps({"name": "mesh", "lockfileVersion": 3, "packages": packages}, indent=2)


@pytest.mark.parametrize(
    ("files", "resolved"),
    [
        ({"bun.lock": bun_lock("1.7.1")}, "1.7.1"),
        ({"bun.lock": bun_lock("1.7.1", nested="2.0.4")}, "2.0.4"),
        ({"package-lock.json": _npm_lock("1.7.1")}, "1.7.1"),
        ({"package-lock.json": _npm_lock("1.7.1", nested="2.0.4")}, "2.0.4"),
        ({"bun.lock": bun_lock("2.0.4"), "package-lock.json": _npm_lock("1.7.1")}, "2.0.4"),
        ({}, "no lockfile"),
        ({"bun.lock": '{"lockfileVersion": 1, "packages": {}}'}, "resolves no"),
        ({"bun.lock": "{" * 40 + "}" * 40}, "nested more than 16 deep"),
    ],
    ids=["bun", "bun-workspace-first", "npm", "npm-workspace-first", "bun-before-npm", "none", "no-entry", "deep"],
)
def test_the_sdk_the_bases_lockfile_resolves_for_meshs_app(tmp_path: Path, files: dict, resolved: str) -> None:
    import git as gitpython

    from codemods.publish import choice

    repo = gitpython.Repo(fixture_repo(tmp_path / "repo", files=files))
    if resolved[0].isdigit():
        assert choice.locked_version(repo, repo.head.commit.hexsha) == resolved
    else:
        with pytest.raises(choice.ChoiceProblem, match=resolved):
            choice.locked_version(repo, repo.head.commit.hexsha)


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
