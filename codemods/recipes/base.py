"""The shape of a recipe step, shared by every target."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from pathlib import Path
from types import MappingProxyType

from typing import NamedTuple
from ..engine.editor import FileEditor
from ..engine.outcome import Refused
from ..engine.style import FormatterConfig
from .names import NAMES, Names


class Bridge(str, Enum):
    """How the host hears `ui/notifications/state-changed` (SPEC section 5)."""

    AUTO = "auto"
    SDK = "sdk"
    COMPAT = "compat"


class ModeChoice(NamedTuple):
    """The mode a run uses and why (the host's bridge mode, say); ``form``:
    the SDK major version's form of the wiring (the host's compat mode
    registers the notification the way the installed SDK declares current:
    "1.x" or "2.x"), and why."""

    mode: Bridge
    reason: str
    form: str = ""
    form_reason: str = ""
    # The host's sdk mode: the state-changed API it wires
    # (recipes/host/sdk_api.py SdkApi), read from the installed SDK.
    sdk_api: object = None

    def to_json(self) -> dict:
        out = {"mode": self.mode.value, "reason": self.reason}
        if self.form:
            out.update(form=self.form, form_reason=self.form_reason)
        if self.mode is Bridge.SDK and self.sdk_api is not None and not self.sdk_api.problem:
            out.update(sdk_api={"wires": self.sdk_api.describe(), "declared_in": self.sdk_api.source})
        return out

    def describe(self) -> str:
        """One line for the report: the mode, the form and why."""
        if self.mode is Bridge.SDK and self.sdk_api is not None and not self.sdk_api.problem:
            # auto's reason already names the declaration: said once
            where = "" if self.sdk_api.source in self.reason else f"; {self.sdk_api.source}"
            return f"{self.mode.value}: {self.sdk_api.describe()} ({self.reason}{where})"
        if not self.form or self.mode is not Bridge.COMPAT:
            return f"{self.mode.value} ({self.reason})"
        # A reason both halves give (a stale install, say) is said once.
        form_reason = "; ".join(part for part in self.form_reason.split("; ") if part not in self.reason)
        return f"{self.mode.value}, {self.form} form ({'; '.join(filter(None, (self.reason, form_reason)))})"


class Planned(NamedTuple):
    """What an earlier step of the run made of its file: where the runner
    found the file and its bytes after the step, or the step's refusal."""

    path: str
    data: bytes = b""
    refusal: Refused | None = None


# (command, cwd, timeout) -> the finished process: how a recipe asks the
# checks wing to run one of the checkout's tools (`checks.sandbox.run`).
Runner = Callable[..., "subprocess.CompletedProcess"]


class Context(NamedTuple):
    """What a transform may know besides the file: the chosen bridge mode."""

    repo: Path
    bridge: Bridge
    # The repository's formatter settings (biome.json), read once per run.
    formatter: FormatterConfig = FormatterConfig()
    # The steps of this run so far, by id (read-only): a step that derives
    # from another step's file reads it here, not from the disk.
    earlier: Mapping[str, Planned] = MappingProxyType({})
    # The SDK form of the wiring ("1.x", "2.x"; see ModeChoice) and why the
    # run chose the mode and form, for the report of a migration.
    form: str = "1.x"
    why: str = ""
    # sdk mode's API (ModeChoice.sdk_api)
    sdk_api: object = None
    # Starts one of the checkout's tools (a generator), handed down from the
    # checks wing by the command line (`checks.tools`); None where no
    # process may start (the publishing side): a step then edits by hand.
    run: Runner | None = None
    # Where the steps' files are, by usual path, for each one found (or to
    # be created) elsewhere: a file the team moved, a module created beside
    # a moved file. Imports of them are spelled for where they are.
    located: Mapping[str, str] = MappingProxyType({})
    # The checkout's path aliases (tsconfig `paths`), prefix -> folder:
    # {"@/": "apps/mesh/src/"}.
    aliases: Mapping[str, str] = MappingProxyType({})
    # The feature's names for this run (SPEC 10: the table, or `[names]`).
    names: Names = NAMES

    def at(self, usual: str) -> str:
        """Where the step file usually at ``usual`` is in this checkout."""
        return self.located.get(usual, usual)


class Release(NamedTuple):
    """What one release of the tool writes into the files it creates: its
    templates, by name (``app-state.ts``)."""

    version: str
    templates: Mapping[str, str]


class NewFile(NamedTuple):
    """A file the step creates, from a release's template named
    ``template`` (and any others ``render`` includes): ``render(ctx,
    templates, wiring)`` is the file as a release with those templates
    writes it on this checkout, in one of its ``wirings`` (the run's first;
    None: the file is the same in every wiring, ""). ``exports`` are the
    names an existing copy must already define for the step to count as
    applied.

    ``releases`` is the store of the releases since the floor, this one
    first: an existing copy is compared with what each of them writes
    (SPEC 5a, plan/steps.py). ``keeping`` renders this release's file with
    exports of another wiring kept (names another file of the checkout
    imports), for a migration."""

    template: str
    render: Callable[[Context, Mapping[str, str], str], str]
    exports: Callable[[Context], list[str]]
    releases: Callable[[], Sequence[Release]]
    wirings: Callable[[Context], Sequence[str]] | None = None
    keeping: Callable[[Context, Sequence[str]], str] | None = None


class Role(NamedTuple):
    """What a step's file does, to find it when it is neither at its usual
    path nor the one file holding the step's ``defines`` (SPEC 5a,
    "Recognition by role"): ``find`` (the checkout, where the steps located
    so far are, by usual path) returns the files whose syntax trees hold
    what the step's transform anchors on, parsing only the files that
    contain a ``needle`` (so the files a plan reads include them); ``what``
    says it, for the report ("renders the iframe renderer from a tool-call
    part")."""

    what: str
    find: Callable[[Path, Mapping[str, str]], list[str]]
    needles: tuple[str, ...] = ()


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
    # What the file does, to find it when neither its path nor ``defines``
    # does (a file renamed with its component, a schema moved and renamed).
    role: Role | None = None
    # For a new file: the step whose file it is created beside.
    beside: str = ""
    # For a new file: the step whose created file goes with it (a module and
    # its tests): the two change release together.
    together: str = ""
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
    # Writes the subject and body for a plan (its results and changes):
    # what this revision's commit holds, in plain words. None: as above.
    describe: Callable[[object], tuple[str, str]] | None = None

    def written_for(self, plan: object) -> "CommitGroup":
        """The group with its subject and body for ``plan``."""
        if self.describe is None:
            return self
        subject, body = self.describe(plan)
        return self._replace(subject=subject, body=body)


class Notice(str):
    """A step note that the run's report must show to the user (not only
    the JSON report): something a reviewer has to confirm, say."""
