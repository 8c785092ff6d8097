"""What earlier releases wrote, recognised by content.

A file the tool created is known by the digest of its text: line endings
and a byte-order mark do not count (the checkout's git settings may change
them), every other byte does.
"""

from __future__ import annotations

import hashlib


def text_digest(data: bytes | str) -> str:
    """sha256 of the text with LF line endings and no BOM, in hex."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    raw = raw.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")
    return hashlib.sha256(raw).hexdigest()
