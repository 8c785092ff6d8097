"""Every target's patch series covers each of its steps exactly once, in order."""

from __future__ import annotations

from codemods import recipes


def test_host_commit_groups_cover_every_step_once_in_step_order() -> None:
    steps = [s.id for s in recipes.target_named("host").steps]
    grouped = [step for group in recipes.target_named("host").commits for step in group.steps]
    assert grouped == steps
    assert all(group.subject and group.body for group in recipes.target_named("host").commits)
