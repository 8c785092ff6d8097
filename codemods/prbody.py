"""The pull request's description (Markdown), from the series and the checks."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from . import __version__

# The problem in two sentences, by target; the host's is the default.
PROBLEMS = {
    "host": (
        "An MCP app's internal navigation (which conversation, which view) is lost "
        "when Studio reloads it, and cannot be shared as a link. "
        "With this change the app reports its view with `ui/notifications/state-changed`, "
        "Studio keeps it in the `appState` search param, and hands it back in "
        "`hostContext.appState` when the app (re)loads."
    ),
    "sdk": (
        "A host cannot restore an MCP app's internal view after a reload or from a "
        "shared link, because the app has no way to report it. "
        "This adds the `ui/notifications/state-changed` notification "
        "(`sendStateChanged` in the app, `onappstatechange` in the bridge) and "
        "`hostContext.appState`, mirroring `size-changed`."
    ),
}


def render(series, report, command: Sequence[str]) -> str:
    """``series`` is a `gitops.Series`; ``report`` a `verify.Report` or None."""
    target = series.plan.target
    problem = PROBLEMS.get(target, PROBLEMS["host"])
    lines = ["## Deep-link app state for MCP apps", "", problem, "", "## Commits", ""]
    for commit in series.commits:
        lines.append(f"- `{commit.sha[:12]}` {commit.group.subject}")
        for path, kind in commit.files:
            lines.append(f"  - `{path}` ({kind})")
    if target == "host":  # the bridge mode is a host choice (SPEC section 5)
        lines += ["", "## Bridge mode", "", f"`{series.bridge.mode.value}`: {series.bridge.reason}."]
    formatter = series.plan.formatter
    if formatter is not None:
        name = formatter.name
        lines += ["", "## Layout", "", f"Formatter: {name} ({formatter.reason}).", ""]
        groups: dict = {}
        for change in series.plan.changes:
            if change.layout:
                groups.setdefault(change.layout, []).append(f"`{change.path}`")
        for layout, paths in groups.items():
            lines.append(f"- {layout.kind} ({layout.reason}): {', '.join(paths)}")
    lines += ["", "## Verification", ""]
    if report is None:
        lines.append("Not run (`--no-verify`).")
    else:
        lines.append(f"mesh's own checks on the {len(report.files)} touched file(s), on the branch's tree:")
        lines += ["", report.markdown()]
    lines += [
        "",
        "## How to reproduce",
        "",
        "```sh",
        f"mesh-codemod --version   # mesh-codemod {__version__}",
        shlex.join(["mesh-codemod", *command]),
        "```",
        "",
        f"Tool: mesh-codemod {__version__}. Base commit: `{series.base}`. "
        f"Commits are authored by {series.identity} with the base commit's date "
        f"({series.date}), so the same command on the same base gives the same commit ids.",
        "",
    ]
    return "\n".join(lines)
