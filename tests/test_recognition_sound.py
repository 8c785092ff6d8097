"""Recognition compares soundly (SPEC 8, issue 28): a team's edit that
changes meaning, however small (a comment, a hole, a line break before
`=>`), is an edit, never "the tool's own output modulo layout", so an
upgrade or a migration never overwrites it.

Each case makes the edit on a checkout the tool wrote, through the command
line: the edited created file of an earlier release is merged keeping the
team's line, or, where the upgrade rewrites that line, refused naming it
(issue 30's three-way merge), never upgraded as if unedited; and an earlier
form of a statement the team edited is refused (not migrated). Release
0.4.0's comparison took every one of these edits for layout and replaced it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from codemods import __version__

from .support import FIXTURES, snapshot
from .test_recognition import BRIDGE, MODULE, WIRINGS, _ask_for_sdk, _run, wired

TESTS = "apps/mesh/src/mcp-apps/app-state.test.ts"

# (file, the written text, the team's text, what 0.5.0 does): each was equal
# modulo layout in 0.4.0. Since issue 30 an edited created file is upgraded
# by a three-way merge: "merged" keeps the team's line byte for byte in this
# release's text; "conflict" is an edit on lines the upgrade rewrites (0.5.0's
# module has no `const encoded`; its tests changed around the filters), and
# since this release's files import the upgrade's exports the run refuses,
# naming the lines, and writes nothing.
CREATED_EDITS = {
    "pure-comment-in-added-parentheses": (
        MODULE,
        b"const encoded = bytesToBase64Url(new TextEncoder().encode(json));",
        b"const encoded = (/* @__PURE__ */ bytesToBase64Url(new TextEncoder().encode(json)));",
        "conflict",
    ),
    "ts-ignore-in-added-parentheses": (
        MODULE,
        b"const encoded = bytesToBase64Url(new TextEncoder().encode(json));",
        b"const encoded = (\n    // @ts-ignore\n    bytesToBase64Url(new TextEncoder().encode(json))\n  );",
        "conflict",
    ),
    # a line break before `=>` is a syntax error (tree-sitter accepts it)
    "a-line-break-before-an-arrow": (
        MODULE,
        b"Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));",
        b"Uint8Array.from(atob(padded), (c)\n    => c.charCodeAt(0));",
        "merged",
    ),
    "a-hole": (TESTS, b'filters: ["open", "mine"]', b'filters: [, "open", "mine"]', "conflict"),
}


def _edit(repo: Path, path: str, old: bytes, new: bytes) -> None:
    data = (repo / path).read_bytes()
    assert data.count(old) == 1, f"the fixture no longer has {old!r} once in {path}"
    (repo / path).write_bytes(data.replace(old, new))


@pytest.mark.parametrize("case", sorted(CREATED_EDITS))
def test_an_edited_earlier_release_file_is_merged_or_refused(case: str, tmp_path: Path) -> None:
    """Never upgraded as if unedited (0.4.0 wrote this release's text over it)."""
    path, old, new, outcome = CREATED_EDITS[case]
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "release-0.1.0-compat" / "input", repo)
    _edit(repo, path, old, new)
    line = (repo / path).read_bytes().index(new)
    line = (repo / path).read_bytes()[:line].count(b"\n") + 1
    _ask_for_sdk(repo, WIRINGS["compat-1x"][1])
    before = snapshot(repo)
    result = _run(repo, "compat-1x", "--json")
    report = json.loads(result.stdout)
    if outcome == "merged":
        assert result.exit_code == 0, result.output
        clean = (wired(tmp_path / "clean", "compat-1x") / path).read_bytes()
        assert clean.count(old) == 1, f"this release no longer writes {old!r} once in {path}"
        assert (repo / path).read_bytes() == clean.replace(old, new), f"{case}: the team's edit of {path} was not kept"
        assert any("three-way merge" in n for n in report["notices"]), report["notices"]
        assert path not in {item["path"] for item in report["left_alone"]}, report["left_alone"]
    else:
        assert result.exit_code == 3, result.output
        assert snapshot(repo) == before, f"{case}: the checkout was written"
        assert any(s["status"] == "refused" and s["kind"] == "conflict" for s in report["steps"]), report["steps"]
        found = re.search(
            rf"{re.escape(path)} was edited since mesh-codemod wrote it \(0\.1\.0[^)]*\): "
            rf"the upgrade to {re.escape(__version__)}[^:]* conflicts with the edits at lines? (\d+)(?:-(\d+))?: left alone",
            result.output,
        )
        assert found is not None, result.output
        assert int(found[1]) <= line <= int(found[2] or found[1]), (found[0], line)


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
        b"        this.reportAppState(params.state ?? undefined);",
        b"        // @ts-ignore\n        this.reportAppState(params.state ?? undefined);",
    ),
    # a bundler drops a pure call whose value is unused: the report is gone
    "pure-comment-in-added-parentheses": (
        b"this.reportAppState(params.state ?? undefined);",
        b"(/* @__PURE__ */ this.reportAppState(params.state ?? undefined));",
    ),
    "a-comment-before-the-semicolon": (
        b"this.reportAppState(params.state ?? undefined);\n      },\n    );",
        b"this.reportAppState(params.state ?? undefined);\n      },\n    ) /* eslint-disable-line */;",
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
