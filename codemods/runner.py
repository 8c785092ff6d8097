"""Run recipe steps over a checkout: plan every edit, then write all or none."""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import MappingProxyType

from .engine.record import NamedTuple
from .engine.diff import unified_diff
from .engine.editor import FileEditor, FormChange
from .engine.edits import DuplicateEdit, OverlapError
from .engine.outcome import Conflict, Refused, Status, StepResult, TargetMissing, parsed_or_refused
from .engine.style import read_config, style_for
from . import recipes
from .formatter import BUILT_IN, Candidate, FormatterChoice, FormatterMode, Layout, choose
from .recipes import Target
from .recipes.base import ModeChoice
from .recipes.base import Bridge, Context, Notice, Planned, Step


class TargetError(Exception):
    """The directory is not a checkout the tool knows how to edit."""


class FileChange(NamedTuple):
    """The planned content of one file; ``old is None`` for a new file."""

    path: str
    old: bytes | None
    new: bytes
    steps: list[str]
    # Which layout the new content has (the formatter's or the built-in one).
    layout: Layout | None = None

    @property
    def kind(self) -> str:
        return "created" if self.old is None else "modified"

    def diff(self) -> str:
        return unified_diff(self.path, self.old, self.new)


class Plan(NamedTuple):
    """Everything a run found: per-step results and the files they change."""

    repo: Path
    target: str
    # The mode the target chose (the host's bridge mode) and why.
    bridge: ModeChoice
    results: list[StepResult]
    changes: list[FileChange]
    # What the report must tell the user besides the steps (see Notice).
    notices: tuple[str, ...] = ()
    # The formatter the changed files were passed through, if any, and why.
    formatter: FormatterChoice | None = None
    # The checkout's configuration file (codemods.config.Config), if read.
    config: object = None

    @property
    def refused(self) -> list[StepResult]:
        return [r for r in self.results if r.status is Status.REFUSED]

    @property
    def pending(self) -> bool:
        return bool(self.changes)

    @property
    def form_changes(self) -> list[tuple[StepResult, FormChange]]:
        """Every earlier form the run replaces (upgrades, migrations), by step."""
        return [(r, c) for r in self.results for c in r.form_changes]

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes)

    def left_alone(self) -> list[dict]:
        """What the run does not touch because of a human decision: steps
        the configuration skips, created files someone removed, and
        created files someone edited (their notices)."""
        out = [
            {"step": r.step, "path": r.path, "why": r.kind, "reason": r.reason}
            for r in self.results
            if r.status is Status.SKIPPED and r.kind in ("config", "decision")
        ]
        for r in self.results:
            for note in r.notes:
                if isinstance(note, Notice) and LEFT_WITH_PAIR in note:
                    out.append({"step": r.step, "path": r.path, "why": "pair", "reason": str(note)})
                elif isinstance(note, Notice) and "was edited since" in note:
                    out.append({"step": r.step, "path": r.path, "why": "edited", "reason": str(note)})
        return out

    def to_json(self) -> dict:
        return {
            "repo": str(self.repo),
            "target": self.target,
            "bridge": self.bridge.to_json(),
            "steps": [r.to_json() for r in self.results],
            "files": [
                {
                    "path": c.path,
                    "change": c.kind,
                    "steps": c.steps,
                    **({"layout": c.layout.to_json()} if c.layout else {}),
                }
                for c in self.changes
            ],
            **({"formatter": self.formatter.to_json()} if self.formatter else {}),
            "changes_of_form": [
                {"step": r.step, "path": r.path, **c.to_json(), **({"why": r.why} if c.kind == "migrate" else {})}
                for r, c in self.form_changes
            ],
            "pending": self.pending,
            "refused": bool(self.refused),
            "left_alone": self.left_alone(),
            **({"config": self.config.to_json()} if getattr(self.config, "present", False) else {}),
            "notices": list(self.notices),
        }


