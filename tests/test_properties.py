"""Property-based tests: the codemod on trees another formatter could have written.

The five target files of ``fixtures/host/newest/input`` are rewritten the way
a formatter with other settings (or a person) might have written them. For
each file Hypothesis draws any subset of these perturbations and their
parameters (``tests/perturb.py`` finds the places with tree-sitter and
asserts that every perturbed file still parses):

1. indentation: 4 spaces or a tab per level instead of 2;
2. quotes: double-quoted strings single-quoted (those without ``'`` or ``\\``);
3. trailing commas: some or all of the commas that end a line and close a
   multi-line list dropped;
4. blank lines and ``// comment`` lines between members (statements, class
   members, interface members, object entries);
5. member order: the members of ``BridgeStoreConfig``, ``UseAppBridgeOptions``
   and ``MCPAppRendererProps`` shuffled (multi-line members move whole).

``apply`` then runs in-process, in compat and in sdk mode, and we check:

- it exits 0 and every ``.ts``/``.tsx`` file of the result parses;
- a second run reports "nothing to do" and changes no byte;
- the new files are those of the unperturbed run, byte for byte, the other
  files are untouched, and an unperturbed file comes out as it does there;
- every input line survives: kept, or extended or split with its characters
  still in order (``assert_survives``);
- the touched lines are the expected ones: the hunks of the change (each run
  of output lines that are not input lines, with the input lines it
  replaces, whitespace-squashed and joined) are those of the unperturbed run.
  Joining a hunk makes the comparison blind to where its line breaks fall,
  nothing else. The differences a perturbation legitimately causes are then
  normalised away, each only in the files that got that perturbation:
  quote kind (2); a trailing comma at the end of a line or before a closing
  bracket (3, where the tool adds the comma the list lacks before its new
  items, and 1 with 4 spaces, where a line grows past 80 columns and the
  list is broken one item per line with trailing commas instead of after
  the ``=``); blank lines (4: an anchor set apart by blank lines gets its
  new statements set apart too);
- the inserted lines follow the file's style: tab indentation with tabs,
  multiples of 4 spaces with 4 spaces, single quotes with single quotes.
"""

from __future__ import annotations

import difflib
import functools
import re
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemods.engine.parsing import first_error, language_for, parse

from . import perturb
from .support import FIXTURES, invoke, snapshot

INPUT = FIXTURES / "newest" / "input"
BRIDGE = "apps/mesh/src/mcp-apps/use-app-bridge.ts"
RENDERER = "apps/mesh/src/mcp-apps/mcp-app-renderer.tsx"
TOOL_CALL_PART = "apps/mesh/src/web/components/chat/message/parts/tool-call-part/generic.tsx"
PANEL = "apps/mesh/src/web/routes/project-app-view.tsx"
ROUTES = "apps/mesh/src/web/index.tsx"
TARGETS = (BRIDGE, RENDERER, TOOL_CALL_PART, PANEL, ROUTES)
ORIGINAL = {path: (INPUT / path).read_bytes() for path in TARGETS}
PERMUTABLE = ("BridgeStoreConfig", "UseAppBridgeOptions", "MCPAppRendererProps")
MODES = ("compat", "sdk")
TWO_SPACES, FOUR_SPACES, TAB = "  ", "    ", "\t"

_WS = re.compile(r"\s+")
_COMMA_BEFORE_CLOSER = re.compile(r",(?=[)\]}]|$)")


@dataclass(frozen=True)
class Variant:
    """Which perturbations a file got (what the checks must allow for)."""

    indent: str = TWO_SPACES
    single_quotes: bool = False
    dropped_commas: bool = False
    gaps: bool = False
    permuted: bool = False


@dataclass(frozen=True)
class PerturbedFile:
    path: str
    data: bytes = field(repr=False)
    variant: Variant
    done: tuple[str, ...]  # human-readable, for Hypothesis' failure report

    @property
    def perturbed(self) -> bool:
        return self.data != ORIGINAL[self.path]


