"""JSON that others wrote, as the publishing side reads it (SPEC 8): the
build job's manifest, the base's lockfile. Its nesting is measured before
it is parsed, and a deeper document is refused unparsed; bun.lock's
trailing commas are read (bun writes JSON with them)."""

from __future__ import annotations

import json
import re

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_TRAILING = re.compile(r'("(?:[^"\\]|\\.)*")|,(\s*[\]}])')


def loads(text: str, depth: int, trailing_commas: bool = False) -> object:
    """The value of ``text``; ValueError when it is not JSON (with
    ``trailing_commas``, a comma may close an array or an object) or is
    nested more than ``depth`` arrays and objects deep."""
    if nesting(text) > depth:
        raise ValueError(f"nested more than {depth} deep")
    if trailing_commas:
        text = _TRAILING.sub(lambda m: m[1] or m[2], text)
    return json.loads(text)


def nesting(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (outside strings)."""
    deepest = level = 0
    for bracket in re.findall(r"[\[\]{}]", _STRING.sub("", text)):
        level += 1 if bracket in "[{" else -1
        deepest = max(deepest, level)
    return deepest