def detect_target(repo: Path) -> Target:
    """The first registered target that recognises ``repo``."""
    if not repo.is_dir():
        raise TargetError(f"{repo}: no such directory")
    for target in recipes.targets():
        if target.recognise(repo):
            return target
    expected = "; or ".join(t.description for t in recipes.targets())
    raise TargetError(f"{repo}: not a recognised target (expected {expected})")


def resolve_inside(root: Path, relative: str) -> Path:
    """The real path of ``relative`` under the resolved checkout ``root``,
    refusing one that leaves the checkout (through a link, say)."""
    candidate = Path(os.path.realpath(root / relative))
    if candidate != root and root not in candidate.parents:
        raise Refused(relative, f"resolves to {candidate}, outside the checkout {root}")
    return candidate


def plan(
    repo: Path,
    bridge: Bridge | ModeChoice = Bridge.AUTO,
    only: Sequence[str] = (),
    formatter: FormatterMode | str | FormatterChoice = FormatterMode.AUTO,
    restore: Sequence[str] = (),
) -> Plan:
    """Compute every step's edits against the files as they are now, and
    pass the changed files through the checkout's formatter (``formatter``:
    a mode, or a choice already made, e.g. another checkout's Biome).

    The checkout's decisions stand (SPEC 5a): a step its configuration file
    skips is skipped, and a file the tool creates that is missing while the
    rest of the feature is present is not created again, unless its step
    is in ``restore``."""
    from . import config as configuration

    target = detect_target(repo)
    steps = target.steps
    ids = {s.id for s in steps}
    unknown = sorted((set(only) | set(restore)) - ids)
    if unknown:
        raise ValueError(f"unknown step(s): {', '.join(unknown)} (see `mesh-codemod list`)")
    config = configuration.load(repo, ids, target.name)
    if not isinstance(formatter, FormatterChoice):
        formatter = choose(repo, formatter, target.name)
    # A choice made already (on the checkout whose node_modules decide, for
    # a plan on an exported commit) is taken as it is.
    if isinstance(bridge, ModeChoice):
        choice = bridge
    else:
        choice = configuration.pinned(target.choose_mode(repo, bridge), config, bridge)
    earlier: dict[str, Planned] = {}
    ctx = Context(
        repo=repo,
        bridge=choice.mode,
        formatter=read_config(repo),
        earlier=MappingProxyType(earlier),
        form=choice.form or "1.x",
        why=choice.describe(),
        sdk_api=choice.sdk_api,
    )
    root = repo.resolve()
    selected = [s for s in steps if not only or s.id in only]
    locations, failures = _locate_all(repo, selected)

    owned = frozenset(locations[s.id][0] for s in selected if s.id in locations)
    results: list[StepResult] = []
    # keyed by the real path, so a file reached through a link is edited once
    contents: dict[str, tuple[bytes | None, bytes]] = {}
    touched: dict[str, list[str]] = {}
    for step in steps:
        if config.skipped(step.id):
            reason = f"skipped by {configuration.FILE_NAME} (skip)"
            results.append(StepResult(step.id, step.path, Status.SKIPPED, reason, "config"))
            continue
        if step not in selected:
            results.append(StepResult(step.id, step.path, Status.SKIPPED))
            continue
        path, notes = step.path, []
        try:
            if step.id in failures:
                raise failures[step.id]
            path, notes = locations[step.id]
            if step.absent and not os.path.lexists(root / path):
                results.append(StepResult(step.id, path, Status.SKIPPED, step.absent, "not-applicable", notes))
                continue
            real = resolve_inside(root, path).relative_to(root).as_posix()
            if real != path:
                notes.append(f"found {path} to be a link to {real}; editing {real}")
            old, current = contents.get(real) or (_read(root / real, real, step),) * 2
            new, added, form_changes = _run_step(step, ctx, real, current, owned)
        except Refused as refusal:
            results.append(
                StepResult(step.id, refusal.path or path, Status.REFUSED, refusal.reason, refusal.kind, notes)
            )
            earlier[step.id] = Planned(path, refusal=refusal)
            continue
        contents[real] = (old, new)
        earlier[step.id] = Planned(real, new)
        status = Status.ALREADY if new == current else Status.APPLIED
        results.append(
            StepResult(
                step.id, real, status, notes=[*notes, *added],
                form_changes=tuple(form_changes) if status is Status.APPLIED else (), why=ctx.why,
            )
        )
        if status is Status.APPLIED:
            touched.setdefault(real, []).append(step.id)

    _keep_pairs(steps, results, contents, touched)
    _keep_decisions(repo, target, ctx, config, restore, results, contents, touched)
    changes = [
        FileChange(path, contents[path][0], contents[path][1], step_ids)
        for path, step_ids in touched.items()
        if contents[path][0] != contents[path][1]
    ]
    if changes:
        if formatter.biome is None:
            laid_out = [(c.new, Layout(BUILT_IN, f"no formatter: {formatter.reason}")) for c in changes]
        else:
            # only here is the checkout's Biome started (and its module imported)
            from .formatter_run import format_pass

            laid_out = format_pass(root, [Candidate(c.path, c.old, c.new) for c in changes], formatter)
        changes = [c._replace(new=new, layout=layout) for c, (new, layout) in zip(changes, laid_out)]
    notices = dict.fromkeys(
        str(note)
        for r in results
        if r.status in (Status.APPLIED, Status.ALREADY)
        for note in r.notes
        if isinstance(note, Notice)
    )
    return Plan(repo, target.name, choice, results, changes, tuple(notices), formatter, config)


