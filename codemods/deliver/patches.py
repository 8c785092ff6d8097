"""The series as `git am` files (`patch --out`)."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path


from ..plan.repository import GitProblem, isolated_env, isolated_git_dir
from ..plan.baseline import TRAILER
from .build import Series


_SERIES_FILE = re.compile(r"^\d{4}-.*\.patch$")


def write_patches(series: Series, out: Path) -> list[Path]:
    """Write the series as `git am` input, ``0001-*.patch`` onward, replacing
    an earlier series the tool wrote in ``out`` (its patches carry the
    trailer); other files there, other patches included, are left alone.
    With nothing to write, nothing is removed either."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".mesh-codemod-patches-", dir=out, ignore_cleanup_errors=True) as name:
        staging = Path(name)
        if series.commits:
            with isolated_git_dir(series.repo) as git_dir:
                series.repo.git.execute(
                    [
                        "git", f"--git-dir={git_dir}", "-c", "core.abbrev=12", "format-patch",
                        "--numbered", "--no-signature", "--no-renames", "--minimal",
                        "-o", str(staging), f"{series.base}..{series.tip}",
                    ],
                    env=isolated_env(),
                )
        if not series.commits:
            return []
        # checked before anything is removed: a refusal leaves the folder as it was
        stale = [p for p in out.iterdir() if _SERIES_FILE.match(p.name) and is_our_patch(p)]
        ours = {p.name for p in stale}
        clashes = sorted(m.name for m in staging.iterdir() if os.path.lexists(out / m.name) and m.name not in ours)
        if clashes:
            raise GitProblem(f"{out / clashes[0]} is in the way and mesh-codemod did not write it; nothing written")
        for path in stale:
            path.unlink()
        written = []
        for made in sorted(staging.iterdir()):
            target = out / made.name
            os.replace(made, target)
            written.append(target)
        return written


_PATCH_START = re.compile(rb"^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001\n")


def is_our_patch(path: Path) -> bool:
    """A patch file of a series this tool wrote: a plain file in
    format-patch's form whose commit message ends with the trailer."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with path.open("rb") as stream:
            head = stream.read(1 << 16)
    except OSError:
        return False
    if not _PATCH_START.match(head):
        return False
    message = head.split(b"\n---\n", 1)[0]
    return TRAILER.encode() in message.splitlines()
