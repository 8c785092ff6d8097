"""Every target's patch series covers each of its steps exactly once, in order."""

from __future__ import annotations

from codemods.runner import commits_for, steps_for


def test_host_commit_groups_cover_every_step_once_in_step_order() -> None:
    steps = [s.id for s in steps_for("host")]
    grouped = [step for group in commits_for("host") for step in group.steps]
    assert grouped == steps
    assert all(group.subject and group.body for group in commits_for("host"))
