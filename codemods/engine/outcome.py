"""The closed set of things a step can report, as values."""

from __future__ import annotations

from enum import Enum

from typing import NamedTuple
from .source import SourceError, SourceFile
from .style import FormatterConfig


class Status(str, Enum):
    APPLIED = "applied"  # edits computed (written unless dry run / check)
    ALREADY = "already"  # nothing to do: the result is already there
    REFUSED = "refused"  # the step cannot run on this tree; see reason
    SKIPPED = "skipped"  # not selected (--only), or its optional file is absent (see reason)


class NotApplicable(Exception):
    """Raised inside a transform that has nothing to do on this checkout in
    this run (sdk mode keeps no schema), which says nothing about whether
    the feature is there; the runner skips the step with ``reason``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Refused(Exception):
    """Raised inside a transform; the runner turns it into a REFUSED result."""

    kind = "refused"

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class AnchorMissing(Refused):
    """A function, interface, schema or other anchor the step needs is absent."""

    kind = "anchor-missing"

    def __init__(self, path: str, what: str, hint: str = "") -> None:
        # ``hint``: why it may be missing (an older revision of the target),
        # left out where the checkout already has the feature
        super().__init__(path, f"anchor missing: {what}" + (f" ({hint})" if hint else ""))
        self.what = what


class Conflict(Refused):
    """The file already holds something that contradicts the edit."""

    kind = "conflict"


class SyntaxProblem(Refused):
    """The target, or the result of editing it, does not parse."""

    kind = "syntax-error"


class NotUtf8(Refused):
    """The target's bytes are not UTF-8 text."""

    kind = "not-utf8"


class TargetMissing(Refused):
    """A file the step edits does not exist."""

    kind = "file-missing"


def parsed_or_refused(path: str, data: bytes, config: FormatterConfig | None = None) -> SourceFile:
    """``data`` parsed as the file ``path``, or the refusal that says why it
    cannot be: NotUtf8 or SyntaxProblem, its reason without the path (the
    result names the file)."""
    try:
        return SourceFile.from_bytes(path, data, config)
    except SourceError as err:
        refusal = SyntaxProblem if err.syntax else NotUtf8
        marker = conflict_marker(data) if err.syntax else 0
        if marker:
            raise SyntaxProblem(
                path, f"holds merge conflict markers (`<<<<<<<` at line {marker}): finish the merge or rebase first"
            ) from None
        raise refusal(path, str(err).removeprefix(f"{path}:").strip()) from None


def conflict_marker(data: bytes) -> int:
    """The line of the first ``<<<<<<<`` of a conflict (followed by
    ``=======`` and ``>>>>>>>`` lines), or 0."""
    lines = data.splitlines()
    for index, line in enumerate(lines):
        if line.startswith(b"<<<<<<<"):
            rest = lines[index + 1 :]
            middle = next((i for i, l in enumerate(rest) if l.startswith(b"=======")), None)
            if middle is not None and any(l.startswith(b">>>>>>>") for l in rest[middle + 1 :]):
                return index + 1
    return 0


class StepResult(NamedTuple):
    step: str
    path: str
    status: Status
    reason: str = ""
    kind: str = ""
    notes: tuple[str, ...] | list[str] = ()
    # Earlier forms the step replaces (upgrades, migrations): editor.FormChange values.
    form_changes: tuple = ()
    # Why the run wants the current form (the bridge mode's reason), for a migration.
    why: str = ""

    def to_json(self) -> dict:
        out = {"step": self.step, "path": self.path, "status": self.status.value}
        if self.reason:
            out["reason"] = self.reason
            out["kind"] = self.kind
        if self.notes:
            out["notes"] = list(self.notes)
        if self.form_changes:
            out["changes_of_form"] = [
                {**c.to_json(), **({"why": self.why} if c.kind == "migrate" else {})} for c in self.form_changes
            ]
        return out
