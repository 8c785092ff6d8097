"""Faults tried and survived: every case ends with a clear message, the
right exit code, and a tree that is exactly as it was (or exactly as
expected). Nothing here needs a network or a real mesh checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from codemods.plan import writing
from codemods.plan.lock import repo_lock

from .support import FIXTURES, ROOT, fixture_tree, invoke, snapshot

BRIDGE = "apps/mesh/src/mcp-apps/use-app-bridge.ts"
RENDERER = "apps/mesh/src/mcp-apps/mcp-app-renderer.tsx"
PANEL = "apps/mesh/src/web/routes/project-app-view.tsx"
ROUTES = "apps/mesh/src/web/index.tsx"
GENERIC = "apps/mesh/src/web/components/chat/message/parts/tool-call-part/generic.tsx"
EXPECTED = FIXTURES / "newest" / "expected-compat"


def stats(root: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(root).as_posix(): (p.stat().st_mtime_ns, p.stat().st_mode)
        for p in root.rglob("*")
        if p.is_file()
    }


def refused(repo: Path, *words: str, args: tuple[str, ...] = ()) -> str:
    """Run apply, require exit 3, the words in the report, and no change."""
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo, "--bridge", "compat", *args)
    assert result.exit_code == 3, result.output
    for word in words:
        assert word in result.stderr, f"{word!r} missing from: {result.stderr}"
    assert snapshot(repo) == before, "a refused run wrote something"
    assert not list(repo.rglob("*.mesh-codemod")), "a temporary file was left behind"
    return result.stderr


# ---------------------------------------------------------------- atomic writes


class FailingReplace:
    """os.replace that fails on its n-th call, like a full disk or a crash."""

    def __init__(self, fail_on: int) -> None:
        self.calls = 0
        self.fail_on = fail_on
        self.real = os.replace

    def __call__(self, src, dst):
        self.calls += 1
        if self.calls == self.fail_on:
            raise OSError(28, "No space left on device (simulated)")
        return self.real(src, dst)


@pytest.mark.parametrize("fail_on", [1, 2, 4, 7])
def test_failure_after_some_renames_restores_every_file(host_tree, monkeypatch, fail_on: int) -> None:
    repo = host_tree()
    before = snapshot(repo)
    monkeypatch.setattr(writing.os, "replace", FailingReplace(fail_on))
    stderr = refused(repo, "nothing written", "No space left on device")
    assert "Traceback" not in stderr
    assert snapshot(repo) == before


def test_failure_while_staging_leaves_no_temporary_files(host_tree, monkeypatch) -> None:
    repo = host_tree()
    real_mkstemp = __import__("tempfile").mkstemp
    calls = {"n": 0}

    def mkstemp(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(122, "Disk quota exceeded (simulated)")
        return real_mkstemp(*args, **kwargs)

    monkeypatch.setattr("tempfile.mkstemp", mkstemp)
    refused(repo, "nothing written", "Disk quota exceeded")


def test_unchanged_files_keep_their_timestamp_and_mode(tmp_path: Path) -> None:
    repo = tmp_path / "partial"
    fixture_tree(FIXTURES / "partial", repo)
    styles = "apps/mesh/src/mcp-apps/host-styles.ts"
    (repo / RENDERER).chmod(0o600)
    (repo / styles).chmod(0o600)
    before = stats(repo)
    # the files the partial tree already has as this release writes them
    # (0.6.0's renderer, app-state.ts and routes are upgraded)
    expected = FIXTURES / "partial" / "expected-compat"
    same = {p for p in before if (expected / p).is_file() and (expected / p).read_bytes() == (repo / p).read_bytes()}
    assert {styles, "package.json"} <= same and RENDERER not in same
    assert invoke("apply", "--repo", repo, "--bridge", "compat").exit_code == 0
    after = stats(repo)
    # neither rewritten nor touched
    for path in sorted(same):
        assert after[path] == before[path], path
    # rewritten files keep their mode
    assert after[BRIDGE][1] == before[BRIDGE][1]
    assert after[RENDERER][1] == before[RENDERER][1]
    again = stats(repo)
    assert invoke("apply", "--repo", repo, "--bridge", "compat").exit_code == 0
    assert stats(repo) == again, "a run with nothing to do touched a file"


def test_modified_file_keeps_an_unusual_mode(host_tree) -> None:
    repo = host_tree()
    (repo / BRIDGE).chmod(0o640)
    assert invoke("apply", "--repo", repo).exit_code == 0
    assert (repo / BRIDGE).stat().st_mode & 0o777 == 0o640
    assert (repo / "apps/mesh/src/mcp-apps/app-state.ts").stat().st_mode & 0o777 == 0o644


# ---------------------------------------------------------------- bad input


def test_target_that_is_not_utf8(host_tree) -> None:
    repo = host_tree()
    path = repo / GENERIC
    path.write_bytes(b"// caf\xe9 (Latin-1, not UTF-8)\n" + path.read_bytes())
    refused(repo, "generic.tsx", "not UTF-8")
    import json

    report = json.loads(invoke("apply", "--repo", repo, "--json").stdout)
    kinds = {s["step"]: s.get("kind") for s in report["steps"]}
    assert kinds["tool-call-part"] == "not-utf8"


def test_read_only_target(host_tree) -> None:
    repo = host_tree()
    (repo / ROUTES).chmod(0o444)
    refused(repo, "index.tsx", "read-only")
    # reading is still fine: a dry run shows the change
    assert invoke("apply", "--repo", repo, "--dry-run").exit_code == 0


def test_read_only_folder(host_tree) -> None:
    repo = host_tree()
    folder = repo / "apps/mesh/src/mcp-apps"
    folder.chmod(0o555)
    try:
        refused(repo, "mcp-apps is read-only")
    finally:
        folder.chmod(0o755)


def test_symlink_pointing_outside_is_refused(host_tree, tmp_path: Path) -> None:
    repo = host_tree()
    outside = tmp_path / "elsewhere.tsx"
    shutil.copy(repo / ROUTES, outside)
    (repo / ROUTES).unlink()
    (repo / ROUTES).symlink_to(outside)
    original = outside.read_bytes()
    refused(repo, "index.tsx", "outside the checkout")
    assert outside.read_bytes() == original


def test_symlinked_folder_pointing_outside_is_refused_for_new_files(host_tree, tmp_path: Path) -> None:
    repo = host_tree()
    outside = tmp_path / "outside-apps"
    shutil.move(repo / "apps/mesh/src/mcp-apps", outside)
    (repo / "apps/mesh/src/mcp-apps").symlink_to(outside)
    refused(repo, "outside the checkout")
    assert not (outside / "app-state.ts").exists()


def test_symlink_inside_is_edited_at_its_target_once(host_tree) -> None:
    repo = host_tree()
    real = repo / "apps/mesh/src/web/routes/views/project-app-view.tsx"
    real.parent.mkdir()
    shutil.move(repo / PANEL, real)
    (repo / PANEL).symlink_to(Path("views/project-app-view.tsx"))
    result = invoke("apply", "--repo", repo, "--json")
    assert result.exit_code == 0, result.output
    assert (repo / PANEL).is_symlink()
    assert real.read_bytes() == (EXPECTED / PANEL).read_bytes()
    import json

    report = json.loads(result.stdout)
    panel = next(s for s in report["steps"] if s["step"] == "panel-app-view")
    assert panel["path"] == "apps/mesh/src/web/routes/views/project-app-view.tsx"
    assert any("link" in note for note in panel["notes"])
    assert invoke("apply", "--repo", repo, "--check").exit_code == 0


def test_anchor_present_twice(host_tree) -> None:
    repo = host_tree()
    path = repo / BRIDGE
    text = path.read_text()
    start = text.index("function buildHostContext(")
    end = text.index("\n}\n", start) + 3
    path.write_text(text + "\n" + text[start:end])
    refused(repo, "use-app-bridge.ts", "`buildHostContext` is defined more than once")


def test_anchor_in_an_unexpected_shape(host_tree) -> None:
    repo = host_tree()
    path = repo / ROUTES
    text = path.read_text()
    path.write_text(text.replace("const unifiedChatSearchSchema = z.object({", "const unifiedChatSearchSchema = z.lazy(() => z.object({", 1).replace(
        "const unifiedChatRoute", "// lazy\nconst unifiedChatRoute", 1
    ))
    # the edit above leaves a paren open; close it where the object ends
    text = path.read_text()
    start = text.index("z.lazy(() => z.object({")
    end = text.index("\n});\n", start)
    path.write_text(text[:end] + "\n}));\n" + text[end + 5:])
    refused(repo, "index.tsx", "`unifiedChatSearchSchema = z.object({...})` (it is `unifiedChatSearchSchema = z.lazy(...)`)")


def test_concurrent_run_waits_then_refuses(host_tree) -> None:
    repo = host_tree()
    with repo_lock(repo, timeout=0):
        refused(repo, "another mesh-codemod run", args=("--lock-timeout", "0.2"))
    assert invoke("apply", "--repo", repo, "--lock-timeout", "0").exit_code == 0


def test_second_run_waits_for_the_first(host_tree) -> None:
    repo = host_tree()
    release = threading.Event()

    def hold() -> None:
        with repo_lock(repo, timeout=0):
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        waiting = subprocess.Popen(
            [sys.executable, "-m", "codemods", "apply", "--repo", str(repo), "--lock-timeout", "30"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        with pytest.raises(subprocess.TimeoutExpired):
            waiting.wait(0.5)  # still waiting for the lock
        release.set()
        assert waiting.wait(30) == 0
    finally:
        release.set()
        holder.join()
    assert snapshot(repo) == snapshot(EXPECTED)


def test_two_simultaneous_runs_produce_one_correct_result(host_tree) -> None:
    repo = host_tree()
    runs = [
        subprocess.Popen([sys.executable, "-m", "codemods", "apply", "--repo", str(repo)], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=60) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    reports = sorted(err.decode().splitlines()[-1] for _, err in outputs)
    assert reports == ["nothing to do: every step is already applied", "wrote 11 file(s)"]
    assert snapshot(repo) == snapshot(EXPECTED)


# ---------------------------------------------------------------- fidelity


def test_bytes_outside_the_edits_survive(host_tree) -> None:
    """Trailing whitespace, tabs and odd blank lines elsewhere in a file are
    kept: the output equals the expected output with the same additions."""
    repo = host_tree()
    noise = {
        BRIDGE: ("const HOST_INFO", "const HOST_INFO", "  \t"),
        GENERIC: ('"use client";', '"use client";', "   "),
        ROUTES: ("import * as z", "import * as z", "\t"),
    }
    for path, (needle, _, tail) in noise.items():
        file = repo / path
        lines = file.read_bytes().split(b"\n")
        index = next(i for i, line in enumerate(lines) if line.startswith(needle.encode()))
        lines[index] += tail.encode()
        lines.insert(index, b"\t// tab-indented note")
        file.write_bytes(b"\n".join(lines))
    assert invoke("apply", "--repo", repo).exit_code == 0
    for path, (needle, _, tail) in noise.items():
        expected = (EXPECTED / path).read_bytes().split(b"\n")
        index = next(i for i, line in enumerate(expected) if line.startswith(needle.encode()))
        expected[index] += tail.encode()
        expected.insert(index, b"\t// tab-indented note")
        assert (repo / path).read_bytes() == b"\n".join(expected), path


# ---------------------------------------------------------------- moved files


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.mark.parametrize("use_git", [True, False], ids=["git", "walk"])
def test_moved_file_is_found_by_its_definition(host_tree, use_git: bool) -> None:
    repo = host_tree()
    moved = "apps/mesh/src/bridge/use-app-bridge.ts"
    if use_git:
        _git(repo, "init", "-q")
        _git(repo, "add", "-A")
        _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
        (repo / moved).parent.mkdir()
        _git(repo, "mv", BRIDGE, moved)
    else:
        (repo / moved).parent.mkdir()
        shutil.move(repo / BRIDGE, repo / moved)
    result = invoke("apply", "--repo", repo)
    assert result.exit_code == 0, result.output
    assert f"found {moved} (not at {BRIDGE})" in result.stderr
    # the schema stays in mcp-apps/types.ts, a folder the moved file has no
    # import from yet: named relatively, with .ts (CHANGELOG 0.7.0)
    expected = (EXPECTED / BRIDGE).read_text().replace('from "./types";', 'from "../mcp-apps/types.ts";', 1)
    assert (repo / moved).read_text() == expected
    # the module it imports is created beside it
    assert (repo / "apps/mesh/src/bridge/app-state.ts").read_bytes() == (EXPECTED / "apps/mesh/src/mcp-apps/app-state.ts").read_bytes()
    assert invoke("apply", "--repo", repo, "--check").exit_code == 0


def test_moved_file_defined_twice_is_refused(host_tree) -> None:
    repo = host_tree()
    for folder in ("apps/mesh/src/one", "apps/mesh/src/two"):
        (repo / folder).mkdir()
        shutil.copy(repo / BRIDGE, repo / folder / "use-app-bridge.ts")
    (repo / BRIDGE).unlink()
    refused(repo, "defined in more than one file", "apps/mesh/src/one/use-app-bridge.ts", "apps/mesh/src/two/use-app-bridge.ts")


def test_missing_file_with_no_definition_anywhere(host_tree) -> None:
    repo = host_tree()
    (repo / GENERIC).unlink()
    refused(repo, "generic.tsx", "file not found, and no file defines `export function GenericToolCallPart(`")
