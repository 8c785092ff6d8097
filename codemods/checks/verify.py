"""`mesh-codemod verify`: the target repo's own checks, on the files the tool touched.

Each check is a value: passed, failed (with the first lines of its output)
or not available (the tool is not installed, say). The type check compares
the checker's errors with its errors on the unpatched base tree, so errors
the repository already has do not count; that baseline is cached by base
commit and lock file, outside the checkout.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, ExitStack
from enum import Enum
from pathlib import Path

from ..engine.record import NamedTuple
from ..engine.source import SourceError, SourceFile

FIRST_LINES = 15
REQUIRED = "--require-checks"  # the flag under which a check that cannot run fails
CACHE_FORMAT = 2  # bump when the cached errors' form changes
_TSC_ERROR = re.compile(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+),(?P<col>\d+)\): error (?P<code>TS\d+): (?P<message>.*)$")


class Outcome(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_AVAILABLE = "not available"


class Check(NamedTuple):
    """The result of one check."""

    name: str
    outcome: Outcome
    summary: str
    command: str = ""
    output: str = ""  # first lines, for a failure
    seconds: float = 0.0

    def to_json(self) -> dict:
        out = {"check": self.name, "outcome": self.outcome.value, "summary": self.summary}
        if self.command:
            out["command"] = self.command
        if self.output:
            out["output"] = self.output
        out["seconds"] = round(self.seconds, 1)
        return out


class Report(NamedTuple):
    """Every check, in the order run, and the files they looked at."""

    files: list[str]
    checks: list[Check]

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if c.outcome is Outcome.FAILED]

    def to_json(self) -> dict:
        return {
            "files": self.files,
            "checks": [c.to_json() for c in self.checks],
            "failed": bool(self.failed),
        }

    def text(self) -> str:
        lines = []
        for check in self.checks:
            lines.append(f"  {check.name:<10} {check.outcome.value:<14} {check.seconds:5.1f}s  {check.summary}")
            for line in check.output.splitlines():
                lines.append(f"  {'':<10} {'':<14} {'':>6}  | {line}")
        return "\n".join(lines)

    def markdown(self) -> str:
        rows = ["| check | result | details |", "| --- | --- | --- |"]
        for check in self.checks:
            mark = {Outcome.PASSED: "passed", Outcome.FAILED: "**failed**", Outcome.NOT_AVAILABLE: "not available"}
            rows.append(f"| {check.name} | {mark[check.outcome]} | {_cell(check.summary)} |")
        blocks = [
            f"<details><summary>{c.name}: first lines</summary>\n\n```\n{c.output}\n```\n</details>"
            for c in self.checks
            if c.output
        ]
        return "\n".join(rows) + ("\n\n" + "\n\n".join(blocks) if blocks else "")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


class Baseline(NamedTuple):
    """How to get the unpatched tree: a cache key and a context manager that
    yields a folder holding it (with the checkout's node_modules linked)."""

    key: str
    describe: str
    tree: Callable[[], AbstractContextManager[Path]]
    # where the copy's node_modules links lead: errors found through them
    # are named relative to it
    checkout: Path | None = None
    # the files the patched tree changed, as they are at the base:
    # path -> bytes, or None where the base has no such file
    changes: Callable[[], dict[str, bytes | None]] | None = None


Progress = Callable[[str], None]


class TypeRun(NamedTuple):
    """One run of a type checker: the folder it runs in (relative to the
    tree), its command in a given tree (None: it cannot run there), how the
    report shows it, and its name in the baseline cache's key."""

    folder: str
    command: Callable[[Path], list[str] | None]
    shown: str
    label: str
    # the arguments, when the run is a plain `tsc` (a noEmit project check)
    # that tsc_pair.cjs can run with the base in one process
    tsc_args: tuple[str, ...] | None = None


class Context(NamedTuple):
    """What a check is given."""

    root: Path
    files: list[str]
    typecheck: list[TypeRun] | Check  # or why the type check cannot run
    linked_from: Path | None
    source: Baseline | None = None  # the unpatched tree
    baseline: BaselineRun | None = None  # its errors, for the runs below not paired
    paired: dict[str, str] | None = None  # folder -> node, for the runs tsc_pair.cjs takes


# Each target's checks, in the order they run: the ones its own CI runs,
# and what its type check runs (planned before any check starts, so that
# the baseline's run can start at once).
CHECKS: dict[str, tuple[tuple[str, Callable[[Context], Check]], ...]] = {
    # mesh: Biome, oxlint, `bun run check` per package, bun test
    "host": (
        ("parse", lambda c: _parse(c.root, c.files)),
        ("format", lambda c: _format(c.root, c.files)),
        ("lint", lambda c: _lint(c.root, c.files)),
        ("typecheck", lambda c: _typecheck(c)),
        ("tests", lambda c: _tests(c.root, c.files)),
    ),
    # the MCP Apps SDK: Prettier, tsc with its tsconfig, bun test (see the end of this module)
    "sdk": (
        ("parse", lambda c: _parse(c.root, c.files)),
        ("format", lambda c: _prettier(c.root, c.files)),
        ("typecheck", lambda c: _typecheck(c, "tsc: ")),
        ("tests", lambda c: _tests(c.root, c.files, per_package=False)),
    ),
}
TYPECHECKS: dict[str, Callable[[Path, list[str]], list[TypeRun] | Check]] = {
    "host": lambda root, files: _package_checks(root, files),
    "sdk": lambda root, files: _tsc_runs(root),
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
        context = Context(root, files, typecheck, linked_from, baseline)
        if baseline is not None and not isinstance(typecheck, Check):
            paired = {r.folder: node for r in typecheck if (node := _pair_for(root, r, baseline))}
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
            checks.append(result._replace(name=name, seconds=time.monotonic() - started))
    from . import sandbox

    # each check's process group is gone; what left its group goes now
    sandbox.sweep()
    return Report(files, checks)


def _first_lines(text: str, count: int = FIRST_LINES) -> str:
    lines = [line.rstrip() for line in _strip_ansi(text).strip("\n").splitlines()]
    if len(lines) > count:
        lines = lines[:count] + [f"... ({len(lines) - count} more lines)"]
    return "\n".join(lines)


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


def _exec(
    command: Sequence[str], cwd: Path, timeout: float = 1800, started: Callable[[subprocess.Popen], None] | None = None
) -> subprocess.CompletedProcess:
    """Run ``command`` of the checkout (`sandbox`: an allow-listed
    environment, its own process group killed when it ends); ``started`` is
    handed the process, so that another thread can stop it."""
    from . import sandbox

    return sandbox.run(command, cwd, timeout, started, env={"NO_COLOR": "1", "FORCE_COLOR": "0"})


def _shown(command: Sequence[str], root: Path) -> str:
    parts = []
    for part in command:
        try:
            parts.append(Path(part).relative_to(root).as_posix() if Path(part).is_absolute() else part)
        except ValueError:
            parts.append(part)
    return " ".join(parts)


def _tool(root: Path, name: str) -> Path | None:
    local = root / "node_modules" / ".bin" / name
    return local if local.exists() else None


def _bun(root: Path) -> str | None:
    """The Bun on PATH, as the workflow pinned it: never one from the
    checkout (its node_modules/.bin, or a PATH entry inside it)."""
    # the checkout, and where its node_modules leads from a copy of it
    inside = {root.resolve(), (root / "node_modules").resolve()}
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not folder or not os.path.isabs(folder):
            continue
        resolved = Path(folder).resolve()
        if any(resolved == p or p in resolved.parents for p in inside):
            continue
        found = shutil.which("bun", path=folder)
        if found:
            return found
    return None


def _installed_bun(root: Path, check: str) -> str | Check:
    """Bun, when it and the checkout's dependencies are there; else why
    ``check`` is not available."""
    # node_modules first: what a checkout without them reports must not
    # depend on whether this machine has a bun on PATH (SPEC section 7)
    if not (root / "node_modules").exists():
        return Check(check, Outcome.NOT_AVAILABLE, "node_modules not installed")
    bun = _bun(root)
    if bun is None:
        return Check(check, Outcome.NOT_AVAILABLE, "bun not found on PATH")
    return bun


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
    result = _exec(command, root)
    shown = _shown(command, root)
    if result.returncode != 0:
        return Check("format", Outcome.FAILED, "biome would reformat", shown, _first_lines(result.stdout + result.stderr))
    return Check("format", Outcome.PASSED, f"biome format: {len(files)} file(s) formatted", shown)


def _lint(root: Path, files: list[str]) -> Check:
    oxlint = _tool(root, "oxlint")
    if oxlint is None:
        return Check("lint", Outcome.NOT_AVAILABLE, "node_modules/.bin/oxlint not found (install the checkout's dependencies)")
    config = [".oxlintrc.json"] if (root / ".oxlintrc.json").is_file() else []
    command = [str(oxlint), *(["-c", *config] if config else []), *files]
    result = _exec(command, root)
    shown = _shown(command, root)
    output = _strip_ansi(result.stdout + result.stderr)
    counts = re.search(r"Found (\d+) warnings? and (\d+) errors?", output)
    tally = f"{counts.group(2)} error(s), {counts.group(1)} warning(s)" if counts else ""
    if result.returncode != 0:
        return Check("lint", Outcome.FAILED, f"oxlint: {tally or 'failed'}", shown, _first_lines(output))
    return Check("lint", Outcome.PASSED, f"oxlint: {tally or 'no findings'}", shown)


def _package_dir(root: Path, path: str, script: str | None = None) -> Path | None:
    """The nearest folder above ``path`` with a package.json (that has
    ``script``, when given)."""
    folder = (root / path).parent
    while True:
        manifest = folder / "package.json"
        if manifest.is_file():
            if script is None:
                return folder
            try:
                if script in json.loads(manifest.read_text(encoding="utf-8")).get("scripts", {}):
                    return folder
            except (OSError, ValueError):
                pass
        if folder == root:
            return None
        folder = folder.parent


def errors_of(output: str, cwd: Path | None = None, roots: Sequence[Path] = ()) -> Counter:
    """tsc's errors as (file, code, message), without positions: edits move
    lines. A file is named relative to the first of ``roots`` that holds it
    (tsc prints paths relative to ``cwd``, through resolved links, so the
    same file reads differently from the checkout and from a copy of it)."""
    return Counter(key for _, key in _error_lines(output, cwd, roots))


def _error_lines(output: str, cwd: Path | None, roots: Sequence[Path]) -> list[tuple[str, tuple[str, str, str]]]:
    """Each error line of tsc's output, without colours, with its key."""
    found = []
    for line in _strip_ansi(output).splitlines():
        key = _error_key(line, cwd, roots)
        if key is not None:
            found.append((line, key))
    return found


def _error_key(line: str, cwd: Path | None, roots: Sequence[Path]) -> tuple[str, str, str] | None:
    match = _TSC_ERROR.match(line.strip())
    return (_normalized(match["file"], cwd, roots), match["code"], match["message"]) if match else None


def _normalized(file: str, cwd: Path | None, roots: Sequence[Path]) -> str:
    if cwd is None:
        return file
    absolute = os.path.normpath(os.path.join(os.path.abspath(cwd), file))
    for root in roots:
        prefix = os.path.normpath(root) + os.sep
        if absolute.startswith(prefix):
            return absolute[len(prefix):].replace(os.sep, "/")
    return file


def _package_checks(root: Path, files: list[str]) -> list[TypeRun] | Check:
    """mesh: `bun run check` in each package above the touched files."""
    packages = sorted({p for p in (_package_dir(root, f, "check") for f in files) if p is not None})
    if not packages:
        return Check("typecheck", Outcome.NOT_AVAILABLE, "no package.json with a `check` script above the touched files")
    bun = _installed_bun(root, "typecheck")
    if isinstance(bun, Check):
        return bun
    runs = []
    for package in packages:
        relative = package.relative_to(root).as_posix()
        runs.append(TypeRun(
            relative, lambda tree: [bun, "run", "check"], f"cd {relative} && bun run check", "bun run check",
            _plain_tsc(package),
        ))
    return runs


_PLAIN_TSC = re.compile(r"^tsc(?P<args>(?:\s+[\w./=:@-]+)*)\s*$")


def _plain_tsc(package: Path) -> tuple[str, ...] | None:
    """The arguments of the package's `check` script when it is `tsc` alone
    (no other command, no shell syntax)."""
    from ..recipes.manifest import read_manifest

    script = (read_manifest(package) or {}).get("scripts", {}).get("check", "")
    match = _PLAIN_TSC.match(script.strip()) if isinstance(script, str) else None
    return tuple(match["args"].split()) if match else None


class BaselineRun:
    """The unpatched tree's type errors, run by run, worked out in a thread
    from the start of `run`.

    On a cold cache the base tree's check then runs beside the patched
    tree's instead of after it, so verify costs about one type check, not
    two. Both are the same command on the same trees as when run one after
    the other, and their errors are compared the same way: only the timing
    differs. Errors come from the cache when it has them; a run that is
    stopped (no patched error needed it) is not cached."""

    def __init__(self, baseline: Baseline, runs: list[TypeRun]) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._baseline = baseline
        self._stopped = False
        self._processes: list[subprocess.Popen] = []
        self._trees = ExitStack()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="baseline")
        self._result = self._pool.submit(self._run_all, runs)

    def errors(self, folder: str) -> Counter | None:
        """The errors of the run in ``folder``; None when it cannot run on
        the base tree."""
        return self._result.result().get(folder)

    def close(self) -> None:
        """Stop a check still running, then remove the base tree."""
        self._stopped = True
        from . import sandbox

        for process in self._processes:
            sandbox.stop(process)
        self._pool.shutdown(wait=True)
        self._trees.close()

    def _started(self, process: subprocess.Popen) -> None:
        from . import sandbox

        self._processes.append(process)
        if self._stopped:
            sandbox.stop(process)

    def _run_all(self, runs: list[TypeRun]) -> dict[str, Counter]:
        found = {}
        tree = None
        for type_run in runs:
            cached = _cache_file(self._baseline, type_run)
            errors = _read_cache(cached)
            if errors is None:
                if self._stopped:
                    break
                if tree is None:  # exported at most once, and only on a cache miss
                    tree = self._trees.enter_context(self._baseline.tree())
                command = type_run.command(tree)
                if command is None:
                    continue
                folder = tree / type_run.folder
                result = _exec(command, folder, started=self._started)
                if self._stopped:
                    break
                roots = [p.resolve() for p in (tree, self._baseline.checkout) if p is not None]
                errors = errors_of(result.stdout + result.stderr, folder, roots)
                _write_cache(cached, errors)
            found[type_run.folder] = errors
        return found


def _typecheck(context: Context, prefix: str = "") -> Check:
    """Each planned type-checker run on the patched tree; only errors that
    the unpatched tree does not have count (by file, code and message)."""
    if isinstance(context.typecheck, Check):
        return context.typecheck
    root = context.root
    new_errors: Counter = Counter()
    known = 0
    outputs = []
    roots = [p.resolve() for p in (root, context.linked_from) if p is not None]
    shown = []
    for type_run in context.typecheck:
        folder = root / type_run.folder
        paired = _run_pair(context, type_run)
        if paired is None:
            result = _exec(type_run.command(root), folder)
            output, base_output = result.stdout + result.stderr, None
            shown.append(type_run.shown)
        else:
            result, output, base_output = paired
            where = "" if type_run.folder == "." else f"cd {type_run.folder} && "
            shown.append(f"{where}tsc {' '.join(type_run.tsc_args)} (and the base, in one process)")
        lines = _error_lines(output, folder, roots)
        found = Counter(key for _, key in lines)
        if result.returncode != 0 and not found:
            return Check(
                "typecheck", Outcome.FAILED, f"`{type_run.label}` in {type_run.folder} failed without type errors",
                shown[-1], _first_lines(output),
            )
        if base_output is not None:
            # the base's errors in the files the patched tree has errors in:
            # all that the comparison below looks at
            before = errors_of(base_output, folder, roots)
        else:
            before = _base_errors(context, type_run) if found and context.baseline else Counter()
        if before is None or (found and context.baseline is None):
            before = Counter()
            outputs.append("(no baseline: every error counts)")
        known += sum((found & before).values())
        new = found - before
        new_errors += new
        outputs.extend(line for line, key in lines if key in new)
    command = "; ".join(shown)
    compared = f" (baseline: {context.source.describe})" if context.source else ""
    if new_errors:
        return Check(
            "typecheck", Outcome.FAILED,
            f"{prefix}{sum(new_errors.values())} new error(s); {known} already in the unpatched tree{compared}",
            command, _first_lines("\n".join(outputs)),
        )
    return Check(
        "typecheck", Outcome.PASSED, f"{prefix}no new errors; {known} already in the unpatched tree{compared}", command
    )


PAIR_SCRIPT = Path(__file__).with_name("tsc_pair.cjs")
_PAIR_MARKER = "@@mesh-codemod: base@@"
_PAIR_UNSUPPORTED = 64


def _pair_for(root: Path, type_run: TypeRun, baseline: Baseline | None) -> str | None:
    """Node, when tsc_pair.cjs can run ``type_run`` with the base in one
    process: a plain `tsc` with the checkout's typescript package at hand,
    a baseline that knows the changed files, and no baseline cached (a
    cached one needs only the patched check)."""
    if type_run.tsc_args is None or baseline is None or baseline.changes is None:
        return None
    folder = root / type_run.folder
    if not any((d / "node_modules" / "typescript" / "package.json").is_file() for d in (folder, *folder.parents)):
        return None
    if _read_cache(_cache_file(baseline, type_run)) is not None:
        return None
    return shutil.which("node")


def _run_pair(context: Context, type_run: TypeRun) -> tuple[subprocess.CompletedProcess, str, str] | None:
    """The patched tree's and the base's errors from one process: the base
    program reuses every file the change did not touch and is checked only
    in the files where the patched one has errors, so the pair costs about
    one type check (`benchmarks/verify.py`). The same compiler, options and
    files as the script's own `tsc`; the comparison is the same as with two
    full runs, as it only ever looks at the files with patched errors.
    None: not a run it can take (the caller runs the script)."""
    node = (context.paired or {}).get(type_run.folder)
    if node is None:
        return None
    baseline = context.source
    import tempfile

    overlay = {
        str(context.root / path): (None if data is None else data.decode("utf-8", errors="replace"))
        for path, data in baseline.changes().items()
    }
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-pair-") as scratch:
        overlay_file = Path(scratch) / "overlay.json"
        overlay_file.write_text(json.dumps({"files": overlay}), encoding="utf-8")
        command = [node, str(PAIR_SCRIPT), str(overlay_file), "--", *type_run.tsc_args]
        result = _exec(command, context.root / type_run.folder)
    if result.returncode == _PAIR_UNSUPPORTED or _PAIR_MARKER not in result.stdout:
        return None
    patched, _, base = result.stdout.partition(_PAIR_MARKER + "\n")
    return result, patched + result.stderr, base


def _base_errors(context: Context, type_run: TypeRun) -> Counter | None:
    """The base's errors for ``type_run``: from the run started with
    verify, or (a run tsc_pair.cjs did not take after all) one of its own."""
    errors = context.baseline.errors(type_run.folder)
    if errors is None and type_run.folder in context.paired:
        late = BaselineRun(context.source, [type_run])
        try:
            errors = late.errors(type_run.folder)
        finally:
            late.close()
    return errors


def cache_dir() -> Path:
    root = os.environ.get("MESH_CODEMOD_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mesh-codemod"
    )
    return Path(root) / "typecheck"


def _cache_file(baseline: Baseline, type_run: TypeRun) -> Path:
    text = f"{CACHE_FORMAT}\0{baseline.key}\0{type_run.folder}\0{type_run.label}"
    return cache_dir() / f"{hashlib.sha256(text.encode()).hexdigest()[:32]}.json"


def _read_cache(cached: Path) -> Counter | None:
    try:
        return Counter({tuple(e[:3]): e[3] for e in json.loads(cached.read_text())["errors"]})
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_cache(cached: Path, errors: Counter) -> None:
    cached.parent.mkdir(parents=True, exist_ok=True)
    temp = cached.with_suffix(f".{os.getpid()}.tmp")
    temp.write_text(json.dumps({"errors": [[*k, n] for k, n in sorted(errors.items())]}, indent=1))
    os.replace(temp, cached)


def _tests(root: Path, files: list[str], per_package: bool = True) -> Check:
    """`bun test` on the touched test files and the tests beside touched
    modules: from each one's package (mesh), or all from the checkout's
    root, as the SDK's `test` script runs them."""
    tests = sorted(dict.fromkeys(t for path in files for t in _tests_for(root, path)))
    if not tests:
        return Check("tests", Outcome.PASSED, "no tests beside the touched files")
    bun = _installed_bun(root, "tests")
    if isinstance(bun, Check):
        return bun
    groups: dict[Path, list[str]] = {}
    for test in tests:
        folder = (_package_dir(root, test) or root) if per_package else root
        groups.setdefault(folder, []).append("./" + (root / test).relative_to(folder).as_posix())
    commands, failures, passed, empty = [], [], 0, []
    for folder, paths in groups.items():
        where = f"cd {folder.relative_to(root).as_posix()} && " if per_package else ""
        commands.append(f"{where}bun test {' '.join(paths)}")
        result = _exec([bun, "test", *paths], folder)
        output = _strip_ansi(result.stdout + result.stderr)
        ran = tests_run(output)
        passed += sum(counts.get("pass", 0) for counts in ran.values())
        # a file that ran no test proves nothing (a preload that exits 0,
        # a test file emptied): the check fails, it does not pass
        empty.extend(
            (folder / path).relative_to(root).as_posix() for path in paths
            if not sum(ran.get(path.removeprefix("./"), {}).values()) and _declares_tests(folder / path)
        )
        if result.returncode != 0:
            failures.append(output)
    command = "; ".join(commands)
    if failures:
        return Check("tests", Outcome.FAILED, f"bun test failed ({len(tests)} file(s))", command, _first_lines(_failing_lines(failures)))
    if empty:
        return Check(
            "tests", Outcome.FAILED, f"bun test ran no test in {len(empty)} of {len(tests)} file(s)", command,
            "\n".join(f"{path}: no test ran" for path in empty),
        )
    return Check("tests", Outcome.PASSED, f"bun test: {passed} passed in {len(tests)} file(s)", command)


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


# --- the MCP Apps SDK's checks ---------------------------------------------------
# What the SDK's own CI runs on its sources: Prettier (its `prettier` script
# checks js, jsx, ts, tsx, mjs, json, md, yml and yaml files, so not the .mdx
# SEP text), `tsc` with the repository's tsconfig, and `bun test` (its `test`
# script). Bun is the one on PATH, as in the SDK's CI: the checkout's
# node_modules/.bin/bun is never run.

PRETTIER_SUFFIXES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".json", ".md", ".yml", ".yaml")
TSCONFIG = "tsconfig.json"


