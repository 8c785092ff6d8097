"""The engine's ensure operations, as before/after strings.

``assert_transform`` runs an operation, compares the result, then runs it
again on the result and requires that nothing changes: idempotency is
checked by the helper, for every case, not remembered by each test.
"""

from __future__ import annotations

import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from codemods.plan.model import FileChange
from codemods.engine.editor import FileEditor
from codemods.engine.statements import Item, statement
from codemods.engine.edits import DuplicateEdit, Edit, EditSet, OverlapError
from codemods.engine.outcome import AnchorMissing, Conflict, SyntaxProblem
from codemods.engine.source import SourceError, SourceFile

Op = Callable[[FileEditor], None]


def run(source: str | bytes, op: Op, path: str = "file.ts") -> bytes:
    raw = source.encode() if isinstance(source, str) else source
    editor = FileEditor(SourceFile.from_bytes(path, raw))
    op(editor)
    return editor.result()


def assert_transform(before: str | bytes, after: str | bytes, op: Op, path: str = "file.ts") -> None:
    if isinstance(before, str):
        before, after = textwrap.dedent(before), textwrap.dedent(after)
    expected = after.encode() if isinstance(after, str) else after
    first = run(before, op, path)
    assert first.decode() == expected.decode()
    assert run(first, op, path) == first, "a second run changed the result"


def unchanged(source: str, op: Op, path: str = "file.ts") -> None:
    assert_transform(source, source, op, path)


# ---------------------------------------------------------------- edits


def test_edit_set_applies_in_one_pass_and_keeps_insertion_order() -> None:
    edits = EditSet()
    edits.insert(3, "B")
    edits.replace(0, 1, "x")
    edits.insert(3, "C")
    assert edits.apply(b"abcdef") == b"xbcBCdef"


def test_edit_set_rejects_overlaps_and_duplicates() -> None:
    edits = EditSet()
    edits.replace(1, 4, "X")
    with pytest.raises(DuplicateEdit):
        edits.replace(1, 4, "X")  # planned twice: a bug, not hidden
    assert len(edits) == 1
    with pytest.raises(OverlapError):
        edits.replace(2, 5, "Y")
    with pytest.raises(OverlapError):
        edits.insert(2, "Z")
    edits.insert(4, "end")  # touching the end is not an overlap
    assert edits.apply(b"abcdefg") == b"aXenddefg"[:0] + b"aXendefg"


def test_edit_set_rejects_reversed_range() -> None:
    with pytest.raises(ValueError):
        EditSet().add(Edit(5, 2, b""))


# ---------------------------------------------------------------- source


def test_source_refuses_syntax_errors_and_non_utf8() -> None:
    with pytest.raises(SourceError, match=r"file.ts:1:\d+: syntax error"):
        SourceFile.from_bytes("file.ts", b"const = ;\n")
    with pytest.raises(SourceError, match="not UTF-8"):
        SourceFile.from_bytes("file.ts", b"const a = '\xff';\n")


def test_tsx_grammar_by_extension() -> None:
    SourceFile.from_bytes("a.tsx", b"const a = <div x={1} />;\n")
    with pytest.raises(SourceError):
        SourceFile.from_bytes("a.ts", b"const a = <div x={1} />;\n")


def test_result_that_does_not_parse_is_refused() -> None:
    def break_it(ed: FileEditor) -> None:
        ed.edits.insert(0, "const (")

    with pytest.raises(SyntaxProblem, match="would not parse"):
        run("const a = 1;\n", break_it)


# ---------------------------------------------------------------- imports


def test_import_added_after_anchor_import() -> None:
    assert_transform(
        """\
        import { a } from "./a";
        import { b } from "./b";
        """,
        """\
        import { a } from "./a";
        import { x, y } from "./x";
        import { b } from "./b";
        """,
        lambda ed: ed.ensure_import("./x", ["x", "y"], after=ed.import_ending_with("./a")),
    )


def test_import_specifier_appended_to_existing_value_import() -> None:
    assert_transform(
        'import { useNavigate } from "@tanstack/react-router";\n',
        'import { useNavigate, useSearch } from "@tanstack/react-router";\n',
        lambda ed: ed.ensure_import("@tanstack/react-router", ["useSearch"]),
    )


