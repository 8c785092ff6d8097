"""Syntax-aware rewrites of TypeScript/TSX that keep the program the same:
what another formatter configuration, or a person, might have produced.

Each rewrite takes a file's bytes and its path (the extension picks the
grammar), finds its targets with tree-sitter, and asserts that its result
still parses, so a broken perturbation is reported as such and never looks
like a bug of the tool. The ``*_points``/``*_blocks`` functions list where a
rewrite can act; the tests choose among them with Hypothesis.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from tree_sitter import Node

from codemods.engine.parsing import first_error, language_for, parse

CLOSERS = {")", "]", "}"}
# Containers whose members sit one per line: a blank line or a comment line
# may go between two of them.
GAP_CONTAINERS = {"program", "statement_block", "class_body", "interface_body", "object_type", "object"}
# Comma-separated lists, where the tool appends items after the last one.
LIST_CONTAINERS = {"formal_parameters", "arguments", "object_pattern", "named_imports", "array"}
COMMENT_LINE = b"// formatter note"


def root(data: bytes, path: str) -> Node:
    return parse(data, language_for(path)).root_node


def walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def assert_parses(data: bytes, path: str, what: str) -> bytes:
    error = first_error(parse(data, language_for(path)))
    assert error is None, f"perturbation bug: {what} made {path} unparsable at {error}"
    return data


def text(data: bytes, node: Node) -> str:
    return data[node.start_byte:node.end_byte].decode()


def line_start(data: bytes, offset: int) -> int:
    return data.rfind(b"\n", 0, offset) + 1


def next_line(data: bytes, offset: int) -> int:
    """Offset of the line after the one holding ``offset``."""
    end = data.find(b"\n", offset)
    return len(data) if end == -1 else end + 1


def starts_line(data: bytes, node: Node) -> bool:
    return not data[line_start(data, node.start_byte):node.start_byte].strip()


# ----------------------------------------------------------------------
# Member order
# ----------------------------------------------------------------------


def member_blocks(data: bytes, path: str, interface: str) -> list[tuple[int, int]]:
    """The line ranges ``[start, end)`` of the members of ``interface``, each
    with its separator and any same-line trailing comment (members may span
    lines). Empty when the interface is absent or its members are not laid
    out one block of lines after the other, each ending with a separator."""
    body = next(
        (
            n.child_by_field_name("body") for n in walk(root(data, path))
            if n.type == "interface_declaration" and text(data, n.child_by_field_name("name")) == interface
        ),
        None,
    )
    if body is None:
        return []
    blocks: list[tuple[int, int]] = []
    last_row = None
    for member in body.named_children:
        if member.type == "comment":
            if member.start_point.row == last_row:
                continue  # a trailing comment: already inside its member's lines
            return []
        separator = member.next_sibling
        if separator is None or separator.type not in {";", ","} or not starts_line(data, member):
            return []
        blocks.append((line_start(data, member.start_byte), next_line(data, separator.end_byte)))
        last_row = separator.end_point.row
    contiguous = all(a[1] == b[0] for a, b in zip(blocks, blocks[1:]))
    return blocks if contiguous else []


def permute_members(data: bytes, path: str, interface: str, order: Sequence[int]) -> bytes:
    blocks = member_blocks(data, path, interface)
    assert sorted(order) == list(range(len(blocks))), (interface, order, len(blocks))
    moved = b"".join(data[blocks[i][0]:blocks[i][1]] for i in order)
    out = data[:blocks[0][0]] + moved + data[blocks[-1][1]:]
    return assert_parses(out, path, f"reordering the members of {interface}")


# ----------------------------------------------------------------------
# Blank lines and comment lines between members
# ----------------------------------------------------------------------


def gap_points(data: bytes, path: str) -> list[int]:
    """Line starts between two members (statements, class members, interface
    members, object entries) that are on different lines. A comment stays
    with the member it precedes: no point right after a comment."""
    points = set()
    for node in walk(root(data, path)):
        if node.type not in GAP_CONTAINERS:
            continue
        children = node.named_children
        for prev, cur in zip(children, children[1:]):
            if prev.type == "comment" or prev.end_point.row >= cur.start_point.row or not starts_line(data, cur):
                continue
            points.add(line_start(data, cur.start_byte))
    return sorted(points)


def insert_gaps(data: bytes, path: str, gaps: Mapping[int, str]) -> bytes:
    """At each point of ``gaps`` (from :func:`gap_points`) insert a blank
    line (``"blank"``) or a comment line indented like the next line."""
    out = data
    for point in sorted(gaps, reverse=True):
        following = out[point:next_line(out, point)]
        indent = following[:len(following) - len(following.lstrip(b" \t"))]
        line = b"\n" if gaps[point] == "blank" else indent + COMMENT_LINE + b"\n"
        out = out[:point] + line + out[point:]
    return assert_parses(out, path, "inserting blank/comment lines")


def trailing_comment_points(data: bytes, path: str) -> list[int]:
    """Line ends after a member (of the containers above or of a list) that
    only a separator follows on its line: a ``// comment`` can go there."""
    points = set()
    for node in walk(root(data, path)):
        if node.type not in GAP_CONTAINERS | LIST_CONTAINERS:
            continue
        for member in node.named_children:
            if member.type == "comment":
                continue
            end = data.find(b"\n", member.end_byte)
            end = len(data) if end == -1 else end
            if data[member.end_byte:end].strip() in {b"", b",", b";"}:
                points.add(end)
    return sorted(points)