def _markdown_problem(root: Path, path: str) -> list[str]:
    from ..engine.markdown import Document

    try:
        data = (root / path).read_bytes()
    except OSError as err:
        return [f"{path}: {err}"]
    return [f"{path}: does not parse as Markdown"] if Document(data).has_error() else []


def _prettier(root: Path, files: list[str]) -> Check:
    prettier = _tool(root, "prettier")
    if prettier is None:
        return Check("format", Outcome.NOT_AVAILABLE, "node_modules/.bin/prettier not found (install the checkout's dependencies)")
    checked = [f for f in files if f.endswith(PRETTIER_SUFFIXES)]
    if not checked:
        return Check("format", Outcome.PASSED, "no file of a kind the SDK's prettier script checks")
    # Prettier reads .prettierrc, .prettierignore and .gitignore from the checkout
    command = [str(prettier), "--check", *checked]
    result = _exec(command, root)
    shown = _shown(command, root)
    skipped = len(files) - len(checked)
    extra = f" ({skipped} other file(s) are not the SDK's prettier script's)" if skipped else ""
    if result.returncode != 0:
        return Check("format", Outcome.FAILED, f"prettier --check: would reformat{extra}", shown, _first_lines(result.stdout + result.stderr))
    return Check("format", Outcome.PASSED, f"prettier --check: {len(checked)} file(s) formatted{extra}", shown)


def _tsc_command(root: Path) -> list[str] | None:
    tsc = _tool(root, "tsc")
    if tsc is None:
        return None
    # --noEmit over a tsconfig that asks for declarations only: tsc refuses
    # the pair (TS5053) unless the latter is switched off here too.
    return [str(tsc), "--noEmit", "--emitDeclarationOnly", "false", "-p", TSCONFIG]


def _tsc_runs(root: Path) -> list[TypeRun] | Check:
    """The SDK: `tsc --noEmit` with the repository's tsconfig, at its root."""
    if not (root / TSCONFIG).is_file():
        return Check("typecheck", Outcome.NOT_AVAILABLE, f"no {TSCONFIG} at the checkout's root")
    command = _tsc_command(root)
    if command is None:
        return Check("typecheck", Outcome.NOT_AVAILABLE, "node_modules/.bin/tsc not found (install the checkout's dependencies)")

    def in_tree(tree: Path) -> list[str] | None:
        # the checkout's tsc, through the node_modules linked into the copy
        return _tsc_command(tree) if (tree / TSCONFIG).is_file() else None

    return [TypeRun(".", in_tree, _shown(command, root), f"tsc --noEmit -p {TSCONFIG}", tuple(command[1:]))]
