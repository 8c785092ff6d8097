"""One writer per checkout: a lock file outside the checkout.

The lock lives in the system's temporary directory, named after the
checkout's real path, so the tool never creates files in the repository it
edits. A second run waits up to its timeout, then refuses. The run that
holds the lock removes its file as it lets go, so none is left behind; a
run that was waiting on the removed file locks the next one instead.
"""

from __future__ import annotations

import fcntl
import os
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class Busy(Exception):
    """Another run holds the checkout's lock."""


def lock_path(repo: Path) -> Path:
    # crc32 and adler32 together: a 64-bit name without loading OpenSSL.
    key = str(repo.resolve()).encode()
    digest = f"{zlib.crc32(key):08x}{zlib.adler32(key):08x}"
    return Path(os.environ.get("TMPDIR") or "/tmp") / f"mesh-codemod-{digest}.lock"


@contextmanager
def repo_lock(repo: Path, timeout: float) -> Iterator[None]:
    path = lock_path(repo)
    deadline = time.monotonic() + max(timeout, 0)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise Busy(
                            f"{repo}: another mesh-codemod run is working on this checkout "
                            f"(waited {timeout:g}s for {path})"
                        ) from None
                    time.sleep(0.05)
            try:
                current = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                current = False
        except BaseException:
            os.close(fd)
            raise
        if current:
            break
        os.close(fd)  # the run before removed this file as it let go: lock the one there now
    try:
        yield
    finally:
        os.unlink(path)  # while it is held: a run waiting on it will find it gone
        os.close(fd)
