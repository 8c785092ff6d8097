"""The layout comparison is sound in both directions (issues 28 and 37,
SPEC 8), on the files the tool writes: the 7 files of a host checkout
after `apply` (fixtures/host/newest/expected-compat) and the SDK files of
shape c, and on two probes of constructs they lack (tests/layout_probes).

- Meaning: each mutation below changes what the code means (a hole, a cut
  optional chain, a comment in added parentheses, a directive in
  parentheses, JSX text, a number, a line break where one counts, a
  token, a comment; and where tree-sitter's reading is not JavaScript's:
  a regex, a string or a comment made another of the three, a relational
  chain, an assertion's operand, `export default` parentheses, numbers
  past 28 digits, a zero-width character, a line break in a string or
  before type arguments), applied at many places of every file, chosen by
  a seeded generator: each compares unequal to the text it came from.
- Layout: Biome and Prettier lay every file out again under seeded
  configurations (quotes, JSX quotes, semicolons, trailing commas, line
  width, indentation, arrow parentheses, bracket spacing, quoted keys),
  one formatter call per formatter for all of them (a configuration file
  per folder), each configuration on a seeded choice of the files: each
  result compares equal to the file it came from.
- JavaScript's reading: every pair the comparison calls equal among those
  layouts, random layout edits of the files and probes, and the unit
  cases, @babel/parser reads as the same tree (tests/babel.py).

EQUIVALENCE_SEED, EQUIVALENCE_BIOME_CONFIGS, EQUIVALENCE_PRETTIER_CONFIGS,
EQUIVALENCE_FILES_PER_CONFIG, EQUIVALENCE_PLACES and EQUIVALENCE_EDITS
change the seed, the number of configurations of each formatter, how many
of the files each lays out, the places per mutation and file, and the
layout edits per file; the counts are printed.
"""

from __future__ import annotations

import functools
import json
import os
import random
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from tree_sitter import Node

from codemods.engine.equivalence import layout_key

from .node_tools import BIN, require
from .perturb import root, text, walk
from .support import ROOT

pytestmark = pytest.mark.property

SEED = int(os.environ.get("EQUIVALENCE_SEED", "28"))
# Biome is quick, Prettier is not: more configurations of the first.
BIOME_CONFIGS = int(os.environ.get("EQUIVALENCE_BIOME_CONFIGS", "70"))
PRETTIER_CONFIGS = int(os.environ.get("EQUIVALENCE_PRETTIER_CONFIGS", "40"))
# Each configuration lays out this many of the files (a seeded choice).
FILES_PER_CONFIG = int(os.environ.get("EQUIVALENCE_FILES_PER_CONFIG", "8"))
PLACES = int(os.environ.get("EQUIVALENCE_PLACES", "5"))
# Random layout edits of each file and probe for the cross-check with Babel.
EDITS = int(os.environ.get("EQUIVALENCE_EDITS", "60"))

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
# Constructs the tool's files lack, where tree-sitter's reading and
# JavaScript's could part (relational chains, assertions, restricted
# line breaks, regexes beside strings and comments): no formatter lays
# them out, the changes of meaning and the cross-check with Babel use them.
PROBES = [(ROOT / "tests/layout_probes", "constructs.ts"), (ROOT / "tests/layout_probes", "elements.tsx")]

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


# --- issue 37: where tree-sitter's reading is not JavaScript's ---------------------------------------


def kind_swaps(data: bytes, path: str) -> Iterator[Pair]:
    """A regex, a comment or a string made another kind of token with the
    same text: `/\\+/g` and `"/\\+/g"`, `f(/* x */)` and `f("/* x */")`."""
    for regex in _nodes(data, path, "regex"):
        written = data[regex.start_byte:regex.end_byte]
        if b'"' not in written:
            yield data, _replace(data, regex.start_byte, regex.end_byte, b'"' + written + b'"')
    for comment in _nodes(data, path, "comment"):
        written = data[comment.start_byte:comment.end_byte]
        if written.startswith(b"/*") and b'"' not in written and b"\n" not in written:
            yield data, _replace(data, comment.start_byte, comment.end_byte, b'"' + written + b'"')
    for string in _nodes(data, path, "string"):
        inner = data[string.start_byte + 1:string.end_byte - 1]
        if string.is_named and string.parent.type != "jsx_attribute" and b"*/" not in inner and b"\n" not in inner:
            yield data, _replace(data, string.start_byte, string.end_byte, b"/*" + inner + b"*/")


_EQUALITY = {b"==", b"!=", b"===", b"!=="}
_RELATIONAL = {b"<", b">", b"<=", b">=", b"instanceof", b"in", *_EQUALITY}


