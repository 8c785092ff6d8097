"""The release floor, and the one store of what the releases since it
write into the files the tool creates (SPEC 5a, "Earlier releases").

A release is its templates, by name: ``templates/`` holds this release's,
``releases/<version>/`` an earlier release's, under the same names (when a
release ships, the one before it is recorded there: a copy of its
``templates/``). Each step renders a release's templates for the checkout
at hand (its wiring, its store's class name, where its files are), and the
plan compares a created file with those renderings, never with recorded
bytes. A created file whose template a release lacks is one a later
release created.

Nothing older than the floor is kept or recognised: raising it is the
line below and the deletion of the older folders under ``releases/`` and
of the forms the recipes keep for those releases.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from types import MappingProxyType

from ... import __version__
from ..base import Release

# The oldest release whose output the tool upgrades: 0.6.0, commit
# 4febe94b24848627e5f8d362967d9fe8a6347f1d.
FLOOR = "0.6.0"

_HERE = Path(__file__).parent


def _read(folder: Path) -> Mapping[str, str]:
    return MappingProxyType({p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.ts"))})


@cache
def _earlier() -> dict[str, Release]:
    folders = [p for p in (_HERE / "releases").glob("*") if p.is_dir()]
    # one left below the floor is not recognised
    return {p.name: Release(p.name, _read(p)) for p in folders if version_key(p.name) >= version_key(FLOOR)}


@cache
def current() -> Release:
    """This release's templates."""
    return Release(__version__, _read(_HERE / "templates"))


def releases() -> tuple[Release, ...]:
    """This release, then every earlier release since the floor, newest
    first."""
    earlier = sorted(_earlier().values(), key=lambda r: version_key(r.version), reverse=True)
    return (current(), *earlier)


@contextmanager
def recorded(version: str, templates: Mapping[str, str]):
    """The store with one more earlier release, ``version`` with
    ``templates``, for the duration: how the upgrade's tests stand in for a
    release the store does not hold yet."""
    store = _earlier()
    if version in store or version == __version__:
        raise ValueError(f"the store already holds {version}")
    store[version] = Release(version, MappingProxyType(dict(templates)))
    try:
        yield store[version]
    finally:
        del store[version]


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))
