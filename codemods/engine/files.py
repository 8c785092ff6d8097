"""The files of a checkout that contain a text: how a file the team moved
is found again (by what it defines, not by its path)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

SKIP_DIRS = {"node_modules", ".git", "dist", "build", ".turbo", ".next", "coverage"}


def files_containing(repo: Path, text: str) -> list[str]:
    """The TypeScript files of the checkout that contain ``text``."""
    return files_containing_each(repo, [text])[text]


def files_containing_each(repo: Path, texts: Iterable[str]) -> dict[str, list[str]]:
    """For each of ``texts``, the TypeScript files of the checkout that
    contain it, in one search: `git grep` in a git checkout (tracked and
    untracked, not ignored), otherwise a walk of the tree without
    dependency and build folders. Each file that holds any of them is read
    once to tell which."""
    found: dict[str, list[str]] = {text: [] for text in texts}
    needles = [(text, text.encode()) for text in found]
    for path, data in _holding_any(repo, list(found)):
        for text, needle in needles:
            if needle in data:
                found[text].append(path)
    return {text: sorted(paths) for text, paths in found.items()}


def _holding_any(repo: Path, texts: list[str]) -> Iterable[tuple[str, bytes]]:
    """(path, bytes) of each TypeScript file that holds one of ``texts``."""
    if not texts:
        return
    if (repo / ".git").exists():
        patterns = [part for text in texts for part in ("-e", text)]
        result = subprocess.run(
            ["git", "-C", str(repo), "grep", "--untracked", "-l", "-F", *patterns, "--", "*.ts", "*.tsx"],
            capture_output=True,
            text=True,
        )
        if result.returncode in (0, 1):
            for line in result.stdout.splitlines():
                path = repo / line
                try:  # what git searched: a link's own text, else the file's bytes
                    yield line, os.fsencode(os.readlink(path)) if path.is_symlink() else path.read_bytes()
                except OSError:
                    continue
            return
    needles = [text.encode() for text in texts]
    for folder, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in files:
            if name.endswith((".ts", ".tsx")):
                path = Path(folder) / name
                try:
                    data = path.read_bytes()
                except OSError:
                    continue
                if any(needle in data for needle in needles):
                    yield path.relative_to(repo).as_posix(), data
