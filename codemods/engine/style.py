"""How a file is to be written: read once from the repository's formatter
configuration (Biome's ``biome.json`` / ``biome.jsonc``, or Prettier's
``.prettierrc*`` / ``package.json#prettier`` where the host formats with
Prettier) and the file itself.

The configuration decides what it states; where it is silent, or where the
file plainly disagrees with it (indentation and quotes can be seen in the
file), the file wins, because the edit must look like the code around it.
Both formatters print the same defaults (80 columns, two spaces, double
quotes, semicolons, trailing commas "all", spaces inside braces, an arrow's
parameter in parentheses), and the same layout where the options agree.
"""

from __future__ import annotations

import json
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
    bracket_spacing: bool = True  # `{ a }`, else `{a}`
    arrow_parens: bool = True  # `(a) => a`, else `a => a` where it may

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
    bracket_spacing: bool | None = None
    arrow_parentheses: str | None = None  # "always" or "asNeeded"
    source: str = ""  # the file it came from, for messages
    # what the report must say about the configuration (a file not read)
    notice: str = ""


def read_config(repo: Path) -> FormatterConfig:
    """The formatter settings at the checkout's root: Prettier's where the
    host formats with Prettier (:func:`formats_with_prettier`), else those
    of ``biome.json`` or ``biome.jsonc`` (comments and trailing commas
    allowed); an empty config when there is none or it cannot be read."""
    if formats_with_prettier(repo):
        return read_prettier(repo)
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
            if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
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
        bracket_spacing=pick("bracketSpacing", bool),
        arrow_parentheses=pick("arrowParentheses", str, (js,)),
        source=source,
    )


def parse_jsonc(text: str):
    """JSON with ``//`` and ``/* */`` comments and trailing commas."""
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


# --- Prettier ----------------------------------------------------------------

# Prettier's configuration files, in the order it looks for them in a
# folder, after `package.json` (which counts only with a "prettier" key).
PRETTIER_FILES = (
    ".prettierrc", ".prettierrc.json", ".prettierrc.yaml", ".prettierrc.yml", ".prettierrc.json5",
    ".prettierrc.js", "prettier.config.js", ".prettierrc.ts", "prettier.config.ts", ".prettierrc.mjs",
    "prettier.config.mjs", ".prettierrc.mts", "prettier.config.mts", ".prettierrc.cjs", "prettier.config.cjs",
    ".prettierrc.cts", "prettier.config.cts", ".prettierrc.toml",
)
# A configuration that is a program is not run: Prettier's defaults are assumed.
_PROGRAM = (".js", ".ts", ".mjs", ".mts", ".cjs", ".cts")
# Every file that says how a checkout is formatted, for whoever copies them.
FORMATTER_FILES = (*CONFIG_FILES, *PRETTIER_FILES, ".editorconfig", "package.json")
_RUNS_PRETTIER = re.compile(r"(?<![\w@/-])prettier(?![\w-])")


def formats_with_prettier(repo: Path) -> bool:
    """Whether the checkout formats with Prettier: a Prettier configuration
    (a ``.prettierrc*`` file, or a "prettier" key in the root
    ``package.json``), a script of that ``package.json`` that runs
    ``prettier``, and no Biome configuration that formats."""
    package = _package(repo)
    configured = "prettier" in package or any((repo / name).is_file() for name in PRETTIER_FILES)
    scripts = package.get("scripts")
    runs = isinstance(scripts, dict) and any(
        isinstance(command, str) and _RUNS_PRETTIER.search(command) for command in scripts.values()
    )
    return configured and runs and not _biome_formats(repo)


def _biome_formats(repo: Path) -> bool:
    """Whether a Biome configuration at the root leaves its formatter on."""
    for name in CONFIG_FILES:
        if (repo / name).is_file():
            try:
                data = parse_jsonc((repo / name).read_text(encoding="utf-8"))
            except (ValueError, OSError, UnicodeDecodeError):
                return True
            formatter = data.get("formatter") if isinstance(data, dict) else None
            return not (isinstance(formatter, dict) and formatter.get("enabled") is False)
    return False


