"""The checkout's own formatter as a last layout pass (SPEC section 3, rule 8).

When the checkout has its formatter installed (``node_modules/.bin/biome``,
or ``node_modules/.bin/prettier`` where it formats with Prettier: the SDK, a
Prettier host), every file the tool changes is passed through it, under the checkout's own
configuration, while the edits are planned; so `--dry-run` and `--check`
show exactly what `apply` writes. The formatter's result replaces the
built-in layout only when

- the file was formatter-clean before the edit (a new file is: there is
  nothing of the author's to disturb), and
- the formatter changed nothing outside the lines the tool inserted or
  edited (from the old -> new line diff).

Otherwise the built-in layout stays, and the file's `Layout` says why. The
formatter never writes into the checkout: the files are formatted in a
temporary folder that holds a copy of the checkout's formatter
configuration, by one formatter process for the files both before and
after the edit.
"""

from __future__ import annotations

import difflib
import os
import sys
from enum import Enum
from pathlib import Path

from typing import NamedTuple

from ..engine.style import CONFIG_FILES, PRETTIER_FILES, formats_with_prettier


class FormatterMode(str, Enum):
    """`--formatter`: `auto` uses the checkout's formatter when installed
    (Biome, or Prettier where the checkout formats with it), `biome`
    requires Biome, `none` keeps the built-in layout."""

    AUTO = "auto"
    BIOME = "biome"
    NONE = "none"


class FormatterMissing(ValueError):
    """`--formatter biome` on a checkout without an installed Biome."""


class Layout(NamedTuple):
    """Which layout a changed file got: ``"formatter"`` or ``"built-in"``, and why."""

    kind: str
    reason: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "reason": self.reason}


FORMATTER = "formatter"
BUILT_IN = "built-in"

# What Biome formats; other files keep the built-in layout.
_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json", ".jsonc")
_LAUNCHER = Path("node_modules", ".bin", "biome")
PRETTIER = "prettier"
_PRETTIER = Path("node_modules", ".bin", PRETTIER)
# Read by Prettier from a file's folders (`package.json` may hold a
# "prettier" key); copied with the files.
PRETTIER_CONFIG_FILES = (*PRETTIER_FILES, ".prettierignore", ".editorconfig", "package.json")


class Biome(NamedTuple):
    """An installed formatter (Biome, or for the SDK target Prettier): the
    program to run and what to call it."""

    program: Path
    name: str  # e.g. "biome 2.2.5"


class FormatterChoice(NamedTuple):
    """The formatter a run uses (None: the built-in layout only) and why."""

    biome: Biome | None
    reason: str

    @property
    def name(self) -> str:
        """What the report calls it: "biome 2.2.5", or "none"."""
        return self.biome.name if self.biome else "none"

    def to_json(self) -> dict:
        return {"name": self.name, "reason": self.reason}


def choose(checkout: Path, mode: FormatterMode | str, target: str = "host") -> FormatterChoice:
    """The formatter for ``mode`` in ``checkout``: its ``node_modules/.bin/biome``,
    or for the SDK target (ext-apps formats with Prettier) and a host that
    formats with Prettier its ``node_modules/.bin/prettier``."""
    mode = FormatterMode(mode)
    if mode is FormatterMode.NONE:
        return FormatterChoice(None, "--formatter none")
    if target == "sdk" or formats_with_prettier(checkout):
        return _choose_prettier(checkout, mode, target)
    biome = find_biome(checkout)
    if biome is not None and not has_config(checkout):
        # Installed as some dependency's dependency, perhaps; not the repo's formatter.
        reason = f"{_LAUNCHER.as_posix()} is installed, but the checkout has no biome.json"
        if mode is FormatterMode.BIOME:
            raise FormatterMissing(f"--formatter biome: {reason}")
        return FormatterChoice(None, reason)
    if biome is None:
        if mode is FormatterMode.BIOME:
            raise FormatterMissing(
                f"--formatter biome: no {_LAUNCHER.as_posix()} in {checkout} (install its dependencies)"
            )
        return FormatterChoice(None, f"no {_LAUNCHER.as_posix()} in the checkout")
    return FormatterChoice(biome, f"the checkout's {_LAUNCHER.as_posix()}, under its configuration")


def _choose_prettier(checkout: Path, mode: FormatterMode, target: str) -> FormatterChoice:
    if mode is FormatterMode.BIOME:
        which = "the SDK target" if target == "sdk" else "this host"
        raise FormatterMissing(f"--formatter biome: {which} is formatted with Prettier, not Biome")
    launcher = checkout / _PRETTIER
    if not launcher.is_file():
        return FormatterChoice(
            None, f"no {_PRETTIER.as_posix()} in the checkout: the built-in layout, in Prettier's style"
        )
    version = _version(launcher.resolve().parent.parent / "package.json")
    name = f"{PRETTIER} {version}" if version else PRETTIER
    return FormatterChoice(Biome(launcher, name), f"the checkout's {_PRETTIER.as_posix()}, under its configuration")


def formats(path: str) -> bool:
    """Whether the formatter lays out this file (else it keeps the built-in layout)."""
    return path.endswith(_SUFFIXES)


def is_prettier(tool: "Biome") -> bool:
    return tool.name.split()[0] == PRETTIER


def has_config(root: Path) -> bool:
    """Whether ``root`` has a Biome configuration: Biome is its formatter."""
    return any((root / name).is_file() for name in CONFIG_FILES)


