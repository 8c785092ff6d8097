"""src/generated/schema.ts, schema.test.ts and schema.json: what the SDK's
generator (`npm run generate:schemas`: ts-to-zod, then prettier) makes of
the edited spec.types.ts.

With the checkout's node_modules installed, the generator itself runs on a
copy of the sources that holds the edited spec.types.ts. Without them, the
toolchain pinned in tools/ makes them (pinned.py). Only without that too
(the last resort) are the files edited the way the generator writes them:
the file's own zod import, the interface's doc comment copied above its
schema, `.describe()` texts equal to the `@description`s, `.passthrough()`
kept, a schema placed where ts-to-zod places it (right after the
size-changed one, since neither depends on another schema), test-file
aliases and `expectType` pairs in schema order, and JSON `$defs` in the
generator's order. The report then asks for the regeneration to be
confirmed.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.json_layout import layout
from ...engine.outcome import AnchorMissing, Conflict, Refused, SyntaxProblem, TargetMissing, parsed_or_refused
from ...engine.source import SourceFile
from ...engine.style import FormatterConfig, Style, style_for
from ..manifest import read_manifest
from ..base import Context, Notice, Planned, Runner
from . import pinned, spec_types
from ..names import Names
from .common import HOST_CAPABILITIES, HOST_CONTEXT, MAX_LENGTH, SIZE, SIZE_SCHEMA, Words, words, words_of

SCHEMA_PATH = "src/generated/schema.ts"
TEST_PATH = "src/generated/schema.test.ts"
JSON_PATH = "src/generated/schema.json"
GENERATED = (SCHEMA_PATH, TEST_PATH, JSON_PATH)
GENERATOR = "generate:schemas"


def unconfirmed(reason: str) -> Notice:
    """The notice for files edited in the generator's style: why the
    generator did not run, and how to confirm the bytes."""
    return Notice(
        f"src/generated/ was edited in the generator's style, not regenerated ({reason}): "
        f"confirm with `npm run {GENERATOR}` that it gives the same bytes"
    )

_DESCRIPTION = re.compile(r"@description\s+(.*?)\s*\*/", re.DOTALL)


# ----------------------------------------------------------------------
# What the edited spec.types.ts says
# ----------------------------------------------------------------------


class SpecFacts:
    """The parts of the (edited) spec.types.ts the generated files copy."""

    def __init__(self, data: bytes, config: FormatterConfig, w: Words) -> None:
        editor = FileEditor(SourceFile.from_bytes(spec_types.PATH, data, config))
        state = editor.interface(w.state)
        self.notification_doc = editor.doc_text(state)
        self.state_description = _member_description(editor, state, "state")
        self.app_state_description = _member_description(editor, editor.interface(HOST_CONTEXT), w.field)
        capabilities = editor.interfaces(HOST_CAPABILITIES)
        self.capability_description = (
            _member_description(editor, capabilities[0], w.capability)
            if capabilities and any(editor.item_key(m) == w.capability for m in editor.entries(capabilities[0].child_by_field_name("body")))
            else None
        )
        self.max_length_description = ""
        if self.capability_description is not None:
            member = editor.text(editor.property_signature(capabilities[0], w.capability))
            found = re.search(rf"@description\s+(.*?)\s*\*/\s*{MAX_LENGTH}\?", member, re.DOTALL)
            self.max_length_description = description_text(found.group(1)) if found else ""


def _member_description(editor: FileEditor, interface: Node, name: str) -> str:
    match = _DESCRIPTION.search(editor.doc_text(editor.property_signature(interface, name)))
    return description_text(match.group(1)) if match else ""


def description_text(raw: str) -> str:
    """A @description's text as ts-to-zod passes it to `.describe()`: the
    comment's lines without their `*` margins, joined by newlines."""
    lines = [re.sub(r"^\s*\*\s?", "", line) for line in raw.splitlines()]
    return "\n".join(line.rstrip() for line in lines).strip()


