"""The shape of a recipe step, shared by every target."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from ..engine.editor import FileEditor
from ..engine.outcome import Refused
from ..engine.style import FormatterConfig


class Bridge(str, Enum):
    """How the host hears `ui/notifications/state-changed` (SPEC section 5)."""

    AUTO = "auto"
    SDK = "sdk"
    COMPAT = "compat"


class ModeChoice(NamedTuple):
    """The mode a run uses and why (the host's bridge mode, say)."""

    mode: Bridge
    reason: str

    def to_json(self) -> dict:
        return {"mode": self.mode.value, "reason": self.reason}


class Planned(NamedTuple):
    """What an earlier step of the run made of its file: where the runner
    found the file and its bytes after the step, or the step's refusal."""

    path: str
    data: bytes = b""
    refusal: Refused | None = None


class Context(NamedTuple):
    """What a transform may know besides the file: the chosen bridge mode."""

    repo: Path
    bridge: Bridge
    # The repository's formatter settings (biome.json), read once per run.
    formatter: FormatterConfig = FormatterConfig()
    # The steps of this run so far, by id (read-only): a step that derives
    # from another step's file reads it here, not from the disk.
    earlier: Mapping[str, Planned] = MappingProxyType({})


class NewFile(NamedTuple):
    """A file the step creates; ``exports`` are the names an existing copy
    must already define for the step to count as applied."""

    render: Callable[[Context], str]
    exports: Callable[[Context], list[str]]


class Step(NamedTuple):
    """One logical change to one file: the unit of `--only`, status and patches."""

    id: str
    path: str
    description: str
    transform: Callable[[FileEditor, Context], None] | None = None
    new_file: NewFile | None = None
    # Text that only this file contains (a definition), to find it when it
    # is no longer at its usual path.
    defines: str = ""
    # For a new file: the step whose file it is created beside.
    beside: str = ""
    # For a file that is not TypeScript, or that a tool regenerates: its new
    # bytes from its current ones (path, data, context) with notes.
    rewrite: Callable[[str, bytes, Context], tuple[bytes, list[str]]] | None = None
    # For a file that some revisions of the target do not have: why the step
    # does not apply there. Its absence then skips the step with this reason
    # (status skipped, kind "not-applicable") instead of refusing the run.
    absent: str = ""


class CommitGroup(NamedTuple):
    """One commit of a patch series: steps that build together, in order.

    Each target package lists its groups in ``COMMITS``; every step belongs
    to exactly one group, and each group builds on the ones before it."""

    id: str
    subject: str
    body: str
    steps: tuple[str, ...]


class Notice(str):
    """A step note that the run's report must show to the user (not only
    the JSON report): something a reviewer has to confirm, say."""
