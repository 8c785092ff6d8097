"""The checks' verdict as the publishing side takes it (SPEC 8, the PR path).

A closed record: each check's name and status, the series' own files a
failed check's findings name, and the fingerprint of the series the checks
ran on. No free text crosses: no summary, no output, no command. A check's
name comes from a closed set (`CHECKS`, and the names of the base's
pull-request jobs, which the publishing side reads itself). The publishing
side binds the verdict to its own series: a verdict for another
fingerprint counts for nothing. It renders in the PR body where the
build's `checks.model.Report` would (`prbody.render` reads ``files``,
``checks`` with ``name``, ``outcome.value`` and ``files``, ``failed``,
``markdown()``)."""

from __future__ import annotations

import re
from collections.abc import Collection
from enum import Enum

from typing import NamedTuple

from .templates import code

# the checks `verify` runs on the host (checks/verify.py's CHECKS["host"])
CHECKS = ("parse", "format", "lint", "typecheck", "tests", "knip")
_FINGERPRINT = re.compile(r"sha256:[0-9a-f]{64}")
MAX_CHECKS = 64
MAX_FILES = 64
MAX_PATH = 1024


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_AVAILABLE = "not available"
    # a job of the target's CI that cannot run here (docker, a downloaded browser)
    NOT_RUN = "not run"


class VerdictProblem(ValueError):
    """The verdict is not the closed record (exit 3)."""


class Checked(NamedTuple):
    name: str
    outcome: Status
    files: tuple[str, ...] = ()  # the series' files its findings name


class Verdict(NamedTuple):
    """Each check's name and status, for the series ``fingerprint``;
    ``files``: the series' touched files (the publishing side's own)."""

    fingerprint: str
    checks: tuple[Checked, ...]
    files: tuple[str, ...] = ()

    @property
    def failed(self) -> list[Checked]:
        return [c for c in self.checks if c.outcome is Status.FAILED]

    def to_json(self) -> dict:
        return {"fingerprint": self.fingerprint, "checks": [_record(c.name, c.outcome.value, c.files) for c in self.checks]}

    def markdown(self) -> str:
        rows = ["| check | result |", "| --- | --- |"]
        marks = {Status.PASSED: "passed", Status.FAILED: "**failed**", Status.NOT_AVAILABLE: "not available",
                 Status.NOT_RUN: "not run"}
        for check in self.checks:
            name = code(check.name).replace("|", "\\|")  # a table cell: its bar escaped too
            rows.append(f"| {name} | {marks[check.outcome]} |")
        return "\n".join(rows)

    def text(self) -> str:
        return "\n".join(f"  {c.name:<10} {c.outcome.value}" for c in self.checks)


def _record(name: str, status: str, files: Collection[str]) -> dict:
    return {"name": name, "status": status, **({"files": list(files)} if files else {})}


def of_report(fingerprint: str, report: dict | None) -> dict:
    """The build side: the verdict record of a `verify` report's JSON
    (None: the checks were not run, an empty verdict)."""
    checks = [_record(c["check"], c["outcome"], c.get("files") or ()) for c in (report or {}).get("checks", [])]
    return {"fingerprint": fingerprint, "checks": checks}


def read(data: object, names: Collection[str]) -> Verdict:
    """The publishing side: the record, or VerdictProblem. Check names from
    ``names`` only, statuses from theirs; nothing else may be in it."""
    if not isinstance(data, dict) or set(data) != {"fingerprint", "checks"}:
        raise VerdictProblem("the verdict is not {fingerprint, checks}")
    fingerprint, checks = data["fingerprint"], data["checks"]
    if not isinstance(fingerprint, str) or not _FINGERPRINT.fullmatch(fingerprint):
        raise VerdictProblem("the verdict's fingerprint is not sha256:<64 hex digits>")
    if not isinstance(checks, list) or len(checks) > MAX_CHECKS:
        raise VerdictProblem(f"the verdict's checks are not a list of at most {MAX_CHECKS}")
    out = []
    for check in checks:
        if not isinstance(check, dict) or not {"name", "status"} <= set(check) <= {"name", "status", "files"}:
            raise VerdictProblem("a check of the verdict is not {name, status, files}")
        name, status, files = check["name"], check["status"], check.get("files", [])
        if not isinstance(name, str) or name not in names:
            raise VerdictProblem("a check's name is not one of mesh-codemod's checks or the base's pull-request jobs")
        if not isinstance(files, list) or len(files) > MAX_FILES or not all(
            isinstance(f, str) and 0 < len(f) <= MAX_PATH for f in files
        ):
            raise VerdictProblem(f"a check's files are not a list of at most {MAX_FILES} paths")
        try:
            out.append(Checked(name, Status(status), tuple(files)))
        except (ValueError, TypeError):
            raise VerdictProblem(f"a check's status is not one of {', '.join(s.value for s in Status)}") from None
    if len({c.name for c in out}) != len(out):
        raise VerdictProblem("the verdict names a check twice")
    return Verdict(fingerprint, tuple(out))