# ----------------------------------------------------------------------
# Strategies
# ----------------------------------------------------------------------


def indent_units():
    return st.sampled_from([TWO_SPACES, FOUR_SPACES, TAB])


def member_orders(count: int):
    return st.permutations(range(count))


def gap_insertions(points: list[int]):
    """A few points between members, each getting a blank or a comment line."""
    return st.dictionaries(st.sampled_from(points), st.sampled_from(["blank", "comment"]), min_size=1, max_size=6)


def comma_drops(offsets: list[int]):
    """All trailing commas of the file (a no-trailing-comma formatter), or some."""
    return st.one_of(st.just(offsets), st.lists(st.sampled_from(offsets), min_size=1, unique=True))


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


@st.composite
def perturbed_files(draw, path: str) -> PerturbedFile:
    data, done = ORIGINAL[path], []
    permuted = dropped = gaps = single = False
    for interface in PERMUTABLE:
        blocks = perturb.member_blocks(data, path, interface)
        if blocks and draw(st.booleans()):
            order = draw(member_orders(len(blocks)))
            data = perturb.permute_members(data, path, interface, order)
            permuted = True
            done.append(f"{interface} members in order {order}")
    if draw(st.booleans()):
        chosen = draw(gap_insertions(perturb.gap_points(data, path)))
        done.append("lines inserted: " + ", ".join(
            f"{kind} before line {_line_of(data, point)}" for point, kind in sorted(chosen.items())
        ))
        data, gaps = perturb.insert_gaps(data, path, chosen), True
    commas = perturb.trailing_commas(data, path)
    if commas and draw(st.booleans()):
        chosen = draw(comma_drops(commas))
        done.append("trailing commas dropped on lines " + ", ".join(str(_line_of(data, o)) for o in sorted(chosen)))
        data, dropped = perturb.drop_commas(data, path, chosen), True
    if draw(st.booleans()):
        data, single = perturb.single_quote(data, path), True
        singles, doubles = perturb.quote_counts(data, path)
        assert singles > doubles, f"perturbation bug: {path} is not mostly single-quoted"
        done.append("single quotes")
    unit = draw(indent_units())
    if unit != TWO_SPACES:
        data = perturb.reindent(data, path, unit.encode())
        done.append(f"indent {unit!r}")
    variant = Variant(indent=unit, single_quotes=single, dropped_commas=dropped, gaps=gaps, permuted=permuted)
    return PerturbedFile(path, data, variant, tuple(done))


def perturbed_trees():
    return st.fixed_dictionaries({path: perturbed_files(path) for path in TARGETS})


# ----------------------------------------------------------------------
# Checks
# ----------------------------------------------------------------------


def assert_survives(path: str, old: bytes, new: bytes) -> None:
    """Every changed run of input lines survives inside its replacement: its
    characters (whitespace aside) appear there in order. Lines may be
    extended (`, appState`) or split (a list broken one item per line), but
    no input line is dropped, reordered or rewritten. (As in test_fixtures.)"""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in {"equal", "insert"}:
            continue
        before = re.sub(rb"\s+", b"", b"".join(old_lines[i1:i2]))
        after = re.sub(rb"\s+", b"", b"".join(new_lines[j1:j2]))
        it = iter(after)
        assert all(byte in it for byte in before), (
            f"{path}: input lines {i1 + 1}-{i2} were not kept: {old_lines[i1:i2]!r}"
        )