def _planned_spec(ctx: Context) -> Planned:
    """spec.types.ts as the spec-types step writes it, and where it is: what
    the generated files derive from. The runner hands it over when that
    step is in the run (refused, it refuses these steps with its reason)."""
    planned = ctx.earlier.get(spec_types.STEP)
    if planned is not None:
        if planned.refusal is not None:
            raise planned.refusal.with_traceback(None)
        return planned
    # Not in the run (`--only schema`): planned here, from its usual place.
    path = Path(ctx.repo) / spec_types.PATH
    if not path.is_file():
        raise TargetMissing(spec_types.PATH, "file not found (the generated files derive from it)")
    return Planned(spec_types.PATH, _after_spec_step(path.read_bytes(), ctx.formatter, ctx.names))


# Without the spec-types step, each of the three generated files derives
# from the same planned file: planned once.
@lru_cache(maxsize=4)
def _after_spec_step(data: bytes, config: FormatterConfig, names: Names) -> bytes:
    return spec_types.planned(data, config, names)


@lru_cache(maxsize=4)
def _facts(spec: bytes, config: FormatterConfig, names: Names) -> SpecFacts:
    return SpecFacts(spec, config, words(names))


def _spec(ctx: Context) -> SpecFacts:
    return _facts(_planned_spec(ctx).data, ctx.formatter, ctx.names)


# ----------------------------------------------------------------------
# Running the generator
# ----------------------------------------------------------------------


def generator_unavailable(repo: Path, run: Runner | None) -> str:
    """Why the checkout cannot regenerate ("" when it can): a runner to
    start it (none on the publishing side), the script declared,
    node_modules installed and npm on PATH."""
    import shutil

    scripts = read_manifest(repo).get("scripts")
    if not isinstance(scripts, dict) or GENERATOR not in scripts:
        return f"the checkout declares no `{GENERATOR}` script"
    if not (repo / "node_modules" / ".bin").is_dir():
        return "the checkout has no node_modules"
    if shutil.which("npm") is None:
        return "npm not found on PATH"
    return pinned.NO_RUNNER if run is None else ""


@lru_cache(maxsize=4)
def _regenerate(repo: str, spec: Planned, run: Runner) -> dict[str, bytes]:
    """Run the generator on a scratch copy of the checkout (its top-level
    files, src/ and scripts/, node_modules linked) whose spec.types.ts is
    the edited one; the checkout itself is not touched."""
    # imported here: only a checkout with node_modules needs them
    import shutil
    import tempfile

    root = Path(repo)
    with tempfile.TemporaryDirectory(prefix="mesh-codemod-generate-") as scratch:
        work = Path(scratch)
        pinned.scratch_checkout(root, work, {"src", "scripts"}, root / "node_modules", spec)
        npm = shutil.which("npm")
        if npm is None:  # gone since generator_unavailable() looked
            raise Refused(SCHEMA_PATH, f"`npm run {GENERATOR}`: npm not found on PATH")
        # the SDK's own script: an allow-listed environment, its own process group
        result = run([npm, "run", "--silent", GENERATOR], work, timeout=600)
        if result.returncode != 0:
            tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
            raise Refused(SCHEMA_PATH, f"`npm run {GENERATOR}` failed: {' / '.join(tail)}")
        return {path: (work / path).read_bytes() for path in GENERATED if (work / path).is_file()}


def _generated(path: str, data: bytes, ctx: Context, edit) -> tuple[bytes, list[str]]:
    """The generated file, from the first source that can make it: the
    checkout's own generator with its node_modules, else the toolchain
    pinned in tools/ (see `pinned`), else the edits in the generator's
    style (the report then asks for a confirmation). The three files are
    made the same way, so the report says once how."""
    repo = Path(ctx.repo)
    why_not = generator_unavailable(repo, ctx.run)
    if not why_not:
        files = _regenerate(str(repo.resolve()), _planned_spec(ctx), ctx.run)
        if path not in files:
            raise Refused(path, f"`npm run {GENERATOR}` did not write it")
        _check_parses(path, files[path], ctx)
        return files[path], [Notice(f"regenerated with `npm run {GENERATOR}`")]
    tools = pinned.toolchain() if ctx.run is not None else None
    failed = ""
    if tools is not None:
        files, failed = pinned.attempt(str(repo.resolve()), _planned_spec(ctx), tools, ctx.run)
        if not failed:
            stray = _stray_files(repo, files, ctx)
            if not stray:
                if path not in files:
                    raise Refused(path, f"{pinned.describe(tools)} did not write it")
                _check_parses(path, files[path], ctx)
                made = Notice(f"regenerated with {pinned.describe(tools)}: {why_not}, so `npm run {GENERATOR}` was not run")
                return files[path], [made] if files[path] != data else []
            failed = (
                f"{pinned.describe(tools)} also rewrote lines that the feature does not touch"
                f" ({', '.join(stray)}), so the checkout's generator is another one"
            )
    # Refused, naming what spec.types.ts lacks, when the file they all
    # derive from cannot be planned (the facts are cached for the edits).
    _spec(ctx)
    new = edit(path, data, ctx)
    reasons = dict.fromkeys((why_not, failed or pinned.unavailable(ctx.run)))  # each once
    return new, [unconfirmed(", and ".join(reasons))] if new != data else []