LEFT_WITH_PAIR = "was left at"


def _keep_pairs(
    steps: Sequence[Step],
    results: list[StepResult],
    contents: dict[str, tuple[bytes | None, bytes]],
    touched: dict[str, list[str]],
) -> None:
    """A created file and the one it goes with (a module and its tests)
    change release together: when someone edited one of them, so that it
    is left alone, the other is not upgraded either (its tests would test
    another release's code), with a notice that says so."""
    by_id = {r.step: index for index, r in enumerate(results)}
    for step in steps:
        if not step.together or step.id not in by_id or step.together not in by_id:
            continue
        partner = results[by_id[step.together]]
        if not any(isinstance(n, Notice) and "was edited since" in n for n in partner.notes):
            continue
        index = by_id[step.id]
        result = results[index]
        upgrades = [c for c in result.form_changes if c.kind == "upgrade"]
        if result.status is not Status.APPLIED or not upgrades or len(upgrades) != len(result.form_changes):
            continue
        old = contents[result.path][0]
        if old is None:
            continue
        contents[result.path] = (old, old)
        remaining = [s for s in touched.get(result.path, []) if s != step.id]
        if remaining:
            touched[result.path] = remaining
        else:
            touched.pop(result.path, None)
        notice = Notice(
            f"{result.path} {LEFT_WITH_PAIR} {upgrades[0].was}, not upgraded to {upgrades[0].now}: "
            f"{partner.path}, which it goes with, was edited since mesh-codemod wrote it, and the two change "
            "release together; upgrade both by hand"
        )
        results[index] = StepResult(result.step, result.path, Status.ALREADY, notes=[*result.notes, notice], why=result.why)


def _keep_decisions(
    repo: Path,
    target: Target,
    ctx: Context,
    config,
    restore: Sequence[str],
    results: list[StepResult],
    contents: dict[str, tuple[bytes | None, bytes]],
    touched: dict[str, list[str]],
) -> None:
    """A file the tool creates that is missing while every other step of
    the feature is present was removed by someone: that is a decision, so
    the step is skipped (kind "decision"), with how to restore it."""
    by_id = {s.id: s for s in target.steps}
    creating = [
        (index, r)
        for index, r in enumerate(results)
        if r.status is Status.APPLIED and by_id[r.step].new_file is not None
        and contents.get(r.path, (b"",))[0] is None and r.step not in restore
    ]
    if not creating:
        return
    done = {r.step: r for r in results}
    # A file a newer release introduced, on a checkout an earlier release
    # wrote (an upgrade is pending): never written there, so never removed.
    upgrading = any(c.kind == "upgrade" for r in results for c in r.form_changes)
    for index, result in creating:
        if upgrading and by_id[result.step].new_file.introduced:
            continue
        if not _rest_present(repo, target, ctx, config, result.step, done, contents):
            continue
        reason = (
            f"{result.path} is missing while the rest of the feature is present: someone removed it, "
            f"a decision that stands; not created again (restore it: mesh-codemod apply --restore {result.step}, "
            f"or skip it for good in {_config_name()})"
        )
        results[index] = StepResult(result.step, result.path, Status.SKIPPED, reason, "decision", result.notes)
        touched.pop(result.path, None)
        contents.pop(result.path, None)


