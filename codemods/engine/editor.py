"""Ensure operations: make sure things exist next to the anchors that
:mod:`.find` locates.

Every ``ensure_*`` operation first looks for its result and records no edit
when it is already there, which is what makes every recipe idempotent and
lets a partly applied tree be completed instead of duplicated. It sees what
earlier operations of the same run planned for the same container (a list,
an import) and merges with it. Edits are recorded on the original bytes and
applied in one pass by :meth:`FileEditor.result`; layout is asked of
:mod:`.layout` and :mod:`.snippet_printer` for the file's
:class:`~.style.Style`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache

from tree_sitter import Node

from .record import NamedTuple
from .edits import EditSet
from . import layout
from .find import FUNCTION_TYPES, Finder, module_stem, squash
from .layout import dedent
from .outcome import AnchorMissing, Conflict, SyntaxProblem
from .equivalence import Group, canonical_tree, compile_pattern, groups_by_kind
from .parsing import TSX, TYPESCRIPT, first_error, parse, reparse
from .snippet_printer import layout_snippet
from .source import SourceFile

_DECLARED = re.compile(r"^\s*(?:export\s+)?(?:const|let|var|function|class)\s+([A-Za-z_$][\w$]*)")

LIST_CONTAINERS = {
    "formal_parameters",
    "arguments",
    "object",
    "object_pattern",
    "named_imports",
    "export_clause",
    "array",
}
# Lists printed with a space inside their braces: `{ a, b }`.
_PADDED = {"object", "object_pattern", "named_imports", "export_clause"}
MEMBER_CONTAINERS = {"interface_body", "object_type"}


class Item(NamedTuple):
    """One entry to ensure in a list: ``key`` identifies it, ``text`` is inserted."""

    key: str
    text: str


class Form(NamedTuple):
    """An earlier form of a statement: what an earlier release of the tool,
    or another bridge mode, wrote in its place. ``kind`` is ``upgrade`` (an
    earlier release) or ``migrate`` (another mode or SDK form); ``label``
    names it in the report. It is known by its own name or role, and is
    replaced only while its code is still what was written (modulo layout
    and the step's ``names``)."""

    label: str
    snippet: str
    name: str = ""
    role: str = ""
    kind: str = "upgrade"
    names: frozenset[str] = frozenset()


class Statement(NamedTuple):
    """A statement to ensure, and how to tell that it is already there: the
    name it declares, or else its ``role``, a :class:`~.equivalence.Pattern`
    of what it does (``$B.setNotificationHandler("...", $$$)``), matched
    modulo layout. ``names``: the locals (``x``) and members (``this.x``)
    the step chose, which a team may rename: the statement is still known
    under other names, and what is inserted uses the names found.
    ``earlier``: the forms that become it (see :class:`Form`); ``alike``:
    roles of other forms of the same work, kept as they are (no
    duplicate); ``label`` names the current form in the report."""

    snippet: str
    name: str = ""
    role: str = ""
    earlier: tuple[Form, ...] = ()
    label: str = ""
    names: frozenset[str] = frozenset()
    alike: tuple[str, ...] = ()


def _code(snippet: str) -> str:
    body = dedent(snippet).strip("\n")
    return "\n".join(line for line in body.split("\n") if not line.lstrip().startswith("//"))


# The roles given so far, each with its snippet's code and names, whose
# match against that code :func:`check_roles` has yet to prove. Every role
# is the recipes' own static data (the SDK handler's variants too: they are
# built from fixed name lists), so proving them is a self-check that the
# tests run over every recipe (tests/test_layout.py), not each dry run:
# parsing each snippet to match it cost ~5 ms of every run.
_UNCHECKED_ROLES: dict[tuple[str, str, frozenset[str]], None] = {}


@lru_cache(maxsize=None)
def _identity(snippet: str, role: str, names: frozenset[str]) -> tuple[str, str]:
    """(name, role) of a snippet: the name it declares, or else the role,
    which must match its own code (see :func:`check_roles`)."""
    code = _code(snippet)
    if role:
        _UNCHECKED_ROLES[(code, role, names)] = None
        return "", role
    declared = _DECLARED.match(code)
    if declared is None:
        raise ValueError(f"a statement that declares no name needs a role:\n{code}")
    return declared.group(1), ""


def check_roles() -> None:
    """Prove that every role given to :func:`statement` or :func:`form` so
    far matches its own snippet (else editing the snippet alone would
    silently break idempotency); a ValueError names the first that does not."""
    while _UNCHECKED_ROLES:
        code, role, names = next(iter(_UNCHECKED_ROLES))
        pattern = compile_pattern(role, True, names)
        tree = layout_tree(code, True)
        if tree is None or next(pattern.search(tree), None) is None:
            raise ValueError(f"statement role {role!r} does not match its own snippet:\n{code}")
        del _UNCHECKED_ROLES[(code, role, names)]


def layout_tree(text: str, tsx: bool = False) -> Group | None:
    """The canonical tree of a snippet (None when it does not parse)."""
    data = text.encode("utf-8")
    tree = parse(data, TSX if tsx else TYPESCRIPT)
    if tree.root_node.has_error:
        return None
    return canonical_tree(tree.root_node, data)


def statement(
    snippet: str,
    role: str = "",
    *,
    earlier: Sequence[Form] = (),
    label: str = "",
    names: Iterable[str] = (),
    alike: Sequence[str] = (),
) -> Statement:
    """A :class:`Statement`: a snippet that declares a name is known by it
    (checked here); any other needs a ``role`` that matches its own code,
    which :func:`check_roles` proves."""
    names = frozenset(names)
    name, role = _identity(snippet, role, names)
    return Statement(snippet, name=name, role=role, earlier=tuple(earlier), label=label, names=names, alike=tuple(alike))


def form(label: str, snippet: str, role: str = "", *, kind: str = "upgrade", names: Iterable[str] = ()) -> Form:
    """An earlier :class:`Form` of a statement, checked like :func:`statement`."""
    if kind not in {"upgrade", "migrate"}:
        raise ValueError(f"a form is an upgrade or a migration, not {kind!r}")
    names = frozenset(names)
    name, role = _identity(snippet, role, names)
    return Form(label, snippet, name=name, role=role, kind=kind, names=names)


def as_form(other: Statement, kind: str = "migrate") -> Form:
    """Another current statement (another mode's, say) as an earlier form."""
    return Form(other.label, other.snippet, other.name, other.role, kind, other.names)


class FormChange(NamedTuple):
    """An earlier form replaced by the current one: an upgrade or a
    migration, for the report."""

    kind: str  # "upgrade" or "migrate"
    where: str  # "lines 12-16", "the file"
    was: str  # the earlier form's label
    now: str  # the current form's label

    def to_json(self) -> dict:
        return {"kind": self.kind, "where": self.where, "from": self.was, "to": self.now}

    def __str__(self) -> str:
        return f"{self.kind} {self.where}: {self.was} -> {self.now}"


class Ensured(NamedTuple):
    """What one ensure operation did: ``added`` is empty when all was there."""

    operation: str
    where: str
    added: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.added)


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


