"""One step over one file: its transform, or the file it creates (replaced
when it is an earlier release's or another wiring's output, merged or left
alone when someone edited it)."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from .. import __version__
from ..engine.editor import FileEditor
from ..engine.statements import FormChange
from ..engine.edits import DuplicateEdit, OverlapError
from ..engine.outcome import Conflict, Refused, TargetMissing, parsed_or_refused
from ..engine.style import style_for
from ..recipes.base import Context, Notice, Step
from .locate import find_definitions


def read_target(path: Path, relative: str, step: Step) -> bytes | None:
    """The bytes of a resolved path; None for a new file not yet there."""
    if not path.exists():
        if step.new_file is not None:
            return None
        raise TargetMissing(relative, "file not found")
    if not path.is_file():
        raise Refused(relative, "is not a regular file")
    return path.read_bytes()


def run_step(
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
    changes = [c._replace(now=__version__) if c.now == "the current form" else c for c in editor.form_changes]
    return new, editor.added, changes


def outputs(step: Step, ctx: Context, path: str) -> list[tuple[str, str, str]]:
    """What the releases since the floor write into the file ``step``
    creates, on this checkout: each release of the step's store that wrote
    it, in each of its wirings, rendered with the checkout's values and its
    imports of the other step files spelled for where they are (a file
    moved with its imports fixed is the same file, SPEC 5a). Each is
    (label, kind, text): this release's in the run's wiring first (kind
    ""), then its other wirings (``migrate``), then each earlier release's,
    newest first (``upgrade``; in another wiring, ``migrate``)."""
    new_file = step.new_file
    wirings = new_file.wirings(ctx) if new_file.wirings is not None else [""]
    found = []
    for release in new_file.releases():
        if new_file.template not in release.templates:
            continue  # a later release created the file
        this = release.version == __version__
        for wiring in wirings:
            text = _moved(step, ctx, path, new_file.render(ctx, release.templates, wiring))
            if wiring != wirings[0]:
                kind = "migrate"
            else:
                kind = "" if this else "upgrade"
            # this release's other wirings are named by the wiring alone
            label = wiring if this and kind else f"{release.version}, {wiring}" if wiring else release.version
            found.append((label, kind, text))
    return found


def _moved(step: Step, ctx: Context, path: str, text: str) -> str:
    if path == step.path and not ctx.located:
        return text
    from ..engine.specifiers import relocate

    return relocate(text, step.path, path, ctx.located, ctx.aliases)


def _new_file(
    step: Step, ctx: Context, path: str, current: bytes | None, owned: frozenset[str] = frozenset()
) -> tuple[bytes, list[str], list[FormChange]]:
    """A file the step creates (SPEC 5a, "Earlier releases"): written when
    missing. A copy equal, modulo layout, to what a release since the floor
    writes (:func:`outputs`) is this release's (kept) or is replaced with
    it: a migration when it was written for another wiring (keeping an
    export another file imports), else an upgrade. Any other copy was
    edited since: merged by ``git merge-file`` with the output it differs
    least from as the base; left alone, named, where that output is this
    release's own, or the edits conflict. ``owned``: the files the run's
    own steps write (their imports of this file are the steps' business)."""
    # Templates are written in mesh's style; a new file takes the
    # repository's (no file yet to look at).
    from ..engine.equivalence import LayoutKeyError, layout_key
    from ..engine.snippet_printer import render_file

    new_file = step.new_file
    style = style_for(b"", ctx.formatter)
    written = outputs(step, ctx, path)
    now, _, text = written[0]
    wanted = render_file(text, style).encode()
    if current is None or current == wanted:
        return current or wanted, [], []
    try:
        key = layout_key(current, path)
    except LayoutKeyError:
        key = None  # does not parse: edited
    if key is not None:
        for label, kind, other in written:
            if layout_key(other, path) != key:
                continue
            if not kind:
                return current, [], []  # this release's output, in the checkout's layout
            new, notes = None, []
            if kind == "migrate":
                new, notes = _keeping_imported_exports(step, ctx, path, other, text, owned, style)
            return new or wanted, notes, [FormChange(kind, "the file", label, now)]
        others = [other for _label, kind, other in written if kind == "migrate"]
        if _keeps_exports(step, ctx, path, key, current, text, others):
            return current, [], []  # this release's output, still keeping an export a file imports
    result = _merged(path, current, written, wanted, style)
    missing = missing_exports(new_file, ctx, result[0])
    if missing:
        # Left alone, it would lack what this release's other files import.
        why = f"{result[1][0]}; " if result[0] == current and result[1] else ""
        raise Conflict(path, f"{why}exists but does not define {', '.join(missing)}, which this release's files import")
    return result


def missing_exports(new_file, ctx: Context, data: bytes) -> list[str]:
    """The names this release's files import from a created file that
    ``data`` (a copy of it) does not define."""
    decoded = data.decode("utf-8", "replace")
    return [name for name in new_file.exports(ctx) if name not in decoded]


def _merged(path: str, current: bytes, written, wanted: bytes, style) -> tuple[bytes, list[str], list[FormChange]]:
    """A created file someone edited since, upgraded by a three-way merge
    (SPEC 5a): ``git merge-file`` with the output (``written``) it differs
    least from as the base, the file as ours, this release's output as
    theirs. Left alone, with a notice, where that output is this release's
    own (nothing to bring over: the file reads as edited since), where the
    edits conflict with the upgrade, or where the merge does not parse."""
    from ..engine.equivalence import LayoutKeyError, layout_key
    from ..engine.merge import differing_lines, merge
    from ..engine.snippet_printer import render_file

    now = written[0][0]
    edited = f"{path} was edited since mesh-codemod wrote it"
    try:
        ours = current.decode("utf-8")
    except UnicodeDecodeError:
        ours = None
    crlf = ours is not None and "\r\n" in ours

    def laid_out(source: str) -> str:
        out = render_file(source, style)
        return out.replace("\r\n", "\n").replace("\n", "\r\n") if crlf else out

    left = current, [Notice(f"{edited}: left alone; compare it with what this release writes ({now}) by hand")], []
    bases = [(label, kind, laid_out(text)) for label, kind, text in written] if ours is not None else []
    # another wiring's output that is this release's text (a file the same in every wiring) is this release's
    bases = bases[:1] + [b for b in bases[1:] if b[2] != bases[0][2]]
    # as near to an earlier output as to this release's: the merge says whether the edits collide
    label, kind, base = min(bases, key=lambda b: (differing_lines(b[2], ours), not b[1]), default=("", "", ""))
    if not kind:
        return left  # nearest to this release's output: nothing to bring over
    theirs = wanted.decode("utf-8")
    result = merge(base, ours, theirs.replace("\r\n", "\n").replace("\n", "\r\n") if crlf else theirs)
    if result.conflicts:
        where = ", ".join(f"line {a}" if a >= b else f"lines {a}-{b}" for a, b in result.conflicts)
        return current, [
            Notice(f"{edited} ({label}): the upgrade to {now} conflicts with the edits at {where}: left alone; merge them by hand")
        ], []
    merged = result.text.encode("utf-8")
    if merged == current:
        return left  # it holds what the upgrade brings already
    try:
        layout_key(merged, path)
    except LayoutKeyError:
        return current, [
            Notice(f"{edited} ({label}): merging the upgrade to {now} into the edits does not parse: left alone; merge them by hand")
        ], []
    return merged, [
        Notice(f"{path}: {kind}d from {label} to {now} by a three-way merge, keeping the edits made since")
    ], [FormChange(kind, "the file", label, now)]


_EXPORT = re.compile(r"^export\s+(?:const|function|class|type|interface)\s+([A-Za-z_$][\w$]*)", re.M)


def _keeps_exports(step: Step, ctx, path: str, key: str, current: bytes, text: str, others: list[str]) -> bool:
    """Whether ``current`` is this release's output keeping exports of
    another wiring's (``others``: what a migration writes where a file
    imports them), modulo layout: not an edit to merge."""
    from ..engine.equivalence import layout_key

    if step.new_file.keeping is None:
        return False
    decoded = current.decode("utf-8", "replace")
    gone = {name for other in others for name in _EXPORT.findall(other)} - set(_EXPORT.findall(text))
    kept = sorted(gone & set(_EXPORT.findall(decoded)))
    return bool(kept) and layout_key(_moved(step, ctx, path, step.new_file.keeping(ctx, kept)), path) == key


def _keeping_imported_exports(step: Step, ctx, path, was: str, now: str, owned, style) -> tuple[bytes | None, list[str]]:
    """The migrated file, keeping every export the earlier form had that
    another file of the checkout imports (None: nothing to keep), with a
    notice per kept export saying who imports it."""
    gone = sorted(set(_EXPORT.findall(was)) - set(_EXPORT.findall(now)))
    if not gone:
        return None, []
    importers = {name: _importers(ctx.repo, name, path, owned) for name in gone}
    kept = [name for name in gone if importers[name]]
    if not kept or step.new_file.keeping is None:
        return None, []
    from ..engine.snippet_printer import render_file

    notes = [
        Notice(
            f"{path}: kept the export `{name}`, which only the earlier wiring used: "
            f"{', '.join(importers[name])} import{'s' if len(importers[name]) == 1 else ''} it "
            "(an export is removed only when nothing in the checkout imports it)"
        )
        for name in kept
    ]
    return render_file(_moved(step, ctx, path, step.new_file.keeping(ctx, kept)), style).encode(), notes


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
