"""Run recipe steps over a checkout: plan every edit, then write all or none."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .engine.diff import unified_diff
from .engine.editor import FileEditor
from .engine.edits import OverlapError
from .engine.outcome import Conflict, Refused, Status, StepResult, TargetMissing
from .engine.source import SourceError, SourceFile
from .recipes import host
from .recipes.base import Bridge, Context, Step
from .recipes.host.bridge_mode import BridgeChoice, choose_bridge


class TargetError(Exception):
    """The directory is not a checkout the tool knows how to edit."""


@dataclass
class FileChange:
    """The planned content of one file; ``old is None`` for a new file."""

    path: str
    old: bytes | None
    new: bytes
    steps: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "created" if self.old is None else "modified"

    def diff(self) -> str:
        return unified_diff(self.path, self.old, self.new)


@dataclass
class Plan:
    """Everything a run found: per-step results and the files they change."""

    repo: Path
    target: str
    bridge: BridgeChoice
    results: list[StepResult]
    changes: list[FileChange]

    @property
    def refused(self) -> list[StepResult]:
        return [r for r in self.results if r.status is Status.REFUSED]

    @property
    def pending(self) -> bool:
        return bool(self.changes)

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes)

    def to_json(self) -> dict:
        return {
            "repo": str(self.repo),
            "target": self.target,
            "bridge": {"mode": self.bridge.mode.value, "reason": self.bridge.reason},
            "steps": [r.to_json() for r in self.results],
            "files": [
                {"path": c.path, "change": c.kind, "steps": c.steps} for c in self.changes
            ],
            "pending": self.pending,
            "refused": bool(self.refused),
        }


def steps_for(target: str) -> tuple[Step, ...]:
    if target == "host":
        return host.STEPS
    raise TargetError(f"no recipes for target {target!r}")


def detect_target(repo: Path) -> str:
    if not repo.is_dir():
        raise TargetError(f"{repo}: no such directory")
    if host.is_host(repo):
        return "host"
    manifest = repo / "package.json"
    if manifest.is_file() and '"@modelcontextprotocol/ext-apps"' in manifest.read_text(errors="replace")[:2000]:
        raise TargetError(
            f"{repo}: this is the MCP Apps SDK (modelcontextprotocol/ext-apps); "
            "its recipes are not part of this release"
        )
    raise TargetError(
        f"{repo}: not a recognised target (expected a decocms/mesh checkout with {host.MARKER})"
    )


def resolve_inside(repo: Path, relative: str) -> Path:
    """The real path of ``relative``, refusing one that leaves the checkout."""
    root = repo.resolve()
    candidate = (repo / relative).resolve()
    if candidate != root and root not in candidate.parents:
        raise Refused(relative, f"resolves to {candidate}, outside the checkout {root}")
    return candidate


def plan(
    repo: Path,
    bridge: Bridge = Bridge.AUTO,
    only: Sequence[str] = (),
) -> Plan:
    """Compute every step's edits against the files as they are now."""
    target = detect_target(repo)
    steps = steps_for(target)
    unknown = sorted(set(only) - {s.id for s in steps})
    if unknown:
        raise ValueError(f"unknown step(s): {', '.join(unknown)} (see `mesh-codemod list`)")
    choice = choose_bridge(repo, bridge)
    ctx = Context(repo=repo, bridge=choice.mode)

    results: list[StepResult] = []
    contents: dict[str, tuple[bytes | None, bytes]] = {}
    touched: dict[str, list[str]] = {}
    for step in steps:
        if only and step.id not in only:
            results.append(StepResult(step.id, step.path, Status.SKIPPED))
            continue
        try:
            old, current = contents.get(step.path) or (_read(repo, step.path, step),) * 2
            new, notes = _run_step(step, ctx, current)
        except Refused as refusal:
            results.append(
                StepResult(step.id, step.path, Status.REFUSED, refusal.reason, refusal.kind)
            )
            continue
        contents[step.path] = (old, new)
        if new == current:
            results.append(StepResult(step.id, step.path, Status.ALREADY, notes=notes))
        else:
            results.append(StepResult(step.id, step.path, Status.APPLIED, notes=notes))
            touched.setdefault(step.path, []).append(step.id)

    changes = [
        FileChange(path, contents[path][0], contents[path][1], ids)
        for path, ids in touched.items()
        if contents[path][0] != contents[path][1]
    ]
    return Plan(repo, target, choice, results, changes)


def _read(repo: Path, relative: str, step: Step) -> bytes | None:
    path = resolve_inside(repo, relative)
    if not path.exists():
        if step.new_file is not None:
            return None
        raise TargetMissing(relative, "file not found")
    if not path.is_file():
        raise Refused(relative, "is not a regular file")
    return path.read_bytes()


def _run_step(step: Step, ctx: Context, current: bytes | None) -> tuple[bytes, list[str]]:
    if step.new_file is not None:
        wanted = step.new_file.render(ctx).encode()
        if current is None:
            return wanted, [f"create {step.path}"]
        if current == wanted:
            return current, []
        text = current.decode("utf-8", "replace")
        missing = [name for name in step.new_file.exports(ctx) if name not in text]
        if missing:
            raise Conflict(step.path, f"exists but does not define {', '.join(missing)}")
        return current, ["exists with other content; kept as it is"]
    if current is None:
        raise TargetMissing(step.path, "file not found")
    try:
        source = SourceFile.from_bytes(step.path, current)
    except SourceError as err:
        raise Refused(step.path, str(err).removeprefix(f"{step.path}:").strip()) from None
    editor = FileEditor(source)
    try:
        step.transform(editor, ctx)
    except OverlapError as err:
        raise Conflict(step.path, f"two edits would overlap ({err})") from None
    return editor.result(), editor.added


def write(repo: Path, changes: Iterable[FileChange]) -> None:
    """Write every change or none: each file goes to a temporary sibling
    first, then all are renamed into place; a failure restores the files
    already replaced and removes the ones created."""
    staged: list[tuple[Path, Path, FileChange]] = []
    try:
        for change in changes:
            target = resolve_inside(repo, change.path)
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
