"""One writer per checkout: a lock file outside the checkout.

The lock lives in the system's temporary directory, named after the
checkout's real path, so the tool never creates files in the repository it
edits. A second run waits up to its timeout, then refuses.
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
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + max(timeout, 0)
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
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
