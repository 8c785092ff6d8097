"""The one layout-insensitive comparison: layout differs, meaning does not."""

from __future__ import annotations

import pytest

from codemods.engine.equivalence import TSX, LayoutKeyError, layout_digest, layout_key, same_modulo_layout

SAME = [
    pytest.param(
        'bridge.setNotificationHandler("ui/notifications/state-changed", { params: S }, ({ state }) => { f(state); });',
        "bridge.setNotificationHandler(\n  'ui/notifications/state-changed',\n  { params: S, },\n  ({ state }) => {\n"
        "    f(state)\n  },\n)",
        id="quotes-semicolons-trailing-commas-breaks",
    ),
    pytest.param("const f = x => x + 1;", "const f = (x) => (x + 1)", id="arrow-parameter-and-body-parentheses"),
    pytest.param("b.on = async p => { f(p) };", "b.on = async (p) => { f(p); };", id="async-arrow-parameter"),
    pytest.param("type T = A | B;", "type T =\n  | A\n  | B", id="leading-union-operator"),
    pytest.param("interface I { a: string; b: number }", "interface I { a: string, b: number, }", id="member-separators"),
    pytest.param("const o = { 'a': 1.50 };", "const o = { a: 1.5 }", id="quoted-key-and-number"),
    pytest.param("const s = 'it\\'s';", 'const s = "it\'s";', id="quote-escape"),
    pytest.param("if (a) {\n\tb();\n}", "if (a) {\n  b();\n}\n", id="tabs"),
    pytest.param("\ufeffconst a = 1;\r\n", "const a = 1;\n", id="bom-and-crlf"),
]

DIFFERENT = [
    pytest.param("const f = (a + b) * c;", "const f = a + b * c;", id="nesting"),
    pytest.param("const s = 'a';", "const s = 'b';", id="string-content"),
    pytest.param("f(a);", "f(a); fetch('x');", id="an-added-call"),
    pytest.param("type T = A | B;", "type T = A & B;", id="union-vs-intersection"),
    pytest.param("const o = { 'a-b': 1 };", "const o = { a: 1 };", id="a-key-that-needs-quotes"),
    pytest.param("let x = 1;", "const x = 1;", id="keyword"),
    pytest.param("const a = x.y;", "const b = x.y;", id="name"),
    pytest.param("// keep\nf();", "// changed\nf();", id="comment-text"),
    pytest.param("const t = `a ${b}`;", "const t = `a  ${b}`;", id="template-content"),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_layout_alone_is_the_same_code(a: str, b: str) -> None:
    assert same_modulo_layout(a, b)
    assert layout_digest(a) == layout_digest(b)


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_a_change_of_meaning_is_not_layout(a: str, b: str) -> None:
    assert not same_modulo_layout(a, b)


def test_jsx_text_and_attribute_quotes_in_tsx() -> None:
    a = 'const a = <div className="x">\n  hello\n  world\n</div>;'
    b = "const a = (<div className='x'>hello world</div>)"
    assert same_modulo_layout(a, b, TSX)
    assert not same_modulo_layout(a, b.replace("world", "there"), TSX)


def test_comments_can_be_left_out() -> None:
    assert layout_key("// a\nf();", comments=False) == layout_key("f(); // b", comments=False)


def test_a_syntax_error_has_no_key() -> None:
    with pytest.raises(LayoutKeyError):
        layout_key("const = ;")
    assert not same_modulo_layout("const = ;", "const = ;")


def test_the_grammar_follows_the_path() -> None:
    assert same_modulo_layout("const a = <b />;", "const a = (<b />);", "x.tsx")
