"""The checks' verdict as the publishing side takes it (SPEC 8, the PR path).

A closed record: each check's name and status, and the fingerprint of the
series the checks ran on. No free text crosses: no summary, no output, no
command. The publishing side binds it to its own series: a verdict for
another fingerprint counts for nothing. It renders in the PR body where
the build's `checks.model.Report` would (`prbody.render` reads ``files``,
``checks`` with ``name`` and ``outcome.value``, ``markdown()``)."""

from __future__ import annotations

import re
from enum import Enum

from typing import NamedTuple

# the names the checks wing gives its checks: a word, at most 32 characters
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9/_.-]{0,63}")
_FINGERPRINT = re.compile(r"sha256:[0-9a-f]{64}")
MAX_CHECKS = 32


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
        return {"fingerprint": self.fingerprint, "checks": [{"name": c.name, "status": c.outcome.value} for c in self.checks]}

    def markdown(self) -> str:
        rows = ["| check | result |", "| --- | --- |"]
        marks = {Status.PASSED: "passed", Status.FAILED: "**failed**", Status.NOT_AVAILABLE: "not available",
                 Status.NOT_RUN: "not run"}
        rows += [f"| {c.name} | {marks[c.outcome]} |" for c in self.checks]
        return "\n".join(rows)

    def text(self) -> str:
        return "\n".join(f"  {c.name:<10} {c.outcome.value}" for c in self.checks)


def of_report(fingerprint: str, report: dict | None) -> dict:
    """The build side: the verdict record of a `verify` report's JSON
    (None: the checks were not run, an empty verdict)."""
    checks = [{"name": c["check"], "status": c["outcome"]} for c in (report or {}).get("checks", [])]
    return {"fingerprint": fingerprint, "checks": checks}


def read(data: object) -> Verdict:
    """The publishing side: the record, or VerdictProblem. Names and
    statuses from the closed sets only; nothing else may be in it."""
    if not isinstance(data, dict) or set(data) != {"fingerprint", "checks"}:
        raise VerdictProblem("the verdict is not {fingerprint, checks}")
    fingerprint, checks = data["fingerprint"], data["checks"]
    if not isinstance(fingerprint, str) or not _FINGERPRINT.fullmatch(fingerprint):
        raise VerdictProblem("the verdict's fingerprint is not sha256:<64 hex digits>")
    if not isinstance(checks, list) or len(checks) > MAX_CHECKS:
        raise VerdictProblem(f"the verdict's checks are not a list of at most {MAX_CHECKS}")
    out = []
    for check in checks:
        if not isinstance(check, dict) or set(check) != {"name", "status"}:
            raise VerdictProblem("a check of the verdict is not {name, status}")
        name, status = check["name"], check["status"]
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise VerdictProblem("a check's name is not a word of at most 32 characters")
        try:
            out.append(Checked(name, Status(status)))
        except ValueError:
            raise VerdictProblem(f"a check's status is not one of {', '.join(s.value for s in Status)}") from None
    if len({c.name for c in out}) != len(out):
        raise VerdictProblem("the verdict names a check twice")
    return Verdict(fingerprint, tuple(out))
