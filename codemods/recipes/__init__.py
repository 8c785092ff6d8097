"""Recipes: what each target file must contain after the codemod.

The registry below is the only place that names the targets. Each entry is
a recipes package: how to recognise its checkout, its steps, the commits of
its patch series, and how it picks its mode. The runner works from this
list alone, so adding a target means adding a package and an entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from .base import Bridge, CommitGroup, Step


class ModeChoice(NamedTuple):
    """The mode a run uses and why (the host's bridge mode, say)."""

    mode: Bridge
    reason: str


class Target(NamedTuple):
    """One kind of checkout the tool edits."""

    name: str
    # What a checkout of this kind is, for messages ("a decocms/mesh checkout ...").
    description: str
    recognise: Callable[[Path], bool]
    steps: tuple[Step, ...]
    commits: tuple[CommitGroup, ...]
    choose_mode: Callable[[Path, Bridge], ModeChoice]


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
    )


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


# In recognition order: the first target that recognises a checkout wins.
TARGETS: tuple[Target, ...] = (_host(), _sdk())


def target_named(name: str) -> Target | None:
    """The registered target called ``name``."""
    return next((t for t in TARGETS if t.name == name), None)
