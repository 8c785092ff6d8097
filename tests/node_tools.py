"""Where the Node tools of tools/package-lock.json live, and what a test does
when one is missing: on a developer machine it is skipped with the reason; in
CI (`CI` set) it fails, because CI installs everything (`.ci/run`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .support import ROOT

TOOLS = ROOT / "tools"
NODE_MODULES = TOOLS / "node_modules"
BIN = NODE_MODULES / ".bin"
CHROMIUM = Path("/usr/bin/chromium")
# the schema toolchain the tool itself runs on an SDK checkout without
# node_modules (codemods/recipes/sdk/pinned.py)
PINNED_SCHEMAS = NODE_MODULES / "ts-to-zod" / "package.json"


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


def require(path: Path, what: str, how: str = "scripts/setup --node") -> Path:
    """Return ``path``; if it is missing, skip (developer machine) or fail (CI)."""
    if path.exists():
        return path
    message = f"{what} not found at {path} ({how})"
    if in_ci():
        pytest.fail(f"CI is set but {message}", pytrace=False)
    pytest.skip(message)


def require_pinned_schemas() -> None:
    """The SDK fixtures' expected generated files are the pinned toolchain's
    output: without it the tool would write them by hand."""
    require(PINNED_SCHEMAS, "the pinned schema toolchain (ts-to-zod)")
