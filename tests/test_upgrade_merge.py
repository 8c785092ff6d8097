"""Upgrades (SPEC 5a, "Earlier releases"): a file the tool created is
compared with what each release since the floor writes on the checkout.
Equal modulo layout: replaced with this release's output. Edited since: a
three-way merge by ``git merge-file`` (the earlier output as the base, the
team's file, this release's output), so a license header or an added
helper survives; a conflict leaves the file alone, named in the report,
`--check` and `status`. Output below the floor is not recognised.

This release is the floor: these tests register an earlier release
through the store (tests/earlier_release.py). Every expectation is
computed in the test: the clean result is what this release writes on a
clean checkout in the same run, with the team's lines put back where they
were."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from codemods import __version__
from codemods.engine.merge import differing_lines, merge
from codemods.recipes.host import releases

from . import earlier_release, perturb
from .earlier_release import ABOVE, CHANGES, HOOK_TESTS, MODULE, STORE_TESTS, TESTS, VERSION
from .node_tools import BIN, require
from .support import FIXTURES, fixture_files, fixture_tree, invoke, snapshot

BRIDGE = "apps/mesh/src/mcp-apps/use-app-bridge.ts"
HEADER = "// Copyright 2026 the Studio authors. SPDX-License-Identifier: Apache-2.0\n\n"
HELPER = (
    "\n/** Whether a search param holds some app state (the team's helper). */\n"
    "export function hasAppState(value: string | null): boolean {\n"
    "  return value !== null && value.length > 0;\n"
    "}\n"
)
# The module's line the upgrade changes, as the earlier release wrote it.
WAS = CHANGES[0][3]


@pytest.fixture
def earlier():
    """The store holds the earlier release for the test."""
    with earlier_release.recorded():
        yield


@pytest.fixture
def renamed():
    """The store holds an earlier release whose module lacks a name this
    release's files import (``APP_STATE_MAX_LENGTH``: it named the cap
    otherwise)."""
    with earlier_release.recorded(renamed=True):
        yield


# --- the merge itself -----------------------------------------------------------


def test_the_merge_takes_each_sides_changes_and_names_a_collision() -> None:
    base = "a\nb\nc\nd\ne\n"
    # ours adds a header and a last line, theirs changes a middle line
    assert merge(base, "h\na\nb\nc\nd\ne\nz\n", "a\nb\nC\nd\ne\n") == ("h\na\nb\nC\nd\ne\nz\n", ())
    # both made the same change: taken once
    assert merge(base, "a\nB\nc\nd\ne\n", "a\nB\nc\nd\ne\n").text == "a\nB\nc\nd\ne\n"
    # both changed line 3 differently: a conflict at the team's line 3
    assert merge(base, "a\nb\nX\nd\ne\n", "a\nb\nY\nd\ne\n").conflicts == ((3, 3),)
    # one side deletes what the other changes: a conflict, before the team's line 3
    assert merge(base, "a\nb\nd\ne\n", "a\nb\nY\nd\ne\n").conflicts == ((3, 2),)
    assert differing_lines(base, "a\nb\nX\nd\ne\n") == 2 and differing_lines(base, base) == 0


def test_changes_to_adjacent_lines_are_a_conflict_as_git_says() -> None:
    base = "cap = 2048\nschema start\nschema end\nrest\n"
    ours = "cap = 4096\nschema start\nschema end\nrest\n"
    # the team's constant right above the schema the new release drops
    assert merge(base, ours, "cap = 2048\nrest\n").conflicts == ((1, 3),)
    # a line between the two changes: both are applied
    base = "cap = 2048\nkeep\nschema\nrest\n"
    assert merge(base, "cap = 4096\nkeep\nschema\nrest\n", "cap = 2048\nkeep\nrest\n") == (
        "cap = 4096\nkeep\nrest\n",
        (),
    )


# --- the store ------------------------------------------------------------------


def test_the_store_holds_this_release_first_and_nothing_below_the_floor(earlier) -> None:
    stored = releases.releases()
    assert stored[0].version == __version__ and stored[0] == releases.current()
    assert [r.version for r in stored[1:]] == ["0.7.0", "0.6.0", VERSION]  # 0.7.0, the floor, and the test's own
    shipped = [r for r in stored if r.version != VERSION]
    assert all(releases.version_key(r.version) >= releases.version_key(releases.FLOOR) for r in shipped)
    with pytest.raises(ValueError):
        with releases.recorded(VERSION, {}):
            pass


# --- on the checkout -------------------------------------------------------------


def _clean(tmp_path: Path, bridge: str) -> Path:
    """What this release writes on a clean checkout (the newest fixture)."""
    repo = tmp_path / f"clean-{bridge}"
    shutil.copytree(FIXTURES / "newest" / "input", repo)
    result = invoke("apply", "--repo", repo, "--bridge", bridge)
    assert result.exit_code == 0, result.output
    return repo


def _earlier(tmp_path: Path, bridge: str, renamed: bool = False) -> Path:
    """A checkout holding what the earlier release wrote in ``bridge`` mode."""
    repo = tmp_path / "repo"
    shutil.copytree(_clean(tmp_path / "written", bridge), repo)
    return earlier_release.as_written(repo, renamed)


def _reformat(data: bytes, path: str) -> bytes:
    return perturb.reindent(perturb.drop_semicolons(perturb.single_quote(data, path), path), path, b"\t")


@pytest.mark.parametrize("reformatted", [False, True], ids=["as-written", "reformatted"])
@pytest.mark.parametrize("bridge", ["compat", "sdk"])
def test_an_earlier_releases_output_is_replaced_with_this_releases(
    bridge: str, reformatted: bool, tmp_path: Path, earlier
) -> None:
    clean = _clean(tmp_path, bridge)
    repo = _earlier(tmp_path, bridge)
    if reformatted:  # quotes, semicolons and tabs changed by a formatter: still that release's output
        for path in (MODULE, TESTS):
            (repo / path).write_bytes(_reformat((repo / path).read_bytes(), path))
    check = invoke("apply", "--repo", repo, "--bridge", bridge, "--check")
    assert check.exit_code == 1, check.output  # the upgrade is pending
    result = invoke("apply", "--repo", repo, "--bridge", bridge, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    upgrades = {(c["path"], c["from"].split(" (")[0]) for c in report["changes_of_form"] if c["kind"] == "upgrade"}
    wiring = "sdk mode" if bridge == "sdk" else "compat mode, 1.x form"
    assert upgrades == {(MODULE, f"{VERSION}, {wiring}"), (TESTS, VERSION)}, report["changes_of_form"]
    assert report["left_alone"] == [] and not report["notices"], report
    for path in (MODULE, TESTS, HOOK_TESTS):  # the hook's tests are newer than the earlier release: created
        assert (repo / path).read_bytes() == (clean / path).read_bytes(), path
    assert invoke("apply", "--repo", repo, "--bridge", bridge, "--check").exit_code == 0


def test_an_earlier_releases_output_for_another_wiring_is_migrated(tmp_path: Path, earlier) -> None:
    clean = _clean(tmp_path, "sdk")
    repo = _earlier(tmp_path, "compat")
    result = invoke("apply", "--repo", repo, "--bridge", "sdk", "--json")
    assert result.exit_code == 0, result.output
    changes = {c["path"]: c for c in json.loads(result.stdout)["changes_of_form"] if c["where"] == "the file"}
    # the module is the same in every wiring (the schema is in types.ts): an upgrade
    assert changes[MODULE]["kind"] == "upgrade" and changes[MODULE]["from"].startswith(VERSION)
    assert changes[TESTS]["kind"] == "upgrade" and changes[TESTS]["from"] == VERSION
    for path in (MODULE, TESTS, BRIDGE):
        assert (repo / path).read_bytes() == (clean / path).read_bytes(), path


@pytest.mark.parametrize("bridge", ["compat", "sdk"])
def test_a_license_header_and_an_added_helper_survive_the_upgrade(bridge: str, tmp_path: Path, earlier) -> None:
    clean = _clean(tmp_path, bridge)
    repo = _earlier(tmp_path, bridge)
    for path in (MODULE, TESTS):
        (repo / path).write_text(HEADER + (repo / path).read_text())
    (repo / MODULE).write_text((repo / MODULE).read_text() + HELPER)

    check = invoke("apply", "--repo", repo, "--bridge", bridge, "--check")
    assert check.exit_code == 1, check.output  # the upgrade is pending
    result = invoke("apply", "--repo", repo, "--bridge", bridge, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["left_alone"] == [], report["left_alone"]
    assert (repo / MODULE).read_text() == HEADER + (clean / MODULE).read_text() + HELPER
    assert (repo / TESTS).read_text() == HEADER + (clean / TESTS).read_text()
    merged = [n for n in report["notices"] if "three-way merge" in n]
    assert len(merged) == 2 and all(f"upgraded from {VERSION}" in n for n in merged), report["notices"]
    # done: the files hold this release's output with the team's edits
    again = invoke("apply", "--repo", repo, "--bridge", bridge, "--check")
    assert again.exit_code == 0, again.output


def test_the_merged_module_and_its_tests_pass_under_bun(tmp_path: Path, earlier) -> None:
    bun = require(BIN / "bun", "bun (tools/node_modules)")
    repo = _earlier(tmp_path, "sdk")
    for path in (MODULE, TESTS):
        (repo / path).write_text(HEADER + (repo / path).read_text())
    (repo / MODULE).write_text((repo / MODULE).read_text() + HELPER)
    (repo / TESTS).write_text(
        (repo / TESTS).read_text()
        + '\nimport { hasAppState } from "./app-state";\n'
        + 'it("the team\'s helper", () => {\n  expect(hasAppState("x")).toBe(true);\n  expect(hasAppState(null)).toBe(false);\n});\n'
    )
    result = invoke("apply", "--repo", repo, "--bridge", "sdk")
    assert result.exit_code == 0, result.output
    assert WAS not in (repo / MODULE).read_text()
    folder = tmp_path / "run"
    folder.mkdir()
    for path in (MODULE, TESTS):
        shutil.copy(repo / path, folder / Path(path).name)
    ran = subprocess.run([bun, "test", "app-state.test.ts"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "the team's helper" in ran.stderr and " 0 fail" in ran.stderr, ran.stderr
    assert "round-trips each app's state, non-ASCII text included" in ran.stderr


@pytest.mark.parametrize(
    "edit",
    [(WAS, WAS + " // once per app"), (ABOVE, ABOVE + " // the last param's")],
    ids=["the-same-line", "the-line-above"],
)
def test_an_edit_that_collides_with_the_upgrade_is_left_alone_and_named(edit, tmp_path: Path, earlier) -> None:
    """An edit of the line the upgrade changes, or of the line next to it
    (adjacent edits are a conflict, as git says): the module stays as the
    team has it, named with the conflicting lines, and its tests stay at
    their release with it."""
    old, new = edit
    repo = _earlier(tmp_path, "compat")
    shutil.copy(_clean(tmp_path, "compat") / HOOK_TESTS, repo / HOOK_TESTS)  # not the pair's business
    module = repo / MODULE
    text = module.read_text()
    assert text.count(old) == 1
    module.write_text(text.replace(old, new))
    where = text[: text.index(old)].count("\n") + 1
    edited, tests = module.read_bytes(), (repo / TESTS).read_bytes()
    for args in (("apply", "--repo", repo, "--bridge", "compat", "--check"), ("status", "--repo", repo)):
        result = invoke(*args)
        assert result.exit_code == 0, result.output
        assert f"{MODULE} was edited since mesh-codemod wrote it ({VERSION}, compat mode" in result.output
        found = re.search(r"conflicts with the edits at lines? (\d+)(?:-(\d+))?: left alone", result.output)
        assert found is not None, result.output
        assert int(found[1]) <= where <= int(found[2] or found[1]), (found[0], where)
    result = invoke("apply", "--repo", repo, "--bridge", "compat", "--json")
    assert result.exit_code == 0, result.output
    left = {item["path"]: item["why"] for item in json.loads(result.stdout)["left_alone"]}
    assert left == {MODULE: "conflict", TESTS: "pair"}, left  # a conflicting upgrade is a conflict (issue 41 item 6)
    assert module.read_bytes() == edited and (repo / TESTS).read_bytes() == tests


def test_a_module_left_alone_that_lacks_what_this_release_imports_refuses(tmp_path: Path, renamed) -> None:
    """The conflict would leave the module without a name this release's
    tests import: the run refuses, naming the conflicting lines and what is
    missing, and writes nothing."""
    repo = _earlier(tmp_path, "compat", renamed=True)
    module = repo / MODULE
    module.write_text(module.read_text().replace(WAS, "const warnedOverCap = new Set<string>(); // once per app"))
    before = snapshot(repo)
    for args in (("apply", "--repo", repo, "--bridge", "compat", "--check"), ("status", "--repo", repo)):
        result = invoke(*args)
        assert result.exit_code == 3, result.output
        assert f"{MODULE} was edited since mesh-codemod wrote it ({VERSION}, compat mode" in result.output
        assert "conflicts with the edits at line" in result.output, result.output
        assert "does not define APP_STATE_MAX_LENGTH" in result.output, result.output
    result = invoke("apply", "--repo", repo, "--bridge", "compat", "--json")
    assert result.exit_code == 3, result.output
    [step] = [s for s in json.loads(result.stdout)["steps"] if s["path"] == MODULE]
    assert step["status"] == "refused" and step["kind"] == "conflict", step
    assert snapshot(repo) == before


def test_tests_that_collide_with_the_upgrade_refuse_their_module(tmp_path: Path, renamed) -> None:
    """The edited tests stay at their release; their module cannot stay
    with them (this release's tests import a name it lacks) nor move
    without them: the run refuses the module, naming the tests, and writes
    nothing. An edit the merge can carry (a comment at the end) upgrades
    both."""
    repo = _earlier(tmp_path, "compat", renamed=True)
    tests = repo / TESTS
    was = CHANGES[1][3]
    tests.write_text(tests.read_text().replace(was, was.replace("URL", "URL (the team's)")))
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo, "--bridge", "compat", "--json")
    assert result.exit_code == 3, result.output
    [step] = [s for s in json.loads(result.stdout)["steps"] if s["path"] == MODULE]
    assert step["status"] == "refused" and step["kind"] == "conflict", step
    assert TESTS in step["reason"] and "APP_STATE_MAX_LENGTH" in step["reason"], step
    assert snapshot(repo) == before, "a refused run wrote"

    clean = _clean(tmp_path / "clean", "compat")
    repo = _earlier(tmp_path / "merged", "compat", renamed=True)
    (repo / TESTS).write_text((repo / TESTS).read_text() + "\n// reviewed by the team\n")
    assert invoke("apply", "--repo", repo, "--bridge", "compat").exit_code == 0
    assert (repo / TESTS).read_text() == (clean / TESTS).read_text() + "\n// reviewed by the team\n"
    assert (repo / MODULE).read_bytes() == (clean / MODULE).read_bytes()


def test_an_edited_copy_of_this_releases_output_is_left_alone_and_named(tmp_path: Path, earlier) -> None:
    """Nothing to bring over: the file reads as edited since."""
    repo = _clean(tmp_path, "compat")
    (repo / MODULE).write_text(HEADER + (repo / MODULE).read_text() + HELPER)
    edited = (repo / MODULE).read_bytes()
    result = invoke("apply", "--repo", repo, "--bridge", "compat", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [(i["path"], i["why"]) for i in report["left_alone"]] == [(MODULE, "edited")]
    assert (repo / MODULE).read_bytes() == edited and not report["files"]
    assert invoke("apply", "--repo", repo, "--bridge", "compat", "--check").exit_code == 0


def test_a_migration_leaves_an_edited_module_alone(tmp_path: Path, earlier) -> None:
    """The module is the same in every wiring (compat mode's schema is in
    types.ts): a migration to sdk mode keeps the team's helper and says
    nothing of the module."""
    clean = _clean(tmp_path / "sdk", "sdk")
    repo = _clean(tmp_path, "compat")
    (repo / MODULE).write_text((repo / MODULE).read_text() + HELPER)
    result = invoke("apply", "--repo", repo, "--bridge", "sdk")
    assert result.exit_code == 0, result.output
    assert (repo / MODULE).read_text() == (clean / MODULE).read_text() + HELPER
    assert "three-way merge" not in result.stderr


@pytest.mark.parametrize("removed", ["store-tests", "hook-tests"])
def test_a_file_the_checkouts_release_wrote_and_someone_removed_stays_removed(
    removed: str, tmp_path: Path, earlier
) -> None:
    """The earlier release wrote the store's tests: a team that removed them
    decided so, and the upgrade does not bring them back. It did not write
    the hook's tests: the upgrade creates them, and once this release wrote
    them, their removal is a decision too."""
    repo = _earlier(tmp_path, "compat")
    if removed == "store-tests":
        (repo / STORE_TESTS).unlink()
        step_id, path = "bridge-store-tests", STORE_TESTS
    else:
        assert invoke("apply", "--repo", repo, "--bridge", "compat").exit_code == 0
        assert (repo / HOOK_TESTS).is_file(), "the upgrade creates what the earlier release did not write"
        (repo / HOOK_TESTS).unlink()
        step_id, path = "app-state-hook-tests", HOOK_TESTS
    result = invoke("apply", "--repo", repo, "--bridge", "compat", "--json")
    assert result.exit_code == 0, result.output
    steps = {s["step"]: s for s in json.loads(result.stdout)["steps"]}
    assert steps[step_id]["status"] == "skipped" and steps[step_id]["kind"] == "decision", steps[step_id]
    assert not (repo / path).exists()
    if removed == "store-tests":
        assert steps["app-state-hook-tests"]["status"] == "applied" and (repo / HOOK_TESTS).is_file()


def test_an_earlier_release_is_rendered_for_where_the_files_are_and_what_the_class_is_called(tmp_path: Path) -> None:
    """The store's tests as an earlier release wrote them, in a checkout
    whose store was moved and renamed with its class (the tests beside it,
    their imports fixed): the earlier release's template, rendered with the
    class's name and the files' places, is theirs, so they are upgraded
    where they are."""
    from .test_role_recognition import SESSION_TESTS, _files, _store_moved, _tree

    now = "type Listener = (event: { source: unknown; data: unknown }) => void;"
    was = "type Listener = (event: { data: unknown; source: unknown }) => void;"
    texts = dict(releases.current().templates)
    assert texts["use-app-bridge.test.ts"].count(now) == 1
    texts["use-app-bridge.test.ts"] = texts["use-app-bridge.test.ts"].replace(now, was)
    expected = _store_moved(_files(_clean(tmp_path, "compat")))
    repo = tmp_path / "repo"
    repo.mkdir()
    _tree(repo, {**expected, SESSION_TESTS: expected[SESSION_TESTS].replace(now.encode(), was.encode())})
    with releases.recorded(VERSION, texts):
        result = invoke("apply", "--repo", repo, "--bridge", "compat", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    changes = [(c["path"], c["kind"], c["from"]) for c in report["changes_of_form"]]
    # the store's tests are rendered per capability (the wiring): named with it
    assert changes == [(SESSION_TESTS, "upgrade", f"{VERSION}, appState: {{ maxLength: 1024 }}")], changes
    assert not report["notices"], report["notices"]  # recognised as written, not merged
    assert _files(repo) == expected


# --- below the floor ------------------------------------------------------------


def test_a_created_file_no_stored_release_wrote_reads_as_edited_since(tmp_path: Path) -> None:
    """Nothing says which old release it was: it is left alone, named as a
    file edited since."""
    repo = _clean(tmp_path, "compat")
    module = repo / MODULE
    module.write_text(module.read_text().replace(CHANGES[0][2], "const warnedOverCap = new Set() as Set<string>;"))
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    assert f"{MODULE} was edited since mesh-codemod wrote it: left alone" in result.stderr
    assert not re.search(r"\b0\.5\.\d\b", result.output), result.output


def test_a_transformed_form_no_stored_release_wrote_reads_as_an_edited_handler(tmp_path: Path) -> None:
    """A handler in a form no release since the floor wrote is the team's:
    kept in its own wiring, blocked (named, with its lines) where the run
    would migrate it."""
    repo = _clean(tmp_path, "compat")
    bridge = repo / BRIDGE
    text = bridge.read_text()
    # next to the lines a migration changes, so no three-way merge takes it
    written = "        if (this.bridge !== bridge) return;\n"
    assert text.count(written) == 1
    bridge.write_text(text.replace(written, "        if (this.bridge !== bridge || !params.state) return;\n"))
    before = bridge.read_bytes()
    assert invoke("apply", "--repo", repo, "--bridge", "compat", "--check").exit_code == 0
    result = invoke("apply", "--repo", repo, "--bridge", "sdk")
    assert result.exit_code == 3, result.output
    assert re.search(rf"{BRIDGE} lines \d+-\d+ hold compat mode, 1.x form .*, changed since mesh-codemod wrote it", result.stderr)
    assert bridge.read_bytes() == before


# What each recorded release shipped: the git blob ids of its templates/ at
# its release commit (`git rev-parse 4febe94:codemods/recipes/host/templates/<name>` for 0.6.0).
# The record is history: an edit to it would upgrade from output no release wrote.
SHIPPED = {
    "0.6.0": {
        "app-state.compat-params-schema.ts": "25e430b059bd2447a8416598318caba851f2f769",
        "app-state.compat-schema.ts": "0009f47803a6bf85b33d44589f3c51240300fdde",
        "app-state.test.ts": "a76df2014a8da27f468d4d73d562131034a8faa4",
        "app-state.ts": "89f7c30909d8f9d50e1bf417da20cd2b02a94a8e",
        "use-app-bridge.test.ts": "53064fd33dec7ab3a8b54bd54dcaf2df82e47c58",
        "use-app-state-param.test.ts": "7b1517b5899a4ea05556ba6f48c6b762460be46e",
        "use-app-state-param.ts": "9395515425968bec7802c4296ec40f88349602a8",
    },
    "0.7.0": {  # fdbe496
        "app-state.test.ts": "0ded26e1f68b4d47c4cb7e46752f0cc05dc95748",
        "app-state.ts": "4b19b99e496813e4d2360783fcc15ff1f3c9f2a0",
        "use-app-bridge.test.ts": "fbd63e83d394f0be942865ae68b7be3cc43f23e6",
        "use-app-state-param.test.ts": "8ee534a7f2fa8dc132b5d59af1d52857aabede02",
        "use-app-state-param.ts": "25ed955999914279f0e4e9915d95dea31491652d",
    },
}


def test_each_recorded_release_is_what_it_shipped() -> None:
    recorded = {r.version: r for r in releases.releases()[1:]}
    assert sorted(recorded) == sorted(SHIPPED), "a release recorded without its shipped ids, or the other way"
    for version, shipped in SHIPPED.items():
        texts = recorded[version].templates
        ids = {
            name: hashlib.sha1(b"blob %d\0%s" % (len(data := text.encode("utf-8")), data)).hexdigest()
            for name, text in texts.items()
        }
        assert ids == shipped, f"releases/{version}/ differs from what {version} shipped"


@pytest.mark.parametrize("written", ["compat", "sdk"])
@pytest.mark.parametrize("mode", ["compat", "sdk"])
def test_0_7_0s_output_upgrades_to_what_this_release_writes_on_a_clean_checkout(
    written: str, mode: str, tmp_path: Path
) -> None:
    """fixtures/host/release-0.7.0-*: 0.7.0's output on the newest fixture
    (its created files rendered from the store), in either mode, becomes
    byte for byte the newest fixture's expected tree, said as an upgrade."""
    work = fixture_tree(FIXTURES / f"release-0.7.0-{written}", tmp_path / "repo")
    result = invoke("apply", "--repo", work, "--bridge", mode)
    assert result.exit_code == 0, result.output
    assert re.search(r"^ +upgrade (lines? [0-9-]+|the file): ", result.stderr, re.M), result.stderr
    assert snapshot(work) == fixture_files(FIXTURES / "newest", f"expected-{mode}")
