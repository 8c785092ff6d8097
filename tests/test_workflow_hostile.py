"""The example workflow against a hostile repository (tests/hostile_repo.py,
tests/workflow_hostile.py): the build job runs the repository's code where
a canary reads every environment it can reach, and the write token is in
none; the publish job runs nothing of the repository, whatever its
workspace's `.git` says, and pushes exactly the series it rebuilt from the
base, object id for object id, or refuses with nothing pushed, whatever the
build job's artifact says. Whole workflows: marked slow."""

from __future__ import annotations

import pytest

from . import workflow_canary, workflow_hostile
from .hostile_repo import REAL_BUN
from .node_tools import require
from .workflow_hostile import TAMPERED, WHERE_CODE_RUNS
from .workflow_run import WRITE_TOKEN

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory):
    """The remote with the canaries on main, and the build job run on it."""
    require(REAL_BUN, "the pinned Bun")
    folder = tmp_path_factory.mktemp("hostile")
    try:
        yield workflow_hostile.prepare(folder)
    finally:
        workflow_hostile.stop_scanners(folder / "logs")


def test_the_build_jobs_canaries_run_where_the_repositorys_code_runs_and_see_no_write_token(hostile) -> None:
    assert hostile.build.ok, [(s.name, s.exit, s.stderr[-500:]) for s in hostile.build.steps]
    assert WHERE_CODE_RUNS <= set(hostile.fired), hostile.fired
    # git runs no hook of the checkout, and nothing imports or starts the checkout's Python, TOML or root programs
    assert not [w for w in hostile.fired if w.startswith(("hook-", "python-", "root-", "mesh-codemod-toml", "yaml-tag"))]
    assert workflow_canary.seen_by(hostile.logs)[WRITE_TOKEN] == []


# One case of each kind of answer (pushed its own rebuild, refused); the
# suite's time allows no more. `python -m tests.workflow_hostile` runs every
# case of TAMPERED; tests/test_publish_attacks.py has the others against the
# command line.
IN_SUITE = ["honest", "bundle-with-an-extra-commit", "tip-on-an-attackers-branch", "verdict-all-passed", "branch-main"]


@pytest.mark.parametrize("case", IN_SUITE)
def test_publish_runs_nothing_of_the_repository_and_pushes_its_own_rebuild_or_nothing(hostile, case: str) -> None:
    tamper, _ = TAMPERED[case]
    found = workflow_hostile.publish(hostile, case, tamper)
    wrong = workflow_hostile.problems(hostile, case, found)
    assert not wrong, (wrong, [(s.name, s.exit, s.stderr[-500:]) for s in found.job.steps])


def test_a_canary_in_the_push_steps_process_tree_finds_the_token_in_its_ancestors(hostile) -> None:
    """The control: were a local git call of the push step to run the
    repository's code, a canary would find the token, in its ancestors'
    environment (its own has none)."""
    probe = workflow_hostile.control(hostile)
    assert probe.ancestors and not probe.own, probe
    assert any("--built" in line for line in probe.ancestors), probe.ancestors
