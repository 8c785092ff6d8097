"""The commit of a change over time: a checkout that has the feature in an
earlier form (another bridge mode or SDK form, an earlier release's output)
gets one commit of its own that brings it to the current form (SPEC 5a)."""

from __future__ import annotations

from . import __version__
from .recipes.base import CommitGroup
from .runner import Plan


def _short(label: str) -> str:
    """A form's label without its parenthesised detail."""
    return label.split(" (", 1)[0]


def commit_group(plan: Plan) -> CommitGroup:
    """One group with every step, its message saying what became what and why."""
    migrations = [(r, c) for r, c in plan.form_changes if c.kind == "migrate"]
    upgrades = [(r, c) for r, c in plan.form_changes if c.kind == "upgrade"]
    parts = []
    if migrations:
        parts.append(f"migrate the state-changed wiring to {_short(migrations[0][1].now).removeprefix(__version__ + ', ')}")
    if upgrades:
        parts.append(f"upgrade the appState feature to mesh-codemod {__version__}")
    subject = "refactor(mcp-apps): " + " and ".join(parts)
    body: list[str] = []
    if migrations:
        body += [
            f"The checkout is wired in {_short(migrations[0][1].was)}; this run chose",
            f"{migrations[0][0].why}.",
            "The handler is replaced, and what only the earlier wiring used (its",
            "schema and imports) is removed. Every other line stays.",
            "",
        ]
    if upgrades:
        releases = sorted({c.was.split(",", 1)[0] for _, c in upgrades})
        body += [
            f"These files hold what mesh-codemod {', '.join(releases)} wrote; release {__version__}",
            "writes them differently (see mesh-codemod's CHANGELOG.md). Only what is",
            "still exactly what a release wrote is replaced.",
            "",
        ]
    by_file: dict[str, list] = {}
    for result, change in plan.form_changes:
        by_file.setdefault(result.path, []).append(change)
    for path, changes in by_file.items():
        was = ", ".join(dict.fromkeys(_short(c.was) for c in changes))
        now = _short(changes[0].now)
        spans = [c.where.removeprefix("lines ").removeprefix("line ") for c in changes]
        where = "the file" if spans == ["the file"] else "lines " + ", ".join(spans)
        body.append(f"- {path}: {was} -> {now} ({where})")
    others = sorted({c.path for c in plan.changes} - set(by_file))
    body += [f"- {path}: completed to release {__version__}" for path in others]
    steps = tuple(dict.fromkeys(s for c in plan.changes for s in c.steps))
    return CommitGroup(id="change-over-time", subject=subject, body="\n".join(body), steps=steps)