def add_trailing_comments(data: bytes, path: str, points: Sequence[int]) -> bytes:
    """`` // comment`` at each line end of ``points`` (from
    :func:`trailing_comment_points`)."""
    out = data
    for point in sorted(points, reverse=True):
        out = out[:point] + b" " + COMMENT_LINE + out[point:]
    return assert_parses(out, path, "adding trailing comments")


# ----------------------------------------------------------------------
# Trailing commas
# ----------------------------------------------------------------------


def trailing_commas(data: bytes, path: str) -> list[int]:
    """Offsets of the commas that end a line and directly precede the
    closing bracket of their multi-line list."""
    found = []
    for node in walk(root(data, path)):
        if node.type != "," or node.is_named:
            continue
        closer = node.next_sibling
        if closer is None or closer.type not in CLOSERS or closer.start_point.row == node.end_point.row:
            continue
        if data[node.end_byte:next_line(data, node.end_byte)].strip():
            continue  # a comment after the comma
        found.append(node.start_byte)
    return found


def drop_commas(data: bytes, path: str, offsets: Sequence[int]) -> bytes:
    out = data
    for offset in sorted(offsets, reverse=True):
        assert out[offset:offset + 1] == b",", offset
        out = out[:offset] + out[offset + 1:]
    return assert_parses(out, path, "dropping trailing commas")


# ----------------------------------------------------------------------
# Quotes
# ----------------------------------------------------------------------


def string_literals(data: bytes, path: str) -> list[Node]:
    """String literals, JSX attribute strings included (the grammar gives
    both the node type ``string``; the keyword type ``string`` is unnamed)."""
    return [n for n in walk(root(data, path)) if n.type == "string" and n.is_named]


def single_quote(data: bytes, path: str) -> bytes:
    """Every double-quoted string without a single quote or a backslash in
    it, single-quoted."""
    out = bytearray(data)
    for node in string_literals(data, path):
        inner = data[node.start_byte + 1:node.end_byte - 1]
        if data[node.start_byte:node.start_byte + 1] == b'"' and b"'" not in inner and b"\\" not in inner:
            out[node.start_byte] = out[node.end_byte - 1] = ord("'")
    return assert_parses(bytes(out), path, "single-quoting strings")


def quote_counts(data: bytes, path: str) -> tuple[int, int]:
    """(single-quoted, double-quoted) string literals."""
    firsts = [data[n.start_byte:n.start_byte + 1] for n in string_literals(data, path)]
    return firsts.count(b"'"), firsts.count(b'"')


# ----------------------------------------------------------------------
# Indentation
# ----------------------------------------------------------------------