def _stray_files(repo: Path, files: dict[str, bytes], ctx: Context) -> list[str]:
    """The checkout's generated files in which the toolchain's output
    rewrites existing lines beyond those the feature's own edit rewrites
    (a comma added after a member, say): a generator that rewrites more
    (another zod version's `pattern`s, say) is not the checkout's (SPEC 6).
    A file whose edit cannot be made to compare counts as not stray."""
    edits = {SCHEMA_PATH: _edit_schema, TEST_PATH: _edit_test, JSON_PATH: _edit_json}
    stray = []
    for path, made in files.items():
        try:
            data = (repo / path).read_bytes()
            own = _changed_old_lines(data, edits[path](path, data, ctx))
        except (OSError, Refused):
            continue
        if _changed_old_lines(data, made) - own:
            stray.append(path.rsplit("/", 1)[-1])
    return stray


def _changed_old_lines(old: bytes, new: bytes) -> set[int]:
    """The lines of ``old`` that ``new`` drops or rewrites (insertions aside)."""
    import difflib

    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    return {i for tag, i1, i2, _, _ in matcher.get_opcodes() if tag in {"delete", "replace"} for i in range(i1, i2)}


def _check_parses(path: str, data: bytes, ctx: Context) -> None:
    """What the generator wrote is refused unless it parses."""
    if path.endswith(".json"):
        try:
            json.loads(data)
        except ValueError as err:
            raise SyntaxProblem(path, f"the generator wrote invalid JSON ({err})") from None
    else:
        _editor(path, data, ctx)


# ----------------------------------------------------------------------
# schema.ts
# ----------------------------------------------------------------------


def rewrite_schema(path: str, data: bytes, ctx: Context) -> tuple[bytes, list[str]]:
    return _generated(path, data, ctx, _edit_schema)


def _edit_schema(path: str, data: bytes, ctx: Context) -> bytes:
    w = words_of(ctx)
    spec = _spec(ctx)
    editor = _editor(path, data, ctx)
    style = editor.style
    z = editor.imported_name("zod", "z", package=True) or editor.namespace_import("zod", package=True)
    if z is None:
        raise AnchorMissing(editor.path, "the zod import (`import { z } from \"zod...\"`)")
    size = editor.variable(SIZE_SCHEMA)
    if not editor.variables(w.state_schema):
        unit, quote = style.indent, style.quote
        lines = [
            *spec.notification_doc.splitlines(),
            f"export const {w.state_schema} = {z}.object({{",
            f"{unit}method: {z}.literal({quote}{w.method}{quote}),",
            f"{unit}params: {z}.object({{",
            *_described_member(
                z, "state", [f"union([{', '.join(_state_union(z))}])"], spec.state_description, unit * 2, style,
                after=["nullable()"], items={0: _state_union(z)},
            ),
            f"{unit}}}),",
            "});",
        ]
        editor.insert_after(editor.enclosing_statement(size), "\n".join(lines))
    shape = _object_literal(editor, editor.variable(f"{HOST_CONTEXT}Schema"))
    calls = ["unknown()", "optional()"]
    editor.ensure_entry_lines(
        shape,
        w.field,
        lambda indent: _described_member(z, w.field, calls, spec.app_state_description, indent, style, tail=""),
        separator=",",
    )
    if spec.capability_description is not None:
        _ensure_capability(editor, z, w.capability, spec.capability_description, spec.max_length_description)
    return editor.result()


