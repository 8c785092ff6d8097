"""A release before this one, for the tests of the upgrade (SPEC 5a).

This release is the floor, so the store holds no earlier release yet; the
tests register one through the store's public API
(``codemods.recipes.host.releases.recorded``): this release's templates
with a few lines as an earlier release would have written them, and
without the hook's tests, which it did not write yet.
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
    (MODULE, "app-state.ts", "const warnedOverCap: Set<string> = new Set();", "const warnedOverCap = new Set<string>();"),
    (
        TESTS,
        "app-state.test.ts",
        "// Standard base64 (with padding) of the UTF-8 bytes of `text`.",
        "// `text`'s UTF-8 bytes in standard base64, padded.",
    ),
)
# The line above the one the upgrade changes in the module.
ABOVE = "// Apps whose state alone is over the cap: warned about once each."
# What it did not write: created by the upgrade even where it is missing.
NOT_WRITTEN = ("use-app-state-param.test.ts", HOOK_TESTS)


def templates() -> dict[str, str]:
    texts = dict(releases.current().templates)
    for _path, name, now, was in CHANGES:
        assert texts[name].count(now) == 1, (name, now)
        texts[name] = texts[name].replace(now, was)
    del texts[NOT_WRITTEN[0]]
    return texts


@contextmanager
def recorded() -> Iterator[None]:
    """The store holds the earlier release for the duration."""
    with releases.recorded(VERSION, templates()):
        yield


def as_written(repo: Path) -> Path:
    """``repo``, holding what this release writes, made to hold what the
    earlier release wrote: its lines back, and no hook tests."""
    for path, _name, now, was in CHANGES:
        text = (repo / path).read_text()
        assert text.count(now) == 1, (path, now)
        (repo / path).write_text(text.replace(now, was))
    (repo / NOT_WRITTEN[1]).unlink()
    return repo
