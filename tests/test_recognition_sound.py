"""Recognition compares soundly (SPEC 8, issue 28): a team's edit that
changes meaning, however small (a comment, a hole, a line break before
`=>`), is an edit, never "the tool's own output modulo layout", so an
upgrade or a migration never overwrites it.

Each case makes the edit on a checkout the tool wrote, through the command
line: the edited created file of an earlier release (the test's own,
tests/earlier_release.py) is merged keeping the team's line, or, where the
upgrade rewrites that line, left alone and named (the three-way merge),
never upgraded as if unedited; and an earlier form of a statement the team
edited away from the lines the migration changes is migrated by a merge that
keeps the edit byte for byte, or refused where it would not.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codemods import __version__

from . import earlier_release
from .support import snapshot
from .test_recognition import BRIDGE, MODULE, WIRINGS, _ask_for_sdk, _run, wired

TESTS = "apps/mesh/src/mcp-apps/app-state.test.ts"

# (file, the written text, the team's text, what the upgrade does): "merged"
# keeps the team's line byte for byte in this release's text; "conflict" is
# an edit of the line the upgrade rewrites: the file is left alone, named.
CREATED_EDITS = {
    "pure-comment-in-added-parentheses": (
        MODULE,
        b"const bytes = new TextEncoder().encode(json);",
        b"const bytes = (/* @__PURE__ */ new TextEncoder().encode(json));",
        "merged",
    ),
    "ts-ignore-in-added-parentheses": (
        MODULE,
        earlier_release.CHANGES[0][3].encode(),
        b"const warnedOverCap: Set<string> = (\n  // @ts-ignore\n  new Set()\n);",
        "conflict",
    ),
    # a line break before `=>` is a syntax error (tree-sitter accepts it)
    "a-line-break-before-an-arrow": (
        MODULE,
        b"Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));",
        b"Uint8Array.from(atob(base64), (c)\n    => c.charCodeAt(0));",
        "merged",
    ),
    "a-hole": (TESTS, b'filters: ["open"]', b'filters: [, "open"]', "merged"),
}


def _edit(repo: Path, path: str, old: bytes, new: bytes) -> None:
    data = (repo / path).read_bytes()
    assert data.count(old) == 1, f"the fixture no longer has {old!r} once in {path}"
    (repo / path).write_bytes(data.replace(old, new))


@pytest.mark.parametrize("case", sorted(CREATED_EDITS))
def test_an_edited_earlier_release_file_is_merged_or_left_alone(case: str, tmp_path: Path) -> None:
    """Never upgraded as if unedited."""
    path, old, new, outcome = CREATED_EDITS[case]
    with earlier_release.recorded():
        repo = earlier_release.as_written(wired(tmp_path / "repo", "compat-1x"))
        _edit(repo, path, old, new)
        line = (repo / path).read_bytes().index(new)
        line = (repo / path).read_bytes()[:line].count(b"\n") + 1
        edited = (repo / path).read_bytes()
        result = _run(repo, "compat-1x", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    if outcome == "merged":
        clean = (wired(tmp_path / "clean", "compat-1x") / path).read_bytes()
        assert clean.count(old) == 1, f"this release no longer writes {old!r} once in {path}"
        assert (repo / path).read_bytes() == clean.replace(old, new), f"{case}: the team's edit of {path} was not kept"
        assert any("three-way merge" in n for n in report["notices"]), report["notices"]
        assert path not in {item["path"] for item in report["left_alone"]}, report["left_alone"]
    else:
        assert (repo / path).read_bytes() == edited, f"{case}: the team's file was written"
        assert (path, "conflict") in {(item["path"], item["why"]) for item in report["left_alone"]}, report["left_alone"]
        found = re.search(
            rf"{re.escape(path)} was edited since mesh-codemod wrote it \({re.escape(earlier_release.VERSION)}, .*?\): "
            rf"the upgrade to {re.escape(__version__)}[^:]* conflicts with the edits at lines? (\d+)(?:-(\d+))?: left alone",
            "\n".join(report["notices"]),
        )
        assert found is not None, report["notices"]
        assert int(found[1]) <= line <= int(found[2] or found[1]), (found[0], line)


# The 1.x registration, an earlier form when a checkout moves to the 2.x SDK.
HANDLER_EDITS = {
    "a-ts-ignore-line": (
        b"        this.config.onAppStateChange?.(params.state);",
        b"        // @ts-ignore\n        this.config.onAppStateChange?.(params.state);",
    ),
    # a bundler drops a pure call whose value is unused: the report is gone
    "pure-comment-in-added-parentheses": (
        b"this.config.onAppStateChange?.(params.state);",
        b"(/* @__PURE__ */ this.config.onAppStateChange?.(params.state));",
    ),
    "a-comment-before-the-semicolon": (
        b"this.config.onAppStateChange?.(params.state);\n      },\n    );",
        b"this.config.onAppStateChange?.(params.state);\n      },\n    ) /* eslint-disable-line */;",
    ),
}


# Where the layout printer cannot take the team's comment, the merge is
# refused rather than dropping it.
REFUSED = {"a-comment-before-the-semicolon", "pure-comment-in-added-parentheses"}


@pytest.mark.parametrize("case", sorted(HANDLER_EDITS))
def test_an_edited_earlier_form_is_merged_keeping_the_edit_or_refused(case: str, tmp_path: Path) -> None:
    """Away from the lines the migration changes, the edit merges (SPEC 5a,
    a three-way merge): the team's bytes survive in the migrated handler;
    where they would not, the handler is refused. Never dropped as layout."""
    old, new = HANDLER_EDITS[case]
    repo = wired(tmp_path / "repo", "compat-1x")
    _edit(repo, BRIDGE, old, new)
    if case in REFUSED:
        _ask_for_sdk(repo, WIRINGS["compat-2x"][1])  # as _run does: the checkout moves to the 2.x SDK
        before = snapshot(repo)
        result = _run(repo, "compat-2x")
        assert result.exit_code == 3, result.output
        assert "bridge-store         refused" in result.output and BRIDGE in result.output, result.output
        assert snapshot(repo) == before
        return
    result = _run(repo, "compat-2x", "--json")
    assert result.exit_code == 0, result.output
    assert {c["kind"] for c in json.loads(result.stdout)["changes_of_form"]} == {"migrate"}
    assert "three-way merge, keeping the changes" in result.stdout, result.stdout
    clean = (wired(tmp_path / "clean", "compat-2x") / BRIDGE).read_bytes()
    assert clean.count(old) == 1, f"this release no longer writes {old!r} once in {BRIDGE}"
    assert (repo / BRIDGE).read_bytes() == clean.replace(old, new), f"{case}: the team's edit was not kept"


def test_the_unedited_earlier_form_is_migrated(tmp_path: Path) -> None:
    repo = wired(tmp_path / "repo", "compat-1x")
    result = _run(repo, "compat-2x", "--json")
    assert result.exit_code == 0, result.output
    assert {c["kind"] for c in json.loads(result.stdout)["changes_of_form"]} == {"migrate"}
