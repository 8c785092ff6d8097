"""Every target's patch series covers each of its steps exactly once, in order."""

from __future__ import annotations

from codemods import recipes


def test_host_commit_groups_cover_every_step_once_in_step_order() -> None:
    steps = [s.id for s in recipes.target_named("host").steps]
    grouped = [step for group in recipes.target_named("host").commits for step in group.steps]
    assert grouped == steps
    assert all(group.subject and group.body for group in recipes.target_named("host").commits)


def test_sdk_commit_groups_start_with_the_sep_text_on_its_own() -> None:
    """The SEP text is its own first commit: the protocol change the code
    commits implement, reviewable as prose (and nothing builds on it)."""
    sdk = recipes.target_named("sdk")
    steps = [s.id for s in sdk.steps]
    assert [step for group in sdk.commits for step in group.steps] == steps
    first = sdk.commits[0]
    assert (first.id, first.steps) == ("spec", ("spec",))
    # subjects and bodies are written for the plan: what the revision's commit holds
    from codemods.plan.runner import plan

    from .support import FIXTURES

    written = first.written_for(plan(FIXTURES.parent / "sdk" / "shape-c" / "input"))
    assert written.subject.startswith("spec(draft): ")
    assert "The SDK code that implements it comes in a change of its own." in " ".join(written.body.split())
