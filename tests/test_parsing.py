"""Incremental re-parsing (``parsing.reparse``) agrees with a full parse.

The editor checks that every edited file still parses by re-parsing it
incrementally from the original tree. Hypothesis draws edits (insertions,
deletions, replacements, with text that is often not valid TypeScript) at
any offsets of the bundled fixture's target files; the incremental tree must
report a syntax error exactly when a full parse does, must be the same tree
as the full parse when there is none (every node's kind, byte range and
row/column points), and must leave the original tree as it was.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemods.engine.edits import EditSet
from codemods.engine.parsing import first_error, language_for, parse, reparse

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "host" / "newest" / "input"
FILES = sorted(p for p in FIXTURE.rglob("*.ts*") if p.suffix in {".ts", ".tsx"})
TEXTS = [b"", b"\n", b" ", b"}", b"{", b"(a)", b"foo", b"\n  const x = 1;\n", b"<a />", b"// c\n", b"/* x */", "é\n".encode()]


def nodes(tree) -> list[tuple]:
    """Every node with its kind, byte range and (row, column) points."""
    out, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        out.append((node.type, node.start_byte, node.end_byte, node.start_point, node.end_point))
        stack.extend(reversed(node.children))
    return out


@st.composite
def edited_files(draw):
    path = draw(st.sampled_from(FILES))
    data = path.read_bytes()
    offsets = sorted(draw(st.sets(st.integers(0, len(data)), min_size=1, max_size=4)))
    edits = EditSet()
    for start, following in zip(offsets, [*offsets[1:], len(data)]):
        end = start + draw(st.integers(0, min(8, following - start)))
        text = draw(st.sampled_from(TEXTS))
        if start != end or text:
            edits.replace(start, end, text)
    return path, data, edits


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=edited_files())
def test_reparse_agrees_with_a_full_parse(case) -> None:
    path, data, edits = case
    language = language_for(path)
    tree = parse(data, language)
    before = nodes(tree)
    new = edits.apply(data)

    incremental = reparse(tree, data, new, edits)
    full = parse(new, language)

    assert (first_error(incremental) is None) == (first_error(full) is None)
    if first_error(full) is None:
        assert nodes(incremental) == nodes(full)
    assert nodes(tree) == before, "reparse changed the original tree"


def test_reparse_without_edits_is_the_same_tree() -> None:
    data = FILES[0].read_bytes()
    tree = parse(data, language_for(FILES[0]))
    assert nodes(reparse(tree, data, data, EditSet())) == nodes(tree)
