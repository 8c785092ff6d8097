"""The command line through typer's test runner: outputs and exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import re
from pathlib import Path

import pytest

from .support import ROOT, invoke, snapshot

SDK_DTS = "apps/mesh/node_modules/@modelcontextprotocol/ext-apps/dist/src/app-bridge.d.ts"


def _install_fake_sdk(repo: Path, version: str, setter: bool, legacy: bool = False) -> None:
    """A hand-made SDK package: the bridge declarations only (``legacy``:
    the 2.x declaration of the 1.x registration as a legacy overload)."""
    package = repo / "apps/mesh/node_modules/@modelcontextprotocol/ext-apps"
    (package / "dist/src").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "@modelcontextprotocol/ext-apps", "version": version}))
    members = "set onsizechange(cb: unknown);\n" + (
        "set onappstatechange(cb: ((params: { state: unknown }) => void) | undefined);\n" if setter else ""
    )
    if legacy:
        members += "setNotificationHandler: LegacyNotificationHandlerSetter<unknown>;\n"
    (package / "dist/src/app-bridge.d.ts").write_text(f"export declare class AppBridge {{\n{members}}}\n")


def test_list_names_every_step_of_every_target() -> None:
    result = invoke("list")
    assert result.exit_code == 0
    ids = [line.split()[0] for line in result.stdout.splitlines() if line.startswith("  ")]
    targets = [line.split(":")[0] for line in result.stdout.splitlines() if line and not line.startswith(" ")]
    assert targets == ["host", "sdk"]
    assert ids == [
        "app-state-module", "app-state-tests", "bridge-store", "bridge-store-tests", "iframe-renderer",
        "app-state-hook", "app-state-hook-tests", "tool-call-part", "panel-app-view", "search-schema",
        "spec", "spec-types", "schema", "schema-test", "schema-json", "types", "app-bridge", "app", "bridge-examples", "app-examples", "bridge-test",
        "docs-patterns-examples", "docs-patterns", "docs-migrate",
    ]
    rows = __import__("json").loads(invoke("list", "--json").stdout)
    assert {(r["target"], r["id"]) for r in rows} >= {("host", "bridge-store"), ("sdk", "app-bridge")}


def test_dry_run_prints_a_diff_and_writes_nothing(host_tree) -> None:
    repo = host_tree()
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo, "--dry-run")
    assert result.exit_code == 0, result.output
    assert snapshot(repo) == before
    assert result.stdout.startswith("diff --git a/apps/mesh/src/mcp-apps/app-state.ts")
    assert "\x1b[" not in result.stdout, "piped output must not be colored"
    assert result.stdout.count("diff --git") == 10
    assert "bridge: compat, 1.x form (no installed @modelcontextprotocol/ext-apps found" in result.stderr
    assert "nothing written" in result.stderr


def test_dry_run_diff_applies_with_git(host_tree) -> None:
    repo = host_tree()
    patch = invoke("apply", "--repo", repo, "--dry-run").stdout
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "apply", "--check", "-"], input=patch.encode(), cwd=repo, check=True)
    subprocess.run(["git", "apply", "-"], input=patch.encode(), cwd=repo, check=True)
    assert invoke("apply", "--repo", repo, "--check").exit_code == 0


def test_check_exits_1_while_pending_and_0_once_applied(host_tree) -> None:
    repo = host_tree()
    before = snapshot(repo)
    pending = invoke("apply", "--repo", repo, "--check")
    assert pending.exit_code == 1
    assert snapshot(repo) == before
    assert invoke("apply", "--repo", repo).exit_code == 0
    done = invoke("apply", "--repo", repo, "--check")
    assert done.exit_code == 0
    assert "nothing to do" in done.stderr


def test_apply_reports_each_step(host_tree) -> None:
    repo = host_tree()
    first = invoke("apply", "--repo", repo)
    assert first.stderr.count(" applied ") == 10
    second = invoke("apply", "--repo", repo)
    assert second.stderr.count("already there") == 10


def test_files_with_the_same_layout_share_one_line(host_tree) -> None:
    result = invoke("apply", "--repo", host_tree(), "--check", "--formatter", "none")
    layout = [line for line in result.stderr.splitlines() if "layout" in line]
    assert layout == ["  layout: built-in for all 10 files (no formatter: --formatter none)"], layout


def test_json_report(host_tree) -> None:
    repo = host_tree()
    result = invoke("apply", "--repo", repo, "--json", "--dry-run")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["target"] == "host"
    assert report["bridge"]["mode"] == "compat"
    assert report["written"] is False
    assert {s["status"] for s in report["steps"]} == {"applied"}
    assert {f["change"] for f in report["files"]} == {"created", "modified"}
    assert report["diff"].count("diff --git") == 10


def test_only_runs_the_named_steps(host_tree) -> None:
    repo = host_tree()
    result = invoke("apply", "--repo", repo, "--only", "search-schema", "--only", "iframe-renderer", "--json")
    report = json.loads(result.stdout)
    statuses = {s["step"]: s["status"] for s in report["steps"]}
    assert statuses["search-schema"] == "applied"
    assert statuses["iframe-renderer"] == "applied"
    assert statuses["bridge-store"] == "skipped"
    assert sorted(f["path"] for f in report["files"]) == [
        "apps/mesh/src/mcp-apps/mcp-app-renderer.tsx",
        "apps/mesh/src/web/index.tsx",
    ]


def test_status_after_partial_apply(host_tree) -> None:
    repo = host_tree()
    invoke("apply", "--repo", repo, "--only", "search-schema")
    result = invoke("status", "--repo", repo, "--json")
    assert result.exit_code == 0
    states = {s["step"]: s["status"] for s in json.loads(result.stdout)["steps"]}
    assert states["search-schema"] == "applied"
    assert states["bridge-store"] == "pending"


@pytest.mark.parametrize(
    "args",
    [
        ["apply", "--only", "no-such-step"],
        ["apply", "--dry-run", "--check"],
        ["apply", "--bridge", "magic"],
        ["apply", "--no-such-flag"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2(host_tree, args) -> None:
    repo = host_tree()
    before = snapshot(repo)
    result = invoke(*args, "--repo", repo) if args[0] == "apply" else invoke(*args)
    assert result.exit_code == 2, result.output
    assert snapshot(repo) == before


def test_a_bad_choice_is_named_plainly(host_tree) -> None:
    result = invoke("apply", "--repo", host_tree(), "--bridge", "bogus")
    assert result.exit_code == 2
    message = " ".join(line.strip("│ ") for line in result.output.splitlines())
    assert "Invalid value for '--bridge': 'bogus' is not one of 'auto', 'sdk', 'compat'." in message
    assert "Value error" not in message


@pytest.mark.parametrize("command", [[], ["apply"], ["status"], ["patch"], ["pr"], ["verify"]])
def test_help_shows_no_value_for_a_flag(command: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    result = invoke(*command, "--help")
    assert result.exit_code == 0
    assert "<bool>" not in result.output
    flags = [line for line in result.output.splitlines() if re.search(r"│\s+(\*\s+)?--(help|json|version|dry-run|check)\b", line)]
    assert flags and all(re.search(r"--[\w-]+\s{2,}[A-Z]", line) for line in flags), flags


def test_verify_help_keeps_its_sentence_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = invoke("verify", "--help")
    text = " ".join(line.strip() for line in result.output.splitlines())
    assert "type check against the unpatched tree, tests" in text


def test_unrecognised_directory_is_refused(tmp_path: Path) -> None:
    result = invoke("apply", "--repo", tmp_path)
    assert result.exit_code == 3
    assert "not a recognised target" in result.stderr
    missing = invoke("apply", "--repo", tmp_path / "nope")
    assert missing.exit_code == 3
    assert "no such directory" in missing.stderr


def test_sdk_checkout_without_its_sources_is_refused(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "@modelcontextprotocol/ext-apps"}')
    result = invoke("apply", "--repo", tmp_path)
    assert result.exit_code == 3
    assert "target: sdk" in result.stderr
    assert "src/spec.types.ts" in result.stderr and "file not found" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["package.json"]


def test_refusal_names_anchor_and_file_and_writes_nothing(tmp_path: Path) -> None:
    from .support import FIXTURES
    import shutil

    repo = tmp_path / "old"
    shutil.copytree(FIXTURES / "before-schema" / "input", repo)
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo)
    assert result.exit_code == 3
    assert "apps/mesh/src/web/index.tsx" in result.stderr
    assert "unifiedChatSearchSchema" in result.stderr
    assert snapshot(repo) == before
    report = json.loads(invoke("apply", "--repo", repo, "--json").stdout)
    refused = [s for s in report["steps"] if s["status"] == "refused"]
    assert refused == [{
        "step": "search-schema",
        "path": "apps/mesh/src/web/index.tsx",
        "status": "refused",
        "reason": refused[0]["reason"],
        "kind": "anchor-missing",
    }]


def test_missing_target_file_is_refused(host_tree) -> None:
    repo = host_tree()
    (repo / "apps/mesh/src/web/routes/project-app-view.tsx").unlink()
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo)
    assert result.exit_code == 3
    assert "project-app-view.tsx" in result.stderr and "file not found" in result.stderr
    assert snapshot(repo) == before


def test_syntax_error_in_target_is_refused(host_tree) -> None:
    repo = host_tree()
    target = repo / "apps/mesh/src/mcp-apps/mcp-app-renderer.tsx"
    target.write_text(target.read_text().replace("interface MCPAppRendererProps {", "interface MCPAppRendererProps {{", 1))
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo)
    assert result.exit_code == 3
    assert "mcp-app-renderer.tsx" in result.stderr and "syntax error" in result.stderr
    assert snapshot(repo) == before


@pytest.mark.parametrize(("setter", "mode"), [(True, "sdk"), (False, "compat")])
def test_auto_bridge_follows_the_installed_sdk(host_tree, setter: bool, mode: str) -> None:
    repo = host_tree()
    _install_fake_sdk(repo, "1.9.9", setter)
    result = invoke("apply", "--repo", repo, "--json", "--dry-run")
    report = json.loads(result.stdout)
    assert report["bridge"]["mode"] == mode
    assert "1.9.9" in report["bridge"]["reason"]
    # exactly what it declares: the accessor, not this project's proposed names
    wired = "bridge.onappstatechange = (params) =>" if setter else "setNotificationHandler("
    assert wired in report["diff"]


def test_explicit_bridge_overrides_detection(host_tree) -> None:
    repo = host_tree()
    _install_fake_sdk(repo, "1.9.9", True)
    result = invoke("apply", "--repo", repo, "--bridge", "compat", "--dry-run")
    assert "bridge: compat, 1.x form (--bridge compat was given; the installed SDK is 1.9.9)" in result.stderr
    assert "StateChangedNotificationSchema" in result.stdout


@pytest.mark.parametrize(
    ("version", "legacy", "manifest", "form"),
    [
        ("2.0.4", True, "^2.0.4", "2.x"),  # the declarations say so
        ("3.1.0", False, "^3.0.0", "2.x"),  # a later major: the method-name form
        ("1.7.1", False, "^2.0.4", "2.x"),  # a stale install: the range asked for
        ("1.7.1", False, None, "1.x"),
        (None, False, "^2.0.4", "2.x"),  # nothing installed: the range asked for
        (None, False, "~1.7.1", "1.x"),
    ],
)
def test_compat_form_follows_the_sdk_major_version(host_tree, version, legacy, manifest, form: str) -> None:
    repo = host_tree()
    if version:
        _install_fake_sdk(repo, version, False, legacy)
    if manifest:
        path = repo / "apps/mesh/package.json"
        data = json.loads(path.read_text())
        data["dependencies"]["@modelcontextprotocol/ext-apps"] = manifest
        path.write_text(json.dumps(data))
    result = invoke("apply", "--repo", repo, "--json", "--dry-run")
    report = json.loads(result.stdout)
    assert report["bridge"]["mode"] == "compat"
    assert report["bridge"]["form"] == form
    assert (version or manifest) in report["bridge"]["form_reason"]
    two = '+      "ui/notifications/state-changed",\n+      { params: StateChangedParamsSchema },'
    assert (two in report["diff"]) == (form == "2.x")
    assert ("+      StateChangedNotificationSchema," in report["diff"]) == (form == "1.x")


def test_switching_modes_on_an_applied_tree_migrates(host_tree, tmp_path: Path) -> None:
    """compat -> sdk on an applied tree: the handler and what only it used
    are replaced, the report says so, and the result is the sdk output of a
    clean tree; --check exits 1 while the migration is pending."""
    repo = host_tree()
    clean = tmp_path / "clean"
    shutil.copytree(repo, clean)
    assert invoke("apply", "--repo", repo, "--bridge", "compat").exit_code == 0
    assert invoke("apply", "--repo", clean, "--bridge", "sdk").exit_code == 0
    check = invoke("apply", "--repo", repo, "--bridge", "sdk", "--check")
    assert check.exit_code == 1
    assert "migrate lines" in check.stderr
    assert 'sdk mode (bridge.addEventListener("statechange"), params.state)' in check.stderr
    report = json.loads(invoke("apply", "--repo", repo, "--bridge", "sdk", "--json").stdout)
    kinds = {(c["path"].rsplit("/", 1)[-1], c["kind"]) for c in report["changes_of_form"]}
    assert kinds == {("app-state.ts", "migrate"), ("use-app-bridge.ts", "migrate")}
    assert all(c["why"].startswith("sdk: bridge.addEventListener(\"statechange\"), params.state (--bridge sdk was given;")
               for c in report["changes_of_form"])
    assert sorted(f["path"].rsplit("/", 1)[-1] for f in report["files"]) == ["app-state.ts", "use-app-bridge.ts"]
    assert snapshot(repo) == snapshot(clean)


def test_module_entry_point_and_console_script() -> None:
    for command in ([sys.executable, "-m", "codemods", "list"], [str(Path(sys.executable).parent / "mesh-codemod"), "list"]):
        result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        assert result.returncode == 0, result.stderr
        assert "search-schema" in result.stdout


def test_console_script_flushes_everything_and_keeps_the_exit_code(host_tree, tmp_path: Path) -> None:
    """The console script prints all the command printed and exits with
    its code."""
    repo = host_tree()
    script = str(Path(sys.executable).parent / "mesh-codemod")
    dry = subprocess.run([script, "apply", "--repo", str(repo), "--dry-run"], capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout == invoke("apply", "--repo", repo, "--dry-run").stdout
    assert dry.stderr.rstrip().endswith("nothing written")
    check = subprocess.run([script, "apply", "--repo", str(repo), "--check"], capture_output=True, text=True)
    assert check.returncode == 1
    refused = subprocess.run([script, "apply", "--repo", str(tmp_path / "nowhere")], capture_output=True, text=True)
    assert refused.returncode == 3 and "no such directory" in refused.stderr
    # a reader that stops early: no traceback; the command's own exit code,
    # or typer's 1 for the closed pipe
    shell = subprocess.run(
        f"'{script}' apply --repo '{repo}' --dry-run | head -c 10 >/dev/null; echo \"${{PIPESTATUS[0]}}\"",
        shell=True, executable="/bin/bash", capture_output=True, text=True,
    )
    assert "Traceback" not in shell.stderr
    assert shell.stdout.strip() in {"0", "1"}
