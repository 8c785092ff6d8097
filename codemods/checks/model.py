"""What the checks are made of: a check's outcome and report, and running
one of the checkout's tools (`sandbox`: an allow-listed environment, its own
process group). The baseline a check compares with is `plan.baseline`'s."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from enum import Enum
from pathlib import Path
from typing import NamedTuple


FIRST_LINES = 15


REQUIRED = "--require-checks"  # the flag under which a check that cannot run fails


class Outcome(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_AVAILABLE = "not available"
    # a check of the target's CI that cannot run here by its nature (docker,
    # a downloaded browser, a path filter the change does not meet): listed
    # with the reason, never a failure, whatever --require-checks says
    NOT_RUN = "not run"


class Check(NamedTuple):
    """The result of one check."""

    name: str
    outcome: Outcome
    summary: str
    command: str = ""
    output: str = ""  # first lines, for a failure
    seconds: float = 0.0
    files: tuple[str, ...] = ()  # the checked files a failure's findings name

    def to_json(self) -> dict:
        out = {"check": self.name, "outcome": self.outcome.value, "summary": self.summary}
        if self.command:
            out["command"] = self.command
        if self.output:
            out["output"] = self.output
        if self.files:
            out["files"] = list(self.files)
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
            mark = {
                Outcome.PASSED: "passed", Outcome.FAILED: "**failed**", Outcome.NOT_AVAILABLE: "not available",
                Outcome.NOT_RUN: "not run",
            }
            rows.append(f"| {check.name} | {mark[check.outcome]} | {cell(check.summary)} |")
        blocks = [
            f"<details><summary>{c.name}: first lines</summary>\n\n```\n{c.output}\n```\n</details>"
            for c in self.checks
            if c.output
        ]
        return "\n".join(rows) + ("\n\n" + "\n\n".join(blocks) if blocks else "")


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


Progress = Callable[[str], None]


def first_lines(text: str, count: int = FIRST_LINES) -> str:
    lines = [line.rstrip() for line in strip_ansi(text).strip("\n").splitlines()]
    if len(lines) > count:
        lines = lines[:count] + [f"... ({len(lines) - count} more lines)"]
    return "\n".join(lines)


def strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


def execute(
    command: Sequence[str], cwd: Path, timeout: float = 1800, started: Callable[[subprocess.Popen], None] | None = None
) -> subprocess.CompletedProcess:
    """Run ``command`` of the checkout (`sandbox`: an allow-listed
    environment, its own process group killed when it ends); ``started`` is
    handed the process, so that another thread can stop it."""
    from . import sandbox

    return sandbox.run(command, cwd, timeout, started, env={"NO_COLOR": "1", "FORCE_COLOR": "0"})


def shown_command(command: Sequence[str], root: Path) -> str:
    parts = []
    for part in command:
        try:
            parts.append(Path(part).relative_to(root).as_posix() if Path(part).is_absolute() else part)
        except ValueError:
            parts.append(part)
    return " ".join(parts)


def tool(root: Path, name: str) -> Path | None:
    local = root / "node_modules" / ".bin" / name
    return local if local.exists() else None


def bun_on_path(root: Path) -> str | None:
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


def installed_bun(root: Path, check: str) -> str | Check:
    """Bun, when it and the checkout's dependencies are there; else why
    ``check`` is not available."""
    # node_modules first: what a checkout without them reports must not
    # depend on whether this machine has a bun on PATH (SPEC section 7)
    if not (root / "node_modules").exists():
        return Check(check, Outcome.NOT_AVAILABLE, "node_modules not installed")
    bun = bun_on_path(root)
    if bun is None:
        return Check(check, Outcome.NOT_AVAILABLE, "bun not found on PATH")
    return bun


def package_dir(root: Path, path: str, script: str | None = None) -> Path | None:
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
