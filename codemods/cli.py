"""The typer command line (SPEC section 9): options, help and usage errors.

Each command only converts its options into a call of `commands`, which
prints and returns the exit code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from . import commands
from .recipes.base import Bridge

app = typer.Typer(
    name="mesh-codemod",
    help="Add deep-link app state (appState) to a Studio (decocms/mesh) checkout.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

RepoOption = Annotated[
    Path, typer.Option("--repo", help="The checkout to work on.", show_default="current directory")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print a machine-readable report.")]


@app.command("apply")
def apply_command(
    repo: RepoOption = Path("."),
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the diff; write nothing.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 when edits are pending.")] = False,
    as_json: JsonOption = False,
    bridge: Annotated[Bridge, typer.Option("--bridge", help="How the host hears state-changed.")] = Bridge.AUTO,
    only: Annotated[Optional[list[str]], typer.Option("--only", help="Run only this step (repeatable).")] = None,
    lock_timeout: Annotated[
        float, typer.Option("--lock-timeout", help="Seconds to wait for another run on the same checkout.")
    ] = 30.0,
) -> None:
    """Detect the target, compute every edit, then write it (or show it)."""
    request = commands.ApplyRequest(repo, dry_run, check, as_json, bridge, only or [], lock_timeout)
    raise typer.Exit(commands.apply(request))


@app.command("status")
def status_command(repo: RepoOption = Path("."), as_json: JsonOption = False) -> None:
    """Each step: applied, pending, or refused with its reason."""
    raise typer.Exit(commands.status(repo, as_json))


@app.command("list")
def list_command(as_json: JsonOption = False) -> None:
    """The steps with their ids and one-line descriptions."""
    raise typer.Exit(commands.list_steps(as_json))
