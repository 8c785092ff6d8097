"""The schema toolchain pinned in tools/ (tools/package-lock.json): what
makes src/generated/ when the SDK checkout has no node_modules of its own.

The SDK's `npm run generate:schemas` runs ts-to-zod on src/spec.types.ts,
post-processes its output, converts each schema to JSON Schema with zod and
lays the files out with Prettier. Here the same packages, at the versions
the SDK pins (ts-to-zod 5.1.0, zod 4, Prettier 3.6), run under the pinned
Bun, by path (never from PATH), on a scratch copy of the checkout that holds
the edited spec.types.ts and links tools/node_modules as its node_modules:

1. `schema_generator.mjs generate`: ts-to-zod with the generator's options;
2. the post-processing, redone here from the checkout's own generated files
   (their header comments and imports replace ts-to-zod's, the placeholders
   `const XSchema = z.any()` of the schemas those imports bring are dropped,
   `z.record(z.string(), z.unknown()).and(z.object({...}))` becomes
   `z.object({...}).passthrough()`);
3. `schema_generator.mjs json`: schema.json's `$defs` from the written
   schema.ts, under the checkout's own top-level members;
4. Prettier, under the checkout's configuration, on the files written.

Only the files the checkout has are made (schema.test.ts and schema.json are
optional). `MESH_CODEMOD_NODE_TOOLS` names another node_modules (a missing
one turns the toolchain off). Every process starts through the runner
the checks wing hands down (`Context.run`); the publishing side, which
runs nothing, plans without one: its own build of the series then edits
the files in the generator's style.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...engine.outcome import NotUtf8, SyntaxProblem
from ..base import Planned, Runner

SCHEMA_PATH = "src/generated/schema.ts"
TEST_PATH = "src/generated/schema.test.ts"
JSON_PATH = "src/generated/schema.json"

DRIVER = Path(__file__).with_name("schema_generator.mjs")
NODE_TOOLS = Path(__file__).resolve().parents[3] / "tools" / "node_modules"
ENV = "MESH_CODEMOD_NODE_TOOLS"
MISSING = "the pinned schema toolchain is not installed (`scripts/setup --node` installs it in tools/node_modules)"
PACKAGES = ("ts-to-zod", "zod", "prettier", "bun")



NO_RUNNER = "the publishing side runs no tools"


def unavailable(run: Runner | None) -> str:
    """Why the pinned toolchain is not used ("" when it is): nothing may
    start a process here (no ``run``), or it is not installed."""
    if run is None:
        return NO_RUNNER
    return "" if toolchain() is not None else MISSING


@dataclass(frozen=True)
class Toolchain:
    node_modules: Path
    versions: tuple[tuple[str, str], ...]

    @property
    def bun(self) -> Path:
        return self.node_modules / "bun" / "bin" / "bun.exe"

    @property
    def prettier(self) -> Path:
        return self.node_modules / "prettier" / "bin" / "prettier.cjs"


def toolchain() -> Toolchain | None:
    """The pinned toolchain, or None when one of its packages is missing."""
    where = Path(os.environ[ENV]) if os.environ.get(ENV) else NODE_TOOLS
    versions = []
    for name in PACKAGES:
        manifest = where / name / "package.json"
        try:
            versions.append((name, json.loads(manifest.read_text(encoding="utf-8"))["version"]))
        except (OSError, ValueError, KeyError):
            return None
    tools = Toolchain(where.resolve(), tuple(versions))
    return tools if tools.bun.is_file() and tools.prettier.is_file() else None


def describe(tools: Toolchain) -> str:
    """How the report names the toolchain (versions, never paths)."""
    names = {"ts-to-zod": "ts-to-zod", "zod": "zod", "prettier": "Prettier"}
    made = [f"{names[n]} {v}" for n, v in tools.versions if n in names]
    bun = dict(tools.versions)["bun"]
    return f"{', '.join(made[:-1])} and {made[-1]} (the versions mesh-codemod pins), run under Bun {bun}"


# ----------------------------------------------------------------------
# Running it
# ----------------------------------------------------------------------


class ToolchainFailed(Exception):
    """The pinned toolchain did not make the files (the reason is the
    message); the recipe then falls back to the hand edits and says why."""


@lru_cache(maxsize=4)
def attempt(repo: str, spec: Planned, tools: Toolchain, run: Runner) -> tuple[dict[str, bytes], str]:
    """`regenerate`'s files and "", or no files and why it failed (the
    three generated-file steps ask once)."""
    try:
        return regenerate(repo, spec, tools, run), ""
    except ToolchainFailed as err:
        return {}, str(err)


def scratch_checkout(root: Path, work: Path, folders: set[str], node_modules: Path, spec: Planned) -> None:
    """Fill ``work`` with the checkout's top-level files and ``folders``
    (never node_modules or .git), ``node_modules`` linked and the edited
    spec.types.ts in place: a generator runs there, the checkout untouched."""
    for entry in root.iterdir():
        if entry.name in {"node_modules", ".git"}:
            continue
        if entry.is_file():
            shutil.copy2(entry, work / entry.name)
        elif entry.name in folders:
            shutil.copytree(entry, work / entry.name, symlinks=True)
    os.symlink(node_modules, work / "node_modules")
    (work / spec.path).parent.mkdir(parents=True, exist_ok=True)
    (work / spec.path).write_bytes(spec.data)


def regenerate(repo: str, spec: Planned, tools: Toolchain, run: Runner) -> dict[str, bytes]:
    """The generated files the checkout has, made by the pinned toolchain
    from the edited spec.types.ts; the checkout itself is not touched."""
    root = Path(repo)
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-schemas-") as scratch:
        work = Path(scratch)
        scratch_checkout(root, work, {"src"}, tools.node_modules, spec)
        (work / SCHEMA_PATH).parent.mkdir(parents=True, exist_ok=True)

        current = {path: _text(root, path) for path in (SCHEMA_PATH, TEST_PATH, JSON_PATH)}
        if current[JSON_PATH]:
            try:
                json.loads(current[JSON_PATH])
            except ValueError as err:
                raise SyntaxProblem(JSON_PATH, f"not valid JSON ({err})") from None
        made = json.loads(_bun(tools, work, run, "generate", str(work / spec.path)))
        if made["errors"]:
            raise ToolchainFailed(f"{describe(tools)}: ts-to-zod: " + " / ".join(made["errors"][:3]))
        written = [SCHEMA_PATH]
        (work / SCHEMA_PATH).write_text(schema_file(made["schema"], _lf(current[SCHEMA_PATH])), encoding="utf-8")
        if (root / TEST_PATH).is_file() and made["test"]:
            (work / TEST_PATH).write_text(test_file(made["test"], _lf(current[TEST_PATH])), encoding="utf-8")
            written.append(TEST_PATH)
        if (root / JSON_PATH).is_file():
            out = json.loads(
                _bun(tools, work, run, "json", str(work / SCHEMA_PATH), str(root / JSON_PATH), str(work / JSON_PATH))
            )
            if out["problems"]:
                raise ToolchainFailed(f"{describe(tools)}: zod's toJSONSchema: " + " / ".join(out["problems"][:3]))
            written.append(JSON_PATH)
        _run(tools, work, run, [str(tools.bun), str(tools.prettier), "--write", *written], "Prettier")
        return {path: _line_endings((work / path).read_bytes(), current[path]) for path in written}


def _text(root: Path, path: str) -> str:
    """A generated file of the checkout (its post-processing is learnt from
    it), "" when it has none."""
    try:
        return (root / path).read_bytes().decode("utf-8") if (root / path).is_file() else ""
    except UnicodeDecodeError as err:
        raise NotUtf8(path, f"not UTF-8 (byte {err.start})") from None


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _line_endings(data: bytes, current: str) -> bytes:
    """CRLF when the checkout's file has CRLF (a Windows checkout)."""
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n") if "\r\n" in current else data


