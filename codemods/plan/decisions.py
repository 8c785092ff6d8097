"""The team's decisions stand (SPEC 5a): a created file and the one it goes
with change release together, and a created file someone removed while the
rest of the feature is present is not created again."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from ..engine.outcome import NotApplicable, Refused, Status, StepResult
from ..recipes import Target
from ..recipes.base import Context, Notice, Step
from . import config as configuration
from .locate import locate
from .model import LEFT_WITH_PAIR, resolve_inside
from .steps import missing_exports, read_target, run_step


def keep_pairs(
    ctx: Context,
    steps: Sequence[Step],
    results: list[StepResult],
    contents: dict[str, tuple[bytes | None, bytes]],
    touched: dict[str, list[str]],
) -> None:
    """A created file and the one it goes with (a module and its tests)
    change release together: when someone edited one of them, so that it
    is left alone, the other is not upgraded either (its tests would test
    another release's code), with a notice that says so; refused where the
    release's other files need what the upgrade adds to it."""
    by_id = {r.step: index for index, r in enumerate(results)}
    for step in steps:
        if not step.together or step.id not in by_id or step.together not in by_id:
            continue
        partner = results[by_id[step.together]]
        if not any(isinstance(n, Notice) and "was edited since" in n for n in partner.notes):
            continue
        index = by_id[step.id]
        result = results[index]
        upgrades = [c for c in result.form_changes if c.kind == "upgrade"]
        if result.status is not Status.APPLIED or not upgrades or len(upgrades) != len(result.form_changes):
            continue
        old = contents[result.path][0]
        if old is None:
            continue
        contents[result.path] = (old, old)
        remaining = [s for s in touched.get(result.path, []) if s != step.id]
        if remaining:
            touched[result.path] = remaining
        else:
            touched.pop(result.path, None)
        missing = missing_exports(step.new_file, ctx, old) if step.new_file is not None else []
        if missing:
            # This release's other files import what only the upgrade adds:
            # the file cannot stay at its release, nor move without its pair.
            results[index] = StepResult(
                result.step, result.path, Status.REFUSED,
                f"cannot stay at {upgrades[0].was}, since this release's files import {', '.join(missing)} from it, "
                f"nor be upgraded without {partner.path}, which it goes with and which was edited since "
                "mesh-codemod wrote it (the edits conflict with the upgrade); upgrade both by hand",
                "conflict", result.notes, why=result.why,
            )
            continue
        notice = Notice(
            f"{result.path} {LEFT_WITH_PAIR} {upgrades[0].was}, not upgraded to {upgrades[0].now}: "
            f"{partner.path}, which it goes with, was edited since mesh-codemod wrote it, and the two change "
            "release together; upgrade both by hand"
        )
        results[index] = StepResult(result.step, result.path, Status.ALREADY, notes=[*result.notes, notice], why=result.why)


def keep_decisions(
    repo: Path,
    target: Target,
    ctx: Context,
    config,
    restore: Sequence[str],
    results: list[StepResult],
    contents: dict[str, tuple[bytes | None, bytes]],
    touched: dict[str, list[str]],
) -> None:
    """A file the tool creates that is missing while every other step of
    the feature is present was removed by someone: that is a decision, so
    the step is skipped (kind "decision"), with how to restore it."""
    by_id = {s.id: s for s in target.steps}
    creating = [
        (index, r)
        for index, r in enumerate(results)
        if r.status is Status.APPLIED and by_id[r.step].new_file is not None
        and contents.get(r.path, (b"",))[0] is None and r.step not in restore
    ]
    if not creating:
        return
    done = {r.step: r for r in results}
    # A file a release newer than the checkout's created (an upgrade is
    # pending from the checkout's release, which the store holds without
    # it): never written there, so never removed; one the checkout's
    # release wrote and someone removed stays a decision.
    upgraded_from = [
        found
        for r in results for c in r.form_changes if c.kind == "upgrade"
        for found in re.findall(r"\d+\.\d+\.\d+", c.was)
    ]
    checkouts = max(upgraded_from, key=_version, default=None)

    def newer(step: Step) -> bool:
        if checkouts is None or step.new_file is None:
            return False
        wrote = [r for r in step.new_file.releases() if r.version == checkouts]
        return not any(step.new_file.template in r.templates for r in wrote)

    for index, result in creating:
        if newer(by_id[result.step]):
            continue
        if not _rest_present(repo, target, ctx, config, result.step, done, contents, newer):
            continue
        reason = (
            f"{result.path} is missing while the rest of the feature is present: someone removed it, "
            f"a decision that stands; not created again (restore it: mesh-codemod apply --restore {result.step}, "
            f"or skip it for good in {configuration.FILE_NAME})"
        )
        results[index] = StepResult(result.step, result.path, Status.SKIPPED, reason, "decision", result.notes)
        touched.pop(result.path, None)
        contents.pop(result.path, None)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _rest_present(repo, target, ctx, config, step_id, done, contents, newer) -> bool:
    """Whether every step but ``step_id`` (and those the configuration
    skips or that do not apply) finds the feature there, in this release's
    form or an earlier one; steps this plan did not run are tried now. A
    file a release newer than the checkout's introduces (``newer``) was
    never there to be present."""
    root = repo.resolve()
    for step in target.steps:
        if step.id == step_id or config.skipped(step.id) or newer(step):
            continue
        result = done.get(step.id)
        if result is not None and result.status is Status.SKIPPED and result.kind == "not-applicable":
            continue
        if step.new_file is not None:
            path = result.path if result is not None else step.path
            if result is not None and result.status is Status.APPLIED and contents.get(path, (b"",))[0] is None:
                return False
            if not os.path.lexists(root / path):
                return False
            continue
        if result is not None and result.status is not Status.SKIPPED:
            if result.status is Status.ALREADY or result.form_changes:
                continue
            return False
        try:
            path, _ = locate(repo, step, ctx.located)
            if step.absent and not os.path.lexists(root / path):
                continue
            real = resolve_inside(root, path).relative_to(root).as_posix()
            current = read_target(root / real, real, step)
            new, _, form_changes = run_step(step, ctx, real, current)
        except NotApplicable:
            continue
        except Refused:
            return False
        if new != current and not form_changes:
            return False
    return True


# What a refused step reports when the checkout already has the feature.
REFACTOR = "refactor"


def refactors(results: list[StepResult], refusals: dict) -> None:
    """A step that cannot find what it needs (an anchor, its file) on a
    checkout that already has the feature (another step present by role, or
    an earlier form of it) meets a refactor the tool cannot follow, not an
    old revision (SPEC 5a, "The second year"): its result says what is
    missing and the one line of the configuration that opts out of the
    step (kind ``refactor``; the job reports it as ``blocked``)."""
    present = any(r.status is Status.ALREADY or r.form_changes for r in results)
    if not present:
        return
    for index, result in enumerate(results):
        refusal = refusals.get(result.step)
        if result.status is not Status.REFUSED or refusal is None or refusal.kind not in ("anchor-missing", "file-missing"):
            continue
        what = getattr(refusal, "what", "") or refusal.reason
        reason = (
            f"cannot find {what}; the checkout has the feature, so this looks like a refactor the tool cannot "
            f"follow: opt out of this step with `{skip_line(result.step)}` in .mesh-codemod.toml"
        )
        results[index] = result._replace(reason=reason, kind=REFACTOR)


def skip_line(step: str) -> str:
    return f'skip = ["{step}"]'
