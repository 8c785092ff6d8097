"""The rules by which the SDK's generator (`npm run generate:schemas`:
ts-to-zod, then prettier) derives src/generated/ from src/spec.types.ts,
stated as checks. `problems(root)` lists every place where a tree breaks
one; the SDK tests require that a tree the codemod edits breaks none that
it did not break before.

1. Every exported type of spec.types.ts has an exported `<Name>Schema`
   whose doc comment is the type's doc comment, copied.
2. Every member `@description` (one without an inline `{@link}`, which
   ts-to-zod leaves out, and cut at the next `@tag`, as ts-to-zod cuts it)
   is the text of a `.describe()` in schema.ts.
3. schema.test.ts has one `<Name>SchemaInferredType` alias per schema, in
   schema order, then the two `expectType` checks of each, in that order.
4. schema.json has one `$defs` entry per schema, sorted by schema name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tree_sitter import Node

from codemods.engine.parsing import TYPESCRIPT, parse

# ts-to-zod ends a description at the next tag, even one inside a sentence
# (`... rules or @import statements` is cut before `@import`).
_DESCRIPTION = re.compile(r"@description\s+(.*?)(?=\s@\w|\s*\*/)", re.DOTALL)


def _text(data: bytes, node: Node) -> str:
    return data[node.start_byte:node.end_byte].decode()


def _doc_before(data: bytes, node: Node) -> str:
    before = node.prev_sibling
    if before is not None and before.type == "comment" and _text(data, before).startswith("/**"):
        return _text(data, before)
    return ""


def _exports(data: bytes, kinds: set[str]) -> list[tuple[str, str]]:
    """(name, doc comment) of each top-level export of the given kinds."""
    out = []
    for statement in parse(data, TYPESCRIPT).root_node.named_children:
        if statement.type != "export_statement":
            continue
        for declaration in statement.named_children:
            if declaration.type in kinds:
                if declaration.type == "lexical_declaration":
                    declaration = declaration.named_children[0]
                name = declaration.child_by_field_name("name")
                if name is not None:
                    out.append((_text(data, name), _doc_before(data, statement)))
    return out


def _walk(node: Node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _string_value(literal: str) -> str:
    if literal.startswith("'"):
        literal = '"' + literal[1:-1].replace("\\'", "'").replace('"', '\\"') + '"'
    return json.loads(literal)


def description_of(comment: str) -> str | None:
    """A member doc comment's @description as ts-to-zod reads it."""
    match = _DESCRIPTION.search(comment)
    if match is None or "{@link" in match.group(1):
        return None
    lines = [re.sub(r"^\s*\*\s?", "", line).rstrip() for line in match.group(1).splitlines()]
    return "\n".join(lines).strip()


def member_descriptions(spec: bytes) -> list[tuple[str, str]]:
    out = []
    for node in _walk(parse(spec, TYPESCRIPT).root_node):
        if node.type == "property_signature":
            described = description_of(_doc_before(spec, node))
            if described is not None:
                out.append((_text(spec, node.child_by_field_name("name")), described))
    return out


def describe_texts(schema: bytes) -> set[str]:
    texts = set()
    for node in _walk(parse(schema, TYPESCRIPT).root_node):
        if node.type != "call_expression":
            continue
        callee = node.child_by_field_name("function")
        if callee is None or callee.type != "member_expression" or _text(schema, callee).split(".")[-1] != "describe":
            continue
        args = [a for a in node.child_by_field_name("arguments").named_children if a.type == "string"]
        if args:
            texts.add(_string_value(_text(schema, args[0])))
    return texts


def problems(root: Path) -> list[str]:
    found: list[str] = []
    spec = (root / "src/spec.types.ts").read_bytes()
    generated = root / "src/generated"
    schema = (generated / "schema.ts").read_bytes()
    types = _exports(spec, {"interface_declaration", "type_alias_declaration"})
    schemas = _exports(schema, {"lexical_declaration"})
    schema_docs = dict(schemas)
    for name, doc in types:
        if f"{name}Schema" not in schema_docs:
            found.append(f"rule 1: no {name}Schema in schema.ts")
        elif schema_docs[f"{name}Schema"] != doc:
            found.append(f"rule 1: the doc comment of {name}Schema is not the one of {name}")
    described = describe_texts(schema)
    for member, text in member_descriptions(spec):
        if text not in described:
            found.append(f"rule 2: no .describe() with the @description of `{member}`: {text[:60]!r}")
    names = [name.removesuffix("Schema") for name, _ in schemas]
    test_file = generated / "schema.test.ts"
    if test_file.is_file():
        test = test_file.read_text()
        aliases = re.findall(r"export type (\w+)SchemaInferredType\b", test)
        if aliases != names:
            found.append(f"rule 3: aliases {_first_difference(aliases, names)}")
        spec_side = re.findall(r"expectType<spec\.(\w+)>", test)
        schema_side = re.findall(r"expectType<(\w+)SchemaInferredType>", test)
        if spec_side != names or schema_side != names:
            found.append(f"rule 3: expectType checks {_first_difference(spec_side, names)}")
        pairs = re.findall(r"^expectType<(?:spec\.)?(\w+?)(?:SchemaInferredType)?>", test, re.MULTILINE)
        if pairs != [n for n in names for _ in (0, 1)]:
            found.append("rule 3: the expectType checks do not come in pairs in schema order")
    json_file = generated / "schema.json"
    if json_file.is_file():
        definitions = list(json.loads(json_file.read_text())["$defs"])
        if definitions != sorted(definitions, key=lambda n: n + "Schema"):
            found.append("rule 4: $defs are not sorted by schema name")
        if set(definitions) != set(names):
            found.append(f"rule 4: $defs {sorted(set(definitions) ^ set(names))} differ from the schemas")
    return found


def _first_difference(actual: list[str], wanted: list[str]) -> str:
    for index, (a, w) in enumerate(zip(actual, wanted)):
        if a != w:
            return f"differ at #{index}: {a} where schema order has {w}"
    return f"count {len(actual)} where there are {len(wanted)} schemas"
