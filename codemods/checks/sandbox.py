"""How the tool starts the repository's own code: the checkout's formatter,
linter, type checker, `check` script and tests.

Such code may be hostile (a compromised dependency runs in any of them), so
nothing of the tool's runner reaches it:

- its environment is built from an allow-list, not by removing what is
  known to be secret: no credential, no ``GITHUB_*`` variable (among them
  the runner's step files ``GITHUB_ENV``, ``GITHUB_PATH``, ``GITHUB_OUTPUT``),
  no ``RUNNER_*``, no ``GIT_*``, no ``NODE_OPTIONS``;
- it runs in a process group of its own, and the whole group is killed when
  the check ends, so that nothing it started outlives the check and later
  reads another process's environment; `sweep` then kills what escaped the
  group (the tool is its descendants' subreaper, on Linux).

``MESH_CODEMOD_CHECK_ENV`` may name more variables to pass (separated by
commas or spaces), for a checkout whose tools need them; a credential is
never passed, whatever it names.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from typing import NamedTuple

PASS_VARIABLE = "MESH_CODEMOD_CHECK_ENV"
ALLOWED = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM", "CI",
})
ALLOWED_PREFIXES = ("LC_",)
# never passed, even when MESH_CODEMOD_CHECK_ENV names them
FORBIDDEN_PREFIXES = ("GITHUB_", "RUNNER_", "ACTIONS_", "INPUT_", "GIT_", "MESH_CODEMOD_GIT_")
# the runner finds the processes a job left by this mark and ends them: kept
TRACKING = "RUNNER_TRACKING_ID"


def check_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a process of the checkout: the allow-listed
    variables of this process, then ``extra``."""
    from ..plan.environment import is_credential

    named = set(os.environ.get(PASS_VARIABLE, "").replace(",", " ").split())
    env = {}
    for name, value in os.environ.items():
        if name == TRACKING:
            env[name] = value
            continue
        wanted = name in ALLOWED or name.startswith(ALLOWED_PREFIXES) or name in named
        if wanted and not name.startswith(FORBIDDEN_PREFIXES) and not is_credential(name, value):
            env[name] = value
    env.update(extra or {})
    return env


class _Process(NamedTuple):
    pid: int
    state: str
    parent: int
    session: int


def _processes() -> list[_Process]:
    """Every process, from /proc (empty where there is none)."""
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rpartition(")")[2].split()
            found.append(_Process(int(name), fields[0], int(fields[1]), int(fields[3])))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _kill_all(wanted: Callable[[list[_Process]], list[_Process]]) -> list[int]:
    """SIGKILL the live processes that ``wanted`` picks until none is left
    (each is stopped first, so that it starts no other meanwhile); reap
    those that are this process's children. Returns their ids."""
    killed: list[int] = []
    for _ in range(500):
        alive = [p for p in wanted(_processes()) if p.state not in "ZX"]
        if not alive:
            break
        for process in alive:
            for sig in (signal.SIGSTOP, signal.SIGKILL):
                try:
                    os.kill(process.pid, sig)
                except OSError:
                    pass
            if process.pid not in killed:
                killed.append(process.pid)
        time.sleep(0.01)  # the kernel delivers SIGKILL asynchronously
    me = os.getpid()
    for process in wanted(_processes()):
        if process.parent == me and process.state in "ZX":
            try:
                os.waitpid(process.pid, os.WNOHANG)
            except ChildProcessError:
                pass
    return killed


def _end_session(leader: int) -> None:
    """Kill every process of the session that ``leader`` started (its
    process group and any other group in it), the leader included."""
    try:
        os.killpg(leader, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    _kill_all(lambda processes: [p for p in processes if p.session == leader and p.pid != leader])


def stop(process: subprocess.Popen) -> None:
    """Kill a process that `run` started, with its whole group."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(
    command: Sequence[str],
    cwd: Path,
    timeout: float | None = None,
    started: Callable[[subprocess.Popen], None] | None = None,
    env: dict[str, str] | None = None,
    merge_stderr: bool = False,
    text: bool = True,
) -> subprocess.CompletedProcess:
    """Run ``command`` of the checkout in ``cwd`` with `check_env` (plus
    ``env``), in a new session and process group that is killed, whole, when
    it returns, times out or fails; ``started`` is handed the process, so
    that another thread can stop it."""
    _become_subreaper()
    options: dict = {"errors": "replace"} if text else {}
    with subprocess.Popen(
        list(command), cwd=cwd, env=check_env(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE, text=text, start_new_session=True, **options,
    ) as process:
        try:
            if started is not None:
                started(process)
            try:
                stdout, stderr = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                stop(process)
                process.communicate()
                raise
        finally:
            # the leader has ended (or is killed here); what it started has not
            _end_session(process.pid)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


_SUBREAPER = 36  # prctl(PR_SET_CHILD_SUBREAPER)
_subreaper = False


def _become_subreaper() -> None:
    """Make this process the parent of every orphan among its descendants
    (Linux), so that `sweep` finds a process that left the check's group."""
    global _subreaper
    if _subreaper:
        return
    _subreaper = True
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def sweep() -> list[int]:
    """Kill every process below this one that is not in this process's
    session: every check starts a session of its own, and `run` ends it, so
    this is what got away from a check (a new session of its own, say),
    adopted by this process as their subreaper. Called once no check runs;
    git helpers the tool keeps open stay. Returns the ids killed."""
    me = os.getpid()
    own = next((p.session for p in _processes() if p.pid == me), None)

    def escaped(processes: list[_Process]) -> list[_Process]:
        parents = {p.pid: p.parent for p in processes}
        picked = []
        for process in processes:
            if process.session == own or process.pid == me:
                continue
            ancestor, seen = process.parent, 0
            while ancestor not in (me, 0, 1) and seen < 64:
                ancestor, seen = parents.get(ancestor, 0), seen + 1
            if ancestor == me:
                picked.append(process)
        return picked

    return _kill_all(escaped)
