"""JSON laid out the way Prettier prints a generator's ``JSON.stringify``
output: every non-empty object one key per line, an array of scalars on one
line when it fits the line width, otherwise one item per line.

Used to edit generated JSON files without touching any byte that the edit
does not change: a file is edited only when laying out what was parsed gives
back exactly the file's bytes.
"""

from __future__ import annotations

import json
from typing import Any

from .style import LINE_WIDTH


def layout(value: Any, indent: str = "  ", width: int = LINE_WIDTH) -> str:
    """The whole document, with a final newline."""
    return _value(value, 0, 0, "", indent, width) + "\n"


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _value(value: Any, depth: int, column: int, tail: str, indent: str, width: int) -> str:
    """``value`` printed at nesting ``depth``, starting at ``column``, with
    ``tail`` (a comma or nothing) following it on its last line."""
    inner = indent * (depth + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = list(value.items())
        lines = []
        for index, (key, item) in enumerate(items):
            comma = "," if index < len(items) - 1 else ""
            head = f"{inner}{_scalar(key)}: "
            lines.append(head + _value(item, depth + 1, len(head), comma, indent, width) + comma)
        return "{\n" + "\n".join(lines) + "\n" + indent * depth + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        if all(not isinstance(v, (dict, list)) for v in value):
            flat = "[" + ", ".join(_scalar(v) for v in value) + "]"
            if column + len(flat) + len(tail) <= width:
                return flat
        lines = []
        for index, item in enumerate(value):
            comma = "," if index < len(value) - 1 else ""
            lines.append(inner + _value(item, depth + 1, len(inner), comma, indent, width) + comma)
        return "[\n" + "\n".join(lines) + "\n" + indent * depth + "]"
    return _scalar(value)
