"""Where each step's file is in the checkout: its usual path, or the one
file that defines the step's symbol, or the one file that plays its role
(what its transform anchors on, found in the syntax tree: `Step.role`); a
created file is found the same way or beside the file it belongs with, and
goes there when it is nowhere."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from ..engine.files import files_containing as find_definitions
from ..engine.files import files_containing_each
from ..engine.outcome import Conflict, Refused, TargetMissing
from ..recipes.base import Step


def locate_all(
    repo: Path, steps: Sequence[Step]
) -> tuple[dict[str, tuple[str, list[str]]], dict[str, Refused]]:
    """Where each step's file is: its usual path, or, when that is gone, the
    one file that defines the step's symbol; and the refusals, by step.

    A file the tool creates is the same file wherever the team moved it
    (SPEC 5a): at its usual path, beside the file it belongs with (its
    ``beside`` step's, located before it), or the one file of the checkout
    that defines its key export; only when there is none is it created,
    beside the file it belongs with."""
    found: dict[str, tuple[str, list[str]]] = {}
    failures: dict[str, Refused] = {}
    # where the steps located so far are, by usual path (a render site is
    # the file that renders the iframe renderer where that is)
    located: dict[str, str] = {}
    search = _one_search(repo, steps)
    for step in steps:
        if step.new_file is not None:
            continue
        try:
            found[step.id] = locate(repo, step, located, search)
            located[step.path] = found[step.id][0]
        except Refused as refusal:
            failures[step.id] = refusal
    for step in steps:
        if step.new_file is None:
            continue
        anchor = found.get(step.beside) if step.beside else None
        beside = step.path
        if anchor is not None:
            beside = posixpath.join(posixpath.dirname(anchor[0]), posixpath.basename(step.path))
        if os.path.lexists(repo / step.path):
            found[step.id] = (step.path, [])
        elif beside != step.path and os.path.lexists(repo / beside):
            found[step.id] = (beside, [f"found {beside} (not at {step.path}): beside {anchor[0]}"])
        else:
            try:
                found[step.id] = locate(repo, step, search=search) if step.defines else (step.path, [])
            except TargetMissing:
                found[step.id] = (step.path, [])
            except Refused as refusal:
                failures[step.id] = refusal
                continue
            if found[step.id][0] == step.path and beside != step.path:
                # A new file goes beside the file it belongs with, wherever that is.
                found[step.id] = (beside, [f"created beside {anchor[0]}"])
    return found, failures


def _one_search(repo: Path, steps: Sequence[Step]) -> Callable[[Path, str], list[str]]:
    """:func:`find_definitions` for the steps' definitions, searched for
    all at once, on first need (one `git grep` or one walk of the tree a
    run, not one per step): only the steps whose usual file is missing,
    or that have a role, may need it."""
    needles = [
        s.defines for s in steps if s.defines and (s.role is not None or not os.path.lexists(repo / s.path))
    ]
    found: dict[str, list[str]] = {}

    def search(root: Path, text: str) -> list[str]:
        if root != repo or text not in needles:
            return find_definitions(root, text)
        if not found:
            found.update(files_containing_each(repo, needles))
        return found[text]

    return search


def locate(
    repo: Path,
    step: Step,
    located: Mapping[str, str] = MappingProxyType({}),
    search: Callable[[Path, str], list[str]] = find_definitions,
) -> tuple[str, list[str]]:
    """The step's file: its usual path; else the one file that defines its
    symbol (for a step with a role, one of the files that play it, where
    some do); else the one file that plays its role. A step with a role is
    looked for elsewhere also when its usual file is there but no longer
    holds its symbol (the schema moved out of the route file, a component
    renamed in place); when no file plays the role, the usual file stays
    (its transform names what is missing)."""
    there = os.path.lexists(repo / step.path)
    if there and (step.role is None or not step.defines or _holds(repo / step.path, step.defines)):
        return step.path, []
    if not step.defines and step.role is None:
        return step.path, []
    paths = search(repo, step.defines) if step.defines else []
    how = f"it defines `{step.defines}`"
    missing = "file not found" if not there else f"`{step.defines}` is not in it"
    if len(paths) > 1:
        raise Conflict(
            step.path, f"{missing}, and `{step.defines}` is defined in more than one file: {', '.join(paths)}"
        )
    playing = None
    if paths and step.role is not None:
        # The symbol moved out of the step's file into a module of its own
        # (`buildHostContext` out of the bridge store) does not take the
        # step with it: where files play the role, the one holding the
        # symbol must be one of them.
        playing = step.role.find(repo, located)
        if playing and paths[0] not in playing:
            paths = []
    if not paths and step.role is not None:
        playing = step.role.find(repo, located) if playing is None else playing
        paths, how = playing, step.role.what
        if len(paths) > 1:
            raise Conflict(step.path, f"{missing}, and more than one file plays its part ({how}): {', '.join(paths)}")
    if paths and paths[0] == step.path:
        return step.path, []
    if paths:
        return paths[0], [f"found {paths[0]} (not at {step.path}): {how}"]
    if there:
        return step.path, []
    if step.role is not None:
        plays = step.role.what.removeprefix("it ")
        raise TargetMissing(step.path, f"file not found, and no file defines `{step.defines}` or {plays}")
    raise TargetMissing(step.path, f"file not found, and no file defines `{step.defines}`")


def _holds(path: Path, text: str) -> bool:
    try:
        return text.encode() in path.read_bytes()
    except OSError:
        return True  # not readable here: reading it names the problem
