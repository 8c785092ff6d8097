"""The YAML our workflow and action files use, read into Python values:
block mappings and sequences, `|` block scalars, plain, single- and
double-quoted scalars, `{}`, and comments. Enough to run those files'
steps in tests (tests/workflow_run.py); anything else is an error."""

from __future__ import annotations

import json
import re


def _strip_comment(line: str) -> str:
    quote = None
    for index, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (index == 0 or line[index - 1] in " \t"):
            return line[:index].rstrip()
    return line.rstrip()


def _scalar(text: str):
    text = text.strip()
    if text == "{}":
        return {}
    if text == "[]":
        return []
    if text.startswith('"') and text.endswith('"') and len(text) > 1:
        return json.loads(text)
    if text.startswith("'") and text.endswith("'") and len(text) > 1:
        return text[1:-1].replace("''", "'")
    return text


class _Lines:
    def __init__(self, text: str) -> None:
        self.raw = text.splitlines()
        self.index = 0

    def next_content(self) -> tuple[int, str] | None:
        """The next non-blank, non-comment line: (indent, text), not consumed."""
        while self.index < len(self.raw):
            line = _strip_comment(self.raw[self.index])
            if line.strip():
                return len(line) - len(line.lstrip(" ")), line.strip()
            self.index += 1
        return None


def _block_scalar(lines: _Lines, parent: int) -> str:
    body, indent = [], None
    while lines.index < len(lines.raw):
        line = lines.raw[lines.index]
        if line.strip():
            current = len(line) - len(line.lstrip(" "))
            if current <= parent:
                break
            indent = current if indent is None else indent
            body.append(line[indent:])
        else:
            body.append("")
        lines.index += 1
    while body and not body[-1]:
        body.pop()
    return "\n".join(body) + "\n"


def _value(lines: _Lines, rest: str, indent: int):
    if rest in ("|", "|-"):
        return _block_scalar(lines, indent)
    if rest:
        return _scalar(rest)
    following = lines.next_content()
    if following is None or following[0] <= indent and not following[1].startswith("- "):
        return None
    return _node(lines, following[0])


def _mapping_entry(lines: _Lines, text: str, indent: int, into: dict) -> None:
    match = re.match(r'^("[^"]*"|[^:]+?):(?:\s+(.*))?$', text)
    if not match:
        raise ValueError(f"line {lines.index + 1}: not YAML this reader knows: {text!r}")
    key = _scalar(match[1])
    lines.index += 1
    into[key] = _value(lines, (match[2] or "").strip(), indent)


def _node(lines: _Lines, indent: int):
    first = lines.next_content()
    if first[1].startswith("- "):
        items = []
        while (line := lines.next_content()) and line[0] == indent and line[1].startswith("- "):
            inner = line[1][2:]
            inner_indent = indent + 2
            if re.match(r'^("[^"]*"|[^:"\']+?):(\s|$)', inner):
                item: dict = {}
                _mapping_entry(lines, inner, inner_indent, item)
                while (more := lines.next_content()) and more[0] == inner_indent and not more[1].startswith("- "):
                    _mapping_entry(lines, more[1], inner_indent, item)
                items.append(item)
            else:
                lines.index += 1
                items.append(_scalar(inner))
        return items
    mapping: dict = {}
    while (line := lines.next_content()) and line[0] == indent:
        if line[1].startswith("- "):
            break
        _mapping_entry(lines, line[1], indent, mapping)
    return mapping


def load(text: str):
    lines = _Lines(text)
    first = lines.next_content()
    return {} if first is None else _node(lines, first[0])
