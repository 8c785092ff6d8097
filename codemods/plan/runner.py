"""Run recipe steps over a checkout: plan every edit, then write all or none
(`writing`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from ..engine.outcome import NotApplicable, Refused, Status, StepResult
from ..engine.style import read_config
from .formatting import BUILT_IN, Candidate, FormatterChoice, FormatterMode, Layout, choose
from ..recipes import Target
from ..recipes.base import Bridge, Context, ModeChoice, Notice, Planned, Step
from ..recipes.names import NAMES, Names
from . import config as configuration
from .decisions import keep_decisions, keep_pairs, refactors
from .locate import locate_all
from .model import FileChange, NO_TOOLS, Plan, Tools, detect_target, resolve_inside
from .steps import read_target, run_step


def plan(
    repo: Path,
    bridge: Bridge | ModeChoice = Bridge.AUTO,
    only: Sequence[str] = (),
    formatter: FormatterMode | str | FormatterChoice = FormatterMode.AUTO,
    restore: Sequence[str] = (),
    tools: Tools = NO_TOOLS,
    settings: configuration.Config | None = None,
    names: Names = NAMES,
) -> Plan:
    """Compute every step's edits against the files as they are now, and
    pass the changed files through the checkout's formatter (``formatter``:
    a mode, or a choice already made, e.g. another checkout's Biome).

    The checkout's decisions stand (SPEC 5a): a step its configuration file
    skips is skipped, and a file the tool creates that is missing while the
    rest of the feature is present is not created again, unless its step
    is in ``restore``. ``tools`` start the checkout's processes (its
    formatter, a generator); without them nothing is started. ``names``:
    the feature's names the steps write (SPEC 10)."""
    target = detect_target(repo)
    steps = target.steps
    ids = {s.id for s in steps}
    unknown = sorted((set(only) | set(restore)) - ids)
    if unknown:
        raise ValueError(f"unknown step(s): {', '.join(unknown)} (see `mesh-codemod list`)")
    # ``settings``: the configuration decided already (the publishing
    # side's: the base's with the target branch's over it)
    config = settings if settings is not None else configuration.load(repo, ids, target.name)
    if not isinstance(formatter, FormatterChoice):
        formatter = choose(repo, formatter, target.name)
    # A choice made already (on the checkout whose node_modules decide, for
    # a plan on an exported commit) is taken as it is.
    if isinstance(bridge, ModeChoice):
        choice = bridge
    else:
        choice = configuration.pinned(target.choose_mode(repo, bridge), config, bridge)
    # Every step's file is located, not only the selected ones': an import
    # names a created module where it is, whichever steps run.
    locations, failures = locate_all(repo, steps)
    earlier: dict[str, Planned] = {}
    ctx = _context(repo, target, choice, locations, earlier, tools, names)
    selected = [s for s in steps if not only or s.id in only]
    run = _run_steps(ctx, steps, selected, config, locations, failures, earlier)
    keep_pairs(ctx, steps, run.results, run.contents, run.touched)
    refactors(run.results, run.refusals)
    keep_decisions(repo, target, ctx, config, restore, run.results, run.contents, run.touched)
    changes = _laid_out(repo.resolve(), run.changes(), formatter, tools)
    return Plan(repo, target.name, choice, run.results, changes, _notices(run.results), formatter, config, names)


def _context(
    repo: Path, target: Target, choice: ModeChoice, locations: dict[str, tuple[str, list[str]]],
    earlier: dict[str, Planned], tools: Tools, names: Names,
) -> Context:
    """What every step's transform is given: the mode, the checkout's
    formatter settings, where the other steps' files are, what the steps
    before it planned (``earlier``, filled in as they run)."""
    steps = target.steps
    located = {s.path: locations[s.id][0] for s in steps if s.id in locations and locations[s.id][0] != s.path}
    return Context(
        repo=repo,
        bridge=choice.mode,
        formatter=read_config(repo),
        earlier=MappingProxyType(earlier),
        form=choice.form or "1.x",
        why=choice.describe(),
        sdk_api=choice.sdk_api,
        run=tools.run,
        located=MappingProxyType(located),
        aliases=target.aliases,
        names=names,
    )


