"""The layout comparison is sound in both directions (issue 28, SPEC 8), on
the files the tool writes: the 7 files of a host checkout after `apply`
(fixtures/host/newest/expected-compat) and the SDK files of shape c.

- Meaning: each mutation below changes what the code means (a hole, a cut
  optional chain, a comment in added parentheses, a directive in
  parentheses, JSX text, a number, a line break where one counts, a
  token, a comment), applied at many places of every file, chosen by a
  seeded generator: each compares unequal to the text it came from.
- Layout: Biome and Prettier lay every file out again under seeded
  configurations (quotes, JSX quotes, semicolons, trailing commas, line
  width, indentation, arrow parentheses, bracket spacing, quoted keys),
  one formatter call per formatter for all of them (a configuration file
  per folder), each configuration on a seeded choice of the files: each
  result compares equal to the file it came from.

EQUIVALENCE_SEED, EQUIVALENCE_BIOME_CONFIGS, EQUIVALENCE_PRETTIER_CONFIGS,
EQUIVALENCE_FILES_PER_CONFIG and EQUIVALENCE_PLACES change the seed, the
number of configurations of each formatter, how many of the files each
lays out, and the places per mutation and file; the counts are printed.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tree_sitter import Node

from codemods.engine.equivalence import layout_key

from .node_tools import BIN, require
from .perturb import root, text, walk
from .support import ROOT

SEED = int(os.environ.get("EQUIVALENCE_SEED", "28"))
# Biome is quick, Prettier is not: more configurations of the first.
BIOME_CONFIGS = int(os.environ.get("EQUIVALENCE_BIOME_CONFIGS", "70"))
PRETTIER_CONFIGS = int(os.environ.get("EQUIVALENCE_PRETTIER_CONFIGS", "40"))
# Each configuration lays out this many of the files (a seeded choice).
FILES_PER_CONFIG = int(os.environ.get("EQUIVALENCE_FILES_PER_CONFIG", "8"))
PLACES = int(os.environ.get("EQUIVALENCE_PLACES", "5"))

HOST = ROOT / "fixtures/host/newest/expected-compat"
SDK = ROOT / "fixtures/sdk/shape-c/expected-auto"
_SRC = "apps/mesh/src"
FILES = [
    (HOST, f"{_SRC}/mcp-apps/app-state.ts"),
    (HOST, f"{_SRC}/mcp-apps/app-state.test.ts"),
    (HOST, f"{_SRC}/mcp-apps/use-app-bridge.ts"),
    (HOST, f"{_SRC}/mcp-apps/mcp-app-renderer.tsx"),
    (HOST, f"{_SRC}/web/components/chat/message/parts/tool-call-part/generic.tsx"),
    (HOST, f"{_SRC}/web/routes/project-app-view.tsx"),
    (HOST, f"{_SRC}/web/index.tsx"),
    (SDK, "src/app.ts"),
    (SDK, "src/app-bridge.ts"),
    (SDK, "src/app-bridge.test.ts"),
    (SDK, "src/app.examples.ts"),
    (SDK, "src/spec.types.ts"),
    (SDK, "src/types.ts"),
    (SDK, "src/generated/schema.ts"),
    (SDK, "src/generated/schema.test.ts"),
]

# A mutation: (data, path) -> (a, b) pairs, each a change of meaning.
Pair = tuple[bytes, bytes]
Mutation = Callable[[bytes, str], Iterator[Pair]]


def _replace(data: bytes, start: int, end: int, new: bytes) -> bytes:
    return data[:start] + new + data[end:]


def _nodes(data: bytes, path: str, *types: str) -> list[Node]:
    return [n for n in walk(root(data, path)) if n.type in types]


# --- the mutations -------------------------------------------------------------------------------


def holes(data: bytes, path: str) -> Iterator[Pair]:
    for array in _nodes(data, path, "array"):
        opener = array.children[0].end_byte
        yield data, _replace(data, opener, opener, b", ")  # [, a, b]
        if array.named_children:
            after = array.named_children[0].end_byte
            yield data, _replace(data, after, after, b", ,")  # [a, ,, b] or [a, ,]: a hole either way


def optional_chain_cuts(data: bytes, path: str) -> Iterator[Pair]:
    """`x?.y.z` against `(x?.y).z`, at every member of a member."""
    for member in _nodes(data, path, "member_expression"):
        inner = member.child_by_field_name("object")
        if inner is None or inner.type != "member_expression":
            continue
        dot = next((c for c in inner.children if c.type in {".", "?."}), None)
        if dot is None:
            continue
        chained = _replace(data, dot.start_byte, dot.end_byte, b"?.")
        shift = 2 - (dot.end_byte - dot.start_byte)
        cut = _replace(chained, inner.end_byte + shift, inner.end_byte + shift, b")")
        cut = _replace(cut, inner.start_byte, inner.start_byte, b"(")
        yield chained, cut


COMMENTS = [
    b"/* @__PURE__ */ ",
    b"/* #__PURE__ */ ",
    b"/* @jsxImportSource https://attacker.example/x */ ",
    b"// @ts-ignore\n",
    b"// eslint-disable-next-line\n",
    b"/* biome-ignore lint: reason */ ",
    b"//# sourceMappingURL=data:application/json;base64,e30=\n",
    "/* \u202e\u2066 */ ".encode(),
]
_EXPRESSION_PLACES = {"arguments", "variable_declarator", "assignment_expression", "return_statement", "pair", "array"}


def comments_in_added_parentheses(data: bytes, path: str) -> Iterator[Pair]:
    calls = [c for c in _nodes(data, path, "call_expression", "new_expression") if c.parent.type in _EXPRESSION_PLACES]
    for i, call in enumerate(calls):
        comment = COMMENTS[i % len(COMMENTS)]
        inside = b"(" + comment + data[call.start_byte:call.end_byte] + b"\n)"
        yield data, _replace(data, call.start_byte, call.end_byte, inside)
        before = comment + b"(" + data[call.start_byte:call.end_byte] + b")"
        yield data, _replace(data, call.start_byte, call.end_byte, before)


def comments_added_or_changed(data: bytes, path: str) -> Iterator[Pair]:
    for i, name in enumerate(_nodes(data, path, "identifier", "property_identifier")):
        yield data, _replace(data, name.start_byte, name.start_byte, COMMENTS[i % len(COMMENTS)].rstrip(b"\n ") + b"\n")
    for comment in _nodes(data, path, "comment"):
        yield data, _replace(data, comment.end_byte - (2 if data[comment.start_byte + 1:comment.start_byte + 2] == b"*" else 0),
                             comment.end_byte - (2 if data[comment.start_byte + 1:comment.start_byte + 2] == b"*" else 0), b"!")
        yield data, _replace(data, comment.start_byte, comment.end_byte, b"")


def directives(data: bytes, path: str) -> Iterator[Pair]:
    for directive in (b'"use strict"', b"'use client'"):
        yield directive + b";\n" + data, b"(" + directive + b");\n" + data


def jsx_text(data: bytes, path: str) -> Iterator[Pair]:
    if not path.endswith(".tsx"):
        return
    for node in _nodes(data, path, "jsx_text"):
        raw = data[node.start_byte:node.end_byte]
        words = raw.strip()
        if not words:
            continue
        start = node.start_byte + raw.index(words)
        end = start + len(words)
        yield data, _replace(data, end, end, "\u3000".encode())  # a trailing U+3000
        yield data, _replace(data, start, start, b"{' '}")  # a space added in braces
        if b" " in words:
            space = start + words.index(b" ")
            yield data, _replace(data, space, space + 1, b"  ")  # a doubled space
            yield data, _replace(data, space, space + 1, "\u3000".encode())
            yield data, _replace(data, space, space + 1, b"\t")


def numbers(data: bytes, path: str) -> Iterator[Pair]:
    for number in _nodes(data, path, "number"):
        written = data[number.start_byte:number.end_byte]
        yield data, _replace(data, number.start_byte, number.end_byte, written + b"1")  # another value
        yield (
            _replace(data, number.start_byte, number.end_byte, b".0e5"),
            _replace(data, number.start_byte, number.end_byte, b"e5"),
        )


_AFTER = {b"return", b"throw", b"async", b"type", b"interface", b"abstract", b"using", b"readonly", b"private", b"static"}
# Statements where the hazards may be absent from a file: appended, then broken.
_SYNTHETIC = [
    (b"\nabstract class Probe1 {}\n", b"abstract"),
    (b"\nusing probe2 = open2();\n", b"using"),
    (b"\nexport type Probe3 = string;\n", b"type"),
    (b"\ninterface Probe4 {}\n", b"interface"),
    (b"\nfunction probe5() {\n  throw new Error('x');\n}\n", b"throw"),
    (b"\nconst probe6 = async (x: number) => x;\n", b"async"),
    (b"\nconst probe7 = (c: number) => c;\n", b"=>"),
]


def line_breaks(data: bytes, path: str) -> Iterator[Pair]:
    tokens = [n for n in walk(root(data, path)) if n.child_count == 0 and not n.is_named]
    for token in tokens:
        word = data[token.start_byte:token.end_byte]
        following = token.next_sibling
        if word in _AFTER and following is not None and following.type not in {";", "}"}:
            yield data, _replace(data, token.end_byte, following.start_byte, b"\n")
        elif word == b"=>":
            yield data, _replace(data, token.start_byte, token.start_byte, b"\n")
    for statement, word in _SYNTHETIC:
        at = statement.index(word) + (0 if word == b"=>" else len(word))
        broken = statement[:at] + b"\n" + statement[at:].lstrip(b" ")
        yield data + statement, data + broken


_OPERATORS = {b"===": b"!==", b"!==": b"===", b"&&": b"||", b"||": b"&&", b"+": b"-", b"<": b"<=", b"??": b"||"}


def tokens(data: bytes, path: str) -> Iterator[Pair]:
    for name in _nodes(data, path, "identifier", "property_identifier", "type_identifier"):
        yield data, _replace(data, name.end_byte, name.end_byte, b"2")
    for string in _nodes(data, path, "string"):
        yield data, _replace(data, string.start_byte + 1, string.start_byte + 1, b"x")
    for binary in _nodes(data, path, "binary_expression"):
        operator = binary.child_by_field_name("operator")
        new = _OPERATORS.get(data[operator.start_byte:operator.end_byte])
        if new is not None:
            yield data, _replace(data, operator.start_byte, operator.end_byte, new)
    for statement in _nodes(data, path, "expression_statement"):
        if statement.parent.type == "statement_block":
            yield data, _replace(data, statement.start_byte, statement.end_byte, b"")


MUTATIONS: dict[str, Mutation] = {
    "hole": holes,
    "optional chain cut": optional_chain_cuts,
    "comment in added parentheses": comments_in_added_parentheses,
    "comment added or changed": comments_added_or_changed,
    "directive in parentheses": directives,
    "jsx text": jsx_text,
    "number": numbers,
    "line break that counts": line_breaks,
    "token": tokens,
}


def _key(data: bytes, path: str) -> str | None:
    from codemods.engine.equivalence import LayoutKeyError

    try:
        return layout_key(data, path)
    except LayoutKeyError:
        return None


def _report(capsys, line: str) -> None:
    with capsys.disabled():
        print(f"\n{line}")


def test_every_change_of_meaning_compares_unequal(capsys) -> None:
    rng = random.Random(SEED)
    counts: Counter[str] = Counter()
    unparsable: Counter[str] = Counter()
    failures = []
    for base, path in FILES:
        data = (base / path).read_bytes()
        for kind, mutation in MUTATIONS.items():
            pairs = list(mutation(data, path))
            for a, b in rng.sample(pairs, min(PLACES, len(pairs))):
                key_a = _key(a, path)
                key_b = _key(b, path)
                if key_a is None or key_b is None:
                    unparsable[kind] += 1  # not a change of meaning to test: a syntax error
                    continue
                counts[kind] += 1
                if key_a == key_b:
                    failures.append(f"{kind} in {path}: equal modulo layout:\n{_diff(a, b)}")
    summary = ", ".join(f"{kind} {counts[kind]}" for kind in MUTATIONS)
    verdict = "all unequal, as they must be" if not failures else f"{len(failures)} EQUAL modulo layout"
    _report(capsys, f"equivalence mutations (seed {SEED}): {sum(counts.values())} changes of meaning ({summary}): "
            f"{verdict}; {sum(unparsable.values())} left out as syntax errors")
    assert not failures, "\n\n".join(failures[:10])
    for kind in MUTATIONS:
        assert counts[kind] >= 10, f"{kind}: only {counts[kind]} cases: the mutation hardly applies"


def _diff(a: bytes, b: bytes) -> str:
    import difflib

    lines = difflib.unified_diff(a.decode().splitlines(), b.decode().splitlines(), lineterm="", n=1)
    return "\n".join(list(lines)[2:12])


# --- formatters ------------------------------------------------------------------------------------


def biome_config(rng: random.Random) -> dict:
    return {
        "root": False,
        "formatter": {
            "indentStyle": rng.choice(["tab", "space"]),
            "indentWidth": rng.choice([2, 4, 8]),
            "lineWidth": rng.randint(40, 140),
        },
        "javascript": {
            "formatter": {
                "quoteStyle": rng.choice(["double", "single"]),
                "jsxQuoteStyle": rng.choice(["double", "single"]),
                "quoteProperties": rng.choice(["asNeeded", "preserve"]),
                "semicolons": rng.choice(["always", "asNeeded"]),
                "trailingCommas": rng.choice(["all", "es5", "none"]),
                "arrowParentheses": rng.choice(["always", "asNeeded"]),
                "bracketSpacing": rng.choice([True, False]),
                "bracketSameLine": rng.choice([True, False]),
            }
        },
    }


def prettier_config(rng: random.Random) -> dict:
    return {
        "singleQuote": rng.choice([True, False]),
        "jsxSingleQuote": rng.choice([True, False]),
        "quoteProps": rng.choice(["as-needed", "consistent", "preserve"]),
        "semi": rng.choice([True, False]),
        "trailingComma": rng.choice(["all", "es5", "none"]),
        "printWidth": rng.randint(40, 140),
        "tabWidth": rng.choice([2, 4]),
        "useTabs": rng.choice([True, False]),
        "arrowParens": rng.choice(["always", "avoid"]),
        "bracketSpacing": rng.choice([True, False]),
        "bracketSameLine": rng.choice([True, False]),
    }


Case = tuple[str, dict, Path, list[tuple[Path, str]]]


def _lay_out(tmp_path: Path, rng: random.Random) -> list[Case]:
    """The files under the configurations of each formatter, with one call
    per formatter: (formatter, configuration, folder, files) per case."""
    biome = require(BIN / "biome", "Biome")
    prettier = require(BIN / "prettier", "Prettier")
    cases = []
    kinds = (
        ("biome", biome_config, "biome.json", BIOME_CONFIGS),
        ("prettier", prettier_config, ".prettierrc.json", PRETTIER_CONFIGS),
    )
    for formatter, config_of, name, count in kinds:
        top = tmp_path / formatter
        for i in range(count):
            folder = top / f"case-{i}"
            config = config_of(rng)
            files = rng.sample(FILES, min(FILES_PER_CONFIG, len(FILES)))
            for base, path in files:
                target = folder / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes((base / path).read_bytes())
            (folder / name).write_text(json.dumps(config))
            cases.append((formatter, config, folder, files))
    root_config = {"root": True, "formatter": {"enabled": True}, "linter": {"enabled": False}, "assist": {"enabled": False}}
    (tmp_path / "biome" / "biome.json").write_text(json.dumps(root_config))
    commands = [
        [str(biome), "format", "--write", "--no-errors-on-unmatched", "."],
        [str(prettier), "--write", "--log-level", "warn", "--no-editorconfig", "."],
    ]
    for command, formatter in zip(commands, ("biome", "prettier")):
        result = subprocess.run(command, cwd=tmp_path / formatter, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"{formatter}: {result.stdout}{result.stderr}"
    return cases


def test_every_formatter_layout_compares_equal(tmp_path: Path, capsys) -> None:
    rng = random.Random(SEED)
    cases = _lay_out(tmp_path, rng)
    originals = {path: layout_key((base / path).read_bytes(), path) for base, path in FILES}
    compared = changed = 0
    failures = []
    for formatter, config, folder, files in cases:
        for base, path in files:
            laid_out = (folder / path).read_bytes()
            compared += 1
            changed += laid_out != (base / path).read_bytes()
            if _key(laid_out, path) != originals[path]:
                failures.append(f"{formatter} {json.dumps(config)}: {path} is not equal modulo layout:\n"
                                f"{_diff((base / path).read_bytes(), laid_out)}")
    _report(capsys, f"equivalence layouts (seed {SEED}): {len(cases)} configurations ({BIOME_CONFIGS} Biome, "
            f"{PRETTIER_CONFIGS} Prettier), "
            f"{compared} files compared, {changed} laid out differently: all equal" if not failures else
            f"equivalence layouts (seed {SEED}): {len(failures)} of {compared} files unequal")
    assert not failures, f"{len(failures)} failures; the first:\n" + "\n\n".join(failures[:3])
    assert len(cases) >= 100 or "EQUIVALENCE_BIOME_CONFIGS" in os.environ or "EQUIVALENCE_PRETTIER_CONFIGS" in os.environ
    assert changed > compared // 2, "the configurations hardly changed the layout: the test tests nothing"
