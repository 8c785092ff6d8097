"""The SDK's CI steps that run whole scripts of the checkout: `npm run build`,
and the schema generator followed by `git diff --exit-code` (the MCP Apps
SDK's CI regenerates `src/generated/` and fails on any difference).

Each runs on a scratch copy of the tree (node_modules linked, never .git),
so the checkout is not written to, and, when it fails, again on a copy of
the base: a failure the base has as well is not this change's."""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from .model import Check, Outcome, execute, first_lines, strip_ansi
from .typecheck import Context

BUILD = "build"
# the SDK's script (`generate:schemas`), else one named like it
GENERATOR = "generate:schemas"
_GENERATOR_LIKE = re.compile(r"^gen(?:erate)?[:_-]?schemas?$")
# what a copy leaves out: the dependencies (linked), git, and build output
_LEFT_OUT = ("node_modules", ".git", "dist")


def build_check(context: Context) -> Check:
    """`npm run build` with the checkout's build script, if it has one."""
    scripts = _scripts(context.root)
    if BUILD not in scripts:
        return Check("build", Outcome.NOT_RUN, "the checkout declares no `build` script")
    npm = _npm(context.root, "build")
    if isinstance(npm, Check):
        return npm
    shown = f"npm run {BUILD}"
    with _scratch(context.root) as work:
        result = execute([npm, "run", BUILD], work)
        lines = _output_lines(result, work)
    if result.returncode == 0:
        return Check("build", Outcome.PASSED, f"{shown}: exit 0", shown)
    # a failure counts unless the base fails as well, printing the same
    def build_base(tree: Path) -> list[str] | None:
        base = execute([npm, "run", BUILD], tree)
        return _output_lines(base, tree) if base.returncode != 0 else None

    before = _on_base(context, build_base)
    new = [line for line in lines if before is None or line not in set(before)]
    if before is not None and not new:
        return Check("build", Outcome.PASSED, f"{shown} fails on the base as well, printing the same: no new failure", shown)
    return Check("build", Outcome.FAILED, f"{shown}: exit {result.returncode}", shown, first_lines("\n".join(new or lines)))


def _output_lines(result, work: Path) -> list[str]:
    """What a failing script printed, comparable between two copies: npm's
    echo of the script left out, the copy's folder named "."."""
    text = strip_ansi(result.stdout + result.stderr).replace(str(work), ".")
    return [line.rstrip() for line in text.splitlines() if line.strip() and not line.startswith("> ")]


def generator_check(context: Context) -> Check:
    """The checkout's generator, then `git diff --exit-code`: the files it
    rewrites differ from the tree's. Only differences the base does not
    have count."""
    script = generator_script(context.root)
    if script is None:
        return Check("generated", Outcome.NOT_RUN, f"the checkout declares no `{GENERATOR}` script")
    npm = _npm(context.root, "generated")
    if isinstance(npm, Check):
        return npm
    shown = f"npm run {script} && git diff --exit-code"
    failed, changed = _generate(context.root, npm, script)
    if failed is not None:
        if _on_base(context, lambda base: _generate(base, npm, script)[0] is not None):
            # it cannot run here at all (a tool it needs is missing, say):
            # the generated files were not compared, so not run, never passed
            return Check(
                "generated", Outcome.NOT_RUN,
                f"npm run {script} fails on the base as well, so the generated files were not compared here", shown,
                failed,
            )
        return Check("generated", Outcome.FAILED, f"npm run {script} failed", shown, failed)
    if not changed:
        return Check("generated", Outcome.PASSED, f"npm run {script}: no difference in the generated files", shown)
    before: dict[str, list[str]] = {}
    if context.source is not None:
        with context.source.tree() as base:
            base_failed, before = _generate(base, npm, script)
        if base_failed is not None:
            before = {}
    new = {path: lines for path, lines in changed.items() if set(lines) - set(before.get(path, []))}
    if not new:
        return Check(
            "generated", Outcome.PASSED,
            f"npm run {script}: {len(changed)} file(s) differ as on the base: no new finding", shown,
        )
    diff = "\n".join(line for lines in new.values() for line in lines)
    return Check(
        "generated", Outcome.FAILED,
        f"git diff --exit-code: the generator rewrites {len(new)} file(s): " + ", ".join(sorted(new)), shown,
        first_lines(diff),
    )


def generator_script(root: Path) -> str | None:
    scripts = _scripts(root)
    if GENERATOR in scripts:
        return GENERATOR
    return next((name for name in sorted(scripts) if _GENERATOR_LIKE.match(name)), None)


def _scripts(root: Path) -> dict:
    try:
        scripts = json.loads((root / "package.json").read_text(encoding="utf-8")).get("scripts")
    except (OSError, ValueError, AttributeError):
        return {}
    return scripts if isinstance(scripts, dict) else {}


def _npm(root: Path, check: str) -> str | Check:
    """npm, when it and the checkout's dependencies are there; else why
    ``check`` is not run."""
    if not (root / "node_modules").exists():
        return Check(check, Outcome.NOT_AVAILABLE, "node_modules not installed")
    npm = shutil.which("npm")
    if npm is None:
        return Check(check, Outcome.NOT_AVAILABLE, "npm not found on PATH")
    return npm


def _on_base(context: Context, action):
    """``action`` on a copy of the base tree; None without a base."""
    if context.source is None:
        return None
    with context.source.tree() as base, _scratch(base) as work:
        return action(work)


def _generate(tree: Path, npm: str, script: str) -> tuple[str | None, dict[str, list[str]]]:
    """Run ``script`` on a copy of ``tree``: (its failure's first lines, or
    None; each file it changed, created or deleted -> the diff lines)."""
    with _scratch(tree) as work:
        before = _files(work)
        result = execute([npm, "run", "--silent", script], work)
        if result.returncode != 0:
            return first_lines(result.stdout + result.stderr), {}
        after = _files(work)
        changed = {}
        for path in sorted(set(before) | set(after)):
            if before.get(path) != after.get(path):
                old, new = (_lines(files.get(path)) for files in (before, after))
                diff = difflib.unified_diff(old, new, f"a/{path}", f"b/{path}", n=0, lineterm="")
                changed[path] = [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]
        return None, changed


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", errors="replace").splitlines()


def _files(work: Path) -> dict[str, bytes]:
    """Every file of the copy: path -> bytes."""
    found = {}
    for folder, dirs, names in os.walk(work):
        dirs[:] = [d for d in dirs if d not in _LEFT_OUT]
        for name in names:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            found[path.relative_to(work).as_posix()] = path.read_bytes()
    return found


@contextmanager
def _scratch(tree: Path) -> Iterator[Path]:
    """A copy of ``tree`` without its dependencies, git and build output,
    with ``tree``'s node_modules linked."""
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-ci-") as scratch:
        work = Path(scratch) / "tree"
        shutil.copytree(tree, work, symlinks=True, ignore=shutil.ignore_patterns(*_LEFT_OUT))
        modules = tree / "node_modules"
        if modules.exists():
            os.symlink(modules.resolve(), work / "node_modules")
        yield work

