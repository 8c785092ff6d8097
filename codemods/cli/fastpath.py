"""A stdlib parser for the everyday command lines, so they skip typer.

typer builds its parameters through pydantic, which costs more than the
whole codemod on a repository. The spellings below are the stable ones of
SPEC section 9; for anything else (help, an unknown or malformed option, a
bad value) this returns None and typer handles it, with its usage errors.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TypeVar

from ..plan.formatting import FormatterMode
from ..recipes.base import Bridge

_FLAGS = {"--dry-run": "dry_run", "--check": "check", "--json": "as_json"}
_VALUES = {"--repo", "--bridge", "--only", "--lock-timeout", "--formatter"}
_E = TypeVar("_E", bound=Enum)


def parse(argv: list[str]) -> Callable[[], int] | None:
    """The command to run for ``argv``, or None to let typer decide."""
    if not argv:
        return None
    command, rest = argv[0], argv[1:]
    options = _options(rest)
    if options is None:
        return None
    from . import planning

    if command == "apply":
        fields: dict = {"only": []}
        for name, value in options:
            if name in _FLAGS:
                fields[_FLAGS[name]] = True
            elif name == "--repo":
                fields["repo"] = Path(value)
            elif name == "--only":
                fields["only"].append(value)
            elif name == "--bridge":
                if (bridge := _member(Bridge, value)) is None:
                    return None
                fields["bridge"] = bridge
            elif name == "--formatter":
                if (formatter := _member(FormatterMode, value)) is None:
                    return None
                fields["formatter"] = formatter
            elif name == "--lock-timeout":
                try:
                    fields["lock_timeout"] = float(value)
                except ValueError:
                    return None
        request = planning.ApplyRequest(**fields)
        return lambda: planning.apply(request)
    allowed = {"status": {"--repo", "--json", "--formatter"}, "list": {"--json"}}.get(command)
    if allowed is None or any(name not in allowed for name, _ in options):
        return None
    values = dict(options)
    if command == "status":
        formatter = _member(FormatterMode, values.get("--formatter", FormatterMode.AUTO.value))
        if formatter is None:
            return None
        repo = Path(values.get("--repo", "."))
        return lambda: planning.status(repo, "--json" in values, formatter)
    return lambda: planning.list_steps("--json" in values)


def _member(kind: type[_E], value: str) -> _E | None:
    """The member of ``kind`` with this value; None for typer to report."""
    try:
        return kind(value)
    except ValueError:
        return None


def _options(args: list[str]) -> list[tuple[str, str]] | None:
    options: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if name in _FLAGS and not eq:
            options.append((name, ""))
        elif name in _VALUES:
            if not eq:
                i += 1
                if i >= len(args) or args[i].startswith("--"):
                    return None
                value = args[i]
            if not value:
                return None
            options.append((name, value))
        else:
            return None
        i += 1
    if len([n for n, _ in options if n not in {"--only"}]) != len({n for n, _ in options if n != "--only"}):
        return None  # a repeated single-valued option: typer's rules apply
    return options
