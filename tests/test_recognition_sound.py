"""Recognition compares soundly (SPEC 8, issue 28): a team's edit that
changes meaning, however small (a comment, a hole, a line break before
`=>`), is an edit, never "the tool's own output modulo layout", so an
upgrade or a migration never overwrites it.

Each case makes the edit on a checkout the tool wrote, through the command
line: the edited created file of an earlier release is left alone (not
upgraded), and an earlier form of a statement the team edited is refused
(not migrated). Release 0.4.0's comparison took every one of these edits
for layout and replaced it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .support import FIXTURES, snapshot
from .test_recognition import BRIDGE, MODULE, WIRINGS, _ask_for_sdk, _run, wired

TESTS = "apps/mesh/src/mcp-apps/app-state.test.ts"

# (file, the written text, the team's text): each was equal modulo layout in 0.4.0
CREATED_EDITS = {
    "pure-comment-in-added-parentheses": (
        MODULE,
        b"const encoded = bytesToBase64Url(new TextEncoder().encode(json));",
        b"const encoded = (/* @__PURE__ */ bytesToBase64Url(new TextEncoder().encode(json)));",
    ),
    "ts-ignore-in-added-parentheses": (
        MODULE,
        b"const encoded = bytesToBase64Url(new TextEncoder().encode(json));",
        b"const encoded = (\n    // @ts-ignore\n    bytesToBase64Url(new TextEncoder().encode(json))\n  );",
    ),
    "a-line-break-before-an-arrow": (
        MODULE,
        b"Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));",
        b"Uint8Array.from(atob(padded), (c)\n    => c.charCodeAt(0));",
    ),
    "a-hole": (TESTS, b'filters: ["open", "mine"]', b'filters: [, "open", "mine"]'),
}


def _edit(repo: Path, path: str, old: bytes, new: bytes) -> None:
    data = (repo / path).read_bytes()
    assert data.count(old) == 1, f"the fixture no longer has {old!r} once in {path}"
    (repo / path).write_bytes(data.replace(old, new))


@pytest.mark.parametrize("case", sorted(CREATED_EDITS))
def test_an_edited_earlier_release_file_is_left_alone(case: str, tmp_path: Path) -> None:
    path, old, new = CREATED_EDITS[case]
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "release-0.1.0-compat" / "input", repo)
    _edit(repo, path, old, new)
    edited = (repo / path).read_bytes()
    result = _run(repo, "compat-1x", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (repo / path).read_bytes() == edited, f"{case}: the team's edit of {path} was overwritten"
    assert (path, "edited") in {(item["path"], item["why"]) for item in report["left_alone"]}, report["left_alone"]
    upgraded = {c["path"] for c in report["changes_of_form"] if c["where"] == "the file"}
    assert path not in upgraded, report["changes_of_form"]


def test_the_unedited_release_file_is_still_upgraded(tmp_path: Path) -> None:
    """The control: the same fixture without the edit is 0.1.0's output."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "release-0.1.0-compat" / "input", repo)
    result = _run(repo, "compat-1x", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    upgraded = {c["path"] for c in report["changes_of_form"] if c["kind"] == "upgrade" and c["where"] == "the file"}
    assert {MODULE, TESTS} <= upgraded, report["changes_of_form"]


# The 1.x registration, an earlier form when a checkout moves to the 2.x SDK.
HANDLER_EDITS = {
    "a-ts-ignore-line": (
        b"        this.config.onAppStateChange?.(state);",
        b"        // @ts-ignore\n        this.config.onAppStateChange?.(state);",
    ),
    "pure-comment-in-added-parentheses": (
        b"this.appStateJson = JSON.stringify(state);",
        b"this.appStateJson = (/* @__PURE__ */ JSON.stringify(state));",
    ),
    "a-comment-before-the-semicolon": (
        b"this.config.onAppStateChange?.(state);\n      },\n    );",
        b"this.config.onAppStateChange?.(state);\n      },\n    ) /* eslint-disable-line */;",
    ),
}


@pytest.mark.parametrize("case", sorted(HANDLER_EDITS))
def test_an_edited_earlier_form_is_not_migrated(case: str, tmp_path: Path) -> None:
    old, new = HANDLER_EDITS[case]
    repo = wired(tmp_path / "repo", "compat-1x")
    _edit(repo, BRIDGE, old, new)
    _ask_for_sdk(repo, WIRINGS["compat-2x"][1])  # as _run does: the checkout moves to the 2.x SDK
    before = snapshot(repo)
    result = _run(repo, "compat-2x")
    assert result.exit_code == 3, result.output
    assert "changed since mesh-codemod wrote it" in result.output, result.output
    assert snapshot(repo) == before


def test_the_unedited_earlier_form_is_migrated(tmp_path: Path) -> None:
    repo = wired(tmp_path / "repo", "compat-1x")
    result = _run(repo, "compat-2x", "--json")
    assert result.exit_code == 0, result.output
    assert {c["kind"] for c in json.loads(result.stdout)["changes_of_form"]} == {"migrate"}
