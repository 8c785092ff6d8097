"""Living with the team (SPEC 5a): a human decision stands.

A created file someone removed is not created again; the checkout's
`.mesh-codemod.toml` skips steps and pins the bridge mode and form for
`apply`, `status`, `patch` and `pr` alike; whatever is left alone is listed
in every report and in the PR body."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .gitrepo import BOT, commit_all, fixture_repo, git
from .support import invoke, snapshot

TESTS_FILE = "apps/mesh/src/mcp-apps/app-state.test.ts"
MODULE_FILE = "apps/mesh/src/mcp-apps/app-state.ts"
BRIDGE_FILE = "apps/mesh/src/mcp-apps/use-app-bridge.ts"


def _json(result) -> dict:
    return json.loads(result.stdout)


def _host_steps() -> int:
    """How many steps the host target has (every one of them skipped by `*`)."""
    from codemods.recipes import targets

    return len(next(t for t in targets() if t.name == "host").steps)


def _steps(report: dict) -> dict[str, dict]:
    return {s["step"]: s for s in report["steps"]}


def _applied(tmp_path: Path) -> Path:
    """A git checkout that merged the whole feature (compat mode)."""
    repo = fixture_repo(tmp_path / "repo")
    assert invoke("apply", "--repo", repo, "--bridge", "compat").exit_code == 0
    commit_all(repo, "merge the appState feature")
    return repo


# ------------------------------------------------------- removed files


def test_a_removed_test_file_is_a_decision_not_created_again(tmp_path: Path) -> None:
    repo = _applied(tmp_path)
    (repo / TESTS_FILE).unlink()
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo, "--bridge", "compat", "--json")
    assert result.exit_code == 0, result.output
    report = _json(result)
    assert not report["pending"] and not report["written"]
    step = _steps(report)["app-state-tests"]
    assert step["status"] == "skipped" and step["kind"] == "decision"
    assert "apply --restore app-state-tests" in step["reason"]
    assert report["left_alone"] == [
        {"step": "app-state-tests", "path": TESTS_FILE, "why": "decision", "reason": step["reason"]}
    ]
    assert snapshot(repo) == before
    check = invoke("apply", "--repo", repo, "--bridge", "compat", "--check")
    assert check.exit_code == 0, check.output
    assert "removed it" in check.output


def test_restore_brings_a_removed_file_back(tmp_path: Path) -> None:
    repo = _applied(tmp_path)
    original = (repo / TESTS_FILE).read_bytes()
    (repo / TESTS_FILE).unlink()
    result = invoke("apply", "--repo", repo, "--bridge", "compat", "--restore", "app-state-tests")
    assert result.exit_code == 0, result.output
    assert (repo / TESTS_FILE).read_bytes() == original


def test_a_fresh_checkout_gets_both_created_files(tmp_path: Path) -> None:
    """Without the rest of the feature, a missing file is not a decision."""
    repo = fixture_repo(tmp_path / "repo")
    report = _json(invoke("apply", "--repo", repo, "--bridge", "compat", "--json"))
    assert report["left_alone"] == []
    assert (repo / TESTS_FILE).is_file() and (repo / MODULE_FILE).is_file()


def test_a_removed_file_with_the_rest_half_there_is_created(tmp_path: Path) -> None:
    """The rest of the feature must be there: with the search param not yet
    added, the run completes the tree, test file included."""
    repo = _applied(tmp_path)
    (repo / TESTS_FILE).unlink()
    git(repo, "checkout", "HEAD~1", "--", "apps/mesh/src/web/index.tsx")
    report = _json(invoke("apply", "--repo", repo, "--bridge", "compat", "--json"))
    assert report["left_alone"] == []
    assert (repo / TESTS_FILE).is_file()


def test_the_series_leaves_a_removed_file_out_and_the_pr_body_says_so(tmp_path: Path) -> None:
    repo = _applied(tmp_path)
    (repo / TESTS_FILE).unlink()
    commit_all(repo, "we do not want these tests")
    out = tmp_path / "patches"
    result = invoke("patch", "--repo", repo, "--out", out, "--bridge", "compat", "--author", BOT, "--json")
    assert result.exit_code == 0, result.output
    assert _json(result)["commits"] == []
    # a migration to sdk mode later: one commit, still without the tests file
    result = invoke(
        "pr", "--repo", repo, "--branch", "codemod/app-state", "--bridge", "sdk", "--author", BOT,
        "--no-verify", "--json",
    )
    assert result.exit_code == 0, result.output
    report = _json(result)
    assert [c["group"] for c in report["commits"]] == ["change-over-time"]
    assert TESTS_FILE not in git(repo, "ls-tree", "-r", "--name-only", "codemod/app-state")
    assert f"`{TESTS_FILE}` (app-state-tests): removed by someone" in report["body"]


# --------------------------------------------------- the configuration


CONFIG = 'skip = ["app-state-tests"]  # the team keeps its own tests\n'


def test_a_skipped_step_stays_skipped_across_apply_status_patch_and_pr(tmp_path: Path) -> None:
    repo = fixture_repo(tmp_path / "repo")
    (repo / ".mesh-codemod.toml").write_text(CONFIG)
    commit_all(repo, "mesh-codemod: no tests file")

    status = _json(invoke("status", "--repo", repo, "--json"))
    assert _steps(status)["app-state-tests"]["status"] == "skipped"
    assert status["config"] == {"file": ".mesh-codemod.toml", "skip": ["app-state-tests"]}

    out = tmp_path / "patches"
    patch = invoke("patch", "--repo", repo, "--out", out, "--bridge", "compat", "--author", BOT, "--json")
    assert patch.exit_code == 0, patch.output
    files = {f["path"] for c in _json(patch)["commits"] for f in c["files"]}
    assert MODULE_FILE in files and TESTS_FILE not in files
    assert not any(TESTS_FILE in p.read_text() for p in out.glob("*.patch"))
    text = invoke("patch", "--repo", repo, "--out", tmp_path / "again", "--bridge", "compat", "--author", BOT)
    assert f"left alone: {TESTS_FILE} (app-state-tests): skipped by .mesh-codemod.toml" in text.stderr

    pr = invoke(
        "pr", "--repo", repo, "--branch", "codemod/app-state", "--bridge", "compat", "--author", BOT,
        "--no-verify", "--json",
    )
    assert pr.exit_code == 0, pr.output
    report = _json(pr)
    tree = git(repo, "ls-tree", "-r", "--name-only", "codemod/app-state")
    assert MODULE_FILE in tree and TESTS_FILE not in tree
    assert "## Left alone" in report["body"]
    assert f"`{TESTS_FILE}` (app-state-tests): skipped by `.mesh-codemod.toml`" in report["body"]

    applied = _json(invoke("apply", "--repo", repo, "--bridge", "compat", "--json"))
    assert applied["written"] and not (repo / TESTS_FILE).exists()
    assert [a["step"] for a in applied["left_alone"]] == ["app-state-tests"]


def test_the_bridge_and_form_pins_are_obeyed(tmp_path: Path) -> None:
    repo = fixture_repo(tmp_path / "repo")
    (repo / ".mesh-codemod.toml").write_text('bridge = "compat"\nform = "2.x"\n')
    report = _json(invoke("apply", "--repo", repo, "--json", "--dry-run"))
    assert report["bridge"]["mode"] == "compat" and report["bridge"]["form"] == "2.x"
    assert "pinned by .mesh-codemod.toml" in report["bridge"]["reason"]
    assert "pinned by .mesh-codemod.toml" in report["bridge"]["form_reason"]
    # --bridge on the command line wins over the file's pin
    given = _json(invoke("apply", "--repo", repo, "--json", "--dry-run", "--bridge", "sdk"))
    assert given["bridge"]["mode"] == "sdk"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('skip = ["app-state-test"]\n', "skip: unknown step 'app-state-test'"),
        ('skip = "app-state-tests"\n', "skip: a list of step ids"),
        ('bridge = "both"\n', "bridge: 'both' is not one of auto, sdk, compat"),
        ('form = "3.x"\n', "form: '3.x' is not one of 1.x, 2.x"),
        ('brige = "sdk"\n', "unknown key 'brige'"),
        ("skip = [\n", "not valid TOML"),
    ],
)
@pytest.mark.parametrize("command", ["apply", "status", "patch", "pr"])
def test_a_bad_configuration_exits_2_naming_the_file_and_key(
    tmp_path: Path, text: str, named: str, command: str
) -> None:
    repo = fixture_repo(tmp_path / "repo")
    (repo / ".mesh-codemod.toml").write_text(text)
    commit_all(repo, "a bad configuration")
    before = snapshot(repo)
    extra = {
        "apply": [],
        "status": [],
        "patch": ["--out", str(tmp_path / "out")],
        "pr": ["--branch", "codemod/app-state", "--no-verify"],
    }[command]
    result = invoke(command, "--repo", repo, *extra)
    assert result.exit_code == 2, result.output
    assert f".mesh-codemod.toml: {named}" in result.output
    assert snapshot(repo) == before
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


# --------------------------------------- no downgrade without evidence


def _fake_sdk(repo: Path, version: str, setter: bool = False) -> None:
    package = repo / "apps/mesh/node_modules/@modelcontextprotocol/ext-apps"
    (package / "dist/src").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "@modelcontextprotocol/ext-apps", "version": version}))
    members = "set onsizechange(cb: unknown);\n" + ("set onappstatechange(cb: unknown);\n" if setter else "")
    (package / "dist/src/app-bridge.d.ts").write_text(f"export declare class AppBridge {{\n{members}}}\n")


def _ask_for(repo: Path, wanted: str) -> None:
    path = repo / "apps/mesh/package.json"
    data = json.loads(path.read_text())
    data["dependencies"]["@modelcontextprotocol/ext-apps"] = wanted
    path.write_text(json.dumps(data, indent=2) + "\n")


def test_a_laptop_without_node_modules_keeps_the_sdk_wiring(tmp_path: Path) -> None:
    repo = fixture_repo(tmp_path / "repo")
    assert invoke("apply", "--repo", repo, "--bridge", "sdk").exit_code == 0
    commit_all(repo, "feat: appState in sdk mode (the CI machine had the SDK installed)")
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo, "--json")  # auto, no node_modules here
    report = _json(result)
    assert result.exit_code == 0 and not report["pending"] and not report["written"]
    assert report["bridge"]["mode"] == "sdk"
    assert "no installed @modelcontextprotocol/ext-apps found" in report["bridge"]["reason"]
    assert "wired in sdk mode and stays so" in report["bridge"]["reason"]
    assert snapshot(repo) == before
    out = tmp_path / "patches"
    patch = invoke("patch", "--repo", repo, "--out", out, "--author", BOT, "--json")
    assert patch.exit_code == 0 and _json(patch)["commits"] == []


def test_a_stale_sdk_install_does_not_move_the_2x_form_back(tmp_path: Path) -> None:
    repo = fixture_repo(tmp_path / "repo")
    _ask_for(repo, "^2.0.4")
    assert invoke("apply", "--repo", repo, "--bridge", "compat").exit_code == 0
    assert "StateChangedParamsSchema" in (repo / "apps/mesh/src/mcp-apps/types.ts").read_text()
    _fake_sdk(repo, "1.7.1")  # node_modules from before the upgrade
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo)
    assert result.exit_code == 0, result.output
    assert snapshot(repo) == before
    assert (
        "installed @modelcontextprotocol/ext-apps 1.7.1 does not satisfy ^2.0.4 (apps/mesh/package.json): "
        "run `bun install`" in result.stderr
    )
    assert result.stderr.count("does not satisfy") == 1  # said once, not for the mode and again for the form
    assert "nothing to do" in result.stderr


def test_positive_evidence_still_migrates(tmp_path: Path) -> None:
    """An installed SDK that satisfies the range and lacks the setter: sdk -> compat."""
    repo = fixture_repo(tmp_path / "repo")
    assert invoke("apply", "--repo", repo, "--bridge", "sdk").exit_code == 0
    _fake_sdk(repo, "1.7.1")
    report = _json(invoke("apply", "--repo", repo, "--json", "--dry-run"))
    assert report["bridge"]["mode"] == "compat" and report["pending"]
    # the handler; compat mode's schema is added to types.ts, nothing of sdk mode's to remove
    assert [c["kind"] for c in report["changes_of_form"]] == ["migrate"]


# ------------------------------------------------ a PR says what it does

PR_ARGS = ("--branch", "codemod/app-state", "--author", BOT, "--no-verify", "--json")


def _pr_report(repo: Path, *extra: str) -> dict:
    result = invoke("pr", "--repo", repo, *PR_ARGS, *extra)
    assert result.exit_code == 0, result.output
    return _json(result)


def test_a_first_change_reads_like_one(tmp_path: Path) -> None:
    report = _pr_report(fixture_repo(tmp_path / "repo"), "--bridge", "compat")
    assert report["kind"] == "first change"
    assert report["title"] == "feat(mcp-apps): keep each app's state in the URL (appState deep links)"
    assert [c["group"] for c in report["commits"]] == ["app-state-format", "bridge-plumbing", "render-sites", "search-schema"]


def test_a_migration_says_from_to_and_why(tmp_path: Path) -> None:
    repo = _applied(tmp_path)  # compat mode, merged
    report = _pr_report(repo, "--bridge", "sdk")
    assert report["kind"] == "migration"
    assert report["title"] == "refactor(mcp-apps): migrate the state-changed wiring to sdk mode"
    body = report["body"]
    assert body.startswith("## What is this contribution about?\n\nThe checkout has the appState feature wired in")
    assert "wired in compat mode, 1.x form; this migrates it to sdk mode" in body
    assert "Why: sdk" in body and "--bridge sdk was given" in body
    assert [c["subject"] for c in report["commits"]] == ["refactor(mcp-apps): migrate the state-changed wiring to sdk mode"]


def test_an_upgrade_names_the_release_and_its_changelog_entries(tmp_path: Path) -> None:
    from codemods import __version__

    from . import earlier_release

    with earlier_release.recorded():
        repo = earlier_release.as_written(_applied(tmp_path))
        commit_all(repo, "mesh with an earlier release's appState merged")
        report = _pr_report(repo, "--bridge", "compat")
    was = earlier_release.VERSION
    assert report["kind"] == "upgrade"
    assert report["title"] == f"fix(mcp-apps): upgrade appState to mesh-codemod {__version__} (from {was})"
    body = report["body"]
    assert f"The checkout holds what mesh-codemod {was}" in body
    assert f"What changed since {was} (mesh-codemod's CHANGELOG.md):" in body
    assert f"- **{__version__}**" in body and "- **0.5.0**" not in body
    [commit] = report["commits"]
    message = git(repo, "log", "-1", "--format=%B", commit["sha"])
    assert f"These files hold what mesh-codemod {was} wrote;" in message


def test_a_completion_is_one_commit_that_says_so_and_lists_edited_files(tmp_path: Path) -> None:
    repo = _applied(tmp_path)
    tests = repo / TESTS_FILE
    tests.write_text(tests.read_text() + "// our own extra case\n")
    git(repo, "checkout", "HEAD~1", "--", "apps/mesh/src/web/index.tsx")  # the route lost its param
    commit_all(repo, "a partial tree")
    report = _pr_report(repo, "--bridge", "compat")
    assert report["kind"] == "completion"
    assert report["title"] == "feat(mcp-apps): complete the appState deep links"
    [commit] = report["commits"]
    assert commit["subject"] == "feat(mcp-apps): complete the appState feature"
    assert [f["path"] for f in commit["files"]] == ["apps/mesh/src/web/index.tsx"]
    body = report["body"]
    assert body.startswith("## What is this contribution about?\n\nThe checkout has part of the appState feature")
    assert "- `apps/mesh/src/web/index.tsx` (modified)" in body
    # the team's extra case on this release's tests merges with nothing to
    # upgrade: the file is this release's, kept as the team has it
    assert TESTS_FILE not in json.dumps(commit["files"]) and "// our own extra case" in (repo / TESTS_FILE).read_text()


def test_the_sdk_checkout_skips_steps_but_has_no_bridge_to_pin(tmp_path: Path) -> None:
    import shutil

    from .support import ROOT

    repo = tmp_path / "sdk"
    shutil.copytree(ROOT / "fixtures/sdk/shape-b/input", repo)
    (repo / ".mesh-codemod.toml").write_text('skip = ["app"]\n')
    report = _json(invoke("apply", "--repo", repo, "--json", "--dry-run"))
    assert _steps(report)["app"]["status"] == "skipped" and "src/app.ts" not in {f["path"] for f in report["files"]}
    (repo / ".mesh-codemod.toml").write_text('bridge = "sdk"\n')
    result = invoke("apply", "--repo", repo, "--dry-run")
    assert result.exit_code == 2
    assert ".mesh-codemod.toml: bridge: only a mesh checkout has a bridge mode and form to pin" in result.output


def test_skip_all_is_a_permanent_no(tmp_path: Path) -> None:
    repo = fixture_repo(tmp_path / "repo")
    (repo / ".mesh-codemod.toml").write_text('skip = ["*"]  # not for us\n')
    commit_all(repo, "chore: no appState from mesh-codemod")
    before = snapshot(repo)
    check = invoke("apply", "--repo", repo, "--check")
    steps = _host_steps()
    assert check.exit_code == 0 and f"{steps} by the team's decision" in check.output
    patch = invoke("patch", "--repo", repo, "--out", tmp_path / "out", "--author", BOT, "--json")
    assert patch.exit_code == 0 and _json(patch)["commits"] == []
    assert len(_json(patch)["left_alone"]) == steps
    assert snapshot(repo) == before