def relational_chains(data: bytes, path: str) -> Iterator[Pair]:
    """`a <= (b < probe)` against `a <= b < probe` (the grammar reads that
    chain from the right), `a === (b == probe)` against `a === b == probe`."""
    for binary in _nodes(data, path, "binary_expression"):
        operator = text(data, binary.child_by_field_name("operator")).encode()
        right = binary.child_by_field_name("right")
        if operator in _RELATIONAL:
            inner = b" == " if operator in _EQUALITY else b" < "
            chained = data[right.start_byte:right.end_byte] + inner + b"probe"
            yield (_replace(data, right.start_byte, right.end_byte, b"(" + chained + b")"),
                   _replace(data, right.start_byte, right.end_byte, chained))


_ASSERTIONS = ("as_expression", "satisfies_expression", "non_null_expression", "type_assertion")


def assertion_operands(data: bytes, path: str) -> Iterator[Pair]:
    """`(x || probe) as T` against `x || probe as T`, and so for `satisfies`,
    `!` and `<T>`."""
    for assertion in _nodes(data, path, *_ASSERTIONS):
        operand = assertion.named_children[-1 if assertion.type == "type_assertion" else 0]
        wider = data[operand.start_byte:operand.end_byte] + b" || probe"
        yield (_replace(data, operand.start_byte, operand.end_byte, b"(" + wider + b")"),
               _replace(data, operand.start_byte, operand.end_byte, wider))


_DEFAULTS = [b"function () {}", b"function probe() {}", b"class {}", b"class Probe {}", b"async function () {}"]


def export_default_parentheses(data: bytes, path: str) -> Iterator[Pair]:
    """`export default (function () {})`, an expression, against the
    hoisted declaration."""
    for exported in _DEFAULTS:
        yield data + b"\nexport default (" + exported + b");\n", data + b"\nexport default " + exported + b"\n"


# Two BigInts past 28 digits, and two decimals JavaScript reads as 0.1 and 0.10000000000000002.
_LONG_NUMBERS = [
    (b"123456789012345678901234567890n", b"123456789012345678901234567891n"),
    (b"0.10000000000000001249000902703301", b"0.10000000000000001249000902703302"),
]


def long_numbers(data: bytes, path: str) -> Iterator[Pair]:
    for i, number in enumerate(_nodes(data, path, "number")):
        a, b = _LONG_NUMBERS[i % len(_LONG_NUMBERS)]
        yield (_replace(data, number.start_byte, number.end_byte, a), _replace(data, number.start_byte, number.end_byte, b))


_ZERO_WIDTH = ["\u200b".encode(), "\u2060".encode()]


def zero_width_characters(data: bytes, path: str) -> Iterator[Pair]:
    """A zero-width space or a word joiner before a token: the grammar
    skips both, JavaScript refuses them."""
    for i, token in enumerate(n for n in walk(root(data, path)) if n.child_count == 0 and n.start_byte > 0):
        yield data, _replace(data, token.start_byte, token.start_byte, _ZERO_WIDTH[i % 2])


def parse_changing_line_breaks(data: bytes, path: str) -> Iterator[Pair]:
    """A line break before a string's closing quote, before type arguments
    (`Set\\n<string>`) or an indexed type (`T\\n["k"]`)."""
    for string in _nodes(data, path, "string"):
        if string.is_named and string.parent.type != "jsx_attribute":
            yield data, _replace(data, string.end_byte - 1, string.end_byte - 1, b"\n")
    for node in _nodes(data, path, "type_arguments", "lookup_type", "array_type"):
        opener = node if node.type == "type_arguments" else next(c for c in node.children if c.type == "[")
        if node.type != "type_arguments" or node.parent.start_byte < node.start_byte:
            yield data, _replace(data, opener.start_byte, opener.start_byte, b"\n")


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
    "regex, string or comment swapped": kind_swaps,
    "relational chain": relational_chains,
    "assertion operand": assertion_operands,
    "export default parentheses": export_default_parentheses,
    "long number": long_numbers,
    "zero-width character": zero_width_characters,
    "line break in a string or a type": parse_changing_line_breaks,
}


@functools.lru_cache(maxsize=8)  # a pair's first text is often the file itself
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
    for base, path in FILES + PROBES:
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


class Layout(NamedTuple):
    """A file laid out by a formatter under a configuration, and whether
    the relation calls it equal to the file."""

    formatter: str
    config: dict
    path: str
    original: bytes
    laid_out: bytes
    equal: bool


@pytest.fixture(scope="module")
def layouts(tmp_path_factory) -> list[Layout]:
    """Every file of every configuration's seeded choice, laid out."""
    cases = _lay_out(tmp_path_factory.mktemp("layouts"), random.Random(SEED))
    originals = {path: layout_key((base / path).read_bytes(), path) for base, path in FILES}
    found = []
    for formatter, config, folder, files in cases:
        for base, path in files:
            laid_out = (folder / path).read_bytes()
            found.append(Layout(formatter, config, path, (base / path).read_bytes(), laid_out,
                                _key(laid_out, path) == originals[path]))
    return found


