"""What each command does and prints, and the exit code it returns.

Shared by the typer command line (`cli.py`) and the fast path
(`fastpath.py`); it imports neither typer nor git, so that the commands a CI
job runs most (`apply --check`, `apply --dry-run`) start quickly.
"""

from __future__ import annotations

import sys
from enum import IntEnum
from pathlib import Path
from typing import NamedTuple

from .engine.outcome import Refused, Status
from .recipes.base import Bridge


class Exit(IntEnum):
    OK = 0
    PENDING = 1
    USAGE = 2
    REFUSED = 3
    VERIFY_FAILED = 4


class ApplyRequest(NamedTuple):
    repo: Path = Path(".")
    dry_run: bool = False
    check: bool = False
    as_json: bool = False
    bridge: Bridge = Bridge.AUTO
    only: tuple[str, ...] | list[str] = ()
    lock_timeout: float = 30.0


_COLORS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
_BOLD = "\x1b[1m"
_STATUS_WORDS = {
    Status.ALREADY: "applied",
    Status.APPLIED: "pending",
    Status.REFUSED: "refused",
    Status.SKIPPED: "skipped",
}


def _err(message: str) -> None:
    print(message, file=sys.stderr)


def _colored(diff: str) -> str:
    out = []
    for line in diff.splitlines(keepends=True):
        color = _BOLD if line.startswith(("+++", "---", "diff --git")) else _COLORS.get(line[:1])
        out.append(f"{color}{line.rstrip(chr(10))}\x1b[0m\n" if color else line)
    return "".join(out)


def _print_json(data: object) -> None:
    import json

    print(json.dumps(data, indent=2))


def _fail(message: str, code: Exit, as_json: bool) -> int:
    if as_json:
        _print_json({"error": message, "exit": int(code)})
    else:
        _err(f"mesh-codemod: {message}")
    return int(code)


def _plan(repo: Path, bridge: Bridge, only: list[str]):
    from .runner import plan

    return plan(repo, bridge, only)


def _header(plan) -> None:
    _err(f"target: {plan.target} ({plan.repo})")
    _err(f"bridge: {plan.bridge.mode.value} ({plan.bridge.reason})")
    for notice in plan.notices:
        _err(f"note: {notice}")


def _step_lines(plan, applied_word: str) -> list[str]:
    lines = []
    for result in plan.results:
        word = {
            Status.APPLIED: applied_word,
            Status.ALREADY: "already there",
            Status.REFUSED: "refused",
            Status.SKIPPED: "skipped",
        }[result.status]
        line = f"  {result.step:<18} {word:<14} {result.path}"
        for extra in ([result.reason] if result.reason else []) + [n for n in result.notes if n.startswith("found ")]:
            line += f"\n  {'':<18} {extra}"
        lines.append(line)
    return lines


def apply(request: ApplyRequest) -> int:
    """`mesh-codemod apply`: plan, then write (or show, or only check)."""
    from .lock import Busy, repo_lock
    from .runner import TargetError

    if request.dry_run and request.check:
        return _fail("--dry-run and --check cannot be combined", Exit.USAGE, request.as_json)
    writing_allowed = not (request.dry_run or request.check)
    try:
        with repo_lock(request.repo, request.lock_timeout):
            plan = _plan(request.repo, request.bridge, request.only)
            if writing_allowed and plan.pending:
                from .runner import refuse_unwritable

                refuse_unwritable(plan)
            writing = writing_allowed and plan.pending and not plan.refused
            if writing:
                from .runner import write

                write(plan.repo, plan.changes)
    except TargetError as err:
        return _fail(str(err), Exit.REFUSED, request.as_json)
    except Busy as err:
        return _fail(str(err), Exit.REFUSED, request.as_json)
    except ValueError as err:
        return _fail(str(err), Exit.USAGE, request.as_json)
    except (OSError, Refused) as err:
        return _fail(f"nothing written: {err}", Exit.REFUSED, request.as_json)

    if request.as_json:
        report = plan.to_json()
        report["written"] = writing
        if request.dry_run:
            report["diff"] = plan.diff()
        _print_json(report)
    else:
        _header(plan)
        for line in _step_lines(plan, "applied" if writing else "pending"):
            _err(line)
        if request.dry_run and plan.pending:
            diff = plan.diff()
            sys.stdout.write(_colored(diff) if sys.stdout.isatty() else diff)
        _err(_summary(plan, writing, request.check))

    if plan.refused:
        return int(Exit.REFUSED)
    if request.check and plan.pending:
        return int(Exit.PENDING)
    return int(Exit.OK)


def _summary(plan, writing: bool, check: bool) -> str:
    if plan.refused:
        return f"refused: {len(plan.refused)} step(s) cannot run; nothing was written"
    if not plan.pending:
        return "nothing to do: every step is already applied"
    if writing:
        return f"wrote {len(plan.changes)} file(s)"
    return f"{len(plan.changes)} file(s) would change" + ("" if check else "; nothing written")


def status(repo: Path, as_json: bool) -> int:
    """`mesh-codemod status`: each step applied, pending or refused."""
    from .runner import TargetError

    try:
        plan = _plan(repo, Bridge.AUTO, [])
    except TargetError as err:
        return _fail(str(err), Exit.REFUSED, as_json)
    states = [{**r.to_json(), "status": _STATUS_WORDS[r.status]} for r in plan.results]
    if as_json:
        _print_json({**plan.to_json(), "steps": states})
    else:
        _header(plan)
        for state in states:
            line = f"{state['step']:<18} {state['status']:<8} {state['path']}"
            if "reason" in state:
                line += f"\n{'':<18} {state['reason']}"
            print(line)
    return int(Exit.REFUSED if plan.refused else Exit.OK)


def list_steps(as_json: bool) -> int:
    """`mesh-codemod list`: the steps with their ids and descriptions."""
    from .recipes import host

    if as_json:
        rows = [{"id": s.id, "path": s.path, "description": s.description} for s in host.STEPS]
        _print_json(rows)
    else:
        for step in host.STEPS:
            print(f"{step.id:<18} {step.description}")
    return int(Exit.OK)