def read_prettier(repo: Path) -> FormatterConfig:
    """Prettier's options at the checkout's root, read as data: the first
    of ``package.json#prettier`` and the ``.prettierrc*`` files, in
    Prettier's order. A configuration that is a program, or names a shared
    one, is not run: Prettier's defaults, with a notice naming it; its
    ``overrides`` are not read (a notice says so)."""
    package = _package(repo)
    for name in ("package.json", *PRETTIER_FILES):
        if name == "package.json":
            if "prettier" not in package:
                continue
            data, source = package["prettier"], "package.json#prettier"
        elif not (repo / name).is_file():
            continue
        elif name.endswith(_PROGRAM):
            return _prettier_defaults(repo, name, "a program, not read")
        else:
            source = name
            try:
                data = _prettier_data(repo / name)
            except (ValueError, OSError, UnicodeDecodeError):
                return _prettier_defaults(repo, name, "not readable")
        if isinstance(data, str):
            return _prettier_defaults(repo, source, f"names the shared configuration {data!r}, not read")
        if not isinstance(data, dict):
            return _prettier_defaults(repo, source, "not a mapping")
        config = _prettier_options(data, _prettier_defaults(repo, source))
        if data.get("overrides"):
            return config._replace(notice=f"{source}: its overrides are not read")
        return config
    return _prettier_defaults(repo, "")


def _prettier_defaults(repo: Path, source: str, problem: str = "") -> FormatterConfig:
    """Prettier's defaults: Biome's but for trailing commas before Prettier 3
    (``es5``), as the root package.json's dependency on it says."""
    package = _package(repo)
    wanted = next(
        (found["prettier"] for key in ("devDependencies", "dependencies")
         if isinstance(found := package.get(key), dict) and isinstance(found.get("prettier"), str)),
        "",
    )
    major = re.search(r"\d+", wanted)
    commas = "es5" if major and int(major.group()) < 3 else None
    notice = f"{source}: {problem}; Prettier's defaults are used" if problem else ""
    return FormatterConfig(trailing_commas=commas, source=source, notice=notice)


def _prettier_data(path: Path):
    text = path.read_text(encoding="utf-8")
    if path.name.endswith(".toml"):
        import tomllib

        return tomllib.loads(text)
    if path.name.endswith((".json", ".json5")):
        return parse_jsonc(text)
    import yaml  # YAML, or JSON (which YAML reads)

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError) as err:
        raise ValueError(str(err)) from None


def _prettier_options(data: dict, config: FormatterConfig) -> FormatterConfig:
    """Prettier's options as the settings they are (Biome's words)."""

    def given(key: str, kind: type, choices: tuple = ()):
        value = data.get(key)
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
        return value if ok and (not choices or value in choices) else None

    def word(key: str, yes: str, no: str):
        value = given(key, bool)
        return None if value is None else (yes if value else no)

    stated = {
        "indent_style": word("useTabs", "tab", "space"),
        "indent_width": given("tabWidth", int),
        "line_width": given("printWidth", int),
        "quote_style": word("singleQuote", "single", "double"),
        "semicolons": word("semi", "always", "asNeeded"),
        "trailing_commas": given("trailingComma", str, ("all", "es5", "none")),
        "line_ending": given("endOfLine", str, ("lf", "crlf", "cr", "auto")),
        "bracket_spacing": given("bracketSpacing", bool),
        "arrow_parentheses": {"always": "always", "avoid": "asNeeded"}.get(given("arrowParens", str)),
    }
    return config._replace(**{key: value for key, value in stated.items() if value is not None})


def _package(repo: Path) -> dict:
    """The root ``package.json``, or nothing where it cannot be read."""
    try:
        data = json.loads((repo / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def style_for(data: bytes, config: FormatterConfig = FormatterConfig(), strings: Iterable[bytes] = ()) -> Style:
    """The one Style for a file: ``data`` is its text and ``strings`` the
    first bytes of its string literals, but a JSX attribute's (both empty
    for a new file)."""
    unit = _config_indent(config)
    seen = _file_indent(data, len(unit) if unit != "\t" else 2)
    if seen is not None and seen != unit:
        unit = seen  # the file disagrees: match the file
    crlf = data.count(b"\r\n")
    if data.count(b"\n"):
        eol = "\r\n" if crlf and crlf * 2 >= data.count(b"\n") else "\n"
    else:
        eol = "\r\n" if config.line_ending == "crlf" else "\n"
    return Style(
        indent=unit,
        quote=_quote(config.quote_style, strings),
        line_width=config.line_width or LINE_WIDTH,
        semicolons=config.semicolons != "asNeeded",
        trailing_commas=config.trailing_commas if config.trailing_commas in ("all", "es5", "none") else "all",
        eol=eol,
        indent_width=config.indent_width or 2,
        bracket_spacing=config.bracket_spacing is not False,
        arrow_parens=config.arrow_parentheses != "asNeeded",
    )


def _quote(stated: str | None, strings: Iterable[bytes]) -> str:
    """The configuration's quote, unless the file's strings mostly use the other."""
    counts = Counter(strings)
    if counts[b"'"] != counts[b'"']:
        return "'" if counts[b"'"] > counts[b'"'] else '"'
    return "'" if stated == "single" else '"'


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
