"""The complete shape-C fixture (fixtures/sdk/shape-c-full): an SDK of our
own, written from scratch in the 2.x shape, complete enough that its own
checks run, as the SDK's CI runs them: `tsc` (the build's type check),
`bun test` and Prettier, with tools/node_modules as its node_modules.

They run green before the change and after it (the tool applied without
node_modules, so the built-in layout and the pinned schema toolchain wrote
it), and the change leaves no import unused. Then every statement, schema
entry and event-map entry the SDK change added (docs, comments and
re-exports excluded) is removed in turn: each removal must make a check
fail, `bun test`, `tsc` or the generator check (the pinned toolchain
regenerates src/generated/ from the edited spec.types.ts, and the SDK's CI
fails on any difference). The mutants are checked in batches: one copy of
the tree per mutant, one `bun test` and one `tsc` over all the copies.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from codemods.engine.parsing import TYPESCRIPT, parse

from .node_tools import NODE_MODULES, require, require_pinned_schemas
from .sdk_support import BUN, SDK_FIXTURES
from .support import invoke

FIXTURE = SDK_FIXTURES / "shape-c-full" / "input"
TSC = NODE_MODULES / ".bin" / "tsc"
PRETTIER = NODE_MODULES / "prettier" / "bin" / "prettier.cjs"
# The SDK sources of the change whose lines are removed in turn (the test
# file, the examples and the re-exports of types.ts are not the change's code).
SOURCES = ("src/spec.types.ts", "src/generated/schema.ts", "src/app-bridge.ts", "src/app.ts")
GENERATED = ("src/generated/schema.ts", "src/generated/schema.test.ts", "src/generated/schema.json")
# Syntax nodes that are one removable unit: a statement, a class or
# interface member, an object entry.
UNITS = {
    "expression_statement",
    "lexical_declaration",
    "export_statement",
    "return_statement",
    "if_statement",
    "method_definition",
    "public_field_definition",
    "property_signature",
    "pair",
}
# tsc's "declared but never used" diagnostics, with --noUnusedLocals
_UNUSED = re.compile(r"^(?P<file>[^(\n]+)\((?P<line>\d+),\d+\): error TS(?:6133|6192|6196|6198): (?P<what>.*)$", re.M)


def _checkout(tmp: Path, name: str, *, applied: bool) -> Path:
    tree = tmp / name
    shutil.copytree(FIXTURE, tree)
    if applied:
        result = invoke("apply", "--repo", tree)
        assert result.exit_code == 0, result.output
    os.symlink(NODE_MODULES, tree / "node_modules")
    return tree


def _run(tree: Path, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=tree, capture_output=True, text=True, timeout=900)


def _tsc(tree: Path, *options: str) -> subprocess.CompletedProcess:
    return _run(tree, str(BUN), str(TSC), "--noEmit", "-p", ".", *options)


def _require_tools() -> None:
    require(BUN, "Bun")
    require(TSC, "tsc (tools/node_modules)")
    require(PRETTIER, "Prettier (tools/node_modules)")
    require_pinned_schemas()


def _unused_imports(tree: Path) -> set[tuple[str, str]]:
    """The imports tsc reports as never used: (file, what it says)."""
    result = _tsc(tree, "--noUnusedLocals")
    found = set()
    for match in _UNUSED.finditer(result.stdout + result.stderr):
        path = tree / match["file"]
        tree_sitter = parse(path.read_bytes(), TYPESCRIPT)
        line = int(match["line"]) - 1
        if any(n.type == "import_statement" and n.start_point[0] <= line <= n.end_point[0]
               for n in tree_sitter.root_node.named_children):
            found.add((match["file"], match["what"]))
    return found


@pytest.mark.slow
def test_the_complete_fixture_runs_its_own_checks_green_before_and_after_the_change(tmp_path: Path) -> None:
    _require_tools()
    counts, trees = {}, {}
    for name, applied in (("before", False), ("after", True)):
        tree = trees[name] = _checkout(tmp_path, name, applied=applied)
        checks = (
            ("tsc", lambda t: _tsc(t)),
            ("bun test", lambda t: _run(t, str(BUN), "test", "src")),
            ("prettier", lambda t: _run(t, str(BUN), str(PRETTIER), "--check", "src/**/*.ts", "docs/**/*.md", "docs/**/*.tsx")),
        )
        for check, run in checks:
            result = run(tree)
            assert result.returncode == 0, f"{name}: {check}\n{result.stdout}\n{result.stderr}"
            if check == "bun test":
                assert " 0 fail" in result.stdout + result.stderr
                output = result.stdout + result.stderr
                counts[name] = int(output.split(" pass")[0].split()[-1])
    print(f"complete fixture: bun test passes {counts['before']} case(s) before, {counts['after']} after")
    assert counts["after"] >= counts["before"] + 6  # the new block's cases ran, and passed
    # no import the change adds is left unused (the deprecated union gains nothing, so nothing is imported for it)
    assert _unused_imports(trees["after"]) <= _unused_imports(trees["before"])


def _region(path: Path, name: str) -> str:
    text = path.read_text()
    start = text.index(f"//#region {name}\n") + len(f"//#region {name}\n")
    return text[start:text.index(f"//#endregion {name}")]


def test_the_doc_examples_show_again_after_a_reload_the_state_they_report(tmp_path: Path) -> None:
    """The host's and the View's doc examples, as their companion regions
    hold them (the patterns page's region is the View's, line for line),
    run with `bun test` on the fixture's own App and AppBridge as the change
    leaves them (tests/sdk/doc-examples.test.ts): the View reports a tab, the
    host keeps it in the page URL, and after a reload the View shows it."""
    _require_tools()
    tree = _checkout(tmp_path, "after", applied=True)
    view = _region(tree / "src/app.examples.ts", "reportViewState")
    assert _region(tree / "docs/patterns.tsx", "persistDataWithHost") == view
    host = _region(tree / "src/app-bridge.examples.ts", "keepStateInUrl")
    (tree / "src/examples.ts").write_text(
        'import { App } from "./app";\nimport { AppBridge } from "./app-bridge";\n\n'
        f"export function host(hostInfo: {{ name: string; version: string }}) {{\n{host}  return bridge;\n}}\n\n"
        f"export function view(app: App, showTab: (tab: string | null) => void) {{\n{view}}}\n"
    )
    shutil.copy(Path(__file__).parent / "sdk" / "doc-examples.test.ts", tree / "src" / "doc-examples.test.ts")
    result = _run(tree, str(BUN), "test", "./src/doc-examples.test.ts")
    output = result.stdout + result.stderr
    assert result.returncode == 0 and " 1 pass" in output and " 0 fail" in output, output


def _added_lines(old: str, new: str) -> set[int]:
    """0-based numbers of the lines of ``new`` that the change added."""
    added: set[int] = set()
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag in {"insert", "replace"}:
            added.update(range(j1, j2))
    return added


def _units(path: str, old: str, new: str) -> list[tuple[int, int, str]]:
    """The units of ``new`` that lie wholly on added lines: (first line,
    last line, a label), in document order."""
    added = _added_lines(old, new)
    tree = parse(new.encode(), TYPESCRIPT)
    found = []
    seen: set[tuple[int, int]] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.named_children))
        if node.type not in UNITS:
            continue
        first, last = node.start_point[0], node.end_point[0]
        if (first, last) not in seen and all(line in added for line in range(first, last + 1)):
            seen.add((first, last))  # `export const` and its declaration: one unit
            label = new.splitlines()[first].strip()
            found.append((first, last, f"{path}:{first + 1}: {label[:70]}"))
    return found


def _without_lines(text: str, first: int, last: int) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[:first] + lines[last + 1:])


def _generator_differs(tree: Path) -> bool:
    from codemods.recipes.base import Planned
    from codemods.recipes.sdk import pinned

    def run(command, cwd, timeout=600):
        return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)

    spec = Planned("src/spec.types.ts", (tree / "src/spec.types.ts").read_bytes())
    try:
        made = pinned.regenerate(str(tree), spec, pinned.toolchain(), run)
    except Exception:  # the generator itself fails: the CI step fails
        return True
    return any(made[path] != (tree / path).read_bytes() for path in GENERATED if path in made)


def _bun_failures(batch: Path, names: list[str]) -> set[str]:
    """The copies among ``names`` whose tests do not all pass, from one
    `bun test` over every copy (JUnit report: a copy whose test file did
    not load, or ran fewer cases than the clean copy, fails too)."""
    report = batch / "bun.xml"
    _run(batch, str(BUN), "test", *[f"{n}/src" for n in names], "--reporter=junit", f"--reporter-outfile={report}")
    suites: dict[str, dict[str, tuple[int, int]]] = {n: {} for n in names}
    for suite in ElementTree.parse(report).getroot().findall("testsuite"):  # one per file; nested ones are blocks
        copy, _, file = suite.get("file", "").partition("/")
        if copy in suites:
            bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0) or 0)
            suites[copy][file] = (int(suite.get("tests", 0)), bad)
    clean = suites["clean"]
    assert clean and all(bad == 0 for _, bad in clean.values()), clean
    return {
        n for n, files in suites.items()
        if any(files.get(f, (0, 1))[1] or files.get(f, (0, 1))[0] < tests for f, (tests, _) in clean.items())
    }


def _tsc_failures(batch: Path, names: list[str]) -> set[str]:
    """The copies among ``names`` with a type error, from one `tsc` over
    every copy (each copy's modules resolve within it)."""
    config = json.loads((batch / "clean" / "tsconfig.json").read_text())
    config["include"] = [f"{n}/{folder}" for n in names for folder in config["include"]]
    (batch / "tsconfig.json").write_text(json.dumps(config))
    result = _tsc(batch)
    return {line.split("/", 1)[0] for line in (result.stdout + result.stderr).splitlines() if ": error TS" in line}


@pytest.mark.mutation
def test_removing_any_added_line_of_the_sdk_change_fails_a_check(tmp_path: Path) -> None:
    """Each unit the change added to the SDK's code (a statement, a member,
    an object entry, an event-map or `eventSchemas` entry, a schema entry)
    is removed on its own; `bun test`, `tsc` or the generator check must
    then fail."""
    _require_tools()
    after = _checkout(tmp_path, "after", applied=True)
    units = []
    for path in SOURCES:
        old, new = (FIXTURE / path).read_text(), (after / path).read_text()
        units += [(path, *unit) for unit in _units(path, old, new)]
    assert len(units) >= 15, units

    batch = tmp_path / "batch"
    batch.mkdir()
    os.symlink(NODE_MODULES, batch / "node_modules")
    copies = {"clean": None}
    shutil.copytree(after, batch / "clean", symlinks=True, ignore=shutil.ignore_patterns("node_modules"))
    for index, (path, first, last, label) in enumerate(units):
        name = f"m{index}"
        shutil.copytree(batch / "clean", batch / name, symlinks=True)
        (batch / name / path).write_text(_without_lines((after / path).read_text(), first, last))
        copies[name] = (path, label)
    names = list(copies)
    by_bun = _bun_failures(batch, names)
    assert "clean" not in by_bun
    by_tsc = _tsc_failures(batch, [n for n in names if n not in by_bun])
    assert "clean" not in by_tsc
    killed: dict[str, list[str]] = {"bun test": [], "tsc": [], "generator": []}
    survivors = []
    for name, unit in copies.items():
        if unit is None:
            continue
        path, label = unit
        if name in by_bun:
            killed["bun test"].append(label)
        elif name in by_tsc:
            killed["tsc"].append(label)
        elif path in ("src/spec.types.ts", "src/generated/schema.ts") and _generator_differs(batch / name):
            killed["generator"].append(label)
        else:
            survivors.append(label)
    total = sum(len(v) for v in killed.values())
    print(
        f"line removal: {len(units)} unit(s) removed one at a time; {total} failed a check"
        f" ({len(killed['bun test'])} by bun test, {len(killed['tsc'])} by tsc,"
        f" {len(killed['generator'])} by the generator check); {len(survivors)} survived"
    )
    assert survivors == [], survivors