class _Run(NamedTuple):
    """The steps' results and the files they planned, keyed by the real
    path, so that a file reached through a link is edited once."""

    results: list[StepResult]
    contents: dict[str, tuple[bytes | None, bytes]]  # path -> (old, new)
    touched: dict[str, list[str]]  # path -> the steps that changed it
    refusals: dict[str, Refused]

    def changes(self) -> list[FileChange]:
        return [
            FileChange(path, self.contents[path][0], self.contents[path][1], step_ids)
            for path, step_ids in self.touched.items()
            if self.contents[path][0] != self.contents[path][1]
        ]


def _run_steps(
    ctx: Context, steps: Sequence[Step], selected: Sequence[Step], config: configuration.Config,
    locations: dict[str, tuple[str, list[str]]], failures: dict[str, Refused], earlier: dict[str, Planned],
) -> _Run:
    """Each step in order on its file as the steps before it left it."""
    root = ctx.repo.resolve()
    owned = frozenset(locations[s.id][0] for s in selected if s.id in locations)
    run = _Run([], {}, {}, {})
    for step in steps:
        if config.skipped(step.id):
            reason = f"skipped by {configuration.FILE_NAME} (skip)"
            run.results.append(StepResult(step.id, step.path, Status.SKIPPED, reason, "config"))
            continue
        if step not in selected:
            run.results.append(StepResult(step.id, step.path, Status.SKIPPED))
            continue
        path, notes = step.path, []
        try:
            if step.id in failures:
                raise failures[step.id]
            path, notes = locations[step.id]
            if step.absent and not os.path.lexists(root / path):
                run.results.append(StepResult(step.id, path, Status.SKIPPED, step.absent, "not-applicable", notes))
                continue
            real = resolve_inside(root, path).relative_to(root).as_posix()
            if real != path:
                notes.append(f"found {path} to be a link to {real}; editing {real}")
            old, current = run.contents.get(real) or (read_target(root / real, real, step),) * 2
            new, added, form_changes = run_step(step, ctx, real, current, owned)
        except NotApplicable as skip:
            run.results.append(StepResult(step.id, path, Status.SKIPPED, skip.reason, "not-applicable", notes))
            continue
        except Refused as refusal:
            run.refusals[step.id] = refusal
            run.results.append(
                StepResult(step.id, refusal.path or path, Status.REFUSED, refusal.reason, refusal.kind, notes)
            )
            earlier[step.id] = Planned(path, refusal=refusal)
            continue
        run.contents[real] = (old, new)
        earlier[step.id] = Planned(real, new)
        status = Status.ALREADY if new == current else Status.APPLIED
        run.results.append(
            StepResult(
                step.id, real, status, notes=[*notes, *added],
                form_changes=tuple(form_changes) if status is Status.APPLIED else (), why=ctx.why,
            )
        )
        if status is Status.APPLIED:
            run.touched.setdefault(real, []).append(step.id)
    return run


def _laid_out(root: Path, changes: list[FileChange], formatter: FormatterChoice, tools: Tools) -> list[FileChange]:
    """The changed files, passed through the checkout's formatter where
    there is one and the tools may start it; each with its layout."""
    if not changes:
        return changes
    if formatter.biome is None:
        laid_out = [(c.new, Layout(BUILT_IN, f"no formatter: {formatter.reason}")) for c in changes]
    elif tools.format_pass is None:
        laid_out = [(c.new, Layout(BUILT_IN, "no formatter: nothing of the checkout runs here")) for c in changes]
    else:
        laid_out = tools.format_pass(root, [Candidate(c.path, c.old, c.new) for c in changes], formatter)
    return [c._replace(new=new, layout=layout) for c, (new, layout) in zip(changes, laid_out)]


def _notices(results: list[StepResult]) -> tuple[str, ...]:
    """What the report must tell besides the steps, once each."""
    return tuple(dict.fromkeys(
        str(note)
        for r in results
        if r.status in (Status.APPLIED, Status.ALREADY)
        for note in r.notes
        if isinstance(note, Notice)
    ))
