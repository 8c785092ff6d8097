"""Breaking recognition must fail tests (issue 19): each test here breaks one
rule of the role matching or of the layout-insensitive comparison through
the engine's public names, runs a case of tests/test_recognition.py (or of
tests/test_upgrade_merge.py) under the break, and asserts that the case
then fails. A rule that no test holds
would pass here and fail this file. (The layout relation's own rules,
quotes, separators and parentheses, are held by tests/test_equivalence.py's
cases, each of which fails without its rule.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.engine import editor, equivalence, statement_edits

from . import test_recognition as cases

pytestmark = pytest.mark.mutation


@pytest.fixture(autouse=True)
def fresh_patterns():
    """Patterns compiled before or during a break are not reused."""
    equivalence.compile_pattern.cache_clear()
    yield
    equivalence.compile_pattern.cache_clear()


def _fails(case, *args) -> None:
    with pytest.raises(AssertionError):
        case(*args)


def test_roles_looked_for_only_in_the_anchor_block_fail_the_moved_handler_case(monkeypatch, tmp_path: Path) -> None:
    real = editor.FileEditor.ensure_statements_after

    def in_the_block_only(self, anchor, statements, *, block=None, scope=None, **rest):
        return real(self, anchor, statements, block=block, **rest)

    monkeypatch.setattr(editor.FileEditor, "ensure_statements_after", in_the_block_only)
    _fails(cases.test_a_handler_moved_into_a_helper_method_is_not_added_again, "compat-2x", tmp_path)


def test_patterns_without_renamable_names_fail_the_rename_cases(monkeypatch, tmp_path: Path) -> None:
    real = equivalence.compile_pattern.__wrapped__
    monkeypatch.setattr(
        statement_edits, "compile_pattern", lambda text, tsx=False, names=frozenset(), comments=False: real(text, tsx, comments=comments)
    )
    _fails(
        cases.test_a_renamed_local_or_member_is_recognised,
        "compat-1x", cases.BRIDGE, None, "shownAppState", "heldState", cases.MEMBER, tmp_path / "b",
    )


def test_eager_anchors_fail_the_renamed_anchor_case(monkeypatch, tmp_path: Path) -> None:
    real = editor.FileEditor.ensure_statements_after

    def eager(self, anchor, statements, *, block=None, scope=None, **rest):
        return real(self, anchor() if callable(anchor) else anchor, statements, block=block, scope=scope, **rest)

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