def test_import_same_module_with_or_without_extension_is_not_duplicated() -> None:
    unchanged(
        'import { x } from "./app-state.ts";\n',
        lambda ed: ed.ensure_import("./app-state", ["x"]),
    )


def test_type_only_import_is_not_reused_for_values() -> None:
    assert_transform(
        'import type { A } from "m";\n',
        'import type { A } from "m";\nimport { b } from "m";\n',
        lambda ed: ed.ensure_import("m", ["b"]),
    )


def test_import_follows_single_quote_style() -> None:
    assert_transform(
        "import { a } from './a';\nconst s = 'x';\n",
        "import { a } from './a';\nimport { b } from './b';\nconst s = 'x';\n",
        lambda ed: ed.ensure_import("./b", ["b"]),
    )


# ---------------------------------------------------------------- lists


def _params(name: str, *items: Item) -> Op:
    return lambda ed: ed.ensure_list_items(ed.parameters(ed.function(name)), list(items))


def test_parameter_appended_to_multiline_list() -> None:
    assert_transform(
        """\
        function f(
          a: number,
          b?: string,
        ) {}
        """,
        """\
        function f(
          a: number,
          b?: string,
          c?: unknown,
        ) {}
        """,
        _params("f", Item("c", "c?: unknown")),
    )


def test_parameter_after_trailing_comment_and_without_trailing_comma() -> None:
    assert_transform(
        """\
        function f(
          a: number,
          b?: string // why b
        ) {}
        """,
        """\
        function f(
          a: number,
          b?: string, // why b
          c?: unknown
        ) {}
        """,
        _params("f", Item("c", "c?: unknown")),
    )


def test_parameter_inline_when_it_fits() -> None:
    assert_transform(
        "function f(a: number) {}\n",
        "function f(a: number, c?: unknown) {}\n",
        _params("f", Item("c", "c?: unknown")),
    )


def test_parameter_list_broken_one_per_line_past_80_columns() -> None:
    assert_transform(
        "function buildSomething(displayMode: string, toolInfo?: string, max?: number) {}\n",
        """\
        function buildSomething(
          displayMode: string,
          toolInfo?: string,
          max?: number,
          appState?: unknown,
        ) {}
        """,
        _params("buildSomething", Item("appState", "appState?: unknown")),
    )


def test_trailing_comment_does_not_count_towards_the_line_width() -> None:
    # Biome keeps this on one line: the comment is not part of the width.
    assert_transform(
        'import { useNavigate } from "@tanstack/react-router"; // a note about this import\n',
        'import { useNavigate, useSearch } from "@tanstack/react-router"; // a note about this import\n',
        lambda ed: ed.ensure_import("@tanstack/react-router", ["useSearch"]),
    )


def test_empty_parameter_list() -> None:
    assert_transform("function f() {}\n", "function f(a: number) {}\n", _params("f", Item("a", "a: number")))


def test_destructuring_breaks_after_equals_like_biome() -> None:
    def op(ed: FileEditor) -> None:
        ed.ensure_list_items(ed.destructuring_of(ed.function("f"), "this.config", "client"), [Item("appState", "appState")])

    assert_transform(
        """\
        function f() {
          if (x) {
            try {
              const { client, displayMode, maxHeight, toolInfo, orgId } = this.config;
            } catch {}
          }
        }
        """,
        """\
        function f() {
          if (x) {
            try {
              const { client, displayMode, maxHeight, toolInfo, orgId, appState } =
                this.config;
            } catch {}
          }
        }
        """,
        op,
    )


def test_object_spread_and_shorthand_keys() -> None:
    def op(ed: FileEditor) -> None:
        returned = ed.statement(ed.body(ed.function("f")), lambda s: s.startswith("return"), "return")
        ed.ensure_list_items(
            returned.named_children[0],
            [Item("...b", "...(b !== undefined && { b })"), Item("a", "a")],
        )

    assert_transform(
        """\
        function f() {
          return {
            a,
            ...(c != null && { c }),
          };
        }
        """,
        """\
        function f() {
          return {
            a,
            ...(c != null && { c }),
            ...(b !== undefined && { b }),
          };
        }
        """,
        op,
    )


