"""Trees for the checks: a commit's files with the checkout's installed
dependencies linked in, and what a change touches."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import git

from ..engine.files import SKIP_DIRS
from ..recipes.manifest import LOCK_FILES
from .repository import exported_tree


def changed_files(repo: git.Repo, base: str, against: str | None = None) -> dict[str, bytes | None]:
    """The files that ``against`` (a commit; None: the working tree,
    untracked files included) changes from ``base``, each as it is in
    ``base`` (None where ``base`` has no such file)."""
    compared = [base, against] if against else [base]
    paths = repo.git.diff("--name-only", "-z", "--no-renames", *compared, "--").split("\0")
    if against is None:
        paths += repo.git.ls_files("--others", "--exclude-standard", "-z").split("\0")
    in_base = {
        line.split("\t", 1)[1]: line.split()[2]
        for line in repo.git.ls_tree("-r", "-z", base, "--", *filter(None, paths)).split("\0")
        if line and line.split()[1] == "blob"
    } if any(paths) else {}
    return {
        path: repo.odb.stream(bytes.fromhex(in_base[path])).read() if path in in_base else None
        for path in dict.fromkeys(filter(None, paths))
    }


def dependency_folders(checkout: Path) -> list[str]:
    """The checkout's installed ``node_modules`` folders (root and
    workspaces, not inside one another or a build folder), relative to it."""
    found = []
    for folder, dirs, _ in os.walk(checkout):
        if "node_modules" in dirs:
            found.append(Path(folder, "node_modules").relative_to(checkout).as_posix())
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
    return found


@contextmanager
def tree_with_dependencies(repo: git.Repo, rev: str) -> Iterator[Path]:
    """The files of ``rev`` in a temporary folder, with the checkout's
    ``node_modules`` folders linked in, so the repo's own tools run there."""
    checkout = Path(repo.working_tree_dir)
    with exported_tree(repo, rev) as tree:
        for relative in dependency_folders(checkout):
            link = tree / relative
            # only into a real folder of the copy: never through a link of the tree
            if _real_folder_below(tree, link.parent) and not os.path.lexists(link):
                os.symlink(checkout / relative, link)
        yield tree


def _real_folder_below(root: Path, folder: Path) -> bool:
    current = root
    for part in folder.relative_to(root).parts:
        current = current / part
        if current.is_symlink() or not current.is_dir():
            return False
    return True


def lock_digest(checkout: Path) -> str:
    """What the installed dependencies were installed from."""
    import hashlib

    digest = hashlib.sha256()
    for name in LOCK_FILES:
        path = checkout / name
        if path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]