def _ensure_capability(editor: FileEditor, z: str, capability: str, description: str, max_length: str) -> None:
    """`appState: z.object({}).optional().describe(...)` in the host
    capabilities' schema, where spec.types.ts declares it: after
    `downloadFile`, else last."""
    shape = _object_literal(editor, editor.variable(f"{HOST_CAPABILITIES}Schema"))
    entries = editor.entries(shape)
    if any(editor.item_key(e) == capability for e in entries):
        return
    twin = next((e for e in entries if editor.item_key(e) == "downloadFile"), None)
    if twin is None:
        editor.ensure_entry_lines(
            shape,
            capability,
            lambda indent: _capability_member(z, capability, description, max_length, indent, editor.style, tail=""),
            separator=",",
        )
        return
    indent = editor.source.indent_of(twin)
    lines = _capability_member(z, capability, description, max_length, indent, editor.style)
    editor.insert_after(twin, "\n".join(lines).removeprefix(indent), blank_line=False)


def _state_union(z: str) -> list[str]:
    """ts-to-zod's union for `state`'s type (STATE_TYPE), `null` aside (it
    becomes `.nullable()` after the description)."""
    return [f"{z}.record({z}.string(), {z}.unknown())", f"{z}.array({z}.unknown())", f"{z}.string()", f"{z}.number()", f"{z}.boolean()"]


def _capability_member(
    z: str, capability: str, description: str, max_length: str, indent: str, style: Style, tail: str = ","
) -> list[str]:
    """`appState: z.object({ maxLength: ... }).optional().describe(...)` as
    prettier prints it: the object broken over lines (it holds a comment),
    so the chain is broken one call per line."""
    unit = style.indent
    inner = indent + unit
    member = _described_member(z, MAX_LENGTH, ["number()", "optional()"], max_length, inner + unit, style)
    head = [f"{indent}/** @description {description} */", f"{indent}{capability}: {z}", f"{inner}.object({{", *member, f"{inner}}})", f"{inner}.optional()"]
    # the `.describe(...)` lines of a broken chain, at the chain's indent
    return head + _describe_lines(description, inner, style, tail)


def _editor(path: str, data: bytes, ctx: Context) -> FileEditor:
    return FileEditor(parsed_or_refused(path, data, ctx.formatter))


def _object_literal(editor: FileEditor, declarator: Node) -> Node:
    """The `{ ... }` passed to `z.object(...)` in a schema's declaration."""
    for node in editor.walk(declarator.child_by_field_name("value")):
        if node.type == "call_expression" and editor.text(node.child_by_field_name("function")).endswith(".object"):
            arguments = node.child_by_field_name("arguments")
            literal = next((a for a in arguments.named_children if a.type == "object"), None)
            if literal is not None:
                return literal
    raise AnchorMissing(editor.path, f"the object of `{editor.name_of(declarator)}`")


def _string(text: str, preferred: str) -> str:
    """A string literal as prettier prints it: the preferred quote unless
    the text holds more of it than of the other; non-ASCII escaped as
    ts-to-zod writes it (`\\u2192`)."""
    raw = json.dumps(text)[1:-1].replace('\\"', '"')
    other = "'" if preferred == '"' else '"'
    quote = other if raw.count(preferred) > raw.count(other) else preferred
    return quote + raw.replace(quote, "\\" + quote) + quote


