"""Module specifiers between the files of a checkout: where an import
points, every way one file may name another (relative, or through a path
alias such as `@/` for `apps/mesh/src/`), extensions aside, and a file's
imports re-spelled for where it and the files it imports actually are."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from .find import module_stem

# An alias prefix -> the folder it stands for, relative to the checkout
# (tsconfig `paths`): {"@/": "apps/mesh/src/"}.
Aliases = Mapping[str, str]


def resolve(importer: str, specifier: str, aliases: Aliases) -> str | None:
    """The checkout path ``specifier`` names from the file ``importer``,
    as spelled (with or without an extension); None for a package."""
    for prefix, folder in aliases.items():
        if specifier.startswith(prefix):
            return posixpath.normpath(folder + specifier[len(prefix):])
    if specifier.startswith(("./", "../")):
        return posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
    return None


def relative(importer: str, target: str) -> str:
    """``target`` named relatively from the file ``importer``."""
    path = posixpath.relpath(target, posixpath.dirname(importer) or ".")
    return path if path.startswith("../") else "./" + path


def aliased(target: str, aliases: Aliases) -> str | None:
    """``target`` named through the first alias whose folder holds it."""
    for prefix, folder in aliases.items():
        if target.startswith(folder):
            return prefix + target[len(folder):]
    return None


def spellings(importer: str, target: str, aliases: Aliases) -> tuple[str, ...]:
    """Every way ``importer`` may name the file ``target``, without its
    extension: relatively, then through each alias that reaches it."""
    stem = module_stem(target)
    alias = aliased(stem, aliases)
    return (relative(importer, stem),) + ((alias,) if alias else ())


def spell(importer: str, target: str, aliases: Aliases, *, alias: bool, extension: bool) -> str:
    """The specifier ``importer`` names ``target`` by: through an alias
    when ``alias`` and one reaches it, else relatively; with the target's
    extension when ``extension``."""
    named = (aliased(target, aliases) if alias else None) or relative(importer, target)
    return named if extension else module_stem(named)


_SOURCE = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(["'])([^"'\n]+)\2""")


def relocate(text: str, usual: str, actual: str, located: Mapping[str, str], aliases: Aliases) -> str:
    """``text``, written for the path ``usual``, with its imports of files
    of the checkout named for where they are (``located``: usual path ->
    actual path of each file found elsewhere) from ``actual``, each kept in
    its spelling (an alias stays an alias where one reaches the file, an
    extension stays)."""
    by_stem = {module_stem(path): target for path, target in located.items()}
    if usual == actual and not by_stem:
        return text

    def respelled(match: re.Match) -> str:
        specifier = match.group(3)
        target = resolve(usual, specifier, aliases)
        if target is None:
            return match.group(0)
        moved = by_stem.get(module_stem(target))
        if moved is None and usual == actual:
            return match.group(0)
        has_extension = module_stem(specifier) != specifier
        destination = moved if moved is not None else target
        if not has_extension:
            destination = module_stem(destination)
        alias = any(specifier.startswith(prefix) for prefix in aliases)
        new = spell(actual, destination, aliases, alias=alias, extension=True)
        return f"{match.group(1)}{match.group(2)}{new}{match.group(2)}"

    return _SOURCE.sub(respelled, text)