class FileEditor(Finder):
    """Collects edits for one :class:`SourceFile`."""

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

    def _lay_out_planned(self) -> None:
        lay_out = {"list": self._lay_out_list, "members": self._lay_out_members, "jsx": self._lay_out_jsx}
        for planned in self._planned.values():
            lay_out[planned.kind](planned)
        self._planned.clear()

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

    # ------------------------------------------------------------------
    # Snippets
    # ------------------------------------------------------------------

    def render(self, snippet: str, indent: str, kind: str = "statements") -> str:
        """A snippet laid out for ``indent`` in the file's style, with its
        line endings (first line not indented)."""
        return layout_snippet(snippet, indent, self.style, tsx=self.source.language is TSX, kind=kind).text

    def _inline(self, snippet: str) -> str:
        """A one-line fragment (a list item, a member) in the file's quotes."""
        text = " ".join(dedent(snippet).strip().split("\n"))
        return layout.requote_all(text, self.style.quote)

    # ------------------------------------------------------------------
    # Ensure: imports
    # ------------------------------------------------------------------

    def ensure_import(
        self,
        module: str,
        names: Sequence[str],
        *,
        after_module_suffix: str | None = None,
    ) -> Ensured:
        """``import { names } from "module"``: add missing names to an existing
        value import of the module, or add the statement after the import of
        ``after_module_suffix`` (or the last import). Two calls for a module
        that is not imported yet give one import statement."""
        existing = None
        for node in self.imports():
            source = node.child_by_field_name("source")
            if source is None or module_stem(self.text(source)[1:-1]) != module_stem(module):
                continue
            if node.children[1].type == "type":
                continue  # `import type { ... }` cannot carry values
            named = next((n for n in self.walk(node) if n.type == "named_imports"), None)
            if named is not None:
                existing = named
                break
        if existing is not None:
            return self.ensure_list_items(existing, [Item(n, n) for n in names])
        planned = self._imports.get(module_stem(module))
        if planned is not None:
            missing = [n for n in names if n not in planned.names]
            planned.names.extend(missing)
            return self._record("import", module, [f"import {{ {', '.join(missing)} }} from {module}"] if missing else [])
        anchor = self.import_ending_with(after_module_suffix) if after_module_suffix is not None else None
        if anchor is None:
            imports = self.imports()
            if not imports:
                raise AnchorMissing(self.path, "an import statement to insert after")
            anchor = imports[-1]
        self._imports[module_stem(module)] = _PlannedImport(anchor, module, list(names))
        return self._record("import", module, [f"import {{ {', '.join(names)} }} from {module}"])

    def drop_unused_imports(self, module: str, names: Sequence[str], why: str) -> list[str]:
        """Remove ``names`` from the value imports of ``module`` where
        nothing else in the file uses them once this editor's replacements
        are made (what only an earlier form used), and the whole import
        when it is left empty. Called after the replacements are planned.
        Returns the names that stay imported because something still uses
        them."""
        replaced = [(e.start, e.end) for e in self.edits if e.end > e.start]

        def used(name: str) -> bool:
            return any(
                self.text(node) == name
                and not any(start <= node.start_byte and node.end_byte <= end for start, end in replaced)
                for node in self._identifiers_outside_imports()
            )

        dropped: list[str] = []
        kept: list[str] = []
        for node in self.imports():
            source = node.child_by_field_name("source")
            if source is None or module_stem(self.text(source)[1:-1]) != module_stem(module):
                continue
            named = next((n for n in self.walk(node) if n.type == "named_imports"), None)
            if named is None:
                continue
            specifiers = [s for s in named.named_children if s.type == "import_specifier"]
            gone = [s for s in specifiers if self.item_key(s) in names and not used(self.item_key(s))]
            kept += [self.item_key(s) for s in specifiers if self.item_key(s) in names and s not in gone]
            if not gone:
                continue
            dropped += [self.item_key(s) for s in gone]
            clause = named.parent
            default = any(c.type in {"identifier", "namespace_import"} for c in clause.named_children)
            planned = self._planned.pop(("list", named.start_byte, named.end_byte), None)
            if len(gone) == len(specifiers) and planned is not None:
                # the names an earlier operation planned for this import take their place
                names = ", ".join(self._inline(i.text) for i in planned.items)
                self.edits.replace(specifiers[0].start_byte, specifiers[-1].end_byte, names)
                continue
            if planned is not None:
                self._planned[("list", named.start_byte, named.end_byte)] = planned
            if len(gone) == len(specifiers) and not default:
                # the whole statement, with its line
                start = self.source.line_start(node.start_byte)
                newline = self.source.data.find(b"\n", node.end_byte)
                self.edits.replace(start, len(self.source.data) if newline < 0 else newline + 1, "")
                continue
            for spec in gone:
                index = specifiers.index(spec)
                if index + 1 < len(specifiers):
                    self.edits.replace(spec.start_byte, specifiers[index + 1].start_byte, "")
                else:
                    self.edits.replace(specifiers[index - 1].end_byte, spec.end_byte, "")
        if dropped:
            self.notes.append(f"removed the import of {', '.join(dropped)} from {module} ({why})")
        self._record("drop imports", module, [f"-{n}" for n in dropped])
        return kept

    def _identifiers_outside_imports(self) -> Iterator[Node]:
        stack = [c for c in self.source.root.named_children if c.type != "import_statement"]
        while stack:
            node = stack.pop()
            if node.type in {"identifier", "type_identifier", "shorthand_property_identifier"}:
                yield node
            stack.extend(node.children)

    def _lay_out_imports(self) -> None:
        for planned in self._imports.values():
            # Laid out like any snippet: quotes, semicolon and width per Style.
            statement = f"import {{ {', '.join(planned.names)} }} from \"{planned.module}\";"
            self._insert_after(planned.anchor, [statement], "")

    # ------------------------------------------------------------------
    # Ensure: comma-separated lists (parameters, arguments, objects, patterns)
    # ------------------------------------------------------------------

    def list_items(self, container: Node) -> list[Node]:
        if container.type not in LIST_CONTAINERS:
            raise ValueError(f"{container.type} is not a comma-separated list")
        return self.entries(container)

    def item_key(self, node: Node) -> str:
        """What identifies an entry of a list (or a member of an object
        type): its name, or its squashed text."""
        kind = node.type
        if kind in {"required_parameter", "optional_parameter"}:
            pattern = node.child_by_field_name("pattern")
            return self.text(pattern) if pattern is not None else squash(self.text(node))
        if kind in {"shorthand_property_identifier", "shorthand_property_identifier_pattern", "identifier"}:
            return self.text(node)
        if kind in {"pair", "pair_pattern"}:
            key = self.text(node.child_by_field_name("key"))
            return key.strip("\"'")
        if kind == "object_assignment_pattern":
            return self.text(node.child_by_field_name("left"))
        if kind == "spread_element":
            ident = next((n for n in self.walk(node) if n.type in {"identifier", "shorthand_property_identifier"}), None)
            return "..." + (self.text(ident) if ident is not None else squash(self.text(node)))
        if kind in {"import_specifier", "export_specifier", "property_signature", "method_signature"}:
            return self.name_of(node) or squash(self.text(node))
        return squash(self.text(node))

    def ensure_list_items(self, container: Node, items: Sequence[Item], *, after: str = "") -> Ensured:
        """Add the items that are missing to a comma-separated list, laid out
        the way the list already is, breaking it one item per line when the
        line would grow past the line width (as Biome would print it). Items
        that an earlier call planned for the same list count as present;
        the list is laid out once, with all of them. ``after``: the key of
        the existing entry they go right after (default: at the end)."""
        present = {self.item_key(n) for n in self.list_items(container)}
        missing = self._plan("list", container, present, items, after)
        return self._record("list items", container.type, [i.text for i in missing])

    def _lay_out_list(self, planned: _Planned) -> None:
        container = planned.container
        current = self.list_items(container)
        groups = self._by_anchor(
            [self.item_key(n) for n in current], planned, [self._inline(i.text) for i in planned.items]
        )
        if self._is_multiline(container, current):
            for index, texts in groups.items():
                self._append_lines(container, current, index, texts, ",")
        else:
            self._append_inline(container, current, groups)

    def _is_multiline(self, container: Node, items: list[Node]) -> bool:
        if not items:
            return container.start_point[0] != container.end_point[0]
        return items[0].start_point[0] != container.start_point[0]

    def _append_inline(self, container: Node, items: list[Node], groups: dict[int, list[str]]) -> None:
        pad = " " if container.type in _PADDED else ""
        inserts = [
            (items[index].end_byte, "".join(", " + t for t in texts)) if index >= 0
            else (container.children[0].end_byte, pad + ", ".join(texts) + pad)
            for index, texts in groups.items()
        ]
        if container.start_point[0] != container.end_point[0]:
            fits = True  # a list that spans lines already: its items stay where they are
        else:
            grown = self.source.code_line(container.start_byte)
            start = self.source.line_start(container.start_byte)
            for offset, insertion in reversed(inserts):
                grown = grown[:offset - start] + insertion + grown[offset - start:]
            fits = layout.fits(grown, self.style)
        if fits:
            for offset, insertion in inserts:
                self.edits.insert(offset, insertion)
            return
        if self._relayout_statement(container, inserts):
            return
        texts = list(groups.get(-1, []))
        for index, node in enumerate(items):
            texts += [self.text(node), *groups.get(index, [])]
        self._explode(container, texts)

    def _relayout_statement(self, container: Node, inserts: list[tuple[int, str]]) -> bool:
        """Lay the whole statement that holds a grown list (``inserts``: the
        offsets and texts of its new items) out again, the way
        Biome would print it with the new items (which of its groups break
        depends on all of them). Only for a statement without comments
        whose constructs the layout printer knows."""
        stmt = self.enclosing_statement(container)
        if stmt.type not in {"lexical_declaration", "expression_statement", "return_statement"}:
            return False
        # Without semicolons a trailing `// comment` is part of the statement:
        # it is kept after the code (Biome does not count it towards the width).
        code_end, trailing = stmt.end_byte, ""
        children = [c for c in stmt.children if c.type != "comment"]
        if children and stmt.children[-1].type == "comment":
            code_end = children[-1].end_byte
            trailing = self.source.data[code_end:stmt.end_byte].decode()
            if "\n" in trailing.strip():
                return False
        if any(n.type == "comment" and n.end_byte <= code_end for n in self.walk(stmt)):
            return False
        data, pieces, cursor = self.source.data, [], stmt.start_byte
        for offset, insertion in inserts:
            pieces += [data[cursor:offset], insertion.encode()]
            cursor = offset
        text = b"".join([*pieces, data[cursor:code_end]]).decode()
        indent = self.source.indent_of(stmt)
        laid = layout_snippet(text, indent, self.style, tsx=self.source.language is TSX)
        if not laid.laid_out:
            return False
        self.edits.replace(stmt.start_byte, code_end, laid.text)
        return True

    def _explode(self, container: Node, texts: list[str]) -> None:
        """Rewrite a one-line list as one item per line (the "break" half of
        the rule, printed by the layout module)."""
        pad = container.type in _PADDED
        kind = "call" if container.type in {"arguments", "formal_parameters"} else "list"
        open_, close = self.text(container.children[0]), self.text(container.children[-1])
        doc = layout.delimited(open_, list(texts), close, self.style, pad=pad, kind=kind, broken=True)
        printed = layout.print_doc(doc, self.style, self.source.indent_of(container))
        self.edits.replace(container.children[0].start_byte, container.children[-1].end_byte, printed)

    def _append_lines(
        self, container: Node, items: list[Node], index: int, texts: list[str], separator: str
    ) -> None:
        """Add one line per text after the item ``index`` of a multi-line
        list (-1: the list is empty)."""
        if index < 0:
            indent = self.source.indent_of(container) + self.style.indent
            sep = separator
            self.edits.insert(
                container.children[0].end_byte,
                "".join(f"{self.style.eol}{indent}{t}{sep}" for t in texts),
            )
            return
        anchor, last = items[index], index == len(items) - 1
        indent = (
            self.source.indent_of(anchor)
            if self.source.starts_line(anchor)
            else self.source.indent_of(container) + self.style.indent
        )
        follower = anchor.next_sibling
        has_sep = follower is not None and follower.type == separator
        end = follower.end_byte if has_sep else anchor.end_byte
        if not has_sep and separator and last:
            # The list's own style has no separator after its last item:
            # the old last item gets one, the new last item does not.
            self.edits.insert(end, separator)
        separators = [separator] * (len(texts) - 1) + [separator if has_sep or not last else ""]
        point = self._end_of_line_after(end, container)
        self.edits.insert(
            point,
            "".join(
                f"{self.style.eol}{indent}{self._entry(t, indent, sep, container)}{sep}"
                for t, sep in zip(texts, separators)
            ),
        )

    def _entry(self, text: str, indent: str, separator: str, container: Node) -> str:
        """An object entry on its own line, broken as Biome would print it
        when it does not fit the line (the printer lays it out inside an
        object at ``indent``); any other entry as it is."""
        if container.type != "object" or layout.fits(f"{indent}{text}{separator}", self.style):
            return text
        outer = indent[: -len(self.style.indent)] if indent.endswith(self.style.indent) else indent
        printed = self.render(f"const entry = {{\n{text},\n}};", outer)
        lines = printed.split(self.style.eol)
        if len(lines) < 3 or not lines[-1].strip().startswith("}"):
            return text
        return self.style.eol.join(lines[1:-1]).strip().removesuffix(",")

    def _end_of_line_after(self, offset: int, container: Node) -> int:
        """Where a new line can start after ``offset``: after a trailing
        comment on the same line, but never past the list's closing token."""
        line_end = self.source.line_end(offset)
        rest = self.source.data[offset:line_end].decode()
        stripped = rest.strip()
        if not stripped:
            # trailing blanks stay on their line (a CR stays before its LF)
            return line_end if rest and "\r" not in rest else offset
        if stripped.startswith("//") or (stripped.startswith("/*") and stripped.endswith("*/")):
            close = container.children[-1].start_byte
            return min(line_end, close) if close > offset else offset
        return offset

    def ensure_entry_lines(
        self, container: Node, key: str, lines: Callable[[str], list[str]], *, separator: str
    ) -> Ensured:
        """An entry ``key`` written as whole lines (a member with a doc
        comment above it, say) after the last entry of a multi-line list or
        member container, past a comment on the last entry's line (as
        :meth:`_append_lines` does). ``lines(indent)`` gives them at the
        entries' indentation, without the separator that ends the entry: the
        one that follows the last entry; when none does, the old last entry
        gets ``separator`` and the new one, now last, none."""
        entries = self.entries(container)
        if any(self.item_key(e) == key for e in entries):
            return self._record("entry", key, [])
        if not entries:
            where = self._label(container.parent or container)
            raise AnchorMissing(self.path, f"an entry of `{where}` to add `{key}` after")
        last = entries[-1]
        new = lines(self.source.indent_of(last))
        follower, eol = last.next_sibling, self.style.eol
        if follower is not None and follower.type in {";", ","}:
            end, ending = follower.end_byte, follower.type
        else:
            if separator:
                self.edits.insert(last.end_byte, separator)
            end, ending = last.end_byte, ""
        self.edits.insert(self._end_of_line_after(end, container), eol + eol.join(new) + ending)
        return self._record("entry", key, [new[-1].strip()])

    # ------------------------------------------------------------------
    # Ensure: members of unions
    # ------------------------------------------------------------------

    def ensure_union_member(self, union: Node, member: str, *, after: str) -> Ensured:
        """``| member`` right after the member ``after`` of a union type, on
        its own line when the union has one member per line."""
        members = self.union_members(union)
        if any(squash(self.text(m)) == squash(member) for m in members):
            return self._record("union member", after, [])
        anchor = next((m for m in members if squash(self.text(m)) == squash(after)), None)
        if anchor is None:
            raise AnchorMissing(self.path, f"`{after}` in the union `{squash(self.text(union))[:40]}`")
        lead = self.source.data[self.source.line_start(anchor.start_byte):anchor.start_byte].decode()
        if lead.strip() == "|":
            self.edits.insert(self._end_of_line_after(anchor.end_byte, union), f"{self.style.eol}{lead}{member}")
        else:
            self.edits.insert(anchor.end_byte, f" | {member}")
        return self._record("union member", after, [f"| {member}"])

    # ------------------------------------------------------------------
    # Ensure: members of interfaces and object types
    # ------------------------------------------------------------------

    def ensure_members(self, body: Node, items: Sequence[Item], *, after: str = "") -> Ensured:
        """Append missing members (``name?: Type;``) to an interface body or
        an object type (``after``: right after the member of that name)."""
        if body.type == "interface_declaration":
            body = body.child_by_field_name("body")
        if body is None or body.type not in MEMBER_CONTAINERS:
            raise ValueError("ensure_members needs an interface or object type body")
        members = self.entries(body)
        missing = self._plan("members", body, {self.name_of(m) for m in members}, items, after)
        return self._record("members", self._label(body.parent or body), [i.text for i in missing])

    def _lay_out_members(self, planned: _Planned) -> None:
        body = planned.container
        members = self.entries(body)
        separators = [c.type for c in body.children if c.type in {";", ","}]
        if separators:
            separator = max(set(separators), key=separators.count)
        else:
            # No member has one: Biome without semicolons leaves them off.
            separator = ";" if self.style.semicolons or not members else ""
        groups = self._by_anchor(
            [self.name_of(m) for m in members], planned, [self._inline(i.text).rstrip(";,") for i in planned.items]
        )
        multiline = self._is_multiline(body, members)
        for index, texts in groups.items():
            if multiline:
                self._append_lines(body, members, index, texts, separator)
            elif index >= 0:
                follower = members[index].next_sibling
                lead = "" if follower is not None and follower.type in {";", ","} else separator
                point = follower.end_byte if lead == "" else members[index].end_byte
                self.edits.insert(point, lead + "".join(f" {t}{separator}" for t in texts))
            else:
                self.edits.insert(body.children[0].end_byte, " " + " ".join(f"{t}{separator}" for t in texts) + " ")

    # ------------------------------------------------------------------
    # Ensure: JSX attributes
    # ------------------------------------------------------------------

    def ensure_jsx_attributes(self, element: Node, items: Sequence[Item]) -> Ensured:
        """Append missing ``name={value}`` attributes to a JSX element."""
        attributes = [c for c in element.named_children if c.type == "jsx_attribute"]
        present = {self.text(a.named_children[0]) for a in attributes if a.named_children}
        missing = self._plan("jsx", element, present, items)
        return self._record("JSX attributes", self.text(element.child_by_field_name("name")), [i.text for i in missing])

    def _lay_out_jsx(self, planned: _Planned) -> None:
        element = planned.container
        attributes = [c for c in element.named_children if c.type == "jsx_attribute"]
        texts = [self._inline(i.text) for i in planned.items]
        name = element.child_by_field_name("name")
        multiline = bool(attributes) and attributes[0].start_point[0] != name.start_point[0]
        if multiline:
            last = attributes[-1]
            indent = self.source.indent_of(last)
            self.edits.insert(last.end_byte, "".join(f"{self.style.eol}{indent}{t}" for t in texts))
            return
        anchor = attributes[-1].end_byte if attributes else name.end_byte
        insertion = "".join(" " + t for t in texts)
        line = self.source.code_line(element.start_byte)
        column = anchor - self.source.line_start(anchor)
        single_line = element.start_point[0] == element.end_point[0]
        if not single_line or layout.fits(line[:column] + insertion + line[column:], self.style):
            self.edits.insert(anchor, insertion)
            return
        # From the tag (and type arguments) up to `/>` or `>`, broken.
        type_args = element.child_by_field_name("type_arguments")
        head = self.source.data[element.start_byte:(type_args if type_args is not None else name).end_byte].decode()
        close = self.text(element.children[-1])
        doc = layout.jsx_attributes(head, [self.text(a) for a in attributes] + texts, close, broken=True)
        printed = layout.print_doc(doc, self.style, self.source.indent_of(element))
        self.edits.replace(element.start_byte, element.end_byte, printed)

    # ------------------------------------------------------------------
    # Ensure: statements and class members
    # ------------------------------------------------------------------

    def ensure_statements_after(
        self,
        anchor: Node | Callable[[], Node],
        statements: Sequence[Statement],
        *,
        block: Node | None = None,
        scope: Node | None = None,
    ) -> Ensured:
        """Insert each statement after ``anchor`` unless the block already has
        it (see :class:`Statement`; by role, anywhere in ``scope`` when
        given: a handler moved into a helper method). In a partly applied
        block a missing statement goes after its present predecessor, so the
        sequence keeps its order. ``anchor`` may be a function that finds
        it (``block`` given): it is looked for only when something must be
        inserted, so a missing anchor does not matter once the work is there."""
        if block is None:
            if callable(anchor):
                raise ValueError("a lazily found anchor needs its block")
            block = anchor.parent
        cursor, pending, added = None, [], []
        inserts: list[tuple[Node | None, list[str]]] = []
        for wanted in statements:
            found = self._present(block, wanted, scope)
            if found is None:
                pending.append(self._with_names(wanted.snippet, wanted.names))
                added.append(dedent(wanted.snippet).strip())
                continue
            if found.parent is None or found.parent.id != block.id:
                continue  # present elsewhere in the scope: the order is not ours
            if pending:
                inserts.append((cursor, pending))
            cursor, pending = found, []
        if pending:
            inserts.append((cursor, pending))
        where = ""
        if inserts:
            resolved = anchor() if callable(anchor) else anchor
            where = f"after line {resolved.end_point[0] + 1}"
            before, after = self._neighbours(resolved)
            # An anchor set apart by blank lines on both sides (one of a list
            # of handlers, say): the new statements get blank lines too.
            spaced = (
                before is not None and after is not None
                and resolved.start_point[0] - before.end_point[0] > 1
                and after.start_point[0] - resolved.end_point[0] > 1
            )
            for at, texts in inserts:
                at = resolved if at is None else at
                self._insert_after(at, texts, self.source.indent_of(at), spaced)
        return self._record("statements", where or "present", added)

    def canonical(self, node: Node) -> Group:
        """The canonical tree of ``node`` (cached), for role matching."""
        cached = self._canonical.get(node.id)
        if cached is None:
            cached = canonical_tree(node, self.source.data) or Group(node.type, [], node)
            self._canonical[node.id] = cached
        return cached

    def find_statement(self, block: Node, wanted: Statement | Form, scope: Node | None = None) -> Node | None:
        """The statement of ``block`` that ``wanted`` already is: the one
        declaring its name (or, renamed, the same code under other names),
        or one that plays its role, anywhere in ``scope`` when given."""
        if wanted.name:
            found = self.declaration_in(block, self.bindings.get(wanted.name, wanted.name))
            if found is not None or wanted.name not in wanted.names:
                return found
            return next((s for s in self.entries(block) if self.same_code(s, wanted.snippet, wanted.names)), None)
        return self.find_role(scope or block, wanted.role, wanted.names)

    def find_role(self, scope: Node, role: str, names: frozenset[str] = frozenset()) -> Node | None:
        """The first statement in ``scope`` that holds code matching the
        pattern ``role`` (see :class:`~.equivalence.Pattern`); the names it
        binds are recorded."""
        pattern = compile_pattern(role, True, names)
        text = self.source.data[scope.start_byte:scope.end_byte]
        if not all(word.encode() in text for word in pattern.words):
            return None
        by_kind = self._by_kind.get(scope.id)
        if by_kind is None:
            by_kind = self._by_kind[scope.id] = groups_by_kind(self.canonical(scope))
        for group, env in pattern.search(self.canonical(scope), self.bindings, by_kind):
            if group.node is None:
                continue
            self.bindings.update(env)
            return self._top_statement(group.node, scope)
        return None

    def _top_statement(self, node: Node, scope: Node) -> Node:
        """The statement that holds ``node``: an entry of ``scope`` when that
        is a block, else an entry of the function body it is in."""
        current = node
        while current.parent is not None and current.id != scope.id:
            parent = current.parent
            if parent.id == scope.id or parent.type in {"program", "class_body"} or (
                parent.type == "statement_block" and parent.parent is not None and parent.parent.type in FUNCTION_TYPES
            ):
                return current
            current = parent
        return current

    def same_code(self, node: Node, snippet: str, names: frozenset[str] = frozenset()) -> bool:
        """Whether ``node`` is ``snippet``'s code modulo layout (comments
        aside) and the renaming of ``names``; the names it binds are
        recorded."""
        pattern = compile_pattern(_code(snippet), True, names)
        expected = node.named_children[0].type if node.type == "expression_statement" and node.named_children else node.type
        if pattern.kind is not None and pattern.kind != expected:
            return False
        text = self.source.data[node.start_byte:node.end_byte]
        if not all(word.encode() in text for word in pattern.words):
            return False
        group = self.canonical(node)
        # A snippet that is one expression statement is compiled to its expression.
        target = group.items[0] if node.type == "expression_statement" and len(group.items) == 1 else group
        env = pattern.match(target, self.bindings)
        if env is None:
            return False
        self.bindings.update(env)
        return True

    def _with_names(self, snippet: str, names: frozenset[str]) -> str:
        """``snippet`` with the step's names as this file has them."""
        renames = {k: v for k, v in self.bindings.items() if k in names and v != k.removeprefix("this.")}
        if not renames:
            return snippet
        data = snippet.encode("utf-8")
        tree = parse(data, TSX)
        edits = []
        stack = [tree.root_node]
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            text = data[node.start_byte:node.end_byte].decode()
            key = text if node.type == "identifier" else "this." + text if node.type == "property_identifier" else None
            if key in renames:
                edits.append((node.start_byte, node.end_byte, renames[key]))
        for start, end, text in sorted(edits, reverse=True):
            data = data[:start] + text.encode() + data[end:]
        return data.decode()

    def has_statement(self, block: Node, wanted: Statement, scope: Node | None = None) -> bool:
        return self.find_statement(block, wanted, scope) is not None

    def _present(self, block: Node, wanted: Statement, scope: Node | None = None) -> Node | None:
        """The statement of ``block`` (or ``scope``) that is ``wanted``, after
        replacing an earlier form of it (planned here, see :class:`Form`),
        or None.

        The current form wins; an earlier form whose code is still what was
        written (modulo layout and renamed names) becomes the current one.
        An earlier form known by its own name or role but with other code
        was changed by someone since: refused (the current one is not added
        beside it). A statement with the current form's name or role and
        other code is kept as it is, and so is another form of the same
        work (``alike``)."""
        found = self.find_statement(block, wanted, scope)
        if not wanted.earlier or (found is not None and self.same_code(found, wanted.snippet, wanted.names)):
            return found
        # Several forms may share a role (a wiring and its earlier
        # release): a statement is "changed since" only when none of them
        # is its code.
        changed: tuple[Node, Form] | None = None
        for earlier in wanted.earlier:
            node = found if (earlier.name, earlier.role) == (wanted.name, wanted.role) else self.find_statement(
                block, earlier, scope
            )
            if node is None:
                continue
            if self.same_code(node, earlier.snippet, earlier.names):
                self._replace_statement(node, earlier, wanted)
                return node
            if node is not found and changed is None:
                changed = (node, earlier)
        if changed is not None:
            node, earlier = changed
            first, last = node.start_point[0] + 1, node.end_point[0] + 1
            raise Conflict(
                self.path,
                f"{self.path} lines {first}-{last} hold {earlier.label}, changed since mesh-codemod wrote it: "
                f"not replaced with {wanted.label or 'the current form'}; "
                "restore the written form or make the change by hand",
            )
        if found is None:
            for role in wanted.alike:
                found = self.find_role(scope or block, role, wanted.names)
                if found is not None:
                    first = found.start_point[0] + 1
                    self.note(f"line {first} does this step's work in another form; kept as it is")
                    return found
        return found

    def _replace_statement(self, node: Node, earlier: Form, wanted: Statement) -> None:
        """Replace ``node`` (``earlier``, with the comment lines above it
        that the earlier snippet has) by the current snippet."""
        start = node
        comments = [
            line.strip() for line in dedent(earlier.snippet).strip("\n").split("\n") if line.lstrip().startswith("//")
        ]
        above = node.prev_named_sibling
        for comment in reversed(comments):
            if above is None or above.type != "comment" or self.text(above).strip() != comment:
                break
            start, above = above, above.prev_named_sibling
        indent = self.source.indent_of(node)
        snippet = self._with_names(wanted.snippet, wanted.names)
        self.edits.replace(start.start_byte, node.end_byte, self.render(snippet, indent))
        first, last = start.start_point[0] + 1, node.end_point[0] + 1
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        self.form_changes.append(FormChange(earlier.kind, where, earlier.label, wanted.label or "the current form"))

    def _neighbours(self, anchor: Node) -> tuple[Node | None, Node | None]:
        """The siblings before and after ``anchor``, not counting a comment
        that shares a line with it (that comment belongs to the anchor)."""
        before, after = anchor.prev_named_sibling, anchor.next_named_sibling
        if before is not None and before.type == "comment" and before.end_point[0] == anchor.start_point[0]:
            before = before.prev_named_sibling
        if after is not None and after.type == "comment" and after.start_point[0] == anchor.end_point[0]:
            after = after.next_named_sibling
        return before, after

    def ensure_statements_at_end(
        self, block: Node, statements: Sequence[Statement], *, scope: Node | None = None
    ) -> Ensured:
        missing = [
            (s.snippet, self._with_names(s.snippet, s.names))
            for s in statements
            if self._present(block, s, scope) is None
        ]
        result = self._record("statements", "end of block", [dedent(s).strip() for s, _ in missing])
        if not missing:
            return result
        texts = [text for _, text in missing]
        existing = self.entries(block)
        if existing:
            self._insert_after(existing[-1], texts, self.source.indent_of(existing[-1]))
        else:
            indent = self.source.indent_of(block) + self.style.indent
            text = "".join(self.style.eol + indent + self.render(s, indent) for s in texts)
            self.edits.insert(block.children[0].end_byte, text)
        return result

    def local_name(self, name: str) -> str:
        """The name a local the steps call ``name`` has in this file."""
        return self.bindings.get(name, name)

    def member_name(self, name: str) -> str:
        """The name a member the steps call ``name`` has in this file."""
        return self.bindings.get("this." + name, name)

    def ensure_class_member(
        self,
        cls: Node,
        name: str,
        snippet: str,
        *,
        after: Node | Callable[[], Node],
        spaced: bool = False,
        names: frozenset[str] = frozenset(),
    ) -> Ensured:
        """A class field or method named ``name`` (or what this file renamed
        it to), placed after ``after`` (``spaced``: set apart by a blank
        line, as methods are; a function: looked for only when the member
        must be added)."""
        if self.class_members(cls, self.member_name(name)):
            return self._record("class member", name, [])
        anchor = after() if callable(after) else after
        text = self._with_names(snippet, names | {"this." + name})
        self._insert_after(anchor, [text], self.source.indent_of(anchor), spaced, kind="members")
        return self._record("class member", name, [dedent(snippet).strip()])

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

    # ------------------------------------------------------------------
    # Result
    # ------------------------------------------------------------------

    def result(self) -> bytes:
        """The edited bytes (BOM restored); refuses output that does not parse.
        Planned lists and imports are laid out here, once each."""
        self._lay_out_planned()
        self._lay_out_imports()
        self._imports.clear()
        data = self.edits.apply(self.source.data)
        if data != self.source.data:
            error = first_error(reparse(self.source.tree, self.source.data, data, self.edits))
            if error:
                raise SyntaxProblem(
                    self.path,
                    f"the edited file would not parse (line {error[0]}, column {error[1]})",
                )
        return self.source.to_bytes(data)


