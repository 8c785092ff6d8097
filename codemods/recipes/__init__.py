"""Recipes: what each target file must contain after the codemod.

The registry below is the only place that names the targets. Each entry
loads a recipes package: how to recognise its checkout, its steps, the
commits of its patch series, and how it picks its mode. The runner works
from this registry alone, so adding a target means adding a package and an
entry here. A package is imported only when a run reaches it: a run on a
mesh checkout never loads the SDK's recipes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from types import MappingProxyType

from typing import NamedTuple
from .base import Bridge, CommitGroup, ModeChoice, Step
from .names import Names


class Target(NamedTuple):
    """One kind of checkout the tool edits."""

    name: str
    # What a checkout of this kind is, for messages ("a decocms/mesh checkout ...").
    description: str
    recognise: Callable[[Path], bool]
    steps: tuple[Step, ...]
    commits: tuple[CommitGroup, ...]
    # (the checkout, the mode asked for, the configuration's `[names]` or None)
    choose_mode: Callable[[Path, Bridge, Names | None], ModeChoice]
    # The files of a commit a plan of this target reads, from the commit's
    # file names and a search of its TypeScript files for any of some
    # strings; None when the names are not this target's (or it needs them
    # all). A build writes only these to disk.
    reads: Callable[[list[str], Callable[[Sequence[str]], list[str]]], set[str] | None] | None = None
    # Its path aliases (tsconfig `paths`), prefix -> folder: how its files
    # may name each other besides relatively.
    aliases: Mapping[str, str] = MappingProxyType({})


@cache
def _host() -> Target:
    from . import host
    from .host.bridge_mode import choose_bridge

    return Target(
        name="host",
        description=f"a decocms/mesh checkout (with {host.MARKER})",
        recognise=host.is_host,
        steps=host.STEPS,
        commits=host.COMMITS,
        choose_mode=choose_bridge,
        reads=host.reads,
        aliases=host.ALIASES,
    )


@cache
def _sdk() -> Target:
    from . import sdk

    return Target(
        name="sdk",
        description=f"an MCP Apps SDK checkout (package.json named {sdk.PACKAGE_NAME})",
        recognise=sdk.is_sdk,
        steps=sdk.STEPS,
        commits=sdk.COMMITS,
        choose_mode=sdk.choose_mode,
    )


# Target name -> loader, in recognition order: the first target that
# recognises a checkout wins.
REGISTRY: dict[str, Callable[[], Target]] = {"host": _host, "sdk": _sdk}


def targets() -> Iterator[Target]:
    """The registered targets in recognition order, each loaded when the
    iteration reaches it."""
    return (load() for load in REGISTRY.values())


def target_named(name: str) -> Target | None:
    """The registered target called ``name``."""
    load = REGISTRY.get(name)
    return None if load is None else load()
