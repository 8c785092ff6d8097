"""A package's package.json, read the one way every part of the tool reads it."""

from __future__ import annotations

import json
from pathlib import Path


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
