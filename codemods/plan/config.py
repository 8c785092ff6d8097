"""The checkout's own decisions about the tool: `.mesh-codemod.toml`.

A team records here what the tool must leave alone and what it must not
choose by itself (SPEC 5a, "Living with the team"):

    # .mesh-codemod.toml, at the top of the checkout, committed
    skip = ["app-state-tests"]  # steps never written (ids: `mesh-codemod list`); "*": all of them
    bridge = "compat"           # pin the bridge mode (auto, sdk, compat)
    form = "2.x"                # pin the SDK form of the compat wiring (1.x, 2.x)
    author = "Codemod Bot <bot@example.com>"  # the identity the scheduled job commits as
    # (a list names earlier ones too, whose commits stay the tool's: the first is committed as)

Why a file of its own rather than a key in package.json: the SDK checkout
and mesh both have one place for it, bun and the formatters never rewrite
it, TOML allows a comment that says why a step is skipped, and a reviewer
sees the decision in its own diff. `patch`, `pr` and the action read the
file committed in the base commit; `apply` and `status` read the working
tree's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from typing import NamedTuple
from ..recipes.base import Bridge, ModeChoice

FILE_NAME = ".mesh-codemod.toml"
FORMS = ("1.x", "2.x")
MAX_BYTES = 64 * 1024
_AUTHOR = re.compile(r"\s*([^<>]+?)\s*<([^<>\s]+)>\s*")
ALL = "*"


class ConfigError(ValueError):
    """The configuration file cannot be used (exit 2): names the file and the key."""


class Config(NamedTuple):
    skip: tuple[str, ...] = ()
    bridge: Bridge | None = None
    form: str = ""
    present: bool = False  # whether the file exists
    # The identities the scheduled job commits as ("Name <email>"): the
    # first is the default author of `pr` and `patch` anywhere, so a
    # laptop's commits are the job's, and the tool's own whoever runs it;
    # commits by any of them are the tool's (an App's login after the
    # workflow token's).
    authors: tuple[str, ...] = ()

    def identities(self) -> list[tuple[str, str]]:
        """Each of ``authors`` as (name, email)."""
        return [(m[1], m[2]) for m in map(_AUTHOR.fullmatch, self.authors) if m]

    def skipped(self, step: str) -> bool:
        return ALL in self.skip or step in self.skip

    def to_json(self) -> dict:
        out: dict = {"file": FILE_NAME, "skip": list(self.skip)}
        if self.bridge is not None:
            out["bridge"] = self.bridge.value
        if self.form:
            out["form"] = self.form
        return out


def load(repo: Path, steps: Iterable[str], target: str = "host") -> Config:
    """The configuration at the top of ``repo``; the defaults without one.
    ``steps`` are the target's step ids, which ``skip`` may name; only the
    host (mesh) has a bridge mode and form to pin."""
    path = repo / FILE_NAME
    if not path.is_file():
        if path.is_symlink() or path.exists():
            raise ConfigError(f"{FILE_NAME}: not a regular file")
        return Config()
    import tomllib  # here: most checkouts have no file, and the parser's import costs ~3 ms of a run

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{FILE_NAME}: cannot be read ({err})") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{FILE_NAME}: not valid TOML ({err})") from None
    known = {"skip", "bridge", "form", "author"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{FILE_NAME}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")
    skip = data.get("skip", [])
    if not isinstance(skip, list) or not all(isinstance(s, str) for s in skip):
        raise ConfigError(f"{FILE_NAME}: skip: a list of step ids, such as [\"app-state-tests\"]")
    ids = set(steps)
    wrong = [s for s in skip if s != ALL and s not in ids]
    if wrong:
        raise ConfigError(
            f"{FILE_NAME}: skip: unknown step {wrong[0]!r} (steps: {', '.join(sorted(ids))}, or \"{ALL}\")"
        )
    bridge = data.get("bridge")
    if bridge is not None:
        values = [b.value for b in Bridge]
        if bridge not in values:
            raise ConfigError(f"{FILE_NAME}: bridge: {bridge!r} is not one of {', '.join(values)}")
        bridge = Bridge(bridge)
    form = data.get("form", "")
    if form and form not in FORMS:
        raise ConfigError(f"{FILE_NAME}: form: {form!r} is not one of {', '.join(FORMS)}")
    if not isinstance(form, str):
        raise ConfigError(f"{FILE_NAME}: form: {form!r} is not one of {', '.join(FORMS)}")
    if target != "host":
        for key in ("bridge", "form"):
            if key in data:
                raise ConfigError(f"{FILE_NAME}: {key}: only a mesh checkout has a bridge mode and form to pin")
    authors = _authors(data.get("author", []))
    if authors is None:
        raise ConfigError(f"{FILE_NAME}: author: {data['author']!r} is not 'Name <email>', or a list of them")
    return Config(tuple(dict.fromkeys(skip)), bridge, form, True, authors)


def _authors(value: object) -> tuple[str, ...] | None:
    """``author`` as a tuple (one identity, or a list of them); None when
    it is neither."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) and _AUTHOR.fullmatch(v) for v in values):
        return None
    return tuple(dict.fromkeys(v.strip() for v in values))


def author_in(text: str) -> str:
    """The first ``author`` of a configuration file's text, the one the
    tool commits as ("" when it has none, or when the file cannot be read:
    `load` says why, later)."""
    import tomllib

    try:
        authors = _authors(tomllib.loads(text).get("author", []))
    except tomllib.TOMLDecodeError:
        return ""
    return authors[0] if authors else ""


def pinned(choice: ModeChoice, config: Config, requested: Bridge) -> ModeChoice:
    """``choice`` with the file's pins applied: the bridge mode when the
    command line left it to ``auto``, and the form."""
    if config.bridge is not None and config.bridge is not Bridge.AUTO and requested is Bridge.AUTO:
        choice = choice._replace(mode=config.bridge, reason=f"pinned by {FILE_NAME} (bridge = \"{config.bridge.value}\")")
    if config.form and config.form != choice.form:
        choice = choice._replace(form=config.form, form_reason=f"pinned by {FILE_NAME} (form = \"{config.form}\")")
    elif config.form:
        choice = choice._replace(form_reason=f"{choice.form_reason}; pinned by {FILE_NAME}")
    return choice


def merged(base: Config, current: Config) -> Config:
    """The base commit's configuration with the target branch's current
    one over it (the publishing side): a step either skips is skipped, and
    the current file's pins win."""
    return Config(
        tuple(dict.fromkeys((*base.skip, *current.skip))),
        current.bridge if current.bridge is not None else base.bridge,
        current.form or base.form,
        base.present or current.present,
        tuple(dict.fromkeys((*current.authors, *base.authors))),
    )
