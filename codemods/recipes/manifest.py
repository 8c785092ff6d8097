"""A package's package.json, read the one way every part of the tool reads it,
and the lock files its dependencies are installed from."""

from __future__ import annotations

import json
from pathlib import Path

LOCK_FILES = ("bun.lock", "bun.lockb", "package-lock.json", "pnpm-lock.yaml", "yarn.lock")


def read_manifest(folder: Path) -> dict:
    """The package.json of ``folder``; empty when it is missing, unreadable,
    not JSON or not an object."""
    try:
        manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def package_version(folder: Path) -> str:
    """The version the package.json of ``folder`` declares; "" when none."""
    version = read_manifest(folder).get("version")
    return version if isinstance(version, str) else ""