def _config_name() -> str:
    from .config import FILE_NAME

    return FILE_NAME


def _rest_present(repo, target, ctx, config, step_id, done, contents) -> bool:
    """Whether every step but ``step_id`` (and those the configuration
    skips or that do not apply) finds the feature there, in this release's
    form or an earlier one; steps this plan did not run are tried now."""
    root = repo.resolve()
    for step in target.steps:
        if step.id == step_id or config.skipped(step.id):
            continue
        result = done.get(step.id)
        if result is not None and result.status is Status.SKIPPED and result.kind == "not-applicable":
            continue
        if step.new_file is not None:
            path = result.path if result is not None else step.path
            if result is not None and result.status is Status.APPLIED and contents.get(path, (b"",))[0] is None:
                return False
            if not os.path.lexists(root / path):
                return False
            continue
        if result is not None and result.status is not Status.SKIPPED:
            if result.status is Status.ALREADY or result.form_changes:
                continue
            return False
        try:
            path, _ = _locate(repo, step)
            if step.absent and not os.path.lexists(root / path):
                continue
            real = resolve_inside(root, path).relative_to(root).as_posix()
            current = _read(root / real, real, step)
            new, _, form_changes = _run_step(step, ctx, real, current)
        except Refused:
            return False
        if new != current and not form_changes:
            return False
    return True


def _locate_all(
    repo: Path, steps: Sequence[Step]
) -> tuple[dict[str, tuple[str, list[str]]], dict[str, Refused]]:
    """Where each step's file is: its usual path, or, when that is gone, the
    one file that defines the step's symbol; and the refusals, by step."""
    found: dict[str, tuple[str, list[str]]] = {}
    failures: dict[str, Refused] = {}
    for step in steps:
        if step.new_file is not None:
            continue
        try:
            found[step.id] = _locate(repo, step)
        except Refused as refusal:
            failures[step.id] = refusal
    for step in steps:
        if step.new_file is None:
            continue
        # A new file goes beside the file it belongs with, wherever that is.
        anchor = found.get(step.beside) if step.beside else None
        if anchor is None:
            found[step.id] = (step.path, [])
        else:
            path = posixpath.join(posixpath.dirname(anchor[0]), posixpath.basename(step.path))
            found[step.id] = (path, [] if path == step.path else [f"created beside {anchor[0]}"])
    return found, failures


def _locate(repo: Path, step: Step) -> tuple[str, list[str]]:
    if os.path.lexists(repo / step.path) or not step.defines:
        return step.path, []
    paths = find_definitions(repo, step.defines)
    if len(paths) == 1:
        return paths[0], [f"found {paths[0]} (not at {step.path}): it defines `{step.defines}`"]
    if len(paths) > 1:
        raise Conflict(
            step.path,
            f"file not found, and `{step.defines}` is defined in more than one file: {', '.join(paths)}",
        )
    raise TargetMissing(step.path, f"file not found, and no file defines `{step.defines}`")


SKIP_DIRS = {"node_modules", ".git", "dist", "build", ".turbo", ".next", "coverage"}


