"""The files of a checkout that contain a text: how a file the team moved
is found again (by what it defines, not by its path)."""

from __future__ import annotations

import os
from pathlib import Path

SKIP_DIRS = {"node_modules", ".git", "dist", "build", ".turbo", ".next", "coverage"}


def files_containing(repo: Path, text: str) -> list[str]:
    """The TypeScript files of the checkout that contain ``text``: through
    `git grep` in a git checkout (tracked and untracked, not ignored),
    otherwise by walking the tree without dependency and build folders."""
    if (repo / ".git").exists():
        import subprocess  # only here: a moved file is rare, and the import is not free

        result = subprocess.run(
            ["git", "-C", str(repo), "grep", "--untracked", "-l", "-F", "-e", text, "--", "*.ts", "*.tsx"],
            capture_output=True,
            text=True,
        )
        if result.returncode in (0, 1):
            return sorted(line for line in result.stdout.splitlines() if line)
    needle = text.encode()
    hits = []
    for folder, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in files:
            if name.endswith((".ts", ".tsx")):
                path = Path(folder) / name
                try:
                    if needle in path.read_bytes():
                        hits.append(path.relative_to(repo).as_posix())
                except OSError:
                    continue
    return sorted(hits)


def files_containing_each(repo: Path, texts: list[str]) -> dict[str, list[str]]:
    """:func:`files_containing` for each of ``texts``, in one search of the
    checkout (one `git grep` for them all, or one walk): each file that
    holds any of them is read once to tell which."""
    wanted = list(dict.fromkeys(texts))
    if len(wanted) < 2:
        return {text: files_containing(repo, text) for text in wanted}
    found: dict[str, list[str]] = {text: [] for text in wanted}
    needles = [(text, text.encode()) for text in wanted]
    for path, data in _holding_any(repo, wanted):
        for text, needle in needles:
            if needle in data:
                found[text].append(path)
    return {text: sorted(paths) for text, paths in found.items()}


def _holding_any(repo: Path, texts: list[str]):
    """(path, bytes) of each TypeScript file that holds one of ``texts``."""
    if (repo / ".git").exists():
        import subprocess  # only here: a moved file is rare, and the import is not free

        patterns = [part for text in texts for part in ("-e", text)]
        result = subprocess.run(
            ["git", "-C", str(repo), "grep", "--untracked", "-l", "-F", *patterns, "--", "*.ts", "*.tsx"],
            capture_output=True,
            text=True,
        )
        if result.returncode in (0, 1):
            for line in result.stdout.splitlines():
                if line:
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

