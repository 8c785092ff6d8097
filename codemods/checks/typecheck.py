"""The type check: each planned type-checker run on the patched tree, and
only the errors the unpatched base tree does not have count. The base's
errors are cached by base commit and lock file, outside the checkout, and
worked out beside the patched tree's run (`BaselineRun`), or in the same
process (`tsc_pair.cjs`)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import NamedTuple
from ..plan.baseline import Baseline
from .model import Check, Outcome, execute, first_lines, installed_bun, package_dir, shown_command, strip_ansi, tool


CACHE_FORMAT = 2  # bump when the cached errors' form changes


_TSC_ERROR = re.compile(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+),(?P<col>\d+)\): error (?P<code>TS\d+): (?P<message>.*)$")


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


def errors_of(output: str, cwd: Path | None = None, roots: Sequence[Path] = ()) -> Counter:
    """tsc's errors as (file, code, message), without positions: edits move
    lines. A file is named relative to the first of ``roots`` that holds it
    (tsc prints paths relative to ``cwd``, through resolved links, so the
    same file reads differently from the checkout and from a copy of it)."""
    return Counter(key for _, key in _error_lines(output, cwd, roots))


def _error_lines(output: str, cwd: Path | None, roots: Sequence[Path]) -> list[tuple[str, tuple[str, str, str]]]:
    """Each error line of tsc's output, without colours, with its key."""
    found = []
    for line in strip_ansi(output).splitlines():
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


def package_checks(root: Path, files: list[str]) -> list[TypeRun] | Check:
    """mesh: `bun run check` in each package above the touched files."""
    packages = sorted({p for p in (package_dir(root, f, "check") for f in files) if p is not None})
    if not packages:
        return Check("typecheck", Outcome.NOT_AVAILABLE, "no package.json with a `check` script above the touched files")
    bun = installed_bun(root, "typecheck")
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
                result = execute(command, folder, started=self._started)
                if self._stopped:
                    break
                roots = [p.resolve() for p in (tree, self._baseline.checkout) if p is not None]
                errors = errors_of(result.stdout + result.stderr, folder, roots)
                _write_cache(cached, errors)
            found[type_run.folder] = errors
        return found


def type_check(context: Context, prefix: str = "") -> Check:
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
            result = execute(type_run.command(root), folder)
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
                shown[-1], first_lines(output),
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
            command, first_lines("\n".join(outputs)),
        )
    return Check(
        "typecheck", Outcome.PASSED, f"{prefix}no new errors; {known} already in the unpatched tree{compared}", command
    )


PAIR_SCRIPT = Path(__file__).with_name("tsc_pair.cjs")


_PAIR_MARKER = "@@mesh-codemod: base@@"


_PAIR_UNSUPPORTED = 64


def pair_for(root: Path, type_run: TypeRun, baseline: Baseline | None) -> str | None:
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
        result = execute(command, context.root / type_run.folder)
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


TSCONFIG = "tsconfig.json"


def _tsc_command(root: Path) -> list[str] | None:
    tsc = tool(root, "tsc")
    if tsc is None:
        return None
    # --noEmit over a tsconfig that asks for declarations only: tsc refuses
    # the pair (TS5053) unless the latter is switched off here too.
    return [str(tsc), "--noEmit", "--emitDeclarationOnly", "false", "-p", TSCONFIG]


def tsc_runs(root: Path) -> list[TypeRun] | Check:
    """The SDK: `tsc --noEmit` with the repository's tsconfig, at its root."""
    if not (root / TSCONFIG).is_file():
        return Check("typecheck", Outcome.NOT_AVAILABLE, f"no {TSCONFIG} at the checkout's root")
    command = _tsc_command(root)
    if command is None:
        return Check("typecheck", Outcome.NOT_AVAILABLE, "node_modules/.bin/tsc not found (install the checkout's dependencies)")

    def in_tree(tree: Path) -> list[str] | None:
        # the checkout's tsc, through the node_modules linked into the copy
        return _tsc_command(tree) if (tree / TSCONFIG).is_file() else None

    return [TypeRun(".", in_tree, shown_command(command, root), f"tsc --noEmit -p {TSCONFIG}", tuple(command[1:]))]