def find_definitions(repo: Path, text: str) -> list[str]:
    """The TypeScript files of the checkout that contain ``text``: through
    `git grep` in a git checkout (tracked and untracked, not ignored),
    otherwise by walking the tree without dependency and build folders."""
    if (repo / ".git").exists():
        import subprocess  # only here: a moved file is rare, and the import is not free

        result = subprocess.run(
            ["git", "-C", str(repo), "grep", "--untracked", "-l", "-F", "-e", text, "--", "*.ts", "*.tsx"],
            capture_output=True,
            text=True,
        )
        if result.returncode in (0, 1):
            return sorted(line for line in result.stdout.splitlines() if line)
    needle = text.encode()
    hits = []
    for folder, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in files:
            if name.endswith((".ts", ".tsx")):
                path = Path(folder) / name
                try:
                    if needle in path.read_bytes():
                        hits.append(path.relative_to(repo).as_posix())
                except OSError:
                    continue
    return sorted(hits)


def _read(path: Path, relative: str, step: Step) -> bytes | None:
    """The bytes of a resolved path; None for a new file not yet there."""
    if not path.exists():
        if step.new_file is not None:
            return None
        raise TargetMissing(relative, "file not found")
    if not path.is_file():
        raise Refused(relative, "is not a regular file")
    return path.read_bytes()


def _run_step(
    step: Step, ctx: Context, path: str, current: bytes | None, owned: frozenset[str] = frozenset()
) -> tuple[bytes, list[str], list[FormChange]]:
    if step.new_file is not None:
        return _new_file(step, ctx, path, current, owned)
    if current is None:
        raise TargetMissing(path, "file not found")
    try:
        if step.rewrite is not None:
            return (*step.rewrite(path, current, ctx), [])
        editor = FileEditor(parsed_or_refused(path, current, ctx.formatter))
        step.transform(editor, ctx)
        new = editor.result()
    except DuplicateEdit as err:
        raise Conflict(path, f"internal error, please report it: {err}") from None
    except OverlapError as err:
        raise Conflict(path, f"two edits would overlap ({err})") from None
    # the current form of a statement is this release's
    from . import __version__

    changes = [c._replace(now=__version__) if c.now == "the current form" else c for c in editor.form_changes]
    return new, editor.added, changes


def _new_file(
    step: Step, ctx: Context, path: str, current: bytes | None, owned: frozenset[str] = frozenset()
) -> tuple[bytes, list[str], list[FormChange]]:
    """A file the step creates: written when missing; replaced when it is,
    modulo layout, what an earlier release or another mode wrote; else kept
    as it is. ``owned``: the files the run's own steps write (their imports
    of this file are the steps' business)."""
    # Templates are written in mesh's style; a new file takes the
    # repository's (no file yet to look at).
    from .engine.snippet_printer import render_file

    new_file = step.new_file
    style = style_for(b"", ctx.formatter)
    text = new_file.render(ctx)
    wanted = render_file(text, style).encode()
    if current is None or current == wanted:
        return current or wanted, [], []
    from .engine.equivalence import LayoutKeyError, layout_key

    try:
        key = layout_key(current, path)
    except LayoutKeyError:
        key = None  # does not parse: edited
    now = new_file.label(ctx) if new_file.label is not None else "the current form"
    if key is not None:
        if key == layout_key(text, path):
            return current, [], []  # this release's output, in the checkout's layout
        # Another wiring of this release first: an earlier release may have
        # written the same code, but the change is the migration.
        variants = new_file.variants(ctx) if new_file.variants is not None else {}
        for label, variant in variants.items():
            if layout_key(variant, path) == key:
                new, notes = _keeping_imported_exports(new_file, ctx, path, variant, text, owned, style)
                return new or wanted, notes, [FormChange("migrate", "the file", label, now)]
        import hashlib

        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
        earlier = {value: label for label, value in new_file.earlier.items()}
        if digest in earlier:
            return wanted, [], [FormChange("upgrade", "the file", earlier[digest], now)]
    decoded = current.decode("utf-8", "replace")
    missing = [name for name in new_file.exports(ctx) if name not in decoded]
    if missing:
        raise Conflict(path, f"exists but does not define {', '.join(missing)}")
    return current, [
        Notice(
            f"{path} was edited since mesh-codemod wrote it (no release wrote this code): "
            f"left alone; compare it with what this release writes ({now}) by hand"
        )
    ], []