def test_object_property_in_empty_object() -> None:
    def op(ed: FileEditor) -> None:
        ed.ensure_list_items(ed.object_argument(ed.variable("s").child_by_field_name("value")), [Item("a", "a: 1")])

    assert_transform("const s = z.object({});\n", "const s = z.object({ a: 1 });\n", op)


# ---------------------------------------------------------------- members


def _members(name: str, *items: Item) -> Op:
    return lambda ed: ed.ensure_members(ed.interface(name), list(items))


MEMBERS = (Item("appState", "appState?: unknown;"), Item("onChange", "onChange?: (s: unknown) => void;"))


def test_interface_members_appended_before_closing_comment() -> None:
    assert_transform(
        """\
        interface P {
          a: string;
          /** doc */
          b?: number; // trailing
          // the end
        }
        """,
        """\
        interface P {
          a: string;
          /** doc */
          b?: number; // trailing
          appState?: unknown;
          onChange?: (s: unknown) => void;
          // the end
        }
        """,
        _members("P", *MEMBERS),
    )


def test_interface_members_with_comma_separators() -> None:
    assert_transform(
        """\
        interface P {
          a: string,
          b?: number
        }
        """,
        """\
        interface P {
          a: string,
          b?: number,
          appState?: unknown,
          onChange?: (s: unknown) => void
        }
        """,
        _members("P", *MEMBERS),
    )


def test_interface_on_one_line() -> None:
    assert_transform(
        "interface P { a: string }\n",
        "interface P { a: string; appState?: unknown; }\n",
        _members("P", MEMBERS[0]),
    )


def _entry_lines(name: str, key: str, separator: str) -> Op:
    return lambda ed: ed.ensure_entry_lines(
        ed.interface(name).child_by_field_name("body"),
        key,
        lambda indent: [f"{indent}/** The {key}. */", f"{indent}{key}?: unknown"],
        separator=separator,
    )


def test_entry_lines_go_after_a_trailing_comment_of_the_last_entry() -> None:
    # The comment stays on the entry it was written beside, as with ensure_members.
    assert_transform(
        """\
        interface A {
          a: string; // note
        }
        """,
        """\
        interface A {
          a: string; // note
          /** The b. */
          b?: unknown;
        }
        """,
        _entry_lines("A", "b", ";"),
    )
    assert_transform(
        """\
        interface A {
          a: string // note
        }
        """,
        """\
        interface A {
          a: string; // note
          /** The b. */
          b?: unknown
        }
        """,
        _entry_lines("A", "b", ";"),
    )


def test_member_already_present_with_other_type_is_left_alone() -> None:
    unchanged("interface P {\n  appState: string;\n}\n", _members("P", MEMBERS[0]))


def test_missing_interface_names_anchor() -> None:
    with pytest.raises(AnchorMissing, match="interface `Nope`"):
        run("interface P {}\n", _members("Nope", MEMBERS[0]))


def test_duplicate_anchor_is_refused() -> None:
    with pytest.raises(Conflict, match="more than once"):
        run("function f() {}\nfunction f() {}\n", _params("f", Item("a", "a")))


# ---------------------------------------------------------------- JSX


def _attrs(tag: str, *items: Item) -> Op:
    return lambda ed: ed.ensure_jsx_attributes(ed.jsx_element(ed.source.root, tag, "file"), list(items))


def test_jsx_attributes_multiline() -> None:
    assert_transform(
        """\
        const v = (
          <Frame
            a={1}
            b="two"
          />
        );
        """,
        """\
        const v = (
          <Frame
            a={1}
            b="two"
            appState={appState}
          />
        );
        """,
        _attrs("Frame", Item("appState", "appState={appState}")),
        "file.tsx",
    )


