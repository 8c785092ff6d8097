"""Ensure operations on statements and class members: found by name or by
role (modulo layout), inserted after an anchor or at the end of a block,
and earlier forms replaced while their code is still what was written."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from textwrap import dedent
from tree_sitter import Node
from .find import FUNCTION_TYPES
from .outcome import Conflict
from .equivalence import Group, canonical_tree, compile_pattern, groups_by_kind
from .parsing import TSX, parse
from .editor_base import EditorBase
from .statements import Ensured, Form, FormChange, Statement, code_of


class StatementEdits(EditorBase):
    """Statements and class members, and the forms that become them."""

    def ensure_statements_after(
        self,
        anchor: Node | Callable[[], Node],
        statements: Sequence[Statement],
        *,
        block: Node | None = None,
        scope: Node | None = None,
        spaced: bool | None = None,
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
            # of handlers, say): the new statements get blank lines too,
            # unless the step says.
            spaced = spaced if spaced is not None else (
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
            top = self._top_statement(group.node, scope)
            if top.id in self.retired:
                continue  # an earlier form's removal takes it away
            self.bindings.update(_renamed(env))
            return top
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

    def same_code(self, node: Node, snippet: str, names: frozenset[str] = frozenset(), *, comments: bool = False) -> bool:
        """Whether ``node`` is ``snippet``'s code modulo layout and the
        renaming of ``names`` (comments aside, unless ``comments``: then a
        comment inside ``node`` that the snippet does not have, or has
        elsewhere, makes it other code); the names it binds are recorded."""
        code = dedent(snippet).strip("\n") if comments else code_of(snippet)
        pattern = compile_pattern(code, True, names, comments=comments)
        expected = node.named_children[0].type if node.type == "expression_statement" and node.named_children else node.type
        if pattern.kind is not None and pattern.kind != expected:
            return False
        text = self.source.data[node.start_byte:node.end_byte]
        if not all(word.encode() in text for word in pattern.words):
            return False
        group = canonical_tree(node, self.source.data, comments=True) if comments else self.canonical(node)
        if group is None:
            return False
        # A snippet that is one expression statement is compiled to its expression.
        target = group.items[0] if node.type == "expression_statement" and len(group.items) == 1 else group
        env = pattern.match(target, self.bindings)
        if env is None:
            return False
        self.bindings.update(_renamed(env))
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
        if found is not None and found.id in self.merged:
            return found
        if not wanted.earlier or (found is not None and self.same_code(found, wanted.snippet, wanted.names)):
            # the current code under an earlier form's comment: the comment goes
            for earlier in wanted.earlier if found is not None else ():
                comments = _leading_comments(earlier.snippet)
                if (
                    comments and comments != _leading_comments(wanted.snippet)
                    and self._comments_above(found, comments)
                    and self.same_code(found, earlier.snippet, earlier.names, comments=True)
                ):
                    self._replace_statement(found, earlier, wanted)
                    break
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
            if node.id in self.merged:
                return node
            # Replacing decides to drop bytes: a comment the team added is an edit.
            if self.same_code(node, earlier.snippet, earlier.names, comments=True):
                self._replace_statement(node, earlier, wanted)
                return node
            if node is not found and changed is None:
                changed = (node, earlier)
        if changed is not None:
            node, earlier = changed
            # a statement known by its role (a handler) edited since merges
            # where the edits are apart from the change (SPEC 10)
            if wanted.role:
                forms = [e for e in wanted.earlier if self.find_statement(block, e, scope) == node]
                if self.merge_statement(node, self._nearest(node, forms) or earlier, wanted):
                    return node
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

    def _nearest(self, node: Node, forms: Sequence[Form]) -> Form | None:
        """Of ``forms``, the one whose output ``node`` differs least from."""
        from .merge import differing_lines

        ours = self.text(node)
        indent = self.source.indent_of(node)
        return min(forms, key=lambda f: differing_lines(self._written(f, indent), ours), default=None)

    def _written(self, form: Form | Statement, indent: str) -> str:
        return self.render(self._with_names(form.snippet, form.names), indent)

    def merge_statement(self, node: Node, earlier: Form, wanted: Statement) -> bool:
        """Replace ``node``, ``earlier`` as mesh-codemod wrote it and edited
        since (by the team's linter, say), with ``wanted``, keeping the
        edits: a three-way merge by ``git merge-file`` (base: ``earlier``
        as written here, ours: the statement, theirs: ``wanted``). False,
        with nothing planned, where the edits are next to or on the lines
        the change touches, or the merge does not parse."""
        from .merge import merge
        from .statements import layout_tree

        start = self._comments_above(node, _leading_comments(earlier.snippet)) or node
        indent = self.source.indent_of(node)
        ours = self.source.data[start.start_byte:node.end_byte].decode("utf-8")

        def lines(text: str) -> str:
            # a change of depth re-indents every line: compared without it,
            # and the result laid out again
            return "".join(line.strip() + "\n" for line in text.splitlines())

        done = merge(lines(self._written(earlier, indent)), lines(ours), lines(self._written(wanted, indent)))
        if done.conflicts or layout_tree(done.text, self.source.language is TSX) is None:
            return False
        text = self.laid_out(done.text, indent)
        if text is None or text == ours or any(c not in text for c in _comments_in(node)):
            return False  # a comment of the team's that the layout would drop: theirs, refused
        self.edits.replace(start.start_byte, node.end_byte, text)
        self.merged.add(node.id)
        first, last = start.start_point[0] + 1, node.end_point[0] + 1
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        self.form_changes.append(FormChange(earlier.kind, where, earlier.label, wanted.label or "the current form"))
        self.note(
            f"{where}: {earlier.label}, changed since mesh-codemod wrote it, "
            f"{'migrated' if earlier.kind == 'migrate' else 'upgraded'} by a three-way merge, keeping the changes"
        )
        return True

    def _comments_above(self, node: Node, comments: list[str]) -> Node | None:
        """The first of the comment lines ``comments`` right above ``node``
        (None when they are not all there)."""
        start, above = node, node.prev_named_sibling
        for comment in reversed(comments):
            if above is None or above.type != "comment" or self.text(above).strip() != comment:
                return None
            start, above = above, above.prev_named_sibling
        return start

    def _replace_statement(self, node: Node, earlier: Form, wanted: Statement) -> None:
        """Replace ``node`` (``earlier``, with the comment lines above it
        that the earlier snippet has) by the current snippet."""
        start = self._comments_above(node, _leading_comments(earlier.snippet)) or node
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
        self, block: Node, statements: Sequence[Statement], *, scope: Node | None = None, spaced: bool = False
    ) -> Ensured:
        """Append the statements ``block`` lacks (``spaced``: set apart
        from the block's last statement by a blank line); a statement an
        earlier form's removal takes away is no anchor."""
        missing = [
            (s.snippet, self._with_names(s.snippet, s.names))
            for s in statements
            if self._present(block, s, scope) is None
        ]
        result = self._record("statements", "end of block", [dedent(s).strip() for s, _ in missing])
        if not missing:
            return result
        texts = [text for _, text in missing]
        existing = [e for e in self.entries(block) if e.id not in self.retired]
        if existing:
            first, *rest = texts
            indent = self.source.indent_of(existing[-1])
            self._insert_after(existing[-1], [first], indent, spaced)
            if rest:
                self._insert_after(existing[-1], rest, indent)
        else:
            indent = self.source.indent_of(block) + self.style.indent
            text = "".join(self.style.eol + indent + self.render(s, indent) for s in texts)
            self.edits.insert(block.children[0].end_byte, text)
        return result

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


def _leading_comments(snippet: str) -> list[str]:
    """The ``//`` comment lines a snippet starts with."""
    lines = dedent(snippet).strip("\n").split("\n")
    return [line.strip() for line in lines[: next((i for i, l in enumerate(lines) if not l.lstrip().startswith("//")), len(lines))]]


def _renamed(env: dict[str, str]) -> dict[str, str]:
    """What a match binds that later matches share: the step's renamable
    names, never a role's own metavariables (``$H`` of one role is not the
    ``$H`` of another)."""
    return {name: value for name, value in env.items() if not name.startswith("$")}


def _comments_in(node: Node) -> list[str]:
    """The text of each comment inside ``node``."""
    found, stack = [], [node]
    while stack:
        here = stack.pop()
        if here.type == "comment":
            found.append(here.text.decode("utf-8"))
        stack.extend(here.children)
    return found
