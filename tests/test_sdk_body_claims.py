"""Every sentence the SDK's PR body and commits say about the code is true
of the branch's diff (SPEC 7): the app-to-host union touched or left
alone, which notification senders check the handshake, how the generated
files were made, what is re-exported, which accessors and test cases were
added, and that what did not run says "not run". The claims are read from
the body as a reviewer reads them, and checked against `git diff` of the
branch, the base's sources and an independent run of the toolchain."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from .gitrepo import BOT, commit_all, git
from .node_tools import require_pinned_schemas
from .sdk_support import SDK_FIXTURES
from .support import invoke

BRANCH = "codemod/app-state"
SHAPES = ("shape-a", "shape-b", "shape-c", "shape-c-full")


def _pr(tmp_path: Path, shape: str) -> tuple[Path, str]:
    repo = tmp_path / shape
    shutil.copytree(SDK_FIXTURES / shape / "input", repo)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "sdk-shaped fixture")
    out = tmp_path / "PR.md"
    result = invoke("pr", "--repo", repo, "--branch", BRANCH, "--author", BOT, "--no-verify", "--body-out", out)
    assert result.exit_code == 0, result.output
    return repo, out.read_text()


def _added(repo: Path, path: str) -> list[str]:
    """The lines the branch adds to ``path``."""
    diff = git(repo, "diff", "main", BRANCH, "--", path)
    return [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]


def _change(body: str) -> dict[str, str]:
    """The body's "The change" list, by the file each item names first."""
    section = body[body.index("### The change"):body.index("## How Has This Been Tested?")]
    items = {}
    for line in section.splitlines():
        match = re.match(r"- `([^`]+)`", line)
        if match:
            items[match.group(1)] = line
    return items


def _method_body(source: str, name: str) -> str:
    start = re.search(rf"^  (?:async )?{name}\(", source, re.MULTILINE)
    assert start, name
    end = source.index("\n  }\n", start.start())
    return source[start.start():end]