def _bun(tools: Toolchain, work: Path, run: Runner, *args: str) -> str:
    return _run(tools, work, run, [str(tools.bun), str(DRIVER), args[0], str(tools.node_modules), *args[1:]], args[0])


def _run(tools: Toolchain, work: Path, run: Runner, command: list[str], what: str) -> str:
    # the checkout's sources are imported (schema.json): the checks wing's
    # runner gives it the environment rules of the checkout's own tools
    try:
        result = run(command, work, timeout=600)
    except (OSError, subprocess.SubprocessError) as err:
        raise ToolchainFailed(f"{describe(tools)}: {what} did not run ({err})") from None
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).replace(str(work), ".").splitlines()
        tail = [line.strip() for line in lines if line.strip()][-2:]
        raise ToolchainFailed(f"{describe(tools)}: {what} failed: {' / '.join(tail)}")
    try:
        return result.stdout if what == "Prettier" else _json_line(result.stdout)
    except ValueError:
        raise ToolchainFailed(f"{describe(tools)}: {what} printed no result") from None


def _json_line(out: str) -> str:
    """The driver's JSON result (the last line; a module it imports may
    print before it)."""
    last = out.strip().splitlines()[-1] if out.strip() else ""
    json.loads(last)
    return last


# ----------------------------------------------------------------------
# The post-processing, from the checkout's own generated files
# ----------------------------------------------------------------------

