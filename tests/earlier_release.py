"""A release before this one, for the tests of the upgrade (SPEC 5a).

The store holds 0.6.0, whose output differs from this release's almost
everywhere; the tests of single edits and conflicts register one more
through the store's public API (``codemods.recipes.host.releases.recorded``):
this release's templates with a few lines as an earlier release would have
written them, and without the hook's tests, which it did not write yet.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from codemods.recipes.host import releases

VERSION = "0.5.9"
MODULE = "apps/mesh/src/mcp-apps/app-state.ts"
TESTS = "apps/mesh/src/mcp-apps/app-state.test.ts"
STORE_TESTS = "apps/mesh/src/mcp-apps/use-app-bridge.test.ts"
HOOK_TESTS = "apps/mesh/src/web/hooks/use-app-state-param.test.ts"
# (created file, its template, the line as this release writes it, as the earlier one did)
CHANGES = (
    (MODULE, "app-state.ts", "const warnedOverCap = new Set<string>();", "const warnedOverCap: Set<string> = new Set();"),
    (TESTS, "app-state.test.ts", 'describe("app state in the URL", () => {', 'describe("app states in the URL", () => {'),
)
# What ``renamed`` adds: the earlier release named the cap otherwise, in the
# module and its tests, so its module lacks a name this release's files
# import.
RENAMED = ("APP_STATE_MAX_LENGTH", "APP_STATE_MAX_CHARS")
# The line above the one the upgrade changes in the module.
ABOVE = "let decoded: { param: string; slots: Map<string, unknown> } | undefined;"
# What it did not write: created by the upgrade even where it is missing.
NOT_WRITTEN = ("use-app-state-param.test.ts", HOOK_TESTS)


def _back(text: str, now: str, was: str, renamed: bool) -> str:
    assert text.count(now) == 1, now
    text = text.replace(now, was)
    return text.replace(*RENAMED) if renamed else text


def templates(renamed: bool = False) -> dict[str, str]:
    texts = dict(releases.current().templates)
    for _path, name, now, was in CHANGES:
        texts[name] = _back(texts[name], now, was, renamed)
    del texts[NOT_WRITTEN[0]]
    return texts


@contextmanager
def recorded(renamed: bool = False) -> Iterator[None]:
    """The store holds the earlier release for the duration."""
    with releases.recorded(VERSION, templates(renamed)):
        yield


def as_written(repo: Path, renamed: bool = False) -> Path:
    """``repo``, holding what this release writes, made to hold what the
    earlier release wrote: its lines back, and no hook tests."""
    for path, _name, now, was in CHANGES:
        (repo / path).write_text(_back((repo / path).read_text(), now, was, renamed))
    (repo / NOT_WRITTEN[1]).unlink()
    return repo
