"""Where each step's file is in the checkout: its usual path, or the one
file that defines the step's symbol; a created file goes beside the file
it belongs with."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from pathlib import Path
from ..engine.outcome import Conflict, Refused, TargetMissing
from ..recipes.base import Step


def locate_all(
    repo: Path, steps: Sequence[Step]
) -> tuple[dict[str, tuple[str, list[str]]], dict[str, Refused]]:
    """Where each step's file is: its usual path, or, when that is gone, the
    one file that defines the step's symbol; and the refusals, by step."""
    found: dict[str, tuple[str, list[str]]] = {}
    failures: dict[str, Refused] = {}
    for step in steps:
        if step.new_file is not None:
            continue
        try:
            found[step.id] = locate(repo, step)
        except Refused as refusal:
            failures[step.id] = refusal
    for step in steps:
        if step.new_file is None:
            continue
        # A new file goes beside the file it belongs with, wherever that is.
        anchor = found.get(step.beside) if step.beside else None
        if anchor is None:
            found[step.id] = (step.path, [])
        else:
            path = posixpath.join(posixpath.dirname(anchor[0]), posixpath.basename(step.path))
            found[step.id] = (path, [] if path == step.path else [f"created beside {anchor[0]}"])
    return found, failures


def locate(repo: Path, step: Step) -> tuple[str, list[str]]:
    if os.path.lexists(repo / step.path) or not step.defines:
        return step.path, []
    paths = find_definitions(repo, step.defines)
    if len(paths) == 1:
        return paths[0], [f"found {paths[0]} (not at {step.path}): it defines `{step.defines}`"]
    if len(paths) > 1:
        raise Conflict(
            step.path,
            f"file not found, and `{step.defines}` is defined in more than one file: {', '.join(paths)}",
        )
    raise TargetMissing(step.path, f"file not found, and no file defines `{step.defines}`")


SKIP_DIRS = {"node_modules", ".git", "dist", "build", ".turbo", ".next", "coverage"}


def find_definitions(repo: Path, text: str) -> list[str]:
    """The TypeScript files of the checkout that contain ``text``: through
    `git grep` in a git checkout (tracked and untracked, not ignored),
    otherwise by walking the tree without dependency and build folders."""
    if (repo / ".git").exists():
        import subprocess  # only here: a moved file is rare, and the import is not free

        result = subprocess.run(
            ["git", "-C", str(repo), "grep", "--untracked", "-l", "-F", "-e", text, "--", "*.ts", "*.tsx"],
            capture_output=True,
            text=True,
        )
        if result.returncode in (0, 1):
            return sorted(line for line in result.stdout.splitlines() if line)
    needle = text.encode()
    hits = []
    for folder, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in files:
            if name.endswith((".ts", ".tsx")):
                path = Path(folder) / name
                try:
                    if needle in path.read_bytes():
                        hits.append(path.relative_to(repo).as_posix())
                except OSError:
                    continue
    return sorted(hits)
