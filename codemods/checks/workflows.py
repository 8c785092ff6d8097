"""What mesh's pull-request CI runs (`.github/workflows/`), and which of it
`verify` cannot run here: each such job is reported "not run", with the
reason, so that the report and the PR body list every check a pull request
gets, not only the ones that ran.

The workflows are read as data (`plan.workflows`): the triggers under
`on:`, each job under `jobs:`, its steps' `run:` commands, its service
containers. A job counts as covered when every command of it is one of the
checks `verify` runs (`COMMANDS`) and it needs neither docker nor a browser
that Playwright downloads. A file that cannot be read is left out.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from typing import NamedTuple

from ..plan.workflows import label, pull_request_paths, workflows
from .model import Check, Outcome

# a `run:` command of mesh's CI -> the check of `verify` that runs it
COMMANDS = (
    (re.compile(r"\bfmt:check\b|\bbiome (?:format|check|ci)\b"), "format"),
    (re.compile(r"\bbun run lint\b|\boxlint\b"), "lint"),
    (re.compile(r"\bcheck:ci\b|\bbun run check\b"), "typecheck"),
    (re.compile(r"\bbun (?:run )?test(?![\w:-])"), "tests"),
    (re.compile(r"\bknip\b"), "knip"),
)
# what a job needs that this machine does not give a check
_BROWSER = re.compile(r"\bplaywright install\b")
# steps that only prepare a runner (their effect is what `verify` starts from)
_SETUP = re.compile(
    r"^(?:bun install\b|sudo apt-get\b|npm ci\b|mkdir\b|echo\b|test -f\b|set [-+]e\b)"
)


class Job(NamedTuple):
    """One job of a workflow that runs on a pull request."""

    workflow: str  # the file's name
    name: str  # the job's id
    commands: tuple[str, ...]  # each `run:` command, its lines joined
    services: bool  # service containers (docker)
    paths: tuple[str, ...]  # the pull_request trigger's `paths:` (none: every PR)

    @property
    def label(self) -> str:
        return label(self.workflow, self.name)


def pull_request_jobs(root: Path) -> list[Job]:
    """The jobs of the checkout's workflows that a pull request runs."""
    jobs = []
    for workflow in workflows(root):
        paths = pull_request_paths(workflow.data.get("on"))
        if paths is None:
            continue
        found = workflow.data.get("jobs")
        for name, job in (found.items() if isinstance(found, dict) else ()):
            if isinstance(job, dict):
                services = "services" in job or "container" in job
                jobs.append(Job(workflow.name, str(name), tuple(_commands(job)), services, paths))
    return jobs


def not_run(root: Path, files: list[str], ran: dict[str, Outcome]) -> list[Check]:
    """A "not run" check for each pull-request job, or part of one, that
    `verify` did not run here (``ran``: the checks it ran, by name)."""
    checks = []
    filtered: dict[str, list[Job]] = {}
    for job in pull_request_jobs(root):
        if job.paths and not any(_matches(f, p) for f in files for p in job.paths):
            filtered.setdefault(job.workflow, []).append(job)
            continue
        covered, rest = [], []
        for command in job.commands:
            check = next((name for pattern, name in COMMANDS if pattern.search(command)), None)
            if check is not None and check in ran:
                covered.append(check)
            elif not _SETUP.match(command.strip()):
                rest.append(command)
        needs = _needs(job)
        if needs and "tests" in covered:
            checks.append(Check(
                job.label, Outcome.NOT_RUN,
                f"the whole `bun test` suite needs {needs}; here `tests` runs the tests beside the touched files",
            ))
        elif needs:
            checks.append(Check(job.label, Outcome.NOT_RUN, f"needs {needs}"))
        elif rest:
            first = rest[0].splitlines()[0]
            also = f" (its {', '.join(f'`{c}`' for c in covered)} ran as the check of that name)" if covered else ""
            checks.append(Check(job.label, Outcome.NOT_RUN, f"`{first}`: not one of the checks verify runs{also}"))
    for workflow, jobs in filtered.items():
        shown = ", ".join(jobs[0].paths)
        checks.append(Check(
            label(workflow), Outcome.NOT_RUN,
            f"runs only for changes under {shown} (jobs {', '.join(j.name for j in jobs)}); this change has none",
        ))
    return checks


def _needs(job: Job) -> str:
    """What the job needs that a check here cannot have, in words."""
    needs = []
    text = "\n".join(job.commands)
    if _BROWSER.search(text):
        needs.append("the browser Playwright downloads (`playwright install`)")
    if job.services:
        needs.append("service containers (docker)")
    if re.search(r"\bdocker build\b", text):
        needs.append("a docker image build and run")
    elif re.search(r"\bdocker\b", text):
        needs.append("NATS in docker" if "nats" in text.lower() else "docker")
    return ", ".join(needs[:-1]) + (" and " if len(needs) > 1 else "") + (needs[-1] if needs else "")


def _matches(path: str, pattern: str) -> bool:
    pattern = pattern.strip("'\"")
    if pattern.endswith("/**"):
        return path.startswith(pattern[:-2])
    return fnmatch.fnmatch(path, pattern)


def _commands(job: dict) -> list[str]:
    """Each `run:` command of a job's steps, its lines trimmed, without
    blank and comment lines."""
    steps = job.get("steps")
    commands = []
    for step in steps if isinstance(steps, list) else ():
        run = step.get("run") if isinstance(step, dict) else None
        if isinstance(run, str):
            lines = (line.strip() for line in run.splitlines())
            commands.append("\n".join(line for line in lines if line and not line.startswith("#")))
    return commands
