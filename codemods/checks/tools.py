"""The checks wing's tools for planning: what starts the checkout's
processes (its formatter, its generator), handed to `plan.runner.plan` by
the command line. The publishing side never imports this module.

The modules that start processes are imported on first use: a dry run on a
checkout without Biome or a generator loads neither."""

from __future__ import annotations

from pathlib import Path

from ..plan.model import Tools


def _format_pass(root: Path, candidates: list, choice) -> list:
    from .format_pass import format_pass

    return format_pass(root, candidates, choice)


def _run(command, cwd: Path, timeout: float | None = None, *args, **options):
    from .sandbox import run

    return run(command, cwd, timeout, *args, **options)


TOOLS = Tools(run=_run, format_pass=_format_pass)
