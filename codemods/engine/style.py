"""How a file is to be written: read once from the repository's formatter
configuration (Biome's ``biome.json`` / ``biome.jsonc``) and the file itself.

The configuration decides what it states; where it is silent, or where the
file plainly disagrees with it (indentation and quotes can be seen in the
file), the file wins, because the edit must look like the code around it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from typing import NamedTuple

# An indented line that is not inside a doc comment (`` * ...``).
_INDENT = re.compile(rb"^([ \t]+)[^\s*]", re.MULTILINE)
# Biome's and Prettier's default line width.
LINE_WIDTH = 80
# The names of Biome's configuration file at a project's root.
CONFIG_FILES = ("biome.json", "biome.jsonc")


class Style(NamedTuple):
    """Everything layout needs to know about one file's formatting."""

    indent: str = "  "  # one level: spaces or a tab
    quote: str = '"'
    line_width: int = LINE_WIDTH
    semicolons: bool = True  # False: Biome's "asNeeded"
    trailing_commas: str = "all"  # "all", "es5" or "none"
    eol: str = "\n"
    # Biome measures a tab as indentWidth columns (2 by default).
    indent_width: int = 2

    @property
    def tab_width(self) -> int:
        """How wide a tab counts towards the line width."""
        return len(self.indent) if self.indent != "\t" else self.indent_width

    def width_of(self, text: str) -> int:
        return len(text.expandtabs(self.tab_width))


class FormatterConfig(NamedTuple):
    """What a repository's formatter configuration states; None where silent."""

    indent_style: str | None = None
    indent_width: int | None = None
    line_width: int | None = None
    quote_style: str | None = None
    semicolons: str | None = None
    trailing_commas: str | None = None
    line_ending: str | None = None
    source: str = ""  # the file it came from, for messages


def read_config(repo: Path) -> FormatterConfig:
    """The formatter settings of ``biome.json`` or ``biome.jsonc`` at the
    checkout's root (comments and trailing commas allowed); an empty config
    when there is none or it cannot be read."""
    for name in CONFIG_FILES:
        path = repo / name
        if path.is_file():
            try:
                data = parse_jsonc(path.read_text(encoding="utf-8"))
            except (ValueError, OSError):
                return FormatterConfig(source=name)
            return _settings(data, name) if isinstance(data, dict) else FormatterConfig(source=name)
    return FormatterConfig()


def _settings(data: dict, source: str) -> FormatterConfig:
    general = data.get("formatter") if isinstance(data.get("formatter"), dict) else {}
    js = data.get("javascript", {})
    js = js.get("formatter", {}) if isinstance(js, dict) else {}
    js = js if isinstance(js, dict) else {}

    def pick(key: str, kind: type, scopes: tuple[dict, ...] = (js, general)):
        for scope in scopes:
            value = scope.get(key)
            if isinstance(value, kind) and not isinstance(value, bool):
                return value
        return None

    return FormatterConfig(
        indent_style=pick("indentStyle", str),
        indent_width=pick("indentWidth", int),
        line_width=pick("lineWidth", int),
        # Settings that only javascript.formatter has.
        quote_style=pick("quoteStyle", str, (js,)),
        semicolons=pick("semicolons", str, (js,)),
        trailing_commas=pick("trailingCommas", str, (js,)),
        line_ending=pick("lineEnding", str),
        source=source,
    )


def parse_jsonc(text: str):
    """JSON with ``//`` and ``/* */`` comments and trailing commas."""
    import json

    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i == -1 else i
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end == -1 else end + 2
        else:
            out.append(c)
            i += 1
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", "".join(out)))


def style_for(data: bytes, config: FormatterConfig = FormatterConfig(), strings: Iterable[bytes] = ()) -> Style:
    """The one Style for a file: ``data`` is its text and ``strings`` the
    first bytes of its string literals (both empty for a new file)."""
    unit = _config_indent(config)
    seen = _file_indent(data, len(unit) if unit != "\t" else 2)
    if seen is not None and seen != unit:
        unit = seen  # the file disagrees: match the file
    quote = '"' if config.quote_style != "single" else "'"
    counts = Counter(strings)
    if counts[b"'"] > counts[b'"']:
        quote = "'"
    elif counts[b'"'] > counts[b"'"]:
        quote = '"'
    crlf = data.count(b"\r\n")
    if data.count(b"\n"):
        eol = "\r\n" if crlf and crlf * 2 >= data.count(b"\n") else "\n"
    else:
        eol = "\r\n" if config.line_ending == "crlf" else "\n"
    return Style(
        indent=unit,
        quote=quote,
        line_width=config.line_width or LINE_WIDTH,
        semicolons=config.semicolons != "asNeeded",
        trailing_commas=config.trailing_commas if config.trailing_commas in ("all", "es5", "none") else "all",
        eol=eol,
        indent_width=config.indent_width or 2,
    )


def _config_indent(config: FormatterConfig) -> str:
    if config.indent_style == "tab":
        return "\t"
    return " " * (config.indent_width or 2)


def _file_indent(data: bytes, expected: int) -> str | None:
    """The indentation step the file's lines show, None when it shows none.
    Lines of a doc comment (`` * ``) are one space off the step and say
    nothing about it."""
    indents = [i for i in _INDENT.findall(data)]
    if not indents:
        return None
    tabs = sum(1 for i in indents if i.startswith(b"\t"))
    if tabs * 2 > len(indents):
        return "\t"
    widths = Counter(len(i) for i in indents if b"\t" not in i)
    if not widths:
        return None
    # The widest step that every indented line (nearly) is a multiple of.
    total = sum(widths.values())
    for step in (8, 4, 3, 2):
        if step in (8, 3) and step != expected:
            continue
        covered = sum(count for width, count in widths.items() if width % step == 0)
        if covered * 10 >= total * 9:
            return " " * step
    return None
