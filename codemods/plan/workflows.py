"""GitHub Actions workflow files (`.github/workflows/*.yml`) read as data,
by PyYAML's safe loader: for the checks (what a pull request's CI runs)
and the publishing side (the names a verdict may give those jobs) alike.
A file too large or not a YAML mapping is a problem to report, never an
exception."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import yaml

WORKFLOWS = ".github/workflows"
# far more than any workflow holds; a larger file is not read
MAX_BYTES = 1_000_000


class Workflow(NamedTuple):
    """One workflow file: its name in the folder, its top-level mapping
    (empty when it could not be read) and why not ("" when it was)."""

    name: str
    data: dict
    problem: str = ""


def load(text: str) -> dict:
    """The workflow's top-level mapping. YAML 1.1 reads a bare ``on`` key as
    ``True``: it is given back under ``"on"``. Raises ValueError for text
    that is not YAML or not a mapping."""
    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as err:
        raise ValueError(f"not YAML: {str(err).splitlines()[0]}") from None
    except RecursionError:
        raise ValueError("nested too deeply") from None
    if not isinstance(data, dict):
        raise ValueError("not a mapping")
    if True in data and "on" not in data:
        return {"on" if key is True else key: value for key, value in data.items()}
    return data


def read(path: Path) -> Workflow:
    """The workflow at ``path``, or why it cannot be read."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return Workflow(path.name, {}, f"larger than {MAX_BYTES} bytes")
        return Workflow(path.name, load(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        return Workflow(path.name, {}, str(err))


def workflows(root: Path) -> list[Workflow]:
    """The checkout's workflow files, by name."""
    folder = root / WORKFLOWS
    if not folder.is_dir():
        return []
    return [
        read(path) for path in sorted(folder.iterdir()) if path.suffix in (".yml", ".yaml") and path.is_file()
    ]


def pull_request_paths(trigger: object) -> tuple[str, ...] | None:
    """None when no pull request runs a workflow with this ``on:``; else
    its `paths:` filter (empty: every pull request)."""
    if isinstance(trigger, str):
        trigger = [trigger]
    if isinstance(trigger, list):
        return () if "pull_request" in trigger else None
    if not isinstance(trigger, dict) or "pull_request" not in trigger:
        return None
    event = trigger["pull_request"]
    paths = event.get("paths") if isinstance(event, dict) else None
    return tuple(str(path) for path in paths) if isinstance(paths, list) else ()


def label(workflow: str, job: str | None = None) -> str:
    """What the checks call a pull-request workflow's job in a report and
    a verdict (``<file>/<job id>``, the file without its suffix), or the
    workflow as a whole (``<file>``)."""
    stem = workflow.rsplit(".", 1)[0]
    return stem if job is None else f"{stem}/{job}"


def labels(workflow: Workflow) -> list[str]:
    """Every name a verdict may give what ``workflow`` runs on a pull
    request (none: no pull request runs it)."""
    jobs = workflow.data.get("jobs")
    if pull_request_paths(workflow.data.get("on")) is None or not isinstance(jobs, dict):
        return []
    return [label(workflow.name), *(label(workflow.name, str(job)) for job in jobs)]
