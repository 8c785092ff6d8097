"""Module specifiers between the files of a checkout: where an import
points, every way one file may name another (relative, through a path
alias such as `@/` for `apps/mesh/src/`, or through a workspace package's
name such as `@decocms/mesh/`), extensions aside, and a file's imports
re-spelled for where it and the files it imports actually are. One file is
one module, whichever way it is spelled (SPEC 10)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from .find import module_stem


class Aliases(Mapping[str, str]):
    """The prefixes that name folders of the checkout, by importer: each
    workspace package's tsconfig `paths` (``scoped``: package folder ->
    prefix -> folder), valid in that package only, and the workspace
    packages' names with their `exports` (``packages``), valid anywhere.
    As a mapping, the ``default`` prefixes: those of a package without
    `paths` of its own ({"@/": "apps/mesh/src/"})."""

    def __init__(
        self, default: Mapping[str, str] = {}, scoped: Mapping[str, Mapping[str, str]] = {},
        packages: Mapping[str, str] = {},
    ) -> None:
        self.default = dict(default)
        self.scoped = {folder: dict(paths) for folder, paths in scoped.items()}
        self.packages = dict(packages)

    def __getitem__(self, key: str) -> str:
        return self.default[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.default)

    def __len__(self) -> int:
        return len(self.default)

    def own(self, importer: str) -> dict[str, str]:
        """The `paths` of ``importer``'s package (else the default)."""
        owner = max((f for f in self.scoped if importer.startswith(f)), key=len, default=None)
        return self.scoped[owner] if owner is not None else self.default

    def of(self, importer: str) -> dict[str, str]:
        """prefix -> folder, as ``importer`` may use them: its package's
        `paths` and the workspace packages' names, the longest prefix
        first."""
        found = {**self.packages, **self.own(importer)}
        return dict(sorted(found.items(), key=lambda item: -len(item[0])))


def prefixes(importer: str, aliases: Mapping[str, str]) -> dict[str, str]:
    """The alias prefixes ``importer`` may use (a plain mapping: all of them)."""
    return aliases.of(importer) if isinstance(aliases, Aliases) else dict(aliases)


def resolve(importer: str, specifier: str, aliases: Mapping[str, str]) -> str | None:
    """The checkout path ``specifier`` names from the file ``importer``,
    as spelled (with or without an extension); None for a package."""
    for prefix, folder in prefixes(importer, aliases).items():
        if specifier.startswith(prefix):
            return posixpath.normpath(folder + specifier[len(prefix):])
    if specifier.startswith(("./", "../")):
        return posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
    return None


def relative(importer: str, target: str) -> str:
    """``target`` named relatively from the file ``importer``."""
    path = posixpath.relpath(target, posixpath.dirname(importer) or ".")
    return path if path.startswith("../") else "./" + path


def _aliased(importer: str, target: str, aliases: Mapping[str, str]) -> list[str]:
    """``target`` named through each alias ``importer`` may use whose
    folder holds it: its own package's first, then the workspace
    packages' names; the nearest folder first in each."""
    groups = [aliases.own(importer), aliases.packages] if isinstance(aliases, Aliases) else [dict(aliases)]
    return [
        prefix + target[len(folder):]
        for group in groups
        for prefix, folder in sorted(group.items(), key=lambda item: -len(item[1]))
        if target.startswith(folder)
    ]


def aliased(target: str, aliases: Mapping[str, str], importer: str = "") -> str | None:
    """``target`` named through the first alias (that ``importer`` may
    use) whose folder holds it."""
    named = _aliased(importer, target, aliases)
    return named[0] if named else None


def spellings(importer: str, target: str, aliases: Mapping[str, str]) -> tuple[str, ...]:
    """Every way ``importer`` may name the file ``target``, without its
    extension: relatively, then through each alias that reaches it (a
    path alias, a workspace package's name)."""
    stem = module_stem(target)
    return (relative(importer, stem), *_aliased(importer, stem, aliases))


def spell(importer: str, target: str, aliases: Mapping[str, str], *, alias: bool, extension: bool) -> str:
    """The specifier ``importer`` names ``target`` by: through an alias
    when ``alias`` and one reaches it, else relatively; with the target's
    extension when ``extension``."""
    named = (aliased(target, aliases, importer) if alias else None) or relative(importer, target)
    return named if extension else module_stem(named)


_SOURCE = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(["'])([^"'\n]+)\2""")


def relocate(text: str, usual: str, actual: str, located: Mapping[str, str], aliases: Mapping[str, str]) -> str:
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
        alias = any(specifier.startswith(prefix) for prefix in prefixes(usual, aliases))
        new = spell(actual, destination, aliases, alias=alias, extension=True)
        return f"{match.group(1)}{match.group(2)}{new}{match.group(2)}"

    return _SOURCE.sub(respelled, text)


def _json(path: Path):
    from .style import parse_jsonc

    try:
        return parse_jsonc(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def workspace_aliases(root: Path, default: Mapping[str, str]) -> Aliases:
    """The checkout's aliases: the tsconfig `paths` of each workspace
    package (the root package.json's `workspaces` globs, and the root), and
    each workspace package's name with its `exports` subpath patterns
    (``"./*": "./src/*"``). ``default``: the prefixes of a package without
    `paths`. Reads only those few files, whatever the size of the tree."""
    manifest = _json(root / "package.json")
    globs = manifest.get("workspaces") if isinstance(manifest, dict) else None
    if isinstance(globs, dict):  # {"packages": [...]}
        globs = globs.get("packages")
    folders = [""] + sorted(
        p.relative_to(root).as_posix() + "/"
        for pattern in (globs if isinstance(globs, list) else []) if isinstance(pattern, str) and ".." not in pattern
        for p in root.glob(pattern.rstrip("/")) if p.is_dir() and not p.is_symlink()
    )
    scoped: dict[str, dict[str, str]] = {}
    packages: dict[str, str] = {}
    for folder in folders:
        config = _json(root / folder / "tsconfig.json")
        options = config.get("compilerOptions") if isinstance(config, dict) else None
        paths = options.get("paths") if isinstance(options, dict) else None
        if isinstance(paths, dict):
            base = options.get("baseUrl", ".") if isinstance(options.get("baseUrl", "."), str) else "."
            own = {}
            for pattern, targets in paths.items():
                if pattern.endswith("*") and isinstance(targets, list) and targets and str(targets[0]).endswith("*"):
                    where = posixpath.normpath(posixpath.join(folder, base, str(targets[0])[:-1]))
                    if not where.startswith(".."):
                        own[pattern[:-1]] = where + "/"
            if own:
                scoped[folder] = own
        package = _json(root / folder / "package.json") if folder else None
        name = package.get("name") if isinstance(package, dict) else None
        exports = package.get("exports") if isinstance(package, dict) else None
        if isinstance(name, str) and isinstance(exports, dict):
            for key, value in exports.items():
                while isinstance(value, (dict, list)) and value:
                    value = value[0] if isinstance(value, list) else next(
                        (value[k] for k in ("types", "import", "default") if k in value), next(iter(value.values()))
                    )
                if key.startswith("./") and key.endswith("/*") and isinstance(value, str) and value.endswith("/*"):
                    where = posixpath.normpath(posixpath.join(folder, value[:-1]))
                    if not where.startswith(".."):
                        packages[name + key[1:-1]] = where + "/"
    return Aliases(default, scoped, packages)
