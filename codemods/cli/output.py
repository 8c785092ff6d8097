"""What every command shares: exit codes, messages on standard error, JSON
on standard output, a failure turned into a message, a progress spinner."""

from __future__ import annotations

import sys
from enum import IntEnum

from ..engine.outcome import Refused


class Exit(IntEnum):
    OK = 0
    PENDING = 1
    USAGE = 2
    REFUSED = 3
    VERIFY_FAILED = 4


_COLORS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
_BOLD = "\x1b[1m"

def say(message: str) -> None:
    print(message, file=sys.stderr)


def report_refactor(report: dict, as_json: bool, fail_on_blocked: bool) -> int:
    """A step cannot find what it needs on a checkout that has the feature
    (a refactor the tool cannot follow): nothing is built or pushed. The run
    stays green unless --fail-on-blocked, naming what is missing and the
    configuration line that opts out of each step (``report["blocked"]``:
    build.Blocked's JSON); ``report`` is the JSON report."""
    if as_json:
        print_json(report)
    else:
        for key in ("target", "base"):
            if report.get(key):
                say(f"{key}: {report[key]}")
        say(f"blocked: {report['blocked']['reason']}")
        for step in report["blocked"]["steps"]:
            say(f"  to opt out of {step['step']}, add to .mesh-codemod.toml: {step['skip']}")
        if not fail_on_blocked:
            say("(--fail-on-blocked exits 3 instead)")
    return int(Exit.REFUSED) if fail_on_blocked else int(Exit.OK)


def colored(diff: str) -> str:
    out = []
    for line in diff.splitlines(keepends=True):
        color = _BOLD if line.startswith(("+++", "---", "diff --git")) else _COLORS.get(line[:1])
        out.append(f"{color}{line.rstrip(chr(10))}\x1b[0m\n" if color else line)
    return "".join(out)


def print_json(data: object) -> None:
    import json

    print(json.dumps(data, indent=2))


def fail(message: str, code: Exit, as_json: bool) -> int:
    if as_json:
        print_json({"error": message, "exit": int(code)})
    else:
        say(f"mesh-codemod: {message}")
    return int(code)


def author(value: str | None) -> tuple[str | None, str | None]:
    if value is None:
        return None, None
    import re

    match = re.fullmatch(r"\s*([^<>]+?)\s*<([^<>\s]+)>\s*", value)
    if not match:
        raise ValueError(f"--author must look like 'Name <email>', not {value!r}")
    return match[1], match[2]


def git_failures():
    import git

    from ..plan import repository
    from ..plan.model import TargetError

    # any git failure is a refusal with git's words, never a traceback
    return repository.GitProblem, TargetError, Refused, git.GitError


def refusal(err: Exception) -> str:
    """The message for a refusal; a failed git command in git's own words."""
    import git

    if isinstance(err, git.GitCommandError):
        command = err.command if isinstance(err.command, list) else str(err.command).split()
        words = [str(w) for w in command[1:] if not str(w).startswith("-")][:1]
        stderr = (err.stderr or "").strip().removeprefix("stderr:").strip().strip("'").strip()
        detail = stderr.splitlines()[-1] if stderr else f"exit code {err.status}"
        return f"git {' '.join(words) or 'command'} failed: {detail}"
    return str(err)


def progress(quiet: bool = False):
    """A callback naming the running check: a rich spinner on a terminal."""
    from contextlib import contextmanager, nullcontext

    if quiet or not sys.stderr.isatty():
        return nullcontext()

    @contextmanager
    def spinner():
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        with Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
            console=Console(stderr=True), transient=True,
        ) as bar:
            task = bar.add_task("verify", total=None)
            yield lambda name: bar.update(task, description=f"verify: {name}")

    return spinner()