def test_jsx_attributes_inline_then_broken_when_too_long() -> None:
    assert_transform(
        "const v = <Frame a={1} />;\n",
        "const v = <Frame a={1} s={s} />;\n",
        _attrs("Frame", Item("s", "s={s}")),
        "file.tsx",
    )
    assert_transform(
        """\
        function V() {
          return (
            <Frame first={firstValue} second={secondValue} />
          );
        }
        """,
        """\
        function V() {
          return (
            <Frame
              first={firstValue}
              second={secondValue}
              onAppStateChange={handleAppStateChange}
            />
          );
        }
        """,
        _attrs("Frame", Item("onAppStateChange", "onAppStateChange={handleAppStateChange}")),
        "file.tsx",
    )


# ---------------------------------------------------------------- statements


def test_statements_after_anchor_are_indented_and_ordered() -> None:
    def op(ed: FileEditor) -> None:
        body = ed.body(ed.function("f"))
        ed.ensure_statements_after(
            ed.declaration_of(body, "a"),
            [statement("const b = a + 1;"), statement("const c = () => {\n  return b;\n};")],
        )

    assert_transform(
        """\
        function f() {
          const a = 1; // one
          return a;
        }
        """,
        """\
        function f() {
          const a = 1; // one
          const b = a + 1;
          const c = () => {
            return b;
          };
          return a;
        }
        """,
        op,
    )


def test_partly_present_sequence_keeps_its_order() -> None:
    def op(ed: FileEditor) -> None:
        body = ed.body(ed.function("f"))
        ed.ensure_statements_after(
            ed.declaration_of(body, "a"),
            [statement("const b = 2;"), statement("const c = 3;"), statement("const d = 4;")],
        )

    assert_transform(
        """\
        function f() {
          const a = 1;
          const c = 3;
        }
        """,
        """\
        function f() {
          const a = 1;
          const b = 2;
          const c = 3;
          const d = 4;
        }
        """,
        op,
    )


def test_statement_in_a_blank_line_separated_list_gets_blank_lines() -> None:
    def op(ed: FileEditor) -> None:
        body = ed.body(ed.function("f"))
        anchor = ed.statement(body, lambda s: s.startswith("b.two"), "b.two")
        ed.ensure_statements_after(anchor, [statement("b.three = 3;", role="b.three = $X")])

    assert_transform(
        "function f() {\n  b.one = 1;\n\n  b.two = 2;\n\n  b.four = 4;\n}\n",
        "function f() {\n  b.one = 1;\n\n  b.two = 2;\n\n  b.three = 3;\n\n  b.four = 4;\n}\n",
        op,
    )


def test_anchor_with_a_trailing_comment_still_counts_as_set_apart() -> None:
    def op(ed: FileEditor) -> None:
        body = ed.body(ed.function("f"))
        anchor = ed.statement(body, lambda s: s.startswith("b.two"), "b.two")
        ed.ensure_statements_after(anchor, [statement("b.three = 3;", role="b.three = $X")])

    assert_transform(
        "function f() {\n  b.one = 1;\n\n  b.two = 2; // note\n\n  b.four = 4;\n}\n",
        "function f() {\n  b.one = 1;\n\n  b.two = 2; // note\n\n  b.three = 3;\n\n  b.four = 4;\n}\n",
        op,
    )


def test_statements_at_end_of_block_and_of_empty_block() -> None:
    op = lambda ed: ed.ensure_statements_at_end(ed.body(ed.function("f")), [statement("done();", role="done()")])  # noqa: E731
    assert_transform("function f() {\n  go();\n}\n", "function f() {\n  go();\n  done();\n}\n", op)
    assert_transform("function f() {\n}\n", "function f() {\n  done();\n}\n", op)


def test_class_member_after_anchor_field() -> None:
    def op(ed: FileEditor) -> None:
        cls = ed.class_("S")
        ed.ensure_class_member(cls, "y", "// why y\nprivate y: string | undefined;", after=ed.class_member(cls, "x"))

    assert_transform(
        "class S {\n  private x = 1;\n  z() {}\n}\n",
        "class S {\n  private x = 1;\n  // why y\n  private y: string | undefined;\n  z() {}\n}\n",
        op,
    )


# ---------------------------------------------------------------- file style


