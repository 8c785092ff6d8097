"""Writing a plan: all files or none, never through a link or outside the
checkout."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from ..engine.outcome import Status, StepResult
from .model import FileChange, Plan, resolve_inside


def refuse_unwritable(plan: Plan) -> None:
    """Turn the steps whose file cannot be written into refusals, before
    anything is written. Mode bits are read rather than tried, so the
    answer is the same for root."""
    for change in plan.changes:
        reason = _unwritable(plan.repo / change.path)
        if not reason:
            continue
        for index, result in enumerate(plan.results):
            if result.step in change.steps:
                plan.results[index] = StepResult(
                    result.step, result.path, Status.REFUSED, reason, "read-only", result.notes
                )


def _unwritable(path: Path) -> str:
    if path.exists():
        if not path.stat().st_mode & stat.S_IWUSR:
            return f"{path.name} is read-only (mode {stat.S_IMODE(path.stat().st_mode):o})"
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.stat().st_mode & stat.S_IWUSR:
        return f"its folder {folder} is read-only"
    return ""


def write(repo: Path, changes: Iterable[FileChange]) -> None:
    """Write every change or none: each file goes to a temporary sibling
    first, then all are renamed into place; a failure restores the files
    already replaced and removes the ones created."""
    import tempfile

    root = repo.resolve()
    staged: list[tuple[Path, Path, FileChange]] = []
    try:
        for change in changes:
            target = resolve_inside(root, change.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".mesh-codemod", dir=target.parent)
            with os.fdopen(fd, "wb") as handle:
                handle.write(change.new)
            if target.exists():
                os.chmod(temp, target.stat().st_mode & 0o7777)
            else:
                os.chmod(temp, 0o644)
            staged.append((Path(temp), target, change))
    except BaseException:
        for temp, _, _ in staged:
            temp.unlink(missing_ok=True)
        raise
    done: list[tuple[Path, FileChange]] = []
    try:
        for temp, target, change in staged:
            os.replace(temp, target)
            done.append((target, change))
    except BaseException:
        for target, change in reversed(done):
            if change.old is None:
                target.unlink(missing_ok=True)
            else:
                target.write_bytes(change.old)
        for temp, _, _ in staged:
            temp.unlink(missing_ok=True)
        raise
