"""The environments of the processes the tool starts.

`pr` runs with a write token. The token, and every other credential the
process was given, reaches git's network calls only (`ls-remote`, `fetch`,
`push`). Every other process gets an environment without them, first of
all those that come from the target repository: its formatter and linter
(`node_modules/.bin`), its `check` script and its tests. Git's own local
calls run with a fixed configuration that no environment-level setting
(`GIT_CONFIG_COUNT`..., `GIT_CONFIG_PARAMETERS`) can change: the user's
hooks off, one ref per push, UTF-8 commit messages.

The token comes in ``MESH_CODEMOD_GIT_TOKEN`` and is sent as an HTTP
authorization header to ``MESH_CODEMOD_GIT_SERVER`` (default: the
``GITHUB_SERVER_URL`` of an Actions runner, else https://github.com).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from contextlib import contextmanager

TOKEN_VARIABLE = "MESH_CODEMOD_GIT_TOKEN"
SERVER_VARIABLE = "MESH_CODEMOD_GIT_SERVER"

# Variables that carry a credential or a way to one; git's network calls
# get them back, nothing else sees them.
CREDENTIAL_VARIABLES = frozenset({
    TOKEN_VARIABLE,
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_ASKPASS",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "SSH_ASKPASS",
    "SSH_AUTH_SOCK",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "NODE_AUTH_TOKEN",
    "NPM_TOKEN",
})
_CREDENTIAL_PREFIXES = ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")

# The configuration of every git call the tool makes: it wins over the
# user's files (command-line scope). /dev/null is no folder, so no hook is found.
FIXED_CONFIG = (
    ("core.hooksPath", os.devnull),
    ("core.fsmonitor", "false"),
    ("push.followTags", "false"),
    ("push.recurseSubmodules", "no"),
    ("i18n.commitEncoding", "UTF-8"),
    ("i18n.logOutputEncoding", "UTF-8"),
    ("protocol.ext.allow", "never"),
)

_held: dict[str, str] | None = None  # what `sealed` took out of os.environ
# git's own variables (GIT_DIR, GIT_DIFF_OPTS, GIT_EXTERNAL_DIFF, ...) change
# what git reads and prints: none reaches a git call but those the tool sets
GIT_PREFIX = "GIT_"


def _is_credential(name: str, value: str, token: str) -> bool:
    if name in CREDENTIAL_VARIABLES or name.startswith(_CREDENTIAL_PREFIXES):
        return True
    return bool(token) and token in value  # a copy under another name (INPUT_TOKEN, say)


def is_credential(name: str, value: str) -> bool:
    """Whether the variable carries a credential (or the token's value)."""
    return _is_credential(name, value, _token())


def _token() -> str:
    held = _held or {}
    return held.get(TOKEN_VARIABLE) or os.environ.get(TOKEN_VARIABLE, "")


@contextmanager
def sealed() -> Iterator[None]:
    """Take every credential and every ``GIT_*`` variable out of this
    process's environment for the duration (GitPython and subprocess
    inherit it), so that only ``network_env`` gives the credentials back and
    git runs with the variables the tool sets alone. Re-entrant; restored
    on exit."""
    global _held
    if _held is not None:
        yield
        return
    token = os.environ.get(TOKEN_VARIABLE, "")
    taken = {
        name: value for name, value in os.environ.items()
        if _is_credential(name, value, token) or name.startswith(GIT_PREFIX)
    }
    for name in taken:
        del os.environ[name]
    _held = taken
    try:
        yield
    finally:
        _held = None
        os.environ.update(taken)


def scrubbed(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment for a process the tool does not trust with a
    credential (anything from the target repository): this process's
    environment without credentials, plus ``extra``."""
    token = _token()
    env = {name: value for name, value in os.environ.items() if not _is_credential(name, value, token)}
    env.update(extra or {})
    return env


def _config_env(entries: list[tuple[str, str]]) -> dict[str, str]:
    env = {"GIT_CONFIG_PARAMETERS": "", "GIT_CONFIG_COUNT": str(len(entries))}
    for index, (key, value) in enumerate(entries):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def git_env() -> dict[str, str]:
    """Overrides for every local git call (on top of this process's
    environment): the fixed configuration only."""
    return _config_env(list(FIXED_CONFIG))


def _held_config(held: dict[str, str]) -> list[tuple[str, str]]:
    try:
        count = int(held.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        return []
    entries = []
    for index in range(count):
        key = held.get(f"GIT_CONFIG_KEY_{index}")
        if key is not None:
            entries.append((key, held.get(f"GIT_CONFIG_VALUE_{index}", "")))
    return entries


def network_env() -> dict[str, str]:
    """Overrides for git's network calls: the credentials this process was
    given (the token as an authorization header for its server, the
    ``GIT_CONFIG_COUNT`` configuration, askpass, ssh and agent variables),
    then the fixed configuration, which wins."""
    held = {
        name: value for name, value in (_held if _held is not None else os.environ).items()
        if _is_credential(name, value, _token())
    }
    entries = _held_config(held)
    token = held.get(TOKEN_VARIABLE, "")
    if token:
        server = (os.environ.get(SERVER_VARIABLE) or os.environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
        entries.append((f"http.{server}/.extraheader", f"AUTHORIZATION: basic {basic_credential(token)}"))
    entries.extend(FIXED_CONFIG)
    # GIT_CONFIG_PARAMETERS is read after GIT_CONFIG_COUNT and would win
    # over the fixed configuration: it stays empty
    env = {
        name: value for name, value in held.items()
        if name in CREDENTIAL_VARIABLES and name != TOKEN_VARIABLE and not name.startswith("GIT_CONFIG_")
    }
    env.update(_config_env(entries))
    return env


def basic_credential(token: str) -> str:
    """The token as GitHub's git server takes it in a basic authorization."""
    return base64.b64encode(f"x-access-token:{token}".encode()).decode()