def find_biome(checkout: Path) -> Biome | None:
    """The checkout's Biome, or None. The npm launcher is a Node script
    that only finds and runs the platform's binary, and Node's start costs
    about 100 ms; so the binary is run directly when it can be found the way
    the launcher finds it."""
    launcher = checkout / _LAUNCHER
    if not launcher.is_file():
        return None
    package = launcher.resolve().parent.parent  # .../@biomejs/biome/bin/biome
    version = _version(package / "package.json")
    name = f"biome {version}" if version else "biome"
    return Biome(_native_binary(package) or launcher, name)


def _version(package_json: Path) -> str:
    from ..recipes.manifest import package_version

    return package_version(package_json.parent)


def _native_binary(package: Path) -> Path | None:
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(os.uname().machine.lower())
    system = {"linux": "linux", "darwin": "darwin"}.get(sys.platform)
    if not arch or not system:
        return None
    names = [f"cli-{system}-{arch}"] + ([f"cli-{system}-{arch}-musl"] if system == "linux" else [])
    # Node's lookup from the package's folder: <ancestor>/node_modules/@biomejs/<name>
    for folder in [package, *package.parents]:
        if folder.name == "node_modules":
            continue
        for name in names:
            binary = folder / "node_modules" / "@biomejs" / name / "biome"
            if binary.is_file() and os.access(binary, os.X_OK):
                return binary
    return None


# --- the pass ----------------------------------------------------------------


class Candidate(NamedTuple):
    """One changed file: its path, bytes before (None: a new file) and after."""

    path: str
    old: bytes | None
    new: bytes


def same_code(path: str, ours: bytes, theirs: bytes) -> bool:
    """Whether ``theirs`` is ``ours`` in another layout: the same syntax
    tree once whitespace, quotes, optional semicolons, trailing commas and
    optional parentheses are set aside (engine/equivalence.py); a JSON file
    is compared as the value it holds."""
    from ..engine.equivalence import same_modulo_layout

    if path.endswith((".json", ".jsonc")):
        # a JSON document read as the expression it is
        return same_modulo_layout(b"export default " + ours, b"export default " + theirs, "x.ts")
    return same_modulo_layout(ours, theirs, path)


def judge(file: Candidate, formatted: bytes, name: str) -> tuple[bytes, Layout]:
    """The bytes to write for ``file`` and their layout, given what the
    formatter ``name`` made of it."""
    if formatted == file.new:
        return file.new, Layout(FORMATTER, f"{name} agrees with the built-in layout")
    # the formatter may change layout only, in every mode and for a new file
    # too: anything else (a line added, a call changed) is not the tool's
    # output, and the built-in layout is used instead
    if not same_code(file.path, file.new, formatted):
        return file.new, Layout(BUILT_IN, f"{name} changed more than the layout of the tool's output")
    new_lines = file.new.splitlines(keepends=True)
    edited = edited_ranges(file.old, new_lines)
    outside, adjoining = lines_changed_outside(new_lines, formatted.splitlines(keepends=True), edited)
    if outside:
        shown = ", ".join(str(n + 1) for n in outside[:5]) + (", ..." if len(outside) > 5 else "")
        return file.new, Layout(BUILT_IN, f"{name} would also change line(s) {shown}, away from the edit")
    also = f" and {adjoining} line(s) joined to them" if adjoining else ""
    return formatted, Layout(FORMATTER, f"{name} re-laid out the edited lines{also}")


def edited_ranges(old: bytes | None, new_lines: list[bytes]) -> list[tuple[int, int]]:
    """The half-open ranges of ``new_lines`` (the edited file's lines) that
    the edit inserted or changed; for a new file, all of them. A pure
    deletion leaves an empty range at the point where lines went."""
    if old is None:
        return [(0, len(new_lines))]
    return [(j1, j2) for _, _, j1, j2 in _changed_ranges(old.splitlines(keepends=True), new_lines)]


def lines_changed_outside(
    new_lines: list[bytes], formatted_lines: list[bytes], edited: list[tuple[int, int]]
) -> tuple[list[int], int]:
    """The lines of ``new_lines`` (0-based) that the formatter changed in a
    hunk of its own, away from every edited range; and how many unedited
    lines it re-laid out together with edited ones (a hunk that overlaps an
    edited range, e.g. ``} =`` / ``this.config;`` joined after the tool
    broke the destructuring above it). As the file was formatter-clean
    before the edit, such a hunk is the edit's own consequence; a hunk away
    from the edit is not, and is refused."""
    def meets(i1: int, i2: int, start: int, end: int) -> bool:
        if i1 == i2 or start == end:  # an insertion point touches what it borders
            return start <= i2 and i1 <= end
        return i1 < end and start < i2

    outside: list[int] = []
    adjoining = 0
    for i1, i2, _, _ in _changed_ranges(new_lines, formatted_lines):
        if not any(meets(i1, i2, start, end) for start, end in edited):
            outside.extend(range(i1, i2) if i2 > i1 else [i1])
            continue
        adjoining += sum(1 for i in range(i1, i2) if not any(start <= i < end for start, end in edited))
    return outside, adjoining


def _changed_ranges(a: list[bytes], b: list[bytes]) -> list[tuple[int, int, int, int]]:
    """The differing line ranges ``(i1, i2, j1, j2)`` of ``a`` and ``b``."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
