"""The command line: a thin layer that turns plans and results into output
and exit codes (SPEC sections 7-9)."""

from __future__ import annotations

import json
import sys
from enum import IntEnum
from pathlib import Path
from typing import Annotated, Optional

import typer

from .engine.outcome import Status
from .recipes.base import Bridge


class Exit(IntEnum):
    OK = 0
    PENDING = 1
    USAGE = 2
    REFUSED = 3
    VERIFY_FAILED = 4


app = typer.Typer(
    name="mesh-codemod",
    help="Add deep-link app state (appState) to a Studio (decocms/mesh) checkout.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

RepoOption = Annotated[
    Path,
    typer.Option("--repo", help="The checkout to work on.", show_default="current directory"),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print a machine-readable report.")]

_MARKS = {
    Status.APPLIED: "applied",
    Status.ALREADY: "already there",
    Status.REFUSED: "refused",
    Status.SKIPPED: "skipped",
}
_COLORS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m", "d": "\x1b[1m"}


def _err(message: str) -> None:
    print(message, file=sys.stderr)


def _colored(diff: str) -> str:
    out = []
    for line in diff.splitlines(keepends=True):
        color = _COLORS.get(line[:1])
        if line.startswith(("+++", "---")):
            color = _COLORS["d"]
        out.append(f"{color}{line.rstrip(chr(10))}\x1b[0m\n" if color else line)
    return "".join(out)


def _plan_or_exit(repo: Path, bridge: Bridge, only: list[str], as_json: bool):
    from .runner import TargetError, plan

    try:
        return plan(repo, bridge, only)
    except TargetError as err:
        _fail(str(err), Exit.REFUSED, as_json)
    except ValueError as err:
        _fail(str(err), Exit.USAGE, as_json)


def _fail(message: str, code: Exit, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"error": message, "exit": int(code)}, indent=2))
    else:
        _err(f"mesh-codemod: {message}")
    raise typer.Exit(int(code))


def _report(plan, verb_pending: str) -> None:
    _err(f"target: {plan.target} ({plan.repo})")
    _err(f"bridge: {plan.bridge.mode.value} ({plan.bridge.reason})")
    for result in plan.results:
        mark = _MARKS[result.status]
        if result.status is Status.APPLIED:
            mark = verb_pending
        line = f"  {result.step:<18} {mark:<14} {result.path}"
        if result.reason:
            line += f"\n  {'':<18} {result.reason}"
        _err(line)


@app.command("apply")
def apply_command(
    repo: RepoOption = Path("."),
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the diff; write nothing.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 when edits are pending.")] = False,
    as_json: JsonOption = False,
    bridge: Annotated[Bridge, typer.Option("--bridge", help="How the host hears state-changed.")] = Bridge.AUTO,
    only: Annotated[Optional[list[str]], typer.Option("--only", help="Run only this step (repeatable).")] = None,
) -> None:
    """Detect the target, compute every edit, then write it (or show it)."""
    if dry_run and check:
        _fail("--dry-run and --check cannot be combined", Exit.USAGE, as_json)
    plan = _plan_or_exit(repo, bridge, only or [], as_json)
    writing = not (dry_run or check) and plan.pending and not plan.refused
    if writing:
        from .runner import write

        try:
            write(plan.repo, plan.changes)
        except OSError as err:
            _fail(f"nothing written: {err}", Exit.REFUSED, as_json)

    if as_json:
        report = plan.to_json()
        report["written"] = writing
        if dry_run:
            report["diff"] = plan.diff()
        print(json.dumps(report, indent=2))
    else:
        verb = "applied" if writing else "pending"
        _report(plan, verb)
        if dry_run and plan.pending:
            diff = plan.diff()
            sys.stdout.write(_colored(diff) if sys.stdout.isatty() else diff)
        _summary(plan, writing, check)

    if plan.refused:
        raise typer.Exit(int(Exit.REFUSED))
    if check and plan.pending:
        raise typer.Exit(int(Exit.PENDING))


def _summary(plan, writing: bool, check: bool) -> None:
    if plan.refused:
        _err(f"refused: {len(plan.refused)} step(s) cannot run; nothing was written")
    elif not plan.pending:
        _err("nothing to do: every step is already applied")
    elif writing:
        _err(f"wrote {len(plan.changes)} file(s)")
    else:
        _err(f"{len(plan.changes)} file(s) would change" + ("" if check else "; nothing written"))


@app.command("status")
def status_command(repo: RepoOption = Path("."), as_json: JsonOption = False) -> None:
    """Each step: applied, pending, or refused with its reason."""
    plan = _plan_or_exit(repo, Bridge.AUTO, [], as_json)
    states = []
    for result in plan.results:
        state = {
            Status.ALREADY: "applied",
            Status.APPLIED: "pending",
            Status.REFUSED: "refused",
            Status.SKIPPED: "skipped",
        }[result.status]
        states.append({**result.to_json(), "status": state})
    if as_json:
        print(json.dumps({**plan.to_json(), "steps": states}, indent=2))
    else:
        _err(f"target: {plan.target} ({plan.repo})")
        _err(f"bridge: {plan.bridge.mode.value} ({plan.bridge.reason})")
        for state in states:
            line = f"{state['step']:<18} {state['status']:<8} {state['path']}"
            if "reason" in state:
                line += f"\n{'':<18} {state['reason']}"
            print(line)
    if plan.refused:
        raise typer.Exit(int(Exit.REFUSED))


@app.command("list")
def list_command(as_json: JsonOption = False) -> None:
    """The steps with their ids and one-line descriptions."""
    from .recipes import host

    if as_json:
        print(json.dumps([{"id": s.id, "path": s.path, "description": s.description} for s in host.STEPS], indent=2))
        return
    for step in host.STEPS:
        print(f"{step.id:<18} {step.description}")


def main() -> None:
    app(prog_name="mesh-codemod")
