"""Breaking recognition must fail tests (issue 19): each test here breaks one
rule of the layout-insensitive comparison or of the role matching, runs a
case of tests/test_recognition.py under the break, and asserts that the
case then fails. A rule that no test holds would pass here and fail this
file."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.engine import canonical, editor, equivalence, statement_edits

from . import test_recognition as cases


@pytest.fixture(autouse=True)
def fresh_patterns():
    """Patterns compiled before or during a break are not reused."""
    equivalence.compile_pattern.cache_clear()
    yield
    equivalence.compile_pattern.cache_clear()


def _fails(case, *args) -> None:
    with pytest.raises(AssertionError):
        case(*args)


def test_quotes_compared_byte_for_byte_fail_the_quote_case(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(canonical, "_string_key", lambda node, data: canonical.node_text(node, data))
    _fails(cases.test_a_single_quoted_2x_registration_is_not_added_again, tmp_path)


def test_separators_that_count_fail_the_semicolon_case(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(canonical, "_SEPARATORS", frozenset())
    _fails(cases.test_a_semicolon_free_reformat_still_migrates_1x_to_2x, tmp_path)


def test_arrow_parentheses_that_count_fail_the_arrow_case(monkeypatch, tmp_path: Path) -> None:
    real = canonical.items_of

    def keyed_as_written(node, keying):
        if node.type == "arrow_function" and node.child_by_field_name("parameter") is not None:
            text = canonical.node_text(node, keying.data)
            return [canonical.Group("bare_arrow_function", [canonical.Leaf("text", text)], node)]
        return real(node, keying)

    monkeypatch.setattr(canonical, "items_of", keyed_as_written)
    _fails(cases.test_arrow_parameters_with_or_without_parentheses_are_recognised, "compat-2x", tmp_path)


def test_roles_looked_for_only_in_the_anchor_block_fail_the_moved_handler_case(monkeypatch, tmp_path: Path) -> None:
    real = editor.FileEditor._present

    def in_the_block_only(self, block, wanted, scope=None):
        return real(self, block, wanted, None)

    monkeypatch.setattr(editor.FileEditor, "_present", in_the_block_only)
    _fails(cases.test_a_handler_moved_into_a_helper_method_is_not_added_again, "compat-2x", tmp_path)


def test_patterns_without_renamable_names_fail_the_rename_cases(monkeypatch, tmp_path: Path) -> None:
    real = equivalence.compile_pattern.__wrapped__
    monkeypatch.setattr(
        statement_edits, "compile_pattern", lambda text, tsx=False, names=frozenset(), comments=False: real(text, tsx, comments=comments)
    )
    _fails(
        cases.test_a_renamed_local_or_member_is_recognised,
        "compat-1x", cases.BRIDGE, "updateConfig", "appStateJson", "serialized", cases.LOCAL, tmp_path / "a",
    )
    _fails(
        cases.test_a_renamed_local_or_member_is_recognised,
        "compat-1x", cases.BRIDGE, None, "bridgeAppState", "heldState", cases.MEMBER, tmp_path / "b",
    )


def test_eager_anchors_fail_the_renamed_anchor_case(monkeypatch, tmp_path: Path) -> None:
    real = editor.FileEditor.ensure_statements_after

    def eager(self, anchor, statements, *, block=None, scope=None):
        return real(self, anchor() if callable(anchor) else anchor, statements, block=block, scope=scope)

    monkeypatch.setattr(editor.FileEditor, "ensure_statements_after", eager)
    _fails(
        cases.test_an_anchor_renamed_after_the_merge_does_not_block_the_tool,
        "compat-1x", cases.BRIDGE, "onsizechange", "onresize", cases.MEMBER, tmp_path,
    )


def test_created_files_compared_byte_for_byte_fail_the_reformat_case(monkeypatch, tmp_path: Path) -> None:
    from . import earlier_release, test_upgrade_merge

    monkeypatch.setattr(equivalence, "layout_key", lambda text, grammar=None, comments=True: str(text))
    with earlier_release.recorded():
        _fails(test_upgrade_merge.test_an_earlier_releases_output_is_replaced_with_this_releases, "compat", True, tmp_path, None)
