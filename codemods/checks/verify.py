"""`mesh-codemod verify`: the target repo's own checks, on the files the tool touched.

Each check is a value: passed, failed (with the first lines of its output)
or not available (the tool is not installed, say). The type check
(`typecheck`) compares the checker's errors with its errors on the
unpatched base tree, so errors the repository already has do not count.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from ..engine.source import SourceError, SourceFile
from .bun_tests import run_tests
from .knip import knip_check
from .sdk_ci import build_check, generator_check
from ..plan.baseline import Baseline
from .model import Check, Outcome, Progress, REQUIRED, Report, execute, first_lines, shown_command, strip_ansi, tool
from .typecheck import BaselineRun, Context, TypeRun, package_checks, pair_for, tsc_runs, type_check


# Each target's checks, in the order they run: the ones its own CI runs,
# and what its type check runs (planned before any check starts, so that
# the baseline's run can start at once).
CHECKS: dict[str, tuple[tuple[str, Callable[[Context], Check]], ...]] = {
    # mesh: Biome, oxlint, `bun run check` per package, bun test, knip;
    # the rest of its pull-request CI is listed "not run" (`workflows`)
    "host": (
        ("parse", lambda c: _parse(c.root, c.files)),
        ("format", lambda c: _format(c.root, c.files)),
        ("lint", lambda c: _lint(c.root, c.files)),
        ("typecheck", lambda c: type_check(c)),
        ("tests", lambda c: run_tests(c.root, c.files)),
        ("knip", knip_check),
    ),
    # the MCP Apps SDK's CI: Prettier, tsc with its tsconfig, bun test (see
    # the end of this module), `npm run build`, the generator with `git diff
    # --exit-code` (`sdk_ci`)
    "sdk": (
        ("parse", lambda c: _parse(c.root, c.files)),
        ("format", lambda c: _prettier(c.root, c.files, c.source)),
        ("typecheck", lambda c: type_check(c, "tsc: ")),
        ("tests", lambda c: run_tests(c.root, c.files, per_package=False)),
        ("build", build_check),
        ("generated", generator_check),
    ),
}


TYPECHECKS: dict[str, Callable[[Path, list[str]], list[TypeRun] | Check]] = {
    "host": lambda root, files: package_checks(root, files),
    "sdk": lambda root, files: tsc_runs(root),
}


def run(
    root: Path,
    files: Sequence[str],
    baseline: Baseline | None = None,
    progress: Progress | None = None,
    linked_from: Path | None = None,
    target: str = "host",
    require: bool = False,
) -> Report:
    """Run the ``target``'s checks on ``files`` (paths relative to
    ``root``); when ``root`` is a copy whose node_modules are links,
    ``linked_from`` is the checkout they lead to. With ``require``, a check
    that cannot run fails instead of being "not available"."""
    root = root.resolve()
    files = sorted(dict.fromkeys(files))
    note = progress or (lambda name: None)
    typecheck = TYPECHECKS[target](root, files)
    checks = []
    with ExitStack() as stack:
        if baseline is not None:  # one copy of the base tree for every check that needs it
            baseline = baseline._replace(tree=_shared(baseline.tree, stack.enter_context(ExitStack())))
        context = Context(root, files, typecheck, linked_from, baseline)
        if baseline is not None and not isinstance(typecheck, Check):
            paired = {r.folder: node for r in typecheck if (node := pair_for(root, r, baseline))}
            # a run that tsc_pair.cjs takes needs no base tree of its own
            base = BaselineRun(baseline, [r for r in typecheck if r.folder not in paired])
            stack.callback(base.close)
            context = context._replace(baseline=base, paired=paired)
        for name, check in CHECKS[target]:
            note(name)
            started = time.monotonic()
            try:
                result = check(context)
            except subprocess.TimeoutExpired as err:
                result = Check(name, Outcome.FAILED, f"timed out after {err.timeout:g}s", " ".join(map(str, err.cmd)))
            except OSError as err:
                result = Check(name, Outcome.NOT_AVAILABLE, f"could not run: {err}")
            if require and result.outcome is Outcome.NOT_AVAILABLE:
                result = result._replace(outcome=Outcome.FAILED, summary=f"could not run ({REQUIRED}): {result.summary}")
            if result.outcome is Outcome.FAILED and not result.files:  # what its first lines name
                result = result._replace(files=named(files, result.summary + "\n" + result.output))
            checks.append(result._replace(name=name, seconds=time.monotonic() - started))
    from . import sandbox

    # each check's process group is gone; what left its group goes now
    sandbox.sweep()
    if target == "host":  # what mesh's pull-request workflows run that did not run here
        from .workflows import not_run

        checks.extend(not_run(root, files, {c.name: c.outcome for c in checks}))
    return Report(files, checks)


def named(files: Sequence[str], output: str) -> tuple[str, ...]:
    """The ``files`` that a check's ``output`` names."""
    return tuple(path for path in files if path in output)


def _shared(tree: Callable[[], AbstractContextManager[Path]], stack: ExitStack):
    """``tree`` made once, on first use, for every user, and removed with
    ``stack``."""
    import threading
    from contextlib import contextmanager

    lock = threading.Lock()
    made: list[Path] = []

    @contextmanager
    def shared():
        with lock:
            if not made:
                made.append(stack.enter_context(tree()))
        yield made[0]

    return shared


