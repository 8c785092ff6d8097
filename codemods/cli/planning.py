"""`apply`, `status` and `list`: the commands that plan over a checkout
and write, show or report its edits."""

from __future__ import annotations

import sys
from pathlib import Path

from typing import NamedTuple
from ..engine.outcome import Refused, Status
from ..plan.formatting import FormatterMode
from ..recipes.base import Bridge
from .output import Exit, colored, fail, print_json, say

# The step column: wide enough for the longest step id ("app-state-hook-tests").
STEP_WIDTH = 20


class ApplyRequest(NamedTuple):
    repo: Path = Path(".")
    dry_run: bool = False
    check: bool = False
    as_json: bool = False
    bridge: Bridge = Bridge.AUTO
    only: tuple[str, ...] | list[str] = ()
    lock_timeout: float = 30.0
    formatter: FormatterMode = FormatterMode.AUTO
    # created files to write again although someone removed them (see runner.plan)
    restore: tuple[str, ...] | list[str] = ()


_STATUS_WORDS = {
    Status.ALREADY: "applied",
    Status.APPLIED: "pending",
    Status.REFUSED: "refused",
    Status.SKIPPED: "skipped",
}


def plan_checkout(
    repo: Path, bridge: Bridge, only: list[str], formatter: FormatterMode = FormatterMode.AUTO, restore=()
):
    from ..checks.tools import TOOLS
    from ..plan.runner import plan

    return plan(repo, bridge, only, formatter, restore, TOOLS)


def header(plan, layout: bool = True) -> None:
    """The target, the bridge mode and, where the run lays files out
    (``layout``), the formatter, each with why."""
    say(f"target: {plan.target} ({plan.repo})")
    say(f"bridge: {plan.bridge.describe()}")
    if layout and plan.formatter is not None:
        name = plan.formatter.name
        say(f"formatter: {name} ({plan.formatter.reason})")
    for notice in plan.notices:
        say(f"note: {notice}")


def layout_lines(plan) -> list[str]:
    """Each file's layout, files that share one (and its reason) on one line."""
    groups: dict[tuple[str, str], list[str]] = {}
    for change in plan.changes:
        if change.layout is not None:
            groups.setdefault((change.layout.kind, change.layout.reason), []).append(change.path)
    if len(groups) == 1:
        [((kind, reason), paths)] = groups.items()
        if len(paths) > 1:
            return [f"  layout: {kind} for all {len(paths)} files ({reason})"]
    lines = []
    for (kind, reason), paths in groups.items():
        lines.append(f"  layout: {kind} ({reason}):")
        lines.extend(f"    {path}" for path in paths)
    return lines


def step_lines(plan, applied_word: str) -> list[str]:
    lines = []
    for result in plan.results:
        word = {
            Status.APPLIED: applied_word,
            Status.ALREADY: "already there",
            Status.REFUSED: "refused",
            Status.SKIPPED: "skipped",
        }[result.status]
        line = f"  {result.step:<{STEP_WIDTH}} {word:<14} {result.path}"
        for extra in ([result.reason] if result.reason else []) + [n for n in result.notes if n.startswith("found ")]:
            line += f"\n  {'':<{STEP_WIDTH}} {extra}"
        for change in result.form_changes:
            line += f"\n  {'':<{STEP_WIDTH}} {form_change_line(change, result.why)}"
        lines.append(line)
    return lines


def form_change_line(change, why: str) -> str:
    """``migrate lines 3-9: <from> -> <to> (why)``; an upgrade needs no why."""
    return str(change) + (f" (why: {why})" if change.kind == "migrate" else "")