def reindent(data: bytes, path: str, unit: bytes) -> bytes:
    """Each run of two leading spaces replaced by ``unit`` (an odd space is
    kept), except on lines that start inside a multi-line string."""
    literals = [
        (n.start_byte, n.end_byte) for n in walk(root(data, path))
        if n.type in {"string", "template_string"} and n.start_point.row != n.end_point.row
    ]
    out, offset = [], 0
    for line in data.split(b"\n"):
        inside = any(start < offset < end for start, end in literals)
        spaces = len(line) - len(line.lstrip(b" "))
        if inside or not line.strip():
            out.append(line)
        else:
            out.append(unit * (spaces // 2) + b" " * (spaces % 2) + line[spaces:])
        offset += len(line) + 1
    return assert_parses(b"\n".join(out), path, f"re-indenting with {unit!r}")


# ----------------------------------------------------------------------
# Semicolons, arrow parameters, renames
# ----------------------------------------------------------------------

# Statements whose final `;` Biome's `semicolons: "asNeeded"` drops.
_TERMINATED = {
    "expression_statement", "lexical_declaration", "variable_declaration", "return_statement",
    "import_statement", "export_statement", "type_alias_declaration", "public_field_definition",
    "throw_statement", "break_statement", "continue_statement",
}
# A line starting with one of these would continue the statement before it.
_HAZARDS = (b"(", b"[", b"`", b"+", b"-", b"/", b"*", b"<", b",", b".")


def drop_semicolons(data: bytes, path: str) -> bytes:
    """Every statement-ending semicolon that ASI makes redundant removed,
    as `semicolons: "asNeeded"` prints them."""
    cuts = []
    for node in walk(root(data, path)):
        if node.type not in _TERMINATED or not node.children or node.children[-1].type != ";":
            continue
        semicolon = node.children[-1]
        if node.type == "public_field_definition" or node.parent is not None and node.parent.type == "class_body":
            follower = semicolon.next_sibling
        else:
            follower = node.next_sibling
        after = data[semicolon.end_byte:next_line(data, semicolon.end_byte)].strip()
        if after and not after.startswith(b"//"):
            continue  # another statement on the same line
        rest = data[next_line(data, semicolon.end_byte):].lstrip()
        if rest.startswith(_HAZARDS) or follower is not None and follower.type in {"[", "("}:
            continue
        cuts.append(semicolon.start_byte)
    out = data
    for offset in sorted(cuts, reverse=True):
        out = out[:offset] + out[offset + 1:]
    return assert_parses(out, path, "dropping semicolons")


def arrow_parameter_points(data: bytes, path: str) -> list[tuple[int, int, bool]]:
    """Arrow functions with one plain parameter: (start, end, parenthesised)
    of the parameter list or the bare parameter."""
    found = []
    for node in walk(root(data, path)):
        if node.type != "arrow_function":
            continue
        bare = node.child_by_field_name("parameter")
        if bare is not None:
            found.append((bare.start_byte, bare.end_byte, False))
            continue
        params = node.child_by_field_name("parameters")
        if params is None or node.child_by_field_name("type_parameters") is not None:
            continue
        named = [c for c in params.named_children if c.type != "comment"]
        if len(named) != 1 or named[0].type != "required_parameter" or named[0].named_child_count != 1:
            continue
        if named[0].named_children[0].type != "identifier" or node.child_by_field_name("return_type") is not None:
            continue
        found.append((params.start_byte, params.end_byte, True))
    return found


def toggle_arrow_parentheses(data: bytes, path: str, points: Sequence[tuple[int, int, bool]]) -> bytes:
    """`x => ...` becomes `(x) => ...` and back, at ``points``."""
    out = data
    for start, end, parenthesised in sorted(points, reverse=True):
        inner = out[start:end]
        out = out[:start] + (inner[1:-1].strip() if parenthesised else b"(" + inner + b")") + out[end:]
    return assert_parses(out, path, "toggling arrow parameter parentheses")


def rename(data: bytes, path: str, old: str, new: str, kinds: Sequence[str], within: Node | None = None) -> bytes:
    """Every identifier of ``kinds`` named ``old`` (inside ``within``, a node
    of this data's tree, when given) renamed to ``new``."""
    top = within if within is not None else root(data, path)
    spans = [
        (n.start_byte, n.end_byte) for n in walk(top)
        if n.type in kinds and data[n.start_byte:n.end_byte] == old.encode()
    ]
    assert spans, f"perturbation bug: no {old} in {path}"
    out = data
    for start, end in sorted(spans, reverse=True):
        out = out[:start] + new.encode() + out[end:]
    return assert_parses(out, path, f"renaming {old}")


def function_named(data: bytes, path: str, name: str) -> Node:
    """The method or function declaration called ``name``."""
    for node in walk(root(data, path)):
        if node.type in {"method_definition", "function_declaration"}:
            label = node.child_by_field_name("name")
            if label is not None and data[label.start_byte:label.end_byte] == name.encode():
                return node
    raise AssertionError(f"perturbation bug: no function {name} in {path}")
