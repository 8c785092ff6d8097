"""The test check: `bun test` on the test files beside the touched modules,
counted per file, so that a test file whose tests did not run fails."""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from .model import Check, Outcome, execute, first_lines, installed_bun, package_dir, strip_ansi


def run_tests(root: Path, files: list[str], per_package: bool = True) -> Check:
    """`bun test` on the touched test files and the tests beside touched
    modules: from each one's package (mesh), or all from the checkout's
    root, as the SDK's `test` script runs them."""
    tests = sorted(dict.fromkeys(t for path in files for t in _tests_for(root, path)))
    # nothing installed: nothing can run, whether or not there are tests
    bun = installed_bun(root, "tests")
    if isinstance(bun, Check):
        return bun
    if not tests:
        return Check("tests", Outcome.PASSED, "no tests beside the touched files")
    groups: dict[Path, list[str]] = {}
    for test in tests:
        folder = (package_dir(root, test) or root) if per_package else root
        groups.setdefault(folder, []).append("./" + (root / test).relative_to(folder).as_posix())
    commands, failures, passed, empty, leaks = [], [], 0, [], []
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-globals-") as name:
        first, last = Path(name) / _FIRST, Path(name) / _LAST
        first.write_text(_FIRST_TEXT)
        last.write_text(_LAST_TEXT.replace("NAMES", json.dumps(BROWSER_GLOBALS)))
        for folder, paths in groups.items():
            where = f"cd {folder.relative_to(root).as_posix()} && " if per_package else ""
            commands.append(f"{where}bun test {' '.join(paths)}")
            # between two files of our own, as a shard of the repository's
            # CI runs them in one process: the last says which browser
            # globals the touched tests left behind
            result = execute([bun, "test", str(first), *paths, str(last)], folder)
            output = strip_ansi(result.stdout + result.stderr)
            ran = {path: counts for path, counts in tests_run(output).items() if not path.endswith((_FIRST, _LAST))}
            passed += sum(counts.get("pass", 0) for counts in ran.values())
            left = [name for found in _LEFT.findall(output) for name in found.split(",")]
            leaks += left
            # a file that ran no test proves nothing (a preload that exits 0,
            # a test file emptied): the check fails, it does not pass
            empty.extend(
                (folder / path).relative_to(root).as_posix() for path in paths
                if not sum(ran.get(path.removeprefix("./"), {}).values()) and _declares_tests(folder / path)
            )
            if result.returncode != 0 and not left:
                failures.append(output)
    command = "; ".join(commands)
    if leaks:
        return Check(
            "tests", Outcome.FAILED, f"the tests leave browser globals behind ({', '.join(sorted(set(leaks)))})", command,
            "bun test runs the files of a shard in one process: a global a test file sets and does not put back "
            "breaks the files after it",
        )
    if failures:
        return Check("tests", Outcome.FAILED, f"bun test failed ({len(tests)} file(s))", command, first_lines(_failing_lines(failures)))
    if empty:
        return Check(
            "tests", Outcome.FAILED, f"bun test ran no test in {len(empty)} of {len(tests)} file(s)", command,
            "\n".join(f"{path}: no test ran" for path in empty),
        )
    if not passed:  # no failure, and no test ran either: nothing is proved
        return Check("tests", Outcome.NOT_AVAILABLE, f"bun test ran no test in {len(tests)} file(s)", command)
    return Check("tests", Outcome.PASSED, f"bun test: {passed} passed in {len(tests)} file(s)", command)


# What a test file faking a browser page sets on globalThis; the files of
# the repository's tests that run after it must not find them.
BROWSER_GLOBALS = ("window", "document", "navigator", "location", "MutationObserver", "getComputedStyle",
                   "HTMLElement", "localStorage", "sessionStorage")
_FIRST, _LAST = "0-mesh-codemod-first.test.ts", "z-mesh-codemod-last.test.ts"
_LEFT = re.compile(r"^left behind: ([A-Za-z]+(?:,[A-Za-z]+)*)$", re.M)
_FIRST_TEXT = """import { test } from "bun:test";

test("mesh-codemod: the globals before", () => {
  const present = Object.getOwnPropertyNames(globalThis);
  Object.assign(globalThis, { [Symbol.for("mesh-codemod.globals")]: present });
});
"""
_LAST_TEXT = """import { expect, test } from "bun:test";

test("mesh-codemod: the globals after", () => {
  const before: string[] = (globalThis as Record<symbol, string[]>)[Symbol.for("mesh-codemod.globals")] ?? [];
  const left = NAMES.filter((name: string) => !before.includes(name) && name in globalThis);
  if (left.length) console.error(`left behind: ${left.join(",")}`);
  expect(left).toEqual([]);
});
"""


_TEST_FILE = re.compile(r"^(?P<file>\S.*\.(?:test|spec)\.[cm]?[jt]sx?):$")


_TEST_RESULT = re.compile(r"^\((?P<result>pass|fail)\) ")


_TEST_CALL = re.compile(rb"(?<![\w.$])(?:test|it|describe)(?:\.\w+)*\s*\(")


def _declares_tests(path: Path) -> bool:
    """Whether a test file calls test/it/describe: a type-only one (the
    SDK's generated schema.test.ts, which tsc checks) runs none."""
    try:
        return bool(_TEST_CALL.search(path.read_bytes()))
    except OSError:
        return True


def tests_run(output: str) -> dict[str, Counter]:
    """Per test file that `bun test` names (relative to where it ran): how
    many tests passed and failed, from its per-file sections."""
    found: dict[str, Counter] = {}
    current = None
    for line in output.splitlines():
        if match := _TEST_FILE.match(line.strip()):
            current = found.setdefault(match["file"].removeprefix("./"), Counter())
        elif current is not None and (match := _TEST_RESULT.match(line.strip())):
            current[match["result"]] += 1
    return found


def _tests_for(root: Path, path: str) -> list[str]:
    """A touched test file itself, or the tests beside a touched module."""
    if ".test." in path or ".spec." in path:
        return [path]
    stem = path.rpartition(".")[0]
    return [f"{stem}{suffix}" for suffix in (".test.ts", ".test.tsx") if (root / f"{stem}{suffix}").is_file()]


def _failing_lines(outputs: Iterable[str]) -> str:
    """The failing tests and errors first: bun prints passes too."""
    lines = [line for out in outputs for line in out.splitlines()]
    wanted = [l for l in lines if re.search(r"\(fail\)|error|Error|expect|fail", l)]
    return "\n".join(wanted or lines)