def test_crlf_bom_and_tabs_are_kept() -> None:
    before = "\ufefffunction f(\r\n\ta: number,\r\n) {\r\n\tif (a) {\r\n\t\tgo();\r\n\t}\r\n}\r\n".encode()
    after = "\ufefffunction f(\r\n\ta: number,\r\n\tb?: string,\r\n) {\r\n\tif (a) {\r\n\t\tgo();\r\n\t}\r\n\tconst c = () => {\r\n\t\treturn 1;\r\n\t};\r\n}\r\n".encode()

    def op(ed: FileEditor) -> None:
        fn = ed.function("f")
        ed.ensure_list_items(ed.parameters(fn), [Item("b", "b?: string")])
        ed.ensure_statements_at_end(ed.body(fn), [statement("const c = () => {\n  return 1;\n};")])

    assert_transform(before, after, op)


def test_four_space_indentation_is_followed() -> None:
    def op(ed: FileEditor) -> None:
        ed.ensure_statements_at_end(ed.body(ed.function("f")), [statement('if (b) {\n  log("b");\n}', role="if (b) $$$")])

    assert_transform(
        "function f() {\n    if (a) {\n        go();\n    }\n}\n",
        'function f() {\n    if (a) {\n        go();\n    }\n    if (b) {\n        log("b");\n    }\n}\n',
        op,
    )


def test_single_quote_files_get_single_quoted_snippets() -> None:
    def op(ed: FileEditor) -> None:
        ed.ensure_statements_at_end(ed.body(ed.function("f")), [statement('go("x", "it\'s");', role="go($$$)")])

    assert_transform(
        "function f() {\n  log('a');\n}\n",
        "function f() {\n  log('a');\n  go('x', \"it's\");\n}\n",
        op,
    )


# ---------------------------------------------------------------- diff


def test_diff_is_accepted_by_git_apply(tmp_path: Path) -> None:
    old = b"one\r\ntwo\r\nthree"
    new = b"one\r\ntwo and a half\r\nthree\r\nfour\r\n"
    (tmp_path / "f.ts").write_bytes(old)
    patch = FileChange("f.ts", old, new, []).diff() + FileChange("g.ts", None, b"new\n", []).diff()
    assert patch.startswith("diff --git a/f.ts b/f.ts\n--- a/f.ts\n+++ b/f.ts\n")
    assert "--- /dev/null\n+++ b/g.ts\n" in patch
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "apply", "-"], input=patch.encode(), cwd=tmp_path, check=True)
    assert (tmp_path / "f.ts").read_bytes() == new
    assert (tmp_path / "g.ts").read_bytes() == b"new\n"


def test_no_diff_when_nothing_changed() -> None:
    assert FileChange("f.ts", b"same\n", b"same\n", []).diff() == ""


def test_finder_anchors_for_declarations_imports_and_doc_comments() -> None:
    from codemods.engine.find import Finder

    find = Finder(SourceFile.from_bytes("a.ts", textwrap.dedent("""\
        import { z as zed } from "zod/v4";
        import * as ns from "other";
        /** The map. */
        export type Events = { a: A; b: { c: C } };
        type Events2 = A | (B | C);
        class K {
          get on() { return 1; }
          set on(v) {}
          field = 1;
        }
        """).encode()))
    assert find.imported_name("zod", "z", package=True) == "zed"
    assert find.imported_name("zod", "z") is None  # "zod/v4" does not end with "zod"
    assert find.namespace_import("other") == "ns" and find.namespace_import("zod", package=True) is None
    alias = find.type_aliases("Events")[0]
    assert find.text(find.doc_comment(alias)) == "/** The map. */"
    assert find.doc_comment(find.type_aliases("Events2")[0]) is None
    assert find.text(find.property_signature(alias, "c")) == "c: C"
    with pytest.raises(AnchorMissing, match="member `d` in `Events`"):
        find.property_signature(alias, "d")
    union = find.type_aliases("Events2")[0].child_by_field_name("value")
    assert [find.text(m) for m in find.union_members(union)] == ["A", "(B | C)"]
    cls = find.class_("K")
    assert [m.type for m in find.class_members(cls, "on")] == ["method_definition"] * 2
    assert find.class_members(cls, "field", "method_definition") == []
    assert find.span(*find.class_members(cls, "on")).startswith("get on()")
