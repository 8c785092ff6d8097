"""Finding: read-only anchors in a parsed file.

Every function here only looks: it returns nodes (or raises
:class:`~.outcome.AnchorMissing` / :class:`~.outcome.Conflict` naming what
it looked for) and records nothing. The ensure operations in
:mod:`.editor` build on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tree_sitter import Node

from .outcome import AnchorMissing, Conflict
from .source import SourceFile

FUNCTION_TYPES = {
    "function_declaration",
    "function_expression",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
}
JSX_TAGS = ("jsx_self_closing_element", "jsx_opening_element")


def squash(text: str) -> str:
    """Text with all whitespace removed, for comparing code by content."""
    return "".join(text.split())


def module_stem(module: str) -> str:
    """A module specifier without its file extension: `./a.ts` is `./a`."""
    for suffix in (".tsx", ".ts", ".jsx", ".js"):
        if module.endswith(suffix):
            return module[: -len(suffix)]
    return module


class Finder:
    """Read-only queries over one :class:`SourceFile`: its anchors."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source

    @property
    def path(self) -> str:
        return self.source.path

    def text(self, node: Node) -> str:
        return self.source.text(node)

    def walk(self, node: Node | None = None) -> Iterator[Node]:
        stack = [node or self.source.root]
        while stack:
            current = stack.pop()
            yield current
            stack.extend(reversed(current.children))

    def _only(self, nodes: list[Node], what: str) -> Node:
        if not nodes:
            raise AnchorMissing(self.path, what)
        if len(nodes) > 1:
            lines = ", ".join(str(n.start_point[0] + 1) for n in nodes)
            raise Conflict(self.path, f"{what} is defined more than once (lines {lines})")
        return nodes[0]

    def name_of(self, node: Node) -> str | None:
        """The text of a node's ``name`` field (a declaration's, a member's,
        an import specifier's imported name), None when it has none."""
        name = node.child_by_field_name("name")
        return self.text(name) if name is not None else None

    def _named(self, kinds: tuple[str, ...], scope: Node | None, name: str) -> list[Node]:
        """Indexed nodes of ``kinds`` inside ``scope`` whose name is ``name``
        (for a call, its squashed callee)."""
        found = []
        for kind in kinds:
            for node in self.source.nodes(kind):
                if scope is not None and not (scope.start_byte <= node.start_byte < scope.end_byte):
                    continue
                label = node.child_by_field_name("function" if kind == "call_expression" else "name")
                if label is not None and squash(self.text(label)) == name:
                    found.append(node)
        return sorted(found, key=lambda n: n.start_byte)

    def function(self, name: str, scope: Node | None = None) -> Node:
        """A function declaration, or a ``const name = (...) => {}``."""
        found = self._named(("function_declaration",), scope, name)
        for declarator in self.variables(name, scope):
            value = declarator.child_by_field_name("value")
            if value is not None and value.type in FUNCTION_TYPES:
                found.append(value)
        return self._only(found, f"function `{name}`")

    def interfaces(self, name: str) -> list[Node]:
        return self._named(("interface_declaration",), None, name)

    def interface(self, name: str) -> Node:
        return self._only(self.interfaces(name), f"interface `{name}`")

    def type_aliases(self, name: str) -> list[Node]:
        """The top-level ``type name = ...`` declarations (exported or not)."""
        found = []
        for node in self.source.root.named_children:
            alias = node.named_children[0] if node.type == "export_statement" and node.named_children else node
            if alias.type == "type_alias_declaration" and self.name_of(alias) == name:
                found.append(alias)
        return found

    def property_signature(self, scope: Node, name: str) -> Node:
        """The first member ``name: ...`` of an interface or object type,
        nested ones included (``params: { state: ... }``)."""
        found = next((n for n in self.walk(scope) if n.type == "property_signature" and self.name_of(n) == name), None)
        if found is None:
            raise AnchorMissing(self.path, f"member `{name}` in `{self._label(scope)}`")
        return found

    def doc_comment(self, node: Node) -> Node | None:
        """The ``/** ... */`` comment right before ``node`` (or before the
        export statement that holds it), if there is one."""
        target = node.parent if node.parent is not None and node.parent.type == "export_statement" else node
        before = target.prev_sibling
        if before is not None and before.type == "comment" and self.text(before).startswith("/**"):
            if target.start_point[0] - before.end_point[0] <= 1:
                return before
        return None

    def doc_text(self, node: Node) -> str:
        """The text of :meth:`doc_comment` for ``node``; "" when it has none."""
        doc = self.doc_comment(node)
        return self.text(doc) if doc is not None else ""

    def class_(self, name: str) -> Node:
        found = self._named(("class_declaration",), None, name)
        return self._only(found, f"class `{name}`")

    def method(self, cls: Node, name: str) -> Node:
        """A method, or an arrow-function field, of a class: the function node."""
        body = cls.child_by_field_name("body")
        found = []
        for member in body.named_children if body else []:
            if self.name_of(member) != name:
                continue
            if member.type == "method_definition":
                found.append(member)
            elif member.type == "public_field_definition":
                value = member.child_by_field_name("value")
                if value is not None and value.type in FUNCTION_TYPES:
                    found.append(value)
        return self._only(found, f"method `{name}` of class `{self.name_of(cls)}`")

    def class_members(self, cls: Node, name: str, kind: str | None = None) -> list[Node]:
        """The members of a class named ``name`` (a getter and its setter are
        two), only those of node type ``kind`` when given."""
        body = cls.child_by_field_name("body")
        return [
            m for m in body.named_children
            if self.name_of(m) == name and (kind is None or m.type == kind)
        ]

    def class_member(self, cls: Node, name: str) -> Node:
        return self._only(self.class_members(cls, name), f"member `{name}` of class `{self.name_of(cls)}`")

    def variables(self, name: str, scope: Node | None = None) -> list[Node]:
        return self._named(("variable_declarator",), scope, name)

    def variable(self, name: str, scope: Node | None = None) -> Node:
        """The declarator of ``const name = ...``."""
        return self._only(self.variables(name, scope), f"variable `{name}`")

    def body(self, function: Node) -> Node:
        body = function.child_by_field_name("body")
        if body is None or body.type != "statement_block":
            raise AnchorMissing(self.path, f"a block body for `{self._label(function)}`")
        return body

    def parameters(self, function: Node) -> Node:
        params = function.child_by_field_name("parameters")
        if params is None:
            raise AnchorMissing(self.path, f"the parameters of `{self._label(function)}`")
        return params

    def _label(self, node: Node) -> str:
        name = self.name_of(node)
        if name is None and node.parent is not None:
            name = self.name_of(node.parent)
        return name or node.type

    def calls(self, scope: Node, callee: str) -> list[Node]:
        return self._named(("call_expression",), scope, callee)

    def call(self, scope: Node, callee: str, where: str) -> Node:
        return self._only(self.calls(scope, callee), f"call `{callee}(...)` in {where}")

    def jsx_elements(self, scope: Node, tag: str) -> list[Node]:
        return self._named(JSX_TAGS, scope, tag)

    def jsx_element(self, scope: Node, tag: str, where: str) -> Node:
        return self._only(self.jsx_elements(scope, tag), f"JSX element `<{tag}>` in {where}")

    def statement(self, block: Node, predicate: Callable[[str], bool], what: str) -> Node:
        found = [s for s in self.entries(block) if predicate(squash(self.text(s)))]
        if not found:
            raise AnchorMissing(self.path, what)
        return found[0]

    def declaration_of(self, block: Node, name: str) -> Node:
        """The statement in ``block`` that declares ``name``."""
        found = self.declaration_in(block, name)
        if found is None:
            raise AnchorMissing(self.path, f"the declaration of `{name}`")
        return found

    def declaration_in(self, block: Node, name: str) -> Node | None:
        """The statement in ``block`` that declares ``name``, if any."""
        for stmt in self.entries(block):
            if stmt.type == "export_statement" and stmt.child_by_field_name("declaration") is not None:
                stmt_ = stmt.child_by_field_name("declaration")
                if stmt_.type in {"lexical_declaration", "variable_declaration"} and any(
                    d.type == "variable_declarator" and name in self.bound_names(d) for d in stmt_.named_children
                ):
                    return stmt
                if stmt_.type in {"function_declaration", "class_declaration"} and self.name_of(stmt_) == name:
                    return stmt
                continue
            if stmt.type in {"lexical_declaration", "variable_declaration"}:
                for declarator in stmt.named_children:
                    if declarator.type == "variable_declarator" and name in self.bound_names(declarator):
                        return stmt
            elif stmt.type in {"function_declaration", "class_declaration"} and self.name_of(stmt) == name:
                return stmt
        return None

    def bound_names(self, declarator: Node) -> set[str]:
        target = declarator.child_by_field_name("name")
        if target is None:
            return set()
        if target.type == "identifier":
            return {self.text(target)}
        return {
            self.text(n) for n in self.walk(target)
            if n.type in {"shorthand_property_identifier_pattern", "identifier"}
        }

    def imports(self) -> list[Node]:
        return [n for n in self.source.root.named_children if n.type == "import_statement"]

    def import_ending_with(self, suffix: str) -> Node | None:
        """The first import statement whose module ends with ``suffix``,
        file extensions aside (``./a.ts`` ends with ``a``)."""
        stem = module_stem(suffix)
        return next(
            (n for n in self.imports() if module_stem(self.text(n.child_by_field_name("source"))[1:-1]).endswith(stem)),
            None,
        )

    def _imports_from(self, module: str, package: bool) -> Iterator[Node]:
        """The import statements of a module: one whose specifier ends with
        ``module``, or (``package``) the package ``module`` or a subpath of it."""
        for node in self.imports():
            source = node.child_by_field_name("source")
            if source is None:
                continue
            specifier = self.text(source)[1:-1]
            matches = specifier.split("/")[0] == module if package else specifier.endswith(module)
            if matches:
                yield node

    def imported_name(self, module: str, exported: str, *, package: bool = False) -> str | None:
        """The local name under which ``exported`` is imported from a module
        (see :meth:`_imports_from` for how ``module`` is matched)."""
        for node in self._imports_from(module, package):
            for spec in self.walk(node):
                if spec.type == "import_specifier" and self.name_of(spec) == exported:
                    alias = spec.child_by_field_name("alias")
                    return self.text(alias if alias is not None else spec.child_by_field_name("name"))
        return None

    def namespace_import(self, module: str, *, package: bool = False) -> str | None:
        """The local name of ``import * as name from module``."""
        for node in self._imports_from(module, package):
            for spec in self.walk(node):
                if spec.type == "namespace_import":
                    return self.text(spec.named_children[-1])
        return None

    def enclosing_statement(self, node: Node) -> Node:
        """The statement of a block (or of the file) that contains ``node``."""
        current = node
        while current.parent is not None and current.parent.type not in {"statement_block", "program"}:
            current = current.parent
        return current

    def destructuring_of(self, scope: Node, value: str, binds: str) -> Node:
        """The ``{ ... }`` pattern of ``const { binds, ... } = value`` in scope."""
        for declarator in self.walk(scope):
            if declarator.type != "variable_declarator":
                continue
            pattern = declarator.child_by_field_name("name")
            init = declarator.child_by_field_name("value")
            if (
                pattern is not None and pattern.type == "object_pattern"
                and init is not None and squash(self.text(init)) == squash(value)
                and binds in self.bound_names(declarator)
            ):
                return pattern
        raise AnchorMissing(self.path, f"`const {{ {binds}, ... }} = {value}` in `{self._label(scope)}`")

    def props_pattern(self, function: Node) -> Node:
        """The destructured props of a component: its first parameter's pattern."""
        params = self.entries(self.parameters(function))
        pattern = params[0].child_by_field_name("pattern") if params else None
        if pattern is None or pattern.type != "object_pattern":
            raise AnchorMissing(self.path, f"destructured props `({{ ... }})` of `{self._label(function)}`")
        return pattern

    def object_argument(self, call: Node) -> Node:
        """The first ``{ ... }`` argument of a call."""
        arguments = call.child_by_field_name("arguments")
        for argument in arguments.named_children if arguments else []:
            if argument.type == "object":
                return argument
        callee = self.text(call.child_by_field_name("function"))
        raise AnchorMissing(self.path, f"the object argument of `{callee}(...)`")

    def span(self, first: Node, last: Node) -> str:
        """The text from the start of ``first`` to the end of ``last``."""
        return self.source.data[first.start_byte:last.end_byte].decode()

    def union_members(self, node: Node) -> list[Node]:
        """The members of a (nested) union type, in order."""
        if node.type != "union_type":
            return [node]
        members: list[Node] = []
        for child in self.entries(node):
            members.extend(self.union_members(child))
        return members

    def entries(self, node: Node) -> list[Node]:
        """The named children of ``node`` that are not comments: a block's
        statements, a list's items, an interface's members."""
        return [c for c in node.named_children if c.type != "comment"]
