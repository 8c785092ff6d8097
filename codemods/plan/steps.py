"""One step over one file: its transform, or the file it creates (replaced
when it is an earlier release's or another wiring's output, left alone when
someone edited it)."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
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
    from .. import __version__

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
    from ..engine.snippet_printer import render_file

    new_file = _relocated(step, ctx, path)
    style = style_for(b"", ctx.formatter)
    text = new_file.render(ctx)
    wanted = render_file(text, style).encode()
    if current is None or current == wanted:
        return current or wanted, [], []
    from ..engine.equivalence import LayoutKeyError, layout_key

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
        if _keeps_exports(new_file, ctx, path, key, current, text, variants):
            return current, [], []  # this release's output, still keeping an export a file imports
        import hashlib

        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
        earlier = {value: label for label, value in new_file.earlier.items()}
        if digest in earlier:
            return wanted, [], [FormChange("upgrade", "the file", earlier[digest], now)]
    merged = _merged(new_file, ctx, path, current, text, wanted, style, now)
    # a merge that changed the file carries this release's exports over
    written = merged[0] if merged is not None else current
    missing = missing_exports(new_file, ctx, written)
    if missing:
        # Left alone, it would lack what this release's other files import.
        why = f"{merged[1][0]}; " if merged is not None and merged[0] == current and merged[1] else ""
        raise Conflict(path, f"{why}exists but does not define {', '.join(missing)}, which this release's files import")
    if merged is not None:
        return merged
    return current, [
        Notice(
            f"{path} was edited since mesh-codemod wrote it (no release wrote this code): "
            f"left alone; compare it with what this release writes ({now}) by hand"
        )
    ], []


def _relocated(step: Step, ctx: Context, path: str):
    """The step's created file as written at ``path``, where it is (or goes)
    in this checkout: every text of it (this release's, the other wirings',
    the earlier releases') with its imports of the other step files named
    for where they are, so a file moved with its imports fixed is the same
    file (SPEC 5a)."""
    new_file = step.new_file
    if path == step.path and not ctx.located:
        return new_file
    from ..engine.specifiers import relocate

    def moved(text: str) -> str:
        return relocate(text, step.path, path, ctx.located, ctx.aliases)

    def each(texts):
        return {label: moved(text) for label, text in texts.items()}

    return new_file._replace(
        render=lambda c: moved(new_file.render(c)),
        variants=None if new_file.variants is None else (lambda c: each(new_file.variants(c))),
        keeping=None if new_file.keeping is None else (lambda c, kept: moved(new_file.keeping(c, kept))),
        history=None if new_file.history is None else (lambda: each(new_file.history())),
    )


def missing_exports(new_file, ctx: Context, data: bytes) -> list[str]:
    """The names this release's files import from a created file that
    ``data`` (a copy of it) does not define."""
    decoded = data.decode("utf-8", "replace")
    return [name for name in new_file.exports(ctx) if name not in decoded]


def _merged(new_file, ctx, path, current: bytes, text: str, wanted: bytes, style, now: str):
    """A created file someone edited since, upgraded by a three-way merge
    (SPEC 5a): the base is the output, of an earlier release or another
    wiring of this one, that the file differs least from; ours the file;
    theirs this release's output. None when no earlier text is known; the
    file left alone, with a notice naming the conflict, when the edits
    collide with the upgrade."""
    from ..engine.equivalence import LayoutKeyError, layout_key
    from ..engine.merge3 import differing_lines, merge3
    from ..engine.snippet_printer import render_file

    variants = new_file.variants(ctx) if new_file.variants is not None else {}
    history = new_file.history() if new_file.history is not None else {}
    if not history and not variants:
        return None
    try:
        ours = current.decode("utf-8")
    except UnicodeDecodeError:
        return None
    crlf = "\r\n" in ours

    def laid_out(source: str) -> str:
        out = render_file(source, style)
        return out.replace("\r\n", "\n").replace("\n", "\r\n") if crlf else out

    bases = {now: laid_out(text), **{label: laid_out(v) for label, v in variants.items()}, **{label: laid_out(v) for label, v in history.items()}}
    label = min(bases, key=lambda name: differing_lines(bases[name], ours))
    theirs = wanted.decode("utf-8")
    theirs = theirs.replace("\r\n", "\n").replace("\n", "\r\n") if crlf else theirs
    result = merge3(bases[label], ours, theirs)
    if result.conflicts:
        where = ", ".join(f"line {a}" if a >= b else f"lines {a}-{b}" for a, b in result.conflicts)
        return current, [
            Notice(
                f"{path} was edited since mesh-codemod wrote it ({label}): the upgrade to {now} conflicts with "
                f"the edits at {where}: left alone; merge them by hand"
            )
        ], []
    merged = result.text.encode("utf-8")
    if merged == current:
        return current, [], []
    try:
        layout_key(merged, path)
    except LayoutKeyError:
        return current, [
            Notice(
                f"{path} was edited since mesh-codemod wrote it ({label}): merging the upgrade to {now} into "
                "the edits does not parse: left alone; merge them by hand"
            )
        ], []
    kind = "migrate" if label in variants else "upgrade"
    return merged, [
        Notice(f"{path}: {kind}d from {label} to {now} by a three-way merge, keeping the edits made since")
    ], [FormChange(kind, "the file", label, now)]


_EXPORT = re.compile(r"^export\s+(?:const|function|class|type|interface)\s+([A-Za-z_$][\w$]*)", re.M)


def _keeps_exports(new_file, ctx, path: str, key: str, current: bytes, text: str, variants) -> bool:
    """Whether ``current`` is this release's output keeping exports of
    another wiring's (what a migration writes where a file imports them),
    modulo layout: not an edit to merge."""
    from ..engine.equivalence import layout_key

    if new_file.keeping is None:
        return False
    decoded = current.decode("utf-8", "replace")
    gone = {name for variant in variants.values() for name in _EXPORT.findall(variant)} - set(_EXPORT.findall(text))
    kept = sorted(gone & set(_EXPORT.findall(decoded)))
    return bool(kept) and layout_key(new_file.keeping(ctx, kept), path) == key


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
    from ..engine.snippet_printer import render_file

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
