"""The publishing process starts no program but `git` and `gh` (SPEC 8,
STYLE 14), enforced at run time: an audit hook (`sys.addaudithook`) that
refuses, while armed, every start of a program (`subprocess.Popen`,
`os.exec*`, `os.posix_spawn*`, `os.spawn*`, `os.system`, `os.startfile`,
`pty.spawn`) whose executable, resolved on PATH, is not named `git` or
`gh`. The imports keep the checks wing away (tests/test_architecture.py);
this keeps away a lazy import or a rarely taken branch too.

`mesh-codemod publish` and `open-pr` arm it first thing. An audit hook
cannot be removed: `armed()` arms it for its block (the command's whole
run), so that tests running commands in one process see it disarmed after.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager

ALLOWED = frozenset({"git", "gh"})
_state = {"installed": False, "depth": 0}


class Refused(PermissionError):
    """A program other than git or gh was about to start."""


def _resolved(program: object) -> tuple[str, str]:
    """(the name given, the name of the file it resolves to: PATH for a
    bare name, links followed); ("", "") when it cannot be read."""
    if isinstance(program, bytes):
        program = os.fsdecode(program)
    if not isinstance(program, (str, os.PathLike)):
        return "", ""
    text = os.fspath(program)
    found = shutil.which(text) if os.sep not in text else text
    return os.path.basename(text), os.path.basename(os.path.realpath(found)) if found else ""


def _program(event: str, args: tuple) -> object:
    if event == "subprocess.Popen":
        executable, argv = args[0], args[1]
        if executable is None:
            if isinstance(argv, (str, bytes, os.PathLike)):
                return argv
            return argv[0] if argv else None
        return executable
    if event in ("os.exec", "os.posix_spawn", "os.spawn"):
        return args[1] if event == "os.spawn" else args[0]
    return None


_EVENTS = ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.startfile", "pty.spawn")


def _hook(event: str, args: tuple) -> None:
    if not _state["depth"] or event not in _EVENTS:
        return
    if event in ("os.system", "os.startfile", "pty.spawn"):
        raise Refused(f"the publishing process starts no program but git and gh: {event} refused")
    given, real = _resolved(_program(event, args))
    # git installs parts of itself as links to one binary: a link named git
    # may lead to git-*, never to another program
    if given not in ALLOWED or not (real in ALLOWED or real.startswith("git-") or real == ""):
        shown = given if real in ("", given) else f"{given} ({real})"
        raise Refused(f"the publishing process starts no program but git and gh: {shown or '?'} refused ({event})")


@contextmanager
def armed() -> Iterator[None]:
    """Refuse every program but git and gh for the block (see the module)."""
    if not _state["installed"]:
        sys.addaudithook(_hook)
        _state["installed"] = True
    _state["depth"] += 1
    try:
        yield
    finally:
        _state["depth"] -= 1
