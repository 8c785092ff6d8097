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

