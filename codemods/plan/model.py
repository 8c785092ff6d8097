"""What a plan is: the files it changes, the steps' results, the tools that
may start the checkout's processes while it is made, and the target it was
made for."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple
from ..engine.statements import FormChange
from ..engine.outcome import Refused, Status, StepResult
from .. import recipes
from .formatting import FormatterChoice, Layout
from ..recipes import Target
from ..recipes.base import ModeChoice
from ..recipes.base import Notice, Runner
from ..recipes.names import NAMES, Names


class Tools(NamedTuple):
    """What may start the checkout's processes while a plan is made: the
    runner a recipe asks for its generator (`Context.run`) and the
    formatter pass over the changed files. The command line hands down the
    checks wing's (`checks.tools.TOOLS`); the publishing side plans with
    `NO_TOOLS`: the built-in layout, and generated files edited by hand."""

    run: Runner | None = None
    # (checkout, candidates, formatter choice) -> [(bytes, Layout)], one per candidate
    format_pass: Callable[..., list] | None = None


NO_TOOLS = Tools()


class TargetError(Exception):
    """The directory is not a checkout the tool knows how to edit."""


class FileChange(NamedTuple):
    """The planned content of one file; ``old is None`` for a new file."""

    path: str
    old: bytes | None
    new: bytes
    steps: list[str]
    # Which layout the new content has (the formatter's or the built-in one).
    layout: Layout | None = None

    @property
    def kind(self) -> str:
        return "created" if self.old is None else "modified"

    def diff(self) -> str:
        """The change as ``git diff`` shows it (``git apply`` takes it)."""
        if self.old == self.new:
            return ""
        header = f"diff --git a/{self.path} b/{self.path}\n" + ("new file mode 100644\n" if self.old is None else "")
        old = "/dev/null" if self.old is None else f"a/{self.path}"
        lines = difflib.unified_diff(split_lines(self.old or b""), split_lines(self.new), old, f"b/{self.path}")
        return header + "".join(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n" for line in lines)


def split_lines(data: bytes) -> list[str]:
    """The lines of ``data``, each with its ``\\n`` (the last may lack one):
    lines end at ``\\n`` only, as git counts them (``str.splitlines`` also
    breaks at a lone ``\\r`` or U+2028, and the patch would not apply)."""
    lines = data.decode("utf-8", "surrogateescape").split("\n")  # any bytes round-trip
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


class Plan(NamedTuple):
    """Everything a run found: per-step results and the files they change."""

    repo: Path
    target: str
    # The mode the target chose (the host's bridge mode) and why.
    bridge: ModeChoice
    results: list[StepResult]
    changes: list[FileChange]
    # What the report must tell the user besides the steps (see Notice).
    notices: tuple[str, ...] = ()
    # The formatter the changed files were passed through, if any, and why.
    formatter: FormatterChoice | None = None
    # The checkout's configuration file (codemods.config.Config), if read.
    config: object = None
    # The feature's names the run wrote (SPEC 10).
    names: Names = NAMES

    @property
    def refused(self) -> list[StepResult]:
        return [r for r in self.results if r.status is Status.REFUSED]

    @property
    def pending(self) -> bool:
        return bool(self.changes)

    @property
    def form_changes(self) -> list[tuple[StepResult, FormChange]]:
        """Every earlier form the run replaces (upgrades, migrations), by step."""
        return [(r, c) for r in self.results for c in r.form_changes]

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes)

    def left_alone(self) -> list[dict]:
        """What the run does not touch because of a human decision: steps
        the configuration skips, created files someone removed, and
        created files someone edited (their notices)."""
        out = [
            {"step": r.step, "path": r.path, "why": r.kind, "reason": r.reason}
            for r in self.results
            if r.status is Status.SKIPPED and r.kind in ("config", "decision")
        ]
        for r in self.results:
            for note in r.notes:
                if isinstance(note, Notice) and LEFT_WITH_PAIR in note:
                    out.append({"step": r.step, "path": r.path, "why": "pair", "reason": str(note)})
                elif isinstance(note, Notice) and "was edited since" in note:
                    # a release that conflicts with the team's edits is named as such
                    why = "conflict" if " conflicts with the edits" in note else "edited"
                    out.append({"step": r.step, "path": r.path, "why": why, "reason": str(note)})
        return out

    def to_json(self) -> dict:
        return {
            "repo": str(self.repo),
            "target": self.target,
            "bridge": self.bridge.to_json(),
            "steps": [r.to_json() for r in self.results],
            "files": [
                {
                    "path": c.path,
                    "change": c.kind,
                    "steps": c.steps,
                    **({"layout": c.layout.to_json()} if c.layout else {}),
                }
                for c in self.changes
            ],
            **({"formatter": self.formatter.to_json()} if self.formatter else {}),
            "changes_of_form": [
                {"step": r.step, "path": r.path, **c.to_json(), **({"why": r.why} if c.kind == "migrate" else {})}
                for r, c in self.form_changes
            ],
            "pending": self.pending,
            "refused": bool(self.refused),
            "left_alone": self.left_alone(),
            **({"config": self.config.to_json()} if getattr(self.config, "present", False) else {}),
            "notices": list(self.notices),
        }


def detect_target(repo: Path) -> Target:
    """The first registered target that recognises ``repo``."""
    if not repo.is_dir():
        raise TargetError(f"{repo}: no such directory")
    for target in recipes.targets():
        if target.recognise(repo):
            return target
    expected = "; or ".join(t.description for t in recipes.targets())
    raise TargetError(f"{repo}: not a recognised target (expected {expected})")


def resolve_inside(root: Path, relative: str) -> Path:
    """The real path of ``relative`` under the resolved checkout ``root``,
    refusing one that leaves the checkout (through a link, say)."""
    candidate = Path(os.path.realpath(root / relative))
    if candidate != root and root not in candidate.parents:
        raise Refused(relative, f"resolves to {candidate}, outside the checkout {root}")
    return candidate


LEFT_WITH_PAIR = "was left at"
