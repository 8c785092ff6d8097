"""`verify`: the checkout's own checks on the files the tool targets, each
against the commit the change was made on."""

from __future__ import annotations

from pathlib import Path

from ..plan.formatting import FormatterMode
from ..recipes.base import Bridge
from .planning import header, plan_checkout
from .output import Exit, fail, git_failures, print_json, progress, refusal, say


def verify_checkout(
    repo: Path, as_json: bool, require: bool = False, base: str | None = None, target: str | None = None
) -> int:
    """`mesh-codemod verify`: the checks on the files the tool targets, in
    place. The type check's baseline is the commit the change was made on
    (`plan.baseline`), never a HEAD that holds others' commits above
    the tool's."""
    from ..plan import environment

    with environment.sealed():
        return _verify_checkout(repo, as_json, require, base, target)


def _verify_checkout(repo: Path, as_json: bool, require: bool, base: str | None, target: str | None = None) -> int:
    from ..checks import verify
    from ..plan.baseline import BaselineProblem, checkout_baseline
    from ..plan.model import TargetError

    try:
        # only whether edits are pending matters here, not their layout
        current = plan_checkout(repo, Bridge.AUTO, [], FormatterMode.NONE)
        baseline = checkout_baseline(repo, base, target)
    except (TargetError, BaselineProblem) as err:
        return fail(str(err), Exit.REFUSED, as_json)
    files = [r.path for r in current.results if (repo / r.path).is_file()]  # verify.run sorts them, once each
    try:
        with progress(as_json) as note:
            report = verify.run(repo, files, baseline, note, target=current.target, require=require)
    except git_failures() as err:  # exporting the baseline's tree
        return fail(refusal(err), Exit.REFUSED, as_json)
    described = baseline.describe if baseline else "none (not a git checkout): every type error counts"
    if as_json:
        print_json({**report.to_json(), "pending": current.pending, "baseline": described})
    else:
        header(current, layout=False)  # verify plans only to find the files, without laying them out
        say(f"baseline: {described}")
        if current.pending:
            say(f"note: {len(current.changes)} file(s) still have pending edits (`mesh-codemod apply`)")
        print(f"verify: {len(report.files)} file(s)\n{report.text()}")
    return int(Exit.VERIFY_FAILED if report.failed else Exit.OK)