def changed_hunks(old: bytes, new: bytes, variant: Variant) -> list[tuple[list[str], list[str]]]:
    """The non-equal runs of a line diff, as (input lines, output lines).
    Lines are compared whitespace-squashed, and, where the variant allows,
    with one kind of quote, without a trailing comma, ignoring blank lines."""
    def lines(data: bytes) -> list[str]:
        found = data.decode().splitlines()
        return [l for l in found if l.strip()] if variant.gaps else found

    def key(line: str) -> str:
        squashed = normal(line)
        return squashed.removesuffix(",") if variant.dropped_commas else squashed

    def normal(line: str) -> str:
        squashed = _WS.sub("", line)
        return squashed.replace("'", '"') if variant.single_quotes else squashed

    a, b = lines(old), lines(new)
    matcher = difflib.SequenceMatcher(a=[key(l) for l in a], b=[key(l) for l in b], autojunk=False)
    return [(a[i1:i2], b[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def touched(old: bytes, new: bytes, variant: Variant) -> Counter[tuple[str, str]]:
    """Each hunk as (input text, output text), whitespace-squashed, with the
    normalisations the variant calls for."""
    commas = variant.dropped_commas or variant.indent == FOUR_SPACES

    def text(lines: list[str]) -> str:
        joined = _WS.sub("", "".join(lines))
        if variant.single_quotes:
            joined = joined.replace("'", '"')
        return _COMMA_BEFORE_CLOSER.sub("", joined) if commas else joined

    return Counter((text(o), text(n)) for o, n in changed_hunks(old, new, variant))


def assert_touched_as_unperturbed(path: str, variant: Variant, old: bytes, new: bytes, base_new: bytes) -> None:
    got = touched(old, new, variant)
    want = touched(ORIGINAL[path], base_new, variant)
    missing, extra = want - got, got - want
    assert not missing and not extra, (
        f"{path}: hunks differ from the unperturbed run\n"
        f"  expected but missing: {sorted(missing.elements())}\n"
        f"  not expected: {sorted(extra.elements())}"
    )


def assert_style(path: str, variant: Variant, old: bytes, new: bytes) -> None:
    """Inserted lines are indented with the file's unit and use its quotes."""
    for _, lines in changed_hunks(old, new, variant):
        for line in lines:
            indent = line[:len(line) - len(line.lstrip())]
            if not line.strip():
                continue
            if variant.indent == TAB:
                assert set(indent) <= {"\t"}, f"{path}: not tab-indented: {line!r}"
            else:
                width = len(variant.indent)
                assert set(indent) <= {" "} and len(indent) % width == 0, (
                    f"{path}: not indented in steps of {width} spaces: {line!r}"
                )
            if variant.single_quotes:
                assert '"' not in line, f"{path}: double quotes in a single-quoted file: {line!r}"


def assert_parses(path: str, data: bytes) -> None:
    error = first_error(parse(data, language_for(path)))
    assert error is None, f"{path}: output does not parse (line {error[0]}, column {error[1]})"


def check_result(
    files: dict[str, PerturbedFile],
    before: dict[str, bytes],
    after: dict[str, bytes],
    base: dict[str, bytes],
) -> None:
    for path, data in after.items():
        if path.endswith((".ts", ".tsx")):
            assert_parses(path, data)
    assert set(after) == set(base), "not the files of the unperturbed run"
    for path in after:
        if path not in before:
            assert after[path] == base[path], f"{path}: new file differs from the unperturbed run"
        elif path not in files:
            assert after[path] == before[path], f"{path}: not a target, yet changed"
    for path, file in files.items():
        old, new = before[path], after[path]
        if not file.perturbed:
            assert new == base[path], f"{path}: unperturbed, yet output differs"
            continue
        assert_survives(path, old, new)
        assert_touched_as_unperturbed(path, file.variant, old, new, base[path])
        assert_style(path, file.variant, old, new)


# ----------------------------------------------------------------------
# Running the tool
# ----------------------------------------------------------------------


def run_twice(repo: Path, mode: str) -> dict[str, bytes]:
    """Apply, check the run succeeded and a second one changes nothing."""
    first = invoke("apply", "--repo", repo, "--bridge", mode)
    assert first.exit_code == 0, first.output
    after = snapshot(repo)
    second = invoke("apply", "--repo", repo, "--bridge", mode)
    assert second.exit_code == 0, second.output
    assert "nothing to do" in second.stderr, second.stderr
    assert snapshot(repo) == after, "the second run changed the tree"
    return after


@functools.cache
def unperturbed_output(mode: str) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(INPUT, repo)
        return run_twice(repo, mode)


# ----------------------------------------------------------------------
# Tests
# ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=perturbed_trees())
def test_perturbed_input(mode: str, files: dict[str, PerturbedFile]) -> None:
    base = unperturbed_output(mode)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(INPUT, repo)
        for path, file in files.items():
            (repo / path).write_bytes(file.data)
        before = snapshot(repo)
        after = run_twice(repo, mode)
    check_result(files, before, after, base)


def test_perturbations_change_the_files_and_keep_them_valid() -> None:
    """Every perturbation, at its fullest, rewrites each file it applies to
    (so the property test is not vacuous), and the five interfaces named in
    PERMUTABLE are found where they are defined."""
    permutable = Counter()
    for path, data in ORIGINAL.items():
        for interface in PERMUTABLE:
            blocks = perturb.member_blocks(data, path, interface)
            if blocks:
                permutable[interface] += 1
                reverse = list(range(len(blocks)))[::-1]
                assert perturb.permute_members(data, path, interface, reverse) != data
        assert perturb.insert_gaps(data, path, {p: "comment" for p in perturb.gap_points(data, path)}) != data
        assert perturb.drop_commas(data, path, perturb.trailing_commas(data, path)) != data
        assert perturb.single_quote(data, path) != data
        for unit in (FOUR_SPACES, TAB):
            assert perturb.reindent(data, path, unit.encode()) != data
    assert permutable == {"BridgeStoreConfig": 1, "UseAppBridgeOptions": 1, "MCPAppRendererProps": 2}


def test_checks_catch_wrong_output() -> None:
    """The checks fail on outputs that are wrong in the ways they look for."""
    base = unperturbed_output("compat")
    old, new = ORIGINAL[BRIDGE], base[BRIDGE]
    plain = Variant()
    assert_survives(BRIDGE, old, new)
    assert_touched_as_unperturbed(BRIDGE, plain, old, new, new)
    assert_style(BRIDGE, plain, old, new)

    # An input line dropped.
    dropped = new.replace(b"  private listeners = new Set<() => void>();\n", b"", 1)
    assert dropped != new
    with pytest.raises(AssertionError, match="were not kept"):
        assert_survives(BRIDGE, old, dropped)
    # One line too many, one missing, one changed.
    extra = new.replace(b"  appState?: unknown;\n", b"  appState?: unknown;\n  appStates?: unknown;\n", 1)
    missing = new.replace(b"  onAppStateChange?: (state: unknown) => void;\n", b"", 1)
    changed = new.replace(b"appState?: unknown,", b"appState?: string,", 1)
    for wrong in (extra, missing, changed):
        assert wrong != new
        with pytest.raises(AssertionError, match="hunks differ"):
            assert_touched_as_unperturbed(BRIDGE, plain, old, wrong, new)
    # Style: spaces in a tab-indented file, double quotes in a single-quoted one.
    tabbed = perturb.reindent(old, BRIDGE, b"\t")
    with pytest.raises(AssertionError, match="not tab-indented"):
        assert_style(BRIDGE, Variant(indent=TAB), tabbed, perturb.reindent(new, BRIDGE, b"\t").replace(
            b"\tappState?: unknown;", b"  appState?: unknown;", 1))
    single = perturb.single_quote(old, BRIDGE)
    with pytest.raises(AssertionError, match="double quotes"):
        assert_style(BRIDGE, Variant(single_quotes=True), single, perturb.single_quote(new, BRIDGE).replace(
            b"from './app-state'", b'from "./app-state"', 1))