def _described_member(
    z: str,
    name: str,
    calls: list[str],
    description: str,
    indent: str,
    style: Style,
    tail: str = ",",
    after: list[str] = (),
    items: dict[int, list[str]] | None = None,
) -> list[str]:
    """`/** @description ... */` and `name: z.<calls>.describe("...")` (and
    the ``after`` calls) and ``tail``, laid out as prettier prints a member
    chain that starts at `z`: on one line when it fits, otherwise one call
    per line, a call's array argument (``items``, by the call's index) one
    element per line when the call does not fit, and the description on a
    line of its own when even the `.describe(...)` line does not fit."""
    unit, width = style.indent, style.line_width
    literal = _string(description, style.quote)
    doc_lines = description.split("\n")
    if len(doc_lines) == 1:
        lines = [f"{indent}/** @description {description} */"]
    else:
        lines = [f"{indent}/**", f"{indent} * @description {doc_lines[0]}"]
        lines += [f"{indent} * {line}".rstrip() for line in doc_lines[1:]] + [f"{indent} */"]
    chain = "".join(f".{call}" for call in calls)
    rest = "".join(f".{call}" for call in after)
    # The width counts the comma that ends the member, whether or not it is
    # written here.
    one_line = f"{indent}{name}: {z}{chain}.describe({literal}){rest}"
    if len(one_line) + 1 <= width:
        return lines + [one_line + tail]
    inner = indent + unit
    out = lines + [f"{indent}{name}: {z}"]
    for index, call in enumerate(calls):
        elements = (items or {}).get(index)
        if elements is not None and len(f"{inner}.{call}") > width:
            opener = call[: call.index("(") + 1] + "["
            out += [f"{inner}.{opener}", *[f"{inner}{unit}{e}," for e in elements], f"{inner}])"]
        else:
            out.append(f"{inner}.{call}")
    out += _describe_lines(description, inner, style, "" if after else tail)
    out += [f"{inner}.{call}" for call in after]
    if after:
        out[-1] += tail
    return out


def _describe_lines(description: str, inner: str, style: Style, tail: str) -> list[str]:
    """`.describe("...")` in a broken chain at ``inner``, its argument on a
    line of its own when the call does not fit (the width counts a comma)."""
    literal = _string(description, style.quote)
    describe = [f"{inner}.describe({literal})"]
    if len(describe[0]) + 1 > style.line_width:
        describe = [f"{inner}.describe(", f"{inner}{style.indent}{literal},", f"{inner})"]
    return describe[:-1] + [describe[-1] + tail]


# ----------------------------------------------------------------------
# schema.test.ts
# ----------------------------------------------------------------------


def rewrite_test(path: str, data: bytes, ctx: Context) -> tuple[bytes, list[str]]:
    return _generated(path, data, ctx, _edit_test)


def _edit_test(path: str, data: bytes, ctx: Context) -> bytes:
    """Each run of consecutive statements that name the size-changed
    notification gets its renamed twin right after it: the inferred-type
    alias after the alias, the pair of `expectType` checks after the pair."""
    w = words_of(ctx)
    editor = _editor(path, data, ctx)
    statements = editor.entries(editor.source.root)
    runs: list[list[Node]] = []
    for statement in statements:
        if re.search(rf"\b{SIZE}\w*", editor.text(statement)):
            if runs and runs[-1][-1].next_named_sibling == statement:
                runs[-1].append(statement)
            else:
                runs.append([statement])
    if not runs:
        raise AnchorMissing(path, f"a statement about `{SIZE}` (its inferred type or expectType checks)")
    present = {editor.text(s) for s in statements}
    for run in runs:
        copies = [w.rename(editor.text(s)) for s in run]
        if all(copy in present for copy in copies):
            continue
        if any(copy in present for copy in copies):
            raise Conflict(path, f"only part of the {w.state} checks beside `{editor.text(run[0])[:40]}...` exist")
        text = "\n".join(copies)
        editor.insert_after(run[-1], text, blank_line=_spaced(run[-1]))
    return editor.result()


def _spaced(node: Node) -> bool:
    """Whether statements here are set apart by blank lines."""
    after, before = node.next_named_sibling, node.prev_named_sibling
    near = after or before
    if near is None:
        return True
    gap = (near.start_point[0] - node.end_point[0]) if near is after else (node.start_point[0] - near.end_point[0])
    return gap > 1


# ----------------------------------------------------------------------
# schema.json
# ----------------------------------------------------------------------


def rewrite_json(path: str, data: bytes, ctx: Context) -> tuple[bytes, list[str]]:
    return _generated(path, data, ctx, _edit_json)


def definition_order(name: str) -> str:
    """The generator lists $defs sorted by schema name (`<Type>Schema`)."""
    return name + "Schema"


