"""Style from the repository, the layout printer, and ensure operations
that merge what the same run already planned (STYLE.md points 9 and 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.engine import layout as L
from codemods.engine import statements
from codemods.engine.editor import FileEditor
from codemods.engine.statements import Item, check_roles, statement
from codemods.engine.layout import restyle_text
from codemods.engine.snippet_printer import layout_snippet
from codemods.engine.source import SourceFile
from codemods.engine.style import FormatterConfig, Style, parse_jsonc, read_config, style_for

# ---------------------------------------------------------------- style


def test_biome_jsonc_with_comments_and_trailing_commas(tmp_path: Path) -> None:
    (tmp_path / "biome.jsonc").write_text(
        """{
  // the team's settings
  "formatter": { "indentStyle": "space", "indentWidth": 4, "lineWidth": 100, /* wide */ },
  "javascript": {
    "formatter": { "quoteStyle": "single", "semicolons": "asNeeded", "trailingCommas": "none", },
  },
}
"""
    )
    config = read_config(tmp_path)
    assert config == FormatterConfig(
        indent_style="space", indent_width=4, line_width=100, quote_style="single",
        semicolons="asNeeded", trailing_commas="none", source="biome.jsonc",
    )
    style = style_for(b"", config)
    assert style == Style(indent="    ", quote="'", line_width=100, semicolons=False,
                          trailing_commas="none", indent_width=4)


def test_javascript_formatter_settings_win_over_the_general_ones(tmp_path: Path) -> None:
    (tmp_path / "biome.json").write_text(
        '{"formatter": {"lineWidth": 100, "indentStyle": "tab"}, "javascript": {"formatter": {"lineWidth": 90}}}'
    )
    style = style_for(b"", read_config(tmp_path))
    assert (style.line_width, style.indent) == (90, "\t")


def test_jsonc_strings_keep_comment_like_text() -> None:
    assert parse_jsonc('{"a": "// not a comment", "b": "/* nor this */",}') == {
        "a": "// not a comment", "b": "/* nor this */"
    }


def test_no_config_means_biome_defaults(tmp_path: Path) -> None:
    assert style_for(b"", read_config(tmp_path)) == Style()


def test_the_file_wins_where_it_disagrees_with_the_config() -> None:
    four = b"function f() {\n    if (a) {\n        go('x');\n    }\n    /**\n     * doc\n     */\n}\n"
    config = FormatterConfig(indent_width=2, quote_style="double")
    style = SourceFile.from_bytes("a.ts", four, config).style
    assert (style.indent, style.quote) == ("    ", "'")
    tabs = b"function f() {\n\tgo();\n\tif (a) {\n\t\tgo();\n\t}\n}\n"
    assert SourceFile.from_bytes("a.ts", tabs, FormatterConfig(indent_width=4)).style.indent == "\t"
    # Silent file (no indented line, no string): the config decides.
    config = FormatterConfig(indent_style="tab", quote_style="single", line_width=120)
    style = SourceFile.from_bytes("a.ts", b"f();\n", config).style
    assert (style.indent, style.quote, style.line_width) == ("\t", "'", 120)


# ---------------------------------------------------------------- layout


def test_one_rule_fit_else_break_for_lists_conditions_and_calls() -> None:
    items = ["alpha", "beta", "gamma"]
    narrow, wide = Style(line_width=19), Style(line_width=80)
    doc = L.delimited("(", items, ")", wide, kind="call")
    assert L.print_doc(doc, wide) == "(alpha, beta, gamma)"
    assert L.print_doc(doc, narrow) == "(\n  alpha,\n  beta,\n  gamma,\n)"
    bare = Style(line_width=19, trailing_commas="none")
    assert L.print_doc(L.delimited("(", items, ")", bare), bare) == "(\n  alpha,\n  beta,\n  gamma\n)"
    cond = ["if ", *L.condition(["first", " &&", L.LINE, "second"]), " {}"]
    assert L.print_doc(cond, wide) == "if (first && second) {}"
    assert L.print_doc(cond, narrow) == "if (\n  first &&\n  second\n) {}"
    crlf = Style(line_width=19, eol="\r\n")
    assert L.print_doc(cond, crlf) == "if (\r\n  first &&\r\n  second\r\n) {}"


def test_a_snippet_kept_as_written_gets_the_styles_line_endings() -> None:
    laid = layout_snippet("label: for (;;) {\n  break label;\n}", "  ", Style(eol="\r\n"))
    assert not laid.laid_out
    assert laid.text == "label: for (;;) {\r\n    break label;\r\n  }"


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        # two levels deep: 4 + 76 columns fit in 80
        (Style(), 'if (config.appState !== undefined && appStateJson !== this.appStateJson) {\n      go("x");\n    }'),
        # 8 + 76 do not: the condition breaks, one operand per line
        (
            Style(indent="    "),
            "if (\n            config.appState !== undefined &&\n            appStateJson !== this.appStateJson\n"
            '        ) {\n            go("x");\n        }',
        ),
        # a tab counts as indentWidth (2) columns; quotes follow the style
        (Style(indent="\t", quote="'"), "if (config.appState !== undefined && appStateJson !== this.appStateJson) {"
         "\n\t\t\tgo('x');\n\t\t}"),
    ],
)
def test_a_snippet_is_laid_out_for_its_depth_and_style(style: Style, expected: str) -> None:
    snippet = 'if (config.appState !== undefined && appStateJson !== this.appStateJson) {\n  go("x");\n}'
    laid = layout_snippet(snippet, style.indent * 2, style)
    assert laid.laid_out
    assert laid.text == expected


def test_arrow_bodies_calls_and_conditionals_follow_the_width() -> None:
    snippet = """
    const appState = sourceId
      ? decodeAppState(sourceId, appStateParam)
      : undefined;
    bridge.setNotificationHandler(StateChangedNotificationSchema, ({ params }) => {
      go(params);
    });
    """
    at_80 = layout_snippet(snippet, "    ", Style()).text
    assert at_80 == (
        "const appState = sourceId\n      ? decodeAppState(sourceId, appStateParam)\n      : undefined;\n"
        "    bridge.setNotificationHandler(\n      StateChangedNotificationSchema,\n      ({ params }) => {\n"
        "        go(params);\n      },\n    );"
    )
    at_100 = layout_snippet(snippet, "    ", Style(line_width=100)).text
    assert at_100 == (
        "const appState = sourceId ? decodeAppState(sourceId, appStateParam) : undefined;\n"
        "    bridge.setNotificationHandler(StateChangedNotificationSchema, ({ params }) => {\n"
        "      go(params);\n    });"
    )


def test_an_unknown_construct_is_kept_as_written() -> None:
    laid = layout_snippet("label: for (;;) {\n  break label;\n}", "  ", Style(indent="    "))
    assert not laid.laid_out
    assert laid.text == "label: for (;;) {\n      break label;\n  }"


def test_new_files_take_the_indent_quotes_and_punctuation_of_the_style() -> None:
    template = 'const a = {\n  b: "c",\n  d: [\n    1,\n  ],\n};\n'
    assert restyle_text(template, Style()) == template
    assert restyle_text(template, Style(indent="\t", quote="'", semicolons=False, trailing_commas="none")) == (
        "const a = {\n\tb: 'c',\n\td: [\n\t\t1\n\t]\n}\n"
    )


# ---------------------------------------------------------------- ensure operations see each other


def _edit(source: str, op) -> str:
    editor = FileEditor(SourceFile.from_bytes("a.ts", source.encode()))
    op(editor)
    return editor.result().decode()


def test_two_imports_of_one_new_module_give_one_statement() -> None:
    def op(ed: FileEditor) -> None:
        first = ed.ensure_import("./b", ["one"])
        second = ed.ensure_import("./b", ["one", "two"])
        assert first.added and second.added == ("import { two } from ./b",)

    assert _edit('import { x } from "./a";\n', op) == 'import { x } from "./a";\nimport { one, two } from "./b";\n'


def test_two_additions_to_a_list_that_must_break_merge() -> None:
    source = "function f() {\n  g(alpha, beta, gamma, delta, epsilon, zeta, eta, theta, iota, kappa);\n}\n"

    def op(ed: FileEditor) -> None:
        call = ed.call(ed.function("f"), "g", "f")
        ed.ensure_list_items(call.child_by_field_name("arguments"), [Item("lambda", "lambda")])
        again = ed.ensure_list_items(call.child_by_field_name("arguments"), [Item("lambda", "lambda"), Item("mu", "mu")])
        assert again.added == ("mu",)

    out = _edit(source, op)
    assert out == (
        "function f() {\n  g(\n    alpha,\n    beta,\n    gamma,\n    delta,\n    epsilon,\n    zeta,\n    eta,\n"
        "    theta,\n    iota,\n    kappa,\n    lambda,\n    mu,\n  );\n}\n"
    )


def test_ensure_operations_return_what_they_did() -> None:
    def op(ed: FileEditor) -> None:
        body = ed.body(ed.function("f"))
        done = ed.ensure_statements_at_end(body, [statement("go();", role="go()")])
        assert done.operation == "statements" and done.added == ()
        added = ed.ensure_statements_at_end(body, [statement("const b = 2;")])
        assert added.changed and added.added == ("const b = 2;",)

    assert _edit("function f() {\n  go();\n}\n", op) == "function f() {\n  go();\n  const b = 2;\n}\n"


def test_statement_identity_is_checked() -> None:
    assert statement("const handle = () => {};").name == "handle"
    assert statement("// why\nlet count = 0;").name == "count"
    assert statement("bridge.onx = f;", role="$B.onx = $H").role == "$B.onx = $H"
    check_roles()
    statement("bridge.onappstatechange = f;", role="$B.onsizechange = $H")
    with pytest.raises(ValueError, match="does not match its own snippet"):
        check_roles()
    statements._UNCHECKED_ROLES.clear()  # the wrong role above is this test's own
    with pytest.raises(ValueError, match="needs a role"):
        statement("go();")


def test_a_declared_statement_is_found_by_its_name_not_its_text() -> None:
    def op(ed: FileEditor) -> None:
        ed.ensure_statements_at_end(ed.body(ed.function("f")), [statement("const b = compute(1);")])

    # `b` is declared already, with another value: nothing to add.
    source = "function f() {\n  const b = other();\n}\n"
    assert _edit(source, op) == source


def test_recipe_roles_match_their_snippets() -> None:
    """Every recipe module builds its statements through `statement()` and
    `form()`, which record each role; the roles of every recipe (and of
    every handler the SDK's API may call for) match their own snippets."""
    import importlib
    import pkgutil

    import codemods.recipes
    from codemods.recipes.host import panel_app_view, tool_call_part

    for module in pkgutil.walk_packages(codemods.recipes.__path__, "codemods.recipes."):
        importlib.import_module(module.name)
    from codemods.recipes.host import bridge_wiring

    check_roles()
    assert all(h.role for h in bridge_wiring.HANDLERS.values())
    assert panel_app_view.HOOK_CALL.role == tool_call_part.HOOK_CALL.role == "useAppStateParam($$$)"


def test_members_and_jsx_attributes_planned_twice_merge() -> None:
    def members(ed: FileEditor) -> None:
        props = ed.interface("Props")
        ed.ensure_members(props, [Item("a", "a?: string;")])
        again = ed.ensure_members(props, [Item("a", "a?: string;"), Item("b", "b?: number;")])
        assert again.added == ("b?: number;",)

    assert _edit("interface Props {\n  x: string;\n}\n", members) == (
        "interface Props {\n  x: string;\n  a?: string;\n  b?: number;\n}\n"
    )

    def attributes(ed: FileEditor) -> None:
        element = ed.jsx_element(ed.function("F"), "Frame", "F")
        ed.ensure_jsx_attributes(element, [Item("appState", "appState={appState}")])
        ed.ensure_jsx_attributes(element, [Item("onAppStateChange", "onAppStateChange={handleAppStateChange}")])

    source = b"function F() {\n  return (\n    <Frame resourceURI={resourceURI} className={className} />\n  );\n}\n"
    editor = FileEditor(SourceFile.from_bytes("a.tsx", source))
    attributes(editor)
    assert editor.result().decode() == (
        "function F() {\n  return (\n    <Frame\n      resourceURI={resourceURI}\n      className={className}\n"
        "      appState={appState}\n      onAppStateChange={handleAppStateChange}\n    />\n  );\n}\n"
    )


@pytest.mark.parametrize("mode", ["compat", "sdk"])
def test_every_template_statement_is_laid_out_by_the_printer(mode: str) -> None:
    """New files go through the printer statement by statement only where it
    gives back the template exactly in mesh's style; today that is every
    statement of every host template (else other styles get the template's
    line breaks, which the Biome property test would catch). And each
    template is clean in its own style (restyling it there changes nothing),
    which lets ``render_file`` return a template as it is in that style."""
    from codemods.engine import snippet_printer
    from codemods.engine.parsing import TYPESCRIPT, parse
    from codemods.recipes.base import Bridge, Context
    from codemods.recipes.host import bridge_store, releases, render_module

    ctx = Context(Path("."), Bridge(mode))
    templates = releases.current().templates
    for text in (render_module(ctx, templates, bridge_store.wiring(ctx)), templates["app-state.test.ts"]):
        assert L.restyle_text(text, Style()) == text
        data = text.encode()
        for node in parse(data, TYPESCRIPT).root_node.named_children:
            if node.type == "comment":
                continue
            written = data[node.start_byte:node.end_byte].decode()
            assert layout_snippet(written, "", Style()).text == written
    wide = snippet_printer.render_file(templates["app-state.test.ts"], Style(line_width=120))
    assert 'import { APP_STATE_MAX_LENGTH, copyAppState, readAppState, writeAppState } from "./app-state.ts";' in wide