_HEADER = "// Generated by ts-to-zod\n"
_ZOD_IMPORT = re.compile(r"""^import \{ z \} from ["']zod["'];\n""", re.MULTILINE)
_ANY_IMPORT_ZOD = re.compile(r"""^import \{ z \} from ["']zod(?:/[\w/]+)?["'];?\n""", re.MULTILINE)
_IMPORTS = re.compile(r"(?:import\b[^;]*;[ \t]*\n)+")
_RECORD_AND = "z.record(z.string(), z.unknown()).and(z.object({"


def _preamble(text: str) -> tuple[str, str]:
    """A generated file's leading comment lines and the import statements
    right after them."""
    lines = text.splitlines(keepends=True)
    count = 0
    while count < len(lines) and lines[count].startswith("//"):
        count += 1
    header = "".join(lines[:count])
    match = _IMPORTS.match(text, len(header))
    return header, match.group(0) if match else ""


def _with_header(made: str, header: str) -> str:
    return header + made.removeprefix(_HEADER) if header and made.startswith(_HEADER) else made


def schema_file(made: str, current: str) -> str:
    """ts-to-zod's schema.ts as the checkout's generator leaves it."""
    header, imports = _preamble(current)
    text = _with_header(made, header)
    if imports and _ANY_IMPORT_ZOD.search(imports):
        text = _ZOD_IMPORT.sub(lambda _: imports, text, count=1)
        for statement in re.findall(r"import\b[^;]*;", imports):
            if re.search(r"""from ["']zod""", statement):
                continue
            names = re.findall(r"\b(\w+Schema)\b", statement.split("from")[0])
            for name in names:
                text = re.sub(rf"(?:export )?const {name} = z\.any\(\);\n?", "", text)
    return passthrough(text)


def test_file(made: str, current: str) -> str:
    """ts-to-zod's type checks as the checkout's generator leaves them."""
    header, imports = _preamble(current)
    text = _with_header(made, header)
    zod = _ANY_IMPORT_ZOD.search(imports)
    return _ZOD_IMPORT.sub(lambda _: zod.group(0), text, count=1) if zod else text


def passthrough(text: str) -> str:
    """`z.record(z.string(), z.unknown()).and(z.object({...}))` (an index
    signature beside members) as `z.object({...}).passthrough()`; braces in
    string literals and comments do not count."""
    out, start = [], 0
    while (found := text.find(_RECORD_AND, start)) != -1:
        i, depth, quote = found + len(_RECORD_AND), 1, ""
        while i < len(text) and depth:
            char = text[i]
            if quote:
                if char == "\\":
                    i += 1
                elif char == quote:
                    quote = ""
            elif text.startswith("/*", i):
                i = text.find("*/", i + 2) + 1 or len(text)
            elif text.startswith("//", i):
                i = text.find("\n", i) if "\n" in text[i:] else len(text)
            elif char in "\"'`":
                quote = char
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
            i += 1
        body = text[found + len(_RECORD_AND) : i - 1]
        if text.startswith("))", i):
            out += [text[start:found], f"z.object({{{body}}}).passthrough()"]
            start = i + 2
        else:
            out.append(text[start:i])
            start = i
    return "".join(out) + text[start:]