@pytest.mark.parametrize("shape", SHAPES)
def test_the_body_says_only_what_the_diff_holds(shape: str, tmp_path: Path) -> None:
    require_pinned_schemas()
    repo, body = _pr(tmp_path, shape)
    change = _change(body)
    files = set(git(repo, "diff", "--name-only", "main", BRANCH).split())

    # every file the list names is in the diff
    for path in change:
        if path.endswith("/"):
            assert any(f.startswith(path) for f in files), path
        else:
            assert path in files, path

    # the union: gained where the body says so, untouched where it says deprecated
    types = change.get("src/types.ts", "")
    union_added = [line for line in _added(repo, "src/types.ts") if re.match(r"\s*\| McpUiStateChangedNotification\b", line)]
    base_types = git(repo, "show", "main:src/types.ts")
    if "union is deprecated in this revision and is left as it is" in types:
        assert union_added == [] and "@deprecated" in base_types[:base_types.index("export type AppNotification")][-300:]
        # and nothing imported for it: no import of the type that nothing uses
        assert not any(line.strip() == "McpUiStateChangedNotification," for line in _added(repo, "src/types.ts"))
    elif "union gains `McpUiStateChangedNotification`" in types:
        assert len(union_added) == 1
    else:
        assert union_added == []
    for name in re.findall(r"`(\w+)`", types.split("re-exports", 1)[-1].split(".")[0]):
        assert any(name in line for line in _added(repo, "src/types.ts")), name

    # the guard: which senders check the handshake, as the base's source says
    app = change.get("src/app.ts", "")
    guard_added = any('_assertInitialized("sendStateChanged")' in line for line in _added(repo, "src/app.ts"))
    assert ("checks the handshake first" in app) == guard_added
    base_app = git(repo, "show", "main:src/app.ts")
    alike = re.search(r"as ((?:`\w+`(?:, | and )?)+) do(?:es)?[;.]", app)
    unlike = re.search(r"; ((?:`\w+`(?:, | and )?)+) do(?:es)? not", app)
    for names, guarded in ((alike, True), (unlike, False)):
        for name in re.findall(r"`(\w+)`", names.group(1)) if names else []:
            assert ("_assertInitialized(" in _method_body(base_app, name)) == guarded, name
    if guard_added:
        senders = {m for m in re.findall(r"^  (?:async )?(send\w+|request\w+)\(", base_app, re.MULTILINE)
                   if "this.notification(" in _method_body(base_app, m)}
        named = set(re.findall(r"`(\w+)`", (alike.group(1) if alike else "") + (unlike.group(1) if unlike else "")))
        assert named == senders  # every other notification sender of the revision, said right

    # the bridge: an accessor only where the body says one was added
    bridge = change.get("src/app-bridge.ts", "")
    accessor_added = any("onstatechange" in line for line in _added(repo, "src/app-bridge.ts") if "*" not in line)
    assert ("no `onstatechange` accessor" in bridge) == (not accessor_added)

    # the test cases it lists are the ones added
    listed = re.findall(r'"([^"]+)"', change.get("src/app-bridge.test.ts", "").split(": ", 1)[-1])
    added_titles = re.findall(r'\bit\("([^"]+)"', "\n".join(_added(repo, "src/app-bridge.test.ts")))
    assert listed == added_titles

    # what did not run says "not run"; nothing ticked that did not run
    tested = body[body.index("## How Has This Been Tested?"):body.index("## Breaking Changes")]
    assert "were not run with this PR" in tested and "passed" not in tested
    assert "- [ ] New and existing tests pass locally" in body


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["shape-b", "shape-c-full"])
def test_the_report_line_on_the_generated_files_is_how_they_were_made(shape: str, tmp_path: Path) -> None:
    """"Regenerated with ts-to-zod ..." (the pinned toolchain) is said only when the
    branch's generated files are byte for byte what that toolchain makes of
    the branch's spec.types.ts, run here on its own; one line says it."""
    require_pinned_schemas()
    from codemods.recipes.base import Planned
    from codemods.recipes.sdk import pinned

    repo, body = _pr(tmp_path, shape)
    lines = [line for line in body.splitlines() if "src/generated/" in line and ("regenerated" in line or "edited" in line)]
    assert len(lines) == 1, lines
    assert "regenerated from the edited `src/spec.types.ts` with ts-to-zod 5.1.0" in lines[0]
    tip = tmp_path / "tip"
    git(repo, "worktree", "add", "-q", str(tip), BRANCH)
    spec = Planned("src/spec.types.ts", (tip / "src/spec.types.ts").read_bytes())
    made = pinned.regenerate(str(tip), spec, pinned.toolchain(), _run)
    assert made and all(made[path] == (tip / path).read_bytes() for path in made)
    log = git(repo, "log", "--format=%s%n%b%n----", f"main..{BRANCH}").split("----")
    commit = next(c for c in log if c.strip().startswith("feat: add ui/notifications/state-changed"))
    assert "regenerated from the edited src/spec.types.ts with ts-to-zod 5.1.0" in " ".join(commit.split())


def _run(command, cwd, timeout=600):
    import subprocess

    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_a_hand_edit_is_said_so_and_never_called_regenerated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codemods.recipes.sdk import pinned

    monkeypatch.setenv(pinned.ENV, str(tmp_path / "no-node-modules"))
    _, body = _pr(tmp_path, "shape-c")
    lines = [line for line in body.splitlines() if "src/generated/" in line and ("regenerated" in line or "edited" in line)]
    assert len(lines) == 1 and "was edited in the generator's style, not regenerated" in lines[0], lines
    assert "confirm with `npm run generate:schemas`" in lines[0]


def test_commit_bodies_are_plain_words_true_of_their_commit(tmp_path: Path) -> None:
    require_pinned_schemas()
    repo, _ = _pr(tmp_path, "shape-c-full")
    log = git(repo, "log", "--reverse", "--format=%s%n%b%n----", f"main..{BRANCH}")
    for conditional in ("where the revision", "unless", "only where", " if "):
        assert conditional not in log, conditional
    # the spec commit is also the spec PR's only commit: no "next commits" there
    spec = " ".join(git(repo, "log", "-1", "--format=%b", f"{BRANCH}-spec").split())
    assert "next commits" not in spec and "The SDK code that implements it comes in a change of its own." in spec
    subjects = git(repo, "log", "--reverse", "--format=%s", f"main..{BRANCH}").split("\n")
    assert subjects[:2] == ["spec(draft): add ui/notifications/state-changed", "feat: add ui/notifications/state-changed"]
    exports = " ".join(git(repo, "log", "--format=%b", "-1", f"{BRANCH}~2").split())
    assert "The AppNotification union is deprecated in this revision and is left as it is." in exports
    bridge = " ".join(git(repo, "log", "--format=%b", "-1", f"{BRANCH}~1").split())
    assert "as sendToolListChanged does; sendSizeChanged does not" in bridge