def _edit_json(path: str, data: bytes, ctx: Context) -> bytes:
    try:
        text = data.decode("utf-8")
        document = json.loads(text)
    except (UnicodeDecodeError, ValueError) as err:
        raise SyntaxProblem(path, f"not valid JSON ({err})") from None
    crlf = "\r\n" in text
    text = text.replace("\r\n", "\n")
    width = style_for(b"", ctx.formatter).line_width
    if layout(document, width=width) != text:
        raise Conflict(path, "is not laid out as the generator writes it (prettier JSON); regenerate it first")
    w = words_of(ctx)
    spec = _spec(ctx)
    definitions = document.get("$defs")
    if not isinstance(definitions, dict) or SIZE not in definitions or HOST_CONTEXT not in definitions:
        raise AnchorMissing(path, f"`$defs` with `{SIZE}` and `{HOST_CONTEXT}`")
    if w.state not in definitions:
        definitions = _with_definition(definitions, w.state, _state_definition(definitions[SIZE], spec, w.method))
    host_properties = list(definitions[HOST_CONTEXT].get("properties", {}))
    _add_app_state(document, set(host_properties), w.field, spec.app_state_description)
    if spec.capability_description is not None:
        if HOST_CAPABILITIES not in definitions:
            raise AnchorMissing(path, f"`$defs` with `{HOST_CAPABILITIES}` (spec.types.ts declares it)")
        capability_keys = set(definitions[HOST_CAPABILITIES].get("properties", {}))
        _add_capability(document, capability_keys, w.capability, spec.capability_description, spec.max_length_description)
    document["$defs"] = definitions
    out = layout(document, width=width)
    return (out.replace("\n", "\r\n") if crlf else out).encode()


def _state_definition(size: dict, spec: SpecFacts, method: str) -> dict:
    definition = json.loads(json.dumps(size))
    definition["properties"]["method"]["const"] = method
    definition["properties"]["params"] = {
        "type": "object",
        "properties": {"state": _state_json(spec.state_description)},
        "required": ["state"],
        "additionalProperties": False,
    }
    return definition


def _state_json(description: str) -> dict:
    """zod's JSON Schema of `state` (`z.union([...]).describe(...).nullable()`)."""
    return {
        "anyOf": [
            {
                "anyOf": [
                    {"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {}},
                    {"type": "array", "items": {}},
                    {"type": "string"},
                    {"type": "number"},
                    {"type": "boolean"},
                ],
                "description": description,
            },
            {"type": "null"},
        ]
    }


def _with_definition(definitions: dict, name: str, definition: dict) -> dict:
    out: dict = {}
    placed = False
    for key, value in definitions.items():
        if not placed and definition_order(key) > definition_order(name):
            out[name] = definition
            placed = True
        out[key] = value
    if not placed:
        out[name] = definition
    return out


def _add_capability(node: object, keys: set[str], capability: str, description: str, max_length: str) -> None:
    """`appState` (an object of one optional number, `maxLength`) in every
    copy of the host capabilities' properties, after `downloadFile` when it
    is there."""
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict) and keys and keys <= set(properties) and capability not in properties:
            entry = {
                "description": description,
                "type": "object",
                "properties": {MAX_LENGTH: {"description": max_length, "type": "number"}},
                "additionalProperties": False,
            }
            after = "downloadFile" if "downloadFile" in properties else list(properties)[-1]
            rebuilt: dict = {}
            for key, value in properties.items():
                rebuilt[key] = value
                if key == after:
                    rebuilt[capability] = entry
            node["properties"] = rebuilt
        for value in list(node.values()):
            _add_capability(value, keys, capability, description, max_length)
    elif isinstance(node, list):
        for value in node:
            _add_capability(value, keys, capability, description, max_length)


def _add_app_state(node: object, host_keys: set[str], field: str, description: str) -> None:
    """`appState` in every copy of the host context's properties (the
    generator inlines the context wherever it is used)."""
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict) and host_keys and host_keys <= set(properties):
            if field not in properties:
                properties[field] = {"description": description}
        for value in node.values():
            _add_app_state(value, host_keys, field, description)
    elif isinstance(node, list):
        for value in node:
            _add_app_state(value, host_keys, field, description)