_EXPORT = re.compile(r"^export\s+(?:const|function|class|type|interface)\s+([A-Za-z_$][\w$]*)", re.M)


def _keeping_imported_exports(new_file, ctx, path, was: str, now: str, owned, style) -> tuple[bytes | None, list[str]]:
    """The migrated file, keeping every export the earlier form had that
    another file of the checkout imports (None: nothing to keep), with a
    notice per kept export saying who imports it."""
    gone = sorted(set(_EXPORT.findall(was)) - set(_EXPORT.findall(now)))
    if not gone:
        return None, []
    importers = {name: _importers(ctx.repo, name, path, owned) for name in gone}
    kept = [name for name in gone if importers[name]]
    if not kept or new_file.keeping is None:
        return None, []
    from .engine.snippet_printer import render_file

    notes = [
        Notice(
            f"{path}: kept the export `{name}`, which only the earlier wiring used: "
            f"{', '.join(importers[name])} import{'s' if len(importers[name]) == 1 else ''} it "
            "(an export is removed only when nothing in the checkout imports it)"
        )
        for name in kept
    ]
    return render_file(new_file.keeping(ctx, kept), style).encode(), notes


def _importers(repo: Path, name: str, path: str, owned: frozenset[str]) -> list[str]:
    """The files of the checkout, other than ``owned`` ones, that import
    ``name`` from the module at ``path``."""
    stem = posixpath.splitext(posixpath.basename(path))[0]
    imports = re.compile(
        r"import\s+(?:type\s+)?\{[^}]*\b" + re.escape(name) + r"\b[^}]*\}\s*from\s*[\"'][^\"']*"
        + re.escape(stem) + r"(?:\.[jt]sx?)?[\"']"
    )
    found = []
    for candidate in find_definitions(repo, name):
        if candidate == path or candidate in owned:
            continue
        try:
            text = (repo / candidate).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if imports.search(text):
            found.append(candidate)
    return found


def refuse_unwritable(plan: Plan) -> None:
    """Turn the steps whose file cannot be written into refusals, before
    anything is written. Mode bits are read rather than tried, so the
    answer is the same for root."""
    for change in plan.changes:
        reason = _unwritable(plan.repo / change.path)
        if not reason:
            continue
        for index, result in enumerate(plan.results):
            if result.step in change.steps:
                plan.results[index] = StepResult(
                    result.step, result.path, Status.REFUSED, reason, "read-only", result.notes
                )


def _unwritable(path: Path) -> str:
    if path.exists():
        if not path.stat().st_mode & stat.S_IWUSR:
            return f"{path.name} is read-only (mode {stat.S_IMODE(path.stat().st_mode):o})"
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.stat().st_mode & stat.S_IWUSR:
        return f"its folder {folder} is read-only"
    return ""


def write(repo: Path, changes: Iterable[FileChange]) -> None:
    """Write every change or none: each file goes to a temporary sibling
    first, then all are renamed into place; a failure restores the files
    already replaced and removes the ones created."""
    import tempfile

    root = repo.resolve()
    staged: list[tuple[Path, Path, FileChange]] = []
    try:
        for change in changes:
            target = resolve_inside(root, change.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".mesh-codemod", dir=target.parent)
            with os.fdopen(fd, "wb") as handle:
                handle.write(change.new)
            if target.exists():
                os.chmod(temp, target.stat().st_mode & 0o7777)
            else:
                os.chmod(temp, 0o644)
            staged.append((Path(temp), target, change))
    except BaseException:
        for temp, _, _ in staged:
            temp.unlink(missing_ok=True)
        raise
    done: list[tuple[Path, FileChange]] = []
    try:
        for temp, target, change in staged:
            os.replace(temp, target)
            done.append((target, change))
    except BaseException:
        for target, change in reversed(done):
            if change.old is None:
                target.unlink(missing_ok=True)
            else:
                target.write_bytes(change.old)
        for temp, _, _ in staged:
            temp.unlink(missing_ok=True)
        raise
