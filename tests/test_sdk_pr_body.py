"""The PR body for the SDK's maintainers (SPEC section 7): the SEP text
changed, the API in the revision's shape, compatibility, how the generated
files were made and how it was verified."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .gitrepo import BOT, commit_all, git
from .sdk_support import SDK_FIXTURES
from .support import invoke


def _body(tmp_path: Path, shape: str, edit=None) -> str:
    repo = tmp_path / shape
    shutil.copytree(SDK_FIXTURES / shape / "input", repo)
    if edit:
        edit(repo)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "sdk-shaped fixture")
    out = tmp_path / "PR.md"
    result = invoke("pr", "--repo", repo, "--branch", "codemod/app-state", "--author", BOT, "--no-verify", "--body-out", out)
    assert result.exit_code == 0, result.output
    return out.read_text()


@pytest.mark.parametrize(("shape", "letter", "wiring"), [
    ("shape-a", "A", "`AppBridge.onstatechange`, a setter registering the schema with `setNotificationHandler`"),
    ("shape-b", "B", "the `statechange` event (event map and `eventSchemas` entry) and the `AppBridge.onstatechange`"),
    ("shape-c", "C", "the `statechange` event (event map and `eventSchemas` entry), for `addEventListener"),
])
def test_the_body_speaks_to_the_sdk_maintainers(shape: str, letter: str, wiring: str, tmp_path: Path) -> None:
    body = _body(tmp_path, shape)
    assert "## The SEP text\n\n`specification/draft/apps.mdx` (the draft;" in body
    assert "`specification/2026-01-26/` are not touched" in body
    assert f"## The API (this revision's shape {letter})" in body
    assert f"`src/app-bridge.ts`: {wiring}" in body
    assert ("`AppBridge.onstatechange`" in body) == (letter != "C")
    assert ("no `onstatechange` accessor" in body) == (letter == "C")
    assert "`App.sendStateChanged(params)`" in body
    assert ('guarded by `this._assertInitialized("sendStateChanged")`' in body) == (letter == "C")
    assert "A host that ignores `ui/notifications/state-changed` is unaffected" in body
    assert "An app that never sends it is unaffected" in body
    assert "Written in the generator's style" in body and "`npm run generate:schemas`" in body
    assert "## Verification\n\nNot run (`--no-verify`)." in body
    assert "## Bridge mode" not in body and "## Layout" not in body
    assert body.index("## The SEP text") < body.index("## The API") < body.index("## Compatibility") < body.index("## Commits")
    assert "spec(draft): add ui/notifications/state-changed" in body


def test_a_revision_without_the_draft_says_why_the_sep_text_is_not_changed(tmp_path: Path) -> None:
    body = _body(tmp_path, "shape-c", lambda repo: shutil.rmtree(repo / "specification"))
    assert "Not changed: no specification/draft/apps.mdx in this revision" in body
    assert "spec(draft)" not in body