def test_every_formatter_layout_compares_equal(layouts: list[Layout], capsys) -> None:
    configurations = {(layout.formatter, json.dumps(layout.config)) for layout in layouts}
    changed = sum(layout.laid_out != layout.original for layout in layouts)
    failures = [
        f"{layout.formatter} {json.dumps(layout.config)}: {layout.path} is not equal modulo layout:\n"
        f"{_diff(layout.original, layout.laid_out)}"
        for layout in layouts if not layout.equal
    ]
    _report(capsys, f"equivalence layouts (seed {SEED}): {len(configurations)} configurations ({BIOME_CONFIGS} Biome, "
            f"{PRETTIER_CONFIGS} Prettier), "
            f"{len(layouts)} files compared, {changed} laid out differently: all equal" if not failures else
            f"equivalence layouts (seed {SEED}): {len(failures)} of {len(layouts)} files unequal")
    assert not failures, f"{len(failures)} failures; the first:\n" + "\n\n".join(failures[:3])
    assert len(configurations) >= 100 or "EQUIVALENCE_BIOME_CONFIGS" in os.environ or "EQUIVALENCE_PRETTIER_CONFIGS" in os.environ
    assert changed > len(layouts) // 2, "the configurations hardly changed the layout: the test tests nothing"


# --- JavaScript's own reading (SPEC 8) -----------------------------------------------------------


def test_javascript_reads_what_the_relation_calls_equal_alike(layouts: list[Layout], tmp_path: Path, capsys) -> None:
    """Every pair the relation calls equal, in a sample: the formatters'
    layouts, random layout edits of the files and the probes (one edit a
    pair, EQUIVALENCE_EDITS a file), and the unit cases of
    tests/test_equivalence.py. @babel/parser must read each pair's texts as
    the same tree (positions, raw spellings and parentheses set aside;
    comments kept)."""
    from .babel import babel_verdicts, layout_edits
    from .test_equivalence import SAME, SAME_JSX

    rng = random.Random(SEED)
    pairs: list[tuple[str, str, bytes, bytes]] = []  # (what, path, a, b)
    pairs += [(f"{x.formatter} {json.dumps(x.config)}", x.path, x.original, x.laid_out) for x in layouts if x.equal]
    edits = Counter()
    for base, path in FILES + PROBES:
        data = (base / path).read_bytes()
        for what, edited in layout_edits(data, path, rng, EDITS):
            if edited != data and _key(edited, path) == _key(data, path):
                edits[what] += 1
                pairs.append((f"layout edit ({what})", path, data, edited))
    for case, path in [(case, "unit.ts") for case in SAME] + [(case, "unit.tsx") for case in SAME_JSX]:
        a, b = (text.encode() for text in case.values)
        pairs.append((f"tests/test_equivalence.py {case.id}", path, a, b))
    verdicts = babel_verdicts([(a, b, path.endswith(".tsx")) for _, path, a, b in pairs])
    failures = []
    for i, ((what, path, a, b), verdict) in enumerate(zip(pairs, verdicts)):
        if not verdict["same"]:
            trees = tmp_path / f"disagreement-{i}.json"
            trees.write_text(json.dumps({"a": verdict["a"], "b": verdict["b"]}, indent=1))
            failures.append(f"{what}: {path}: equal modulo layout, but Babel reads it otherwise at {verdict['where']} "
                            f"(both trees: {trees}):\n{_diff(a, b)}\n{_at(verdict, 'a')}\n{_at(verdict, 'b')}")
    _report(capsys, f"equivalence against Babel (seed {SEED}): {len(pairs)} pairs the relation calls equal "
            f"({len(pairs) - sum(edits.values()) - len(SAME) - len(SAME_JSX)} formatter layouts, "
            f"{sum(edits.values())} layout edits: {', '.join(f'{k} {v}' for k, v in sorted(edits.items()))}; "
            f"{len(SAME) + len(SAME_JSX)} unit cases): "
            + ("Babel reads each alike" if not failures else f"{len(failures)} read otherwise"))
    assert not failures, f"{len(failures)} disagreements; the first:\n" + "\n\n".join(failures[:3])
    assert len(pairs) >= 500 and sum(edits.values()) >= 300, (len(pairs), edits)


def _at(verdict: dict, side: str) -> str:
    """The tree of ``side`` at the first difference (its parent node), or its parse error."""
    tree = verdict[side]
    if "error" in tree:
        return f"{side}: Babel refuses it: {tree['error']}"
    steps = [step for step in verdict["where"].split(".") if step]
    for step in steps[:-2]:
        tree = tree[int(step)] if isinstance(tree, list) else tree[step]
    return f"{side}: " + json.dumps(tree)[:1500]
