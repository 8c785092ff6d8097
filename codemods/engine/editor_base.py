"""The editor's state shared by every ensure operation: the edits recorded
on the original bytes, what earlier operations planned per container, the
names the steps chose, and snippets laid out for the file's style."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from textwrap import dedent
from tree_sitter import Node
from .edits import EditSet
from . import layout
from .find import Finder, squash
from .outcome import AnchorMissing
from .equivalence import Group
from .parsing import TSX
from .snippet_printer import layout_snippet
from .source import SourceFile
from .statements import Ensured, FormChange, Item


class _Planned:
    """Items planned for one container (a list, an interface body, a JSX
    element), laid out together when the result is built. ``after`` holds,
    item by item, the key of the existing entry it goes right after ("":
    after the last one). Grows as operations plan more."""

    __slots__ = ("kind", "container", "items", "after")

    def __init__(self, kind: str, container: Node) -> None:
        self.kind = kind
        self.container = container
        self.items: list[Item] = []
        self.after: list[str] = []


class _PlannedImport:
    """Names planned for one import, laid out together when the result is
    built. Grows as operations plan more."""

    __slots__ = ("anchor", "module", "names")

    def __init__(self, anchor: Node, module: str, names: list[str]) -> None:
        self.anchor = anchor
        self.module = module
        self.names = names


class EditorBase(Finder):
    """Collects edits for one :class:`SourceFile`; the ensure operations
    are mixed in by :class:`~.editor.FileEditor`."""

    def __init__(self, source: SourceFile) -> None:
        super().__init__(source)
        self.style = source.style
        self.edits = EditSet()
        self.results: list[Ensured] = []
        self.notes: list[str] = []
        # Earlier forms replaced by the current ones (upgrades, migrations).
        self.form_changes: list[FormChange] = []
        # Planned but not yet laid out: merged per container, laid out once.
        self._planned: dict[tuple[str, int, int], _Planned] = {}
        self._imports: dict[str, _PlannedImport] = {}
        # The names the steps chose, as this file has them (a team may have
        # renamed them): `appStateJson` -> `serialized`, `this.x` -> `y`.
        self.bindings: dict[str, str] = {}
        self._canonical: dict[int, Group] = {}
        self._by_kind: dict[int, dict[str, list[Group]]] = {}
        # Nodes an earlier form's removal takes away: no anchor for new code.
        self.retired: set[int] = set()

    @property
    def added(self) -> list[str]:
        """What the operations added, then the recipe's own notes, for the report."""
        return [text for r in self.results for text in r.added] + self.notes

    def note(self, text: str) -> None:
        self.notes.append(text)

    def _plan(
        self, kind: str, container: Node, present: set[str], items: Sequence[Item], after: str = ""
    ) -> list[Item]:
        """The items not in ``present`` (the container's entries) nor planned
        for ``container`` by an earlier call; they are added to its plan, to
        go after the entry ``after`` (which must then be present)."""
        key = (kind, container.start_byte, container.end_byte)
        planned = self._planned.get(key)
        known = present | ({i.key for i in planned.items} if planned is not None else set())
        missing = [i for i in items if i.key not in known]
        if missing and after and after not in present:
            where = squash(self.text(container))[:40]
            raise AnchorMissing(self.path, f"`{after}` in `{where}` to add `{missing[0].key}` after")
        if missing:
            if planned is None:
                planned = self._planned[key] = _Planned(kind, container)
            planned.items.extend(missing)
            planned.after.extend([after] * len(missing))
        return missing

    @staticmethod
    def _by_anchor(keys: list[str], planned: _Planned, texts: list[str]) -> dict[int, list[str]]:
        """The planned texts by the index of the entry they go after (the
        last entry by default; -1 in an empty container), in document order."""
        groups: dict[int, list[str]] = {}
        for text, after in zip(texts, planned.after):
            groups.setdefault(keys.index(after) if after else len(keys) - 1, []).append(text)
        return dict(sorted(groups.items()))

    def _record(self, operation: str, where: str, added: Iterable[str]) -> Ensured:
        result = Ensured(operation, where, tuple(added))
        self.results.append(result)
        return result

    def render(self, snippet: str, indent: str, kind: str = "statements") -> str:
        """A snippet laid out for ``indent`` in the file's style, with its
        line endings (first line not indented)."""
        return layout_snippet(snippet, indent, self.style, tsx=self.source.language is TSX, kind=kind).text

    def laid_out(self, snippet: str, indent: str) -> str | None:
        """:meth:`render` where the layout printer takes the snippet; None
        where it would be kept as written (comments inside, say)."""
        laid = layout_snippet(snippet, indent, self.style, tsx=self.source.language is TSX)
        return laid.text if laid.laid_out else None

    def _inline(self, snippet: str) -> str:
        """A one-line fragment (a list item, a member) in the file's quotes."""
        text = " ".join(dedent(snippet).strip().split("\n"))
        return layout.requote_all(text, self.style.quote)

    def member_name(self, name: str) -> str:
        """The name a member the steps call ``name`` has in this file."""
        return self.bindings.get("this." + name, name)

    def insert_after(self, anchor: Node, text: str, *, blank_line: bool = True) -> Ensured:
        """Insert ``text`` as it is (its first line unindented, its other
        lines indented already) on a new line at the indentation of
        ``anchor``, after it, set apart by a blank line when asked. For text
        the recipe has laid out itself (a doc comment over copied code); the
        recipe has checked that it is missing."""
        body = text.replace("\r\n", "\n").replace("\n", self.style.eol)
        gap = self.style.eol if blank_line else ""
        self.edits.insert(self._point_after(anchor), gap + self.style.eol + self.source.indent_of(anchor) + body)
        return self._record("text", f"after line {anchor.end_point[0] + 1}", [text.splitlines()[0] if text else text])

    def _insert_after(
        self, anchor: Node, snippets: Iterable[str], indent: str, spaced: bool = False, kind: str = "statements"
    ) -> None:
        gap = self.style.eol if spaced else ""
        text = "".join(gap + self.style.eol + indent + self.render(s, indent, kind) for s in snippets)
        self.edits.insert(self._point_after(anchor), text)

    def _point_after(self, anchor: Node) -> int:
        """Where a line can start after ``anchor``: past a ``;`` or ``,``
        that ends it (a class field's, an object entry's) and a comment on
        its line."""
        follower = anchor.next_sibling
        end = follower if follower is not None and follower.type in {";", ","} else anchor
        return self._end_of_line_after(end.end_byte, anchor.parent or anchor)