def apply(request: ApplyRequest) -> int:
    """`mesh-codemod apply`: plan, then write (or show, or only check)."""
    from ..plan.lock import Busy, repo_lock
    from ..plan.model import TargetError

    if request.dry_run and request.check:
        return fail("--dry-run and --check cannot be combined", Exit.USAGE, request.as_json)
    writing_allowed = not (request.dry_run or request.check)
    try:
        with repo_lock(request.repo, request.lock_timeout):
            plan = plan_checkout(request.repo, request.bridge, request.only, request.formatter, request.restore)
            if writing_allowed and plan.pending:
                from ..plan.writing import refuse_unwritable

                refuse_unwritable(plan)
            writing = writing_allowed and plan.pending and not plan.refused
            if writing:
                from ..plan.writing import write

                write(plan.repo, plan.changes)
    except TargetError as err:
        return fail(str(err), Exit.REFUSED, request.as_json)
    except Busy as err:
        return fail(str(err), Exit.REFUSED, request.as_json)
    except ValueError as err:
        return fail(str(err), Exit.USAGE, request.as_json)
    except (OSError, Refused) as err:
        return fail(f"nothing written: {err}", Exit.REFUSED, request.as_json)

    if request.as_json:
        report = plan.to_json()
        report["written"] = writing
        if request.dry_run and not plan.refused:
            report["diff"] = plan.diff()
        print_json(report)
    else:
        header(plan)
        for line in step_lines(plan, "applied" if writing else "pending") + layout_lines(plan):
            say(line)
        if request.dry_run and plan.pending and not plan.refused:
            # A refused run changes nothing: its partial diff is no proposal.
            diff = plan.diff()
            sys.stdout.write(colored(diff) if sys.stdout.isatty() else diff)
        say(_summary(plan, writing, request.check))

    if plan.refused:
        return int(Exit.REFUSED)
    if request.check and plan.pending:
        return int(Exit.PENDING)
    return int(Exit.OK)


def _summary(plan, writing: bool, check: bool) -> str:
    if plan.refused:
        return f"refused: {len(plan.refused)} step(s) cannot run; nothing was written"
    if not plan.pending:
        left = [r for r in plan.results if r.status is Status.SKIPPED and r.kind in ("config", "decision")]
        if left:
            return f"nothing to do: every step is applied or left alone ({len(left)} by the team's decision)"
        return "nothing to do: every step is already applied"
    if writing:
        return f"wrote {len(plan.changes)} file(s)"
    return f"{len(plan.changes)} file(s) would change" + ("" if check else "; nothing written")


def status(repo: Path, as_json: bool, formatter: FormatterMode = FormatterMode.AUTO) -> int:
    """`mesh-codemod status`: each step applied, pending or refused."""
    from ..plan.model import TargetError

    try:
        plan = plan_checkout(repo, Bridge.AUTO, [], formatter)
    except TargetError as err:
        return fail(str(err), Exit.REFUSED, as_json)
    except ValueError as err:
        return fail(str(err), Exit.USAGE, as_json)
    states = [
        {
            **r.to_json(),
            "status": _STATUS_WORDS[r.status],
            **({"reason": _pending_reason(plan.repo, r)} if r.status is Status.APPLIED else {}),
        }
        for r in plan.results
    ]
    if as_json:
        print_json({**plan.to_json(), "steps": states})
    else:
        header(plan)
        for state in states:
            line = f"{state['step']:<{STEP_WIDTH}} {state['status']:<8} {state['path']}"
            if "reason" in state:
                line += f"\n{'':<{STEP_WIDTH}} {state['reason']}"
            print(line)
        for result, change in plan.form_changes:
            print(f"{result.step:<{STEP_WIDTH}} {change.kind:<8} {result.path} {form_change_line(change, result.why)}")
        for line in layout_lines(plan):
            print(line)
    return int(Exit.REFUSED if plan.refused else Exit.OK)


def _pending_reason(repo: Path, result) -> str:
    """Why a step is pending: what it would add or change."""
    if result.form_changes:
        return "; ".join(str(c) for c in result.form_changes)
    added = [str(n) for n in result.notes if not n.startswith(("found ", "created beside"))]
    if added:
        first = " ".join(added[0].split())
        first = first if len(first) <= 70 else first[:67] + "..."
        return f"missing: `{first}`" + (f" and {len(added) - 1} more" if len(added) > 1 else "")
    if not (repo / result.path).exists():
        return "the file does not exist yet"
    return "the file would change"


def list_steps(as_json: bool) -> int:
    """`mesh-codemod list`: every target's steps with their ids and descriptions."""
    from ..recipes import targets

    every = tuple(targets())
    if as_json:
        rows = [
            {"target": t.name, "id": s.id, "path": s.path, "description": s.description}
            for t in every
            for s in t.steps
        ]
        print_json(rows)
    else:
        for index, target in enumerate(every):
            print(("\n" if index else "") + f"{target.name}: {target.description}")
            for step in target.steps:
                print(f"  {step.id:<{STEP_WIDTH}} {step.description}")
    return int(Exit.OK)