def _parse(root: Path, files: list[str]) -> Check:
    problems = []
    for path in files:
        if path.endswith((".md", ".mdx")):
            problems.extend(_markdown_problem(root, path))
        if not path.endswith((".ts", ".tsx")):
            continue
        try:
            SourceFile.from_bytes(path, (root / path).read_bytes())
        except (OSError, SourceError) as err:
            problems.append(str(err))
    if problems:
        return Check("parse", Outcome.FAILED, f"{len(problems)} file(s) do not parse", output="\n".join(problems))
    return Check("parse", Outcome.PASSED, f"{len(files)} file(s) parse with tree-sitter")


def _format(root: Path, files: list[str]) -> Check:
    from ..plan.formatting import find_biome

    # the platform binary, as the formatter pass runs it: the npm launcher
    # only finds it, at the cost of a Node start
    biome = find_biome(root)
    if biome is None:
        return Check("format", Outcome.NOT_AVAILABLE, "node_modules/.bin/biome not found (install the checkout's dependencies)")
    command = [str(biome.program), "format", *files]
    result = execute(command, root)
    shown = shown_command(command, root)
    if result.returncode != 0:
        output = result.stdout + result.stderr
        return Check("format", Outcome.FAILED, "biome would reformat", shown, first_lines(output),
                     files=named(files, strip_ansi(output)))
    return Check("format", Outcome.PASSED, f"biome format: {len(files)} file(s) formatted", shown)


def _lint(root: Path, files: list[str]) -> Check:
    oxlint = tool(root, "oxlint")
    if oxlint is None:
        return Check("lint", Outcome.NOT_AVAILABLE, "node_modules/.bin/oxlint not found (install the checkout's dependencies)")
    config = [".oxlintrc.json"] if (root / ".oxlintrc.json").is_file() else []
    command = [str(oxlint), *(["-c", *config] if config else []), *files]
    result = execute(command, root)
    shown = shown_command(command, root)
    output = strip_ansi(result.stdout + result.stderr)
    counts = re.search(r"Found (\d+) warnings? and (\d+) errors?", output)
    tally = f"{counts.group(2)} error(s), {counts.group(1)} warning(s)" if counts else ""
    if result.returncode != 0:
        return Check("lint", Outcome.FAILED, f"oxlint: {tally or 'failed'}", shown, first_lines(output))
    return Check("lint", Outcome.PASSED, f"oxlint: {tally or 'no findings'}", shown)


PRETTIER_SUFFIXES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".json", ".md", ".yml", ".yaml")


def _markdown_problem(root: Path, path: str) -> list[str]:
    from ..engine.markdown import Document

    try:
        data = (root / path).read_bytes()
    except OSError as err:
        return [f"{path}: {err}"]
    return [f"{path}: does not parse as Markdown"] if Document(data).has_error() else []


def _prettier(root: Path, files: list[str], source: Baseline | None = None) -> Check:
    prettier = tool(root, "prettier")
    if prettier is None:
        return Check("format", Outcome.NOT_AVAILABLE, "node_modules/.bin/prettier not found (install the checkout's dependencies)")
    checked = [f for f in files if f.endswith(PRETTIER_SUFFIXES)]
    if not checked:
        return Check("format", Outcome.PASSED, "no file of a kind the SDK's prettier script checks")
    # Prettier reads .prettierrc, .prettierignore and .gitignore from the checkout
    command = [str(prettier), "--check", *checked]
    result = execute(command, root)
    shown = shown_command(command, root)
    skipped = len(files) - len(checked)
    extra = f" ({skipped} other file(s) are not the SDK's prettier script's)" if skipped else ""
    if result.returncode != 0:
        unclean = _unformatted(result.stdout + result.stderr, checked)
        # only new findings count: a file the base has unformatted already is not this change's
        old = _unformatted_on_base(prettier, source, unclean) if unclean and source is not None else set()
        if unclean and old >= set(unclean):
            return Check(
                "format", Outcome.PASSED, f"prettier --check: {len(unclean)} file(s) unformatted at the base already: no new finding", shown
            )
        return Check("format", Outcome.FAILED, f"prettier --check: would reformat{extra}", shown,
                     first_lines(result.stdout + result.stderr), files=tuple(unclean))
    return Check("format", Outcome.PASSED, f"prettier --check: {len(checked)} file(s) formatted{extra}", shown)


def _unformatted(output: str, checked: list[str]) -> list[str]:
    """The files `prettier --check` names as unformatted (`[warn] path`)."""
    named = {line.removeprefix("[warn] ").strip() for line in strip_ansi(output).splitlines()}
    return [path for path in checked if path in named]


def _unformatted_on_base(prettier: Path, source: Baseline, paths: list[str]) -> set[str]:
    with source.tree() as base:
        present = [path for path in paths if (base / path).is_file()]
        if not present:
            return set()
        result = execute([str(prettier), "--check", *present], base)
        return set(_unformatted(result.stdout + result.stderr, present)) if result.returncode != 0 else set()
