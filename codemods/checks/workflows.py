"""What mesh's pull-request CI runs (`.github/workflows/`), and which of it
`verify` cannot run here: each such job is reported "not run", with the
reason, so that the report and the PR body list every check a pull request
gets, not only the ones that ran.

The workflows are read line by line (GitHub's block YAML as mesh writes
it): the triggers under `on:`, each job under `jobs:`, its `run:` commands,
its service containers. A job counts as covered when every command of it
is one of the checks `verify` runs (`COMMANDS`) and it needs neither docker
nor a browser that Playwright downloads.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from typing import NamedTuple
from .model import Check, Outcome

WORKFLOWS = ".github/workflows"

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
        return f"{self.workflow.rsplit('.', 1)[0]}/{self.name}"


def pull_request_jobs(root: Path) -> list[Job]:
    """The jobs of the checkout's workflows that a pull request runs."""
    folder = root / WORKFLOWS
    if not folder.is_dir():
        return []
    jobs = []
    for path in sorted(folder.iterdir()):
        if path.suffix not in (".yml", ".yaml") or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        paths = _pull_request_paths(text)
        if paths is None:
            continue
        jobs.extend(Job(path.name, name, tuple(_commands(body)), _has_services(body), paths) for name, body in _jobs(text))
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
            workflow.rsplit(".", 1)[0], Outcome.NOT_RUN,
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


def _blocks(lines: list[str], indent: int) -> list[tuple[str, list[str]]]:
    """The keys at ``indent`` spaces and the lines under each."""
    blocks: list[tuple[str, list[str]]] = []
    key = re.compile(rf"^ {{{indent}}}([^\s#:][^:]*):(.*)$")
    for line in lines:
        match = key.match(line)
        if match:
            blocks.append((match[1].strip().strip("'\""), [match[2]]))
        elif blocks and (not line.strip() or line.startswith(" " * (indent + 1)) or line.lstrip().startswith("#")):
            blocks[-1][1].append(line)
        elif blocks and len(line) - len(line.lstrip()) <= indent:
            blocks.append(("", []))  # a sequence item or another level: ends the block
    return [(k, v) for k, v in blocks if k]


def _top(text: str) -> dict[str, list[str]]:
    return dict(_blocks(text.splitlines(), 0))


def _pull_request_paths(text: str) -> tuple[str, ...] | None:
    """None when no pull request runs the workflow; else its `paths:`
    filter (empty: every pull request)."""
    top = _top(text)
    trigger = top.get("on") or top.get("true")  # YAML 1.1 reads a bare `on` as true
    if trigger is None:
        return None
    inline = trigger[0].strip()
    if inline:
        names = re.findall(r"[\w-]+", inline)
        return () if "pull_request" in names else None
    events = dict(_blocks(trigger[1:], 2))
    if "pull_request" not in events:
        return None
    fields = dict(_blocks(events["pull_request"][1:], 4))
    paths = fields.get("paths", [])
    return tuple(
        line.strip()[1:].strip().strip("'\"") for line in paths[1:] if line.strip().startswith("-")
    )


def _jobs(text: str) -> list[tuple[str, list[str]]]:
    jobs = _top(text).get("jobs")
    return _blocks(jobs[1:], 2) if jobs else []


def _commands(body: list[str]) -> list[str]:
    """Each `run:` command of a job, a block scalar's lines joined."""
    commands = []
    for index, line in enumerate(body):
        match = re.match(r"^(\s*)(?:-\s+)?run:\s*(.*)$", line)
        if not match:
            continue
        value = match[2].strip()
        if not value:  # `defaults: run:`, a mapping
            continue
        if value in ("|", ">", "|-", ">-"):
            indent = len(match[1])
            block = []
            for following in body[index + 1:]:
                if following.strip() and len(following) - len(following.lstrip()) <= indent:
                    break
                block.append(following.strip())
            commands.append("\n".join(line for line in block if line and not line.startswith("#")))
        else:
            commands.append(value.strip("'\""))
    return commands


def _has_services(body: list[str]) -> bool:
    return any(re.match(r"^ {4}(?:services|container):", line) for line in body)
