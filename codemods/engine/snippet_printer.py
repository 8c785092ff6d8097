"""TypeScript snippets as layout documents: the constructs that inserted
code is made of (declarations, calls, objects, arrows, conditions, class
members), each through one building block of :mod:`.layout`.

Anything else is kept as written when it is on one line; a statement
holding one over several lines is kept as written (re-indented, its
strings in the style's quotes), its neighbours still laid out.
"""

from __future__ import annotations


from tree_sitter import Node

from typing import NamedTuple
from . import layout as L
from .parsing import TSX, TYPESCRIPT, parse
from .restyle import as_written, plain_parameter, restyled
from .style import Style

_LOGICAL = {"&&", "||", "??"}


# What a statement may start with that, after a line without a semicolon,
# would continue that line's statement (Prettier and Biome put a `;` first).
_CONTINUES = ("(", "[", "`", "+", "-", "/")



class _Printer:
    def __init__(self, data: bytes, style: Style) -> None:
        self.data = data
        self.style = style
        self.kept = False  # whether a statement was kept as written

    def text(self, node: Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode()

    def _between(self, before: Node, after: Node) -> str:
        """The text between two nodes, whitespace aside (an operator, a dot)."""
        return self.data[before.end_byte:after.start_byte].decode().strip()

    def semi(self) -> str:
        return ";" if self.style.semicolons else ""

    # ---- statement lists ----

    def statements(self, nodes: list[Node]) -> list:
        parts: list = []
        previous = None
        for node in nodes:
            if previous is not None and node.type == "comment" and node.start_point[0] == previous.end_point[0]:
                parts.append(" ")  # a comment at the end of the statement's line stays there
            elif previous is not None:
                parts.append(L.HARD)
                if node.start_point[0] - previous.end_point[0] > 1:
                    parts.append(L.HARD)
            parts.append(self.statement_or_kept(node))
            previous = node
        return parts

    def statement_or_kept(self, node: Node) -> object:
        """A statement laid out, or kept as written where the printer does
        not know a construct of it that spans lines."""
        try:
            return self.statement(node)
        except L.Unsupported:
            self.kept = True
            if node.type == "public_field_definition":  # its `;` is the class body's
                return [as_written(self.data, node, self.style), self.semi()]
            return as_written(self.data, node, self.style)

    def block(self, node: Node) -> object:
        inner = [c for c in node.named_children]
        if not inner:
            return "{}"
        return ["{", L.Indent([L.HARD, self.statements(inner)]), L.HARD, "}"]

    def statement(self, node: Node) -> object:
        kind = node.type
        if kind == "comment":
            return self.comment(node)
        if kind in {"lexical_declaration", "variable_declaration"}:
            keyword = node.children[0].type
            declarators = [self.declarator(d) for d in node.named_children if d.type == "variable_declarator"]
            return [keyword, " ", L.join(", ", declarators), self.semi()]
        if kind == "expression_statement":
            expression = node.named_children[0]
            # without semicolons, a statement that starts so would continue the one before it
            guard = ";" if not self.style.semicolons and self.text(expression).startswith(_CONTINUES) else ""
            return [guard, self.expression(expression), self.semi()]
        if kind == "return_statement":
            if not node.named_children:
                return "return" + self.semi()
            return ["return ", self.expression(node.named_children[0]), self.semi()]
        if kind == "if_statement":
            return self.if_statement(node)
        if kind == "export_statement":
            declaration = node.child_by_field_name("declaration")
            if declaration is None:
                return self.verbatim(node)
            return ["export ", self.statement(declaration)]
        if kind == "function_declaration":
            return self.function(node)
        if kind == "import_statement":
            return self.import_statement(node)
        if kind == "try_statement":
            parts: list = ["try ", self.block(node.child_by_field_name("body"))]
            handler = node.child_by_field_name("handler")
            if handler is not None:
                param = handler.child_by_field_name("parameter")
                parts += [" catch ", f"({self.squashed(param)}) " if param is not None else "",
                          self.block(handler.child_by_field_name("body"))]
            finalizer = node.child_by_field_name("finalizer")
            if finalizer is not None:
                parts += [" finally ", self.block(finalizer.child_by_field_name("body"))]
            return parts
        if kind == "for_in_statement":
            body = node.child_by_field_name("body")
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            opening = " ".join(self.data[node.start_byte:left.start_byte].decode().split()).replace("( ", "(")
            opening += "" if opening.endswith("(") else " "
            operator = self._between(left, right)
            closing = self._between(right, body)
            if closing != ")" or "\n" in self.text(left):
                raise L.Unsupported("an unusual loop head")
            head = [opening, self.text(left), f" {operator} ", self.expression(right), ")"]
            if body.type == "statement_block":
                return [head, " ", self.block(body)]
            return L.group(*head, L.Indent([L.LINE, self.statement(body)]))
        if kind in {"public_field_definition", "type_alias_declaration"}:
            return [self.squashed(node).removesuffix(";"), self.semi()]
        if kind == "method_definition":
            body = node.child_by_field_name("body")
            if node.start_point[0] != body.start_point[0]:
                raise L.Unsupported("a method's head over several lines")
            params, returns = node.child_by_field_name("parameters"), node.child_by_field_name("return_type")
            head = self.data[node.start_byte:params.start_byte].decode()
            return [" ".join(head.split()), self.parameters(params), self.squashed(returns) if returns else "", " ",
                    self.block(body)]
        if kind == "class_declaration":
            body = node.child_by_field_name("body")
            if node.start_point[0] != body.start_point[0]:
                raise L.Unsupported("a class's head over several lines")
            members = body.named_children
            inside = [L.Indent([L.HARD, self.statements(members)]), L.HARD] if members else []
            head = self.data[node.start_byte:body.start_byte].decode()
            return [" ".join(head.split()), " {", *inside, "}"]
        # a statement the printer does not know, on one line: as written
        return L.restyle_line(self.verbatim(node), [], self.style)

    def function(self, node: Node) -> object:
        name = node.child_by_field_name("name")
        params = node.child_by_field_name("parameters")
        returns = node.child_by_field_name("return_type")
        head = self.data[node.start_byte:name.end_byte].decode()
        return [
            " ".join(head.split()),
            self.parameters(params),
            self.squashed(returns) if returns is not None else "",
            " ",
            self.block(node.child_by_field_name("body")),
        ]

    def import_statement(self, node: Node) -> object:
        source = node.child_by_field_name("source")
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        named = next((c for c in clause.named_children if c.type == "named_imports"), None) if clause else None
        if named is None:  # recipes import named bindings only
            return self.verbatim(node)
        head = self.data[node.start_byte:named.start_byte].decode()
        items = [self.squashed(spec) for spec in named.named_children]
        return [" ".join(head.split()) + " ", L.delimited("{", items, "}", self.style, pad=True), " from ",
                self.expression(source), self.semi()]

    def if_statement(self, node: Node) -> object:
        test = node.child_by_field_name("condition")
        inner = test.named_children[0] if test.type == "parenthesized_expression" else test
        consequence = node.child_by_field_name("consequence")
        head = ["if ", *L.condition(self.expression(inner, in_parens=True))]
        if consequence.type == "statement_block":
            parts = [*head, " ", self.block(consequence)]
        else:
            parts = [L.group(*head, L.Indent([L.LINE, self.statement(consequence)]))]
        alternative = node.child_by_field_name("alternative")
        if alternative is not None:
            branch = alternative.named_children[0]
            body = self.block(branch) if branch.type == "statement_block" else self.statement(branch)
            parts += [" " if consequence.type == "statement_block" else L.HARD, "else ", body]
        return parts

    # ---- declarations and assignments ----

    def declarator(self, node: Node) -> object:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        annotation = node.child_by_field_name("type")
        left = [self.expression(name)]
        if annotation is not None:
            left.append(self.squashed(annotation))
        if value is None:
            return left
        return L.assignment(left, "=", self.expression(value), layout=self.assignment_layout(name, value))

    def assignment_layout(self, left: Node, right: Node) -> str:
        if right.type in {"arrow_function", "function_expression", "class"}:
            return "chain"
        if right.type == "binary_expression" and self.operator(right) in _LOGICAL:
            return "break-after-operator"
        if right.type == "member_expression" or right.type == "string":
            return "break-after-operator"
        return "fluid"

    # ---- expressions ----

    def operator(self, node: Node) -> str:
        return self.text(node.child_by_field_name("operator"))

    def expression(self, node: Node, in_parens: bool = False) -> object:
        kind = node.type
        if kind == "string":
            return L.requote(self.text(node), self.style.quote)
        if kind in {"identifier", "this", "property_identifier", "number", "true", "false", "null", "undefined",
                    "shorthand_property_identifier", "shorthand_property_identifier_pattern", "super",
                    "private_property_identifier", "regex"}:
            return self.text(node)
        if kind == "template_string":
            return restyled(self.data, node, self.style)
        if kind == "member_expression":
            obj = node.child_by_field_name("object")
            prop = node.child_by_field_name("property")
            between = self._between(obj, prop)
            return [self.expression(obj), between, self.expression(prop)]
        if kind == "subscript_expression":
            obj, index = node.child_by_field_name("object"), node.child_by_field_name("index")
            opening = self._between(obj, index)  # `[` or `?.[`
            if index.type == "number":
                return [self.expression(obj), opening, self.text(index), "]"]
            return [self.expression(obj), L.group(opening, L.Indent([L.SOFT, self.expression(index)]), L.SOFT, "]")]
        if kind == "call_expression":
            chain = self.member_chain(node)
            return chain if chain is not None else self.call(node)
        if kind == "new_expression":
            ctor = node.child_by_field_name("constructor")
            types = node.child_by_field_name("type_arguments")
            args = node.child_by_field_name("arguments")
            return ["new ", self.expression(ctor), self.squashed(types) if types is not None else "",
                    self.arguments(args) if args is not None else ""]
        if kind == "arrow_function":
            return self.arrow(node)
        if kind == "object":
            return self.object(node)
        if kind == "object_pattern":
            items = [self.entry(c) for c in node.named_children]
            return L.delimited("{", items, "}", self.style, pad=True)
        if kind == "array":
            elements = node.named_children
            # Biome breaks a list of several objects or arrays that each have
            # more than one entry, one per line, whatever the width.
            matrix = len(elements) > 1 and all(
                e.type == elements[0].type and e.type in {"object", "array"} and len(e.named_children) > 1
                for e in elements
            )
            return L.delimited("[", [self.expression(c) for c in elements], "]", self.style, broken=matrix)
        if kind == "parenthesized_expression":
            # the parentheses' group: broken only where the whole does not fit
            return L.group("(", self.expression(node.named_children[0], in_parens=True), ")")
        if kind == "binary_expression":
            return self.binary(node, in_parens)
        if kind == "ternary_expression":
            return L.conditional(
                self.expression(node.child_by_field_name("condition")),
                self.expression(node.child_by_field_name("consequence")),
                self.expression(node.child_by_field_name("alternative")),
            )
        if kind == "unary_expression":
            op = self.operator(node)
            arg = self.expression(node.child_by_field_name("argument"))
            return [op, " " if op.isalpha() else "", arg]
        if kind == "await_expression":
            return ["await ", self.expression(node.named_children[0])]
        if kind == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            return L.assignment(self.expression(left), "=", self.expression(right),
                                layout=self.assignment_layout(left, right))
        if kind == "augmented_assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            return L.assignment(self.expression(left), self.operator(node), self.expression(right))
        if kind == "as_expression":
            expression, type_ = node.named_children[0], node.children[-1]
            return L.type_assertion(self.expression(expression), self.squashed(type_))
        if kind == "spread_element":
            return ["...", self.expression(node.named_children[0])]
        return self.verbatim(node)

    def binary(self, node: Node, in_parens: bool) -> object:
        op = self.operator(node)
        operands, operators = [], []

        def flatten(current: Node) -> None:
            if current.type == "binary_expression" and self.operator(current) == op:
                flatten(current.child_by_field_name("left"))
                operators.append(op)
                right = current.child_by_field_name("right")
                operands.append(self.expression(right))
            else:
                operands.append(self.expression(current))

        flatten(node)
        if op not in _LOGICAL:
            # `a === b`: one line (the operands break inside themselves).
            return L.join(f" {op} ", operands)
        return L.binary_chain(operands, operators, in_parens=in_parens)

    def member_chain(self, node: Node) -> object | None:
        """``a.b(x).c(y).d(z)``: with more than two calls after the head, on
        one line when it fits, else one ``.call()`` per line (Biome's member
        chain); shorter chains are printed as nested calls."""
        links: list[tuple[str, Node, Node | None]] = []  # (operator, property, arguments)
        current = node
        while True:
            if current.type == "call_expression":
                function = current.child_by_field_name("function")
                args = current.child_by_field_name("arguments")
                if function.type != "member_expression" or args is None or args.type != "arguments":
                    break
                prop = function.child_by_field_name("property")
                operator = self._between(function.child_by_field_name("object"), prop)
                links.append((operator, prop, args))
                current = function.child_by_field_name("object")
            elif current.type == "member_expression" and links:
                prop = current.child_by_field_name("property")
                operator = self._between(current.child_by_field_name("object"), prop)
                links.append((operator, prop, None))
                current = current.child_by_field_name("object")
            else:
                break
        if not links or any(self.text(p).startswith("#") for _, p, _ in links):
            return None
        links.reverse()  # head first
        head: list = [self.call(current) if current.type == "call_expression" else self.expression(current)]
        if current.type != "call_expression":
            # `this.a.b()`: member accesses before the first call stay with the head.
            while len(links) > 1 and links[0][2] is None:
                operator, prop, _ = links.pop(0)
                head.append(operator + self.text(prop))
        groups: list[list] = []
        ended = True
        for operator, prop, args in links:
            if ended:
                groups.append([])
            groups[-1].append(operator + self.text(prop))
            if args is not None:
                groups[-1].append(self.arguments(args))
            ended = args is not None
        if len(groups) <= 2:
            return None
        expanded = [head, L.Indent([[L.HARD, g] for g in groups])]
        return L.Group([head, groups], states=(expanded,))

    def test_call(self, node: Node) -> object | None:
        """``it("does x", () => { ... })``: a test call keeps its name and
        callback on the first line, however long (as Biome does)."""
        function = node.child_by_field_name("function")
        args = [a for a in node.child_by_field_name("arguments").named_children]
        name = self.text(function)
        if name.split(".")[0] not in {"describe", "it", "test"} or "(" in name:
            return None
        if len(args) != 2 or args[0].type not in {"string", "template_string"}:
            return None
        callback = args[1]
        params = callback.child_by_field_name("parameters")
        if callback.type not in {"arrow_function", "function_expression"} or (
            params is not None and len(params.named_children) > 1
        ):
            return None
        return [name, "(", self.expression(args[0]), ", ", self.expression(callback), ")"]

    def call(self, node: Node) -> object:
        function = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if args is None or args.type != "arguments":
            return self.verbatim(node)
        test = self.test_call(node)
        if test is not None:
            return test
        between = self._between(function, args)
        return [self.expression(function), between, self.arguments(args)]

    def arguments(self, node: Node) -> object:
        args = [c for c in node.named_children]
        if any(a.type == "comment" for a in args):
            raise L.Unsupported("a comment among arguments")
        last = args[-1] if args else None
        hug = last is not None and self.huggable(last) and not any(self.huggable(a) for a in args[:-1])
        printed = [self.expression(a) for a in args[:-1]]
        if hug and last.type == "arrow_function":
            # its body broken onto the next line, the call closes on a line of its own
            printed.append(self.arrow(last, tail=L.trailing_comma_text(self.style, "call")))
        elif last is not None:
            printed.append(self.expression(last))
        return L.call_arguments(printed, self.style, hug_last=hug)

    def huggable(self, node: Node) -> bool:
        if node.type in {"object", "array"}:
            return bool(node.named_children)
        if node.type in {"arrow_function", "function_expression"}:
            body = node.child_by_field_name("body")
            return body is not None and body.type in {
                "statement_block", "parenthesized_expression", "object", "call_expression", "ternary_expression",
                "array", "as_expression",
            }
        return False

    def arrow(self, node: Node, tail: str | None = None) -> object:
        """An arrow function; ``tail``: as the hugged last argument of a call,
        what follows an expression body broken onto its own line (the
        trailing comma), before the call closes on the next line."""
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        head: list = ["async "] if node.children and node.children[0].type == "async" else []
        if not self.style.arrow_parens and plain_parameter(node) is not None:
            head.append(self.text(plain_parameter(node)))
        elif params is not None and params.type == "formal_parameters":
            head.append(self.parameters(params))
        elif params is not None:
            head.append(self.text(params) if not self.style.arrow_parens else f"({self.text(params)})")
        returns = node.child_by_field_name("return_type")
        if returns is not None:
            head.append(self.squashed(returns))
        body = node.child_by_field_name("body")
        if body.type == "statement_block":
            return L.arrow_body(head, self.block(body), chain=True)
        if body.type == "parenthesized_expression" and body.named_children[0].type == "object":
            return L.arrow_body(head, ["(", self.object(body.named_children[0]), ")"], chain=True)
        if body.type == "ternary_expression":
            printed = self.expression(body)
            return [head, " =>", L.group(L.Indent([L.LINE, L.IfBreak("", "("), printed, L.IfBreak("", ")")]))]
        return L.arrow_body(head, self.expression(body), tail=tail)

    def parameters(self, node: Node) -> object:
        items = []
        for param in node.named_children:
            if param.type == "comment":
                raise L.Unsupported("a comment among parameters")
            pattern = param.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "object_pattern" and len(node.named_children) == 1:
                annotation = param.child_by_field_name("type")
                # The only parameter, destructured: it hugs the parentheses.
                return ["(", self.expression(pattern), self.squashed(annotation) if annotation else "", ")"]
            items.append(self.squashed(param))
        return L.delimited("(", items, ")", self.style, kind="call")

    def object(self, node: Node) -> object:
        entries = [c for c in node.named_children]
        items: list = []
        above: list = []  # comments on lines of their own, before the next entry
        for e in entries:
            if e.type != "comment":
                items.append([*above, self.entry(e)])
                above = []
            elif e is entries[-1] or (e.prev_named_sibling and e.prev_named_sibling.end_point[0] == e.start_point[0]):
                raise L.Unsupported("a comment after an entry of an object")
            else:
                above += [self.comment(e), L.HARD]
        # Biome keeps an object expanded when its first entry starts on a
        # new line in the source (here: in the snippet as written).
        expanded = bool(entries) and entries[0].start_point[0] != node.start_point[0]
        return L.delimited("{", items, "}", self.style, pad=True, broken=expanded)

    def entry(self, node: Node) -> object:
        if node.type in {"pair", "pair_pattern"}:
            key, value = node.child_by_field_name("key"), node.child_by_field_name("value")
            return [self.expression(key), ": ", self.expression(value)]
        if node.type == "method_definition":
            return self.statement(node)
        return self.expression(node)

    def comment(self, node: Node) -> object:
        """A comment on one line, as written (recipes insert no comment over
        several lines: the caller then keeps the snippet as written)."""
        text = self.text(node)
        if "\n" in text:
            raise L.Unsupported("a comment over several lines")
        return text

    # ---- text kept as written ----

    def squashed(self, node: Node) -> str:
        """A node's text on one line (a type, a parameter), restyled."""
        if node.start_point[0] != node.end_point[0]:
            raise L.Unsupported(f"{node.type} over several lines")
        return restyled(self.data, node, self.style)

    def verbatim(self, node: Node) -> str:
        return self.squashed(node)


def snippet_doc(body: str, style: Style, *, tsx: bool = False, kind: str = "statements") -> tuple[object, bool]:
    """The layout document of a snippet (statements, or class members), and
    whether a statement of it is kept as written."""
    prefix = "class __Snippet {\n" if kind == "members" else ""
    suffix = "\n}" if kind == "members" else ""
    data = (prefix + body + suffix).encode()
    tree = parse(data, TSX if tsx else TYPESCRIPT)
    if tree.root_node.has_error:
        raise L.Unsupported("the snippet does not parse on its own")
    printer = _Printer(data, style)
    nodes = tree.root_node.named_children
    if kind == "members":
        nodes = nodes[0].child_by_field_name("body").named_children
    return printer.statements(nodes), printer.kept


class SnippetLayout(NamedTuple):
    """A snippet laid out for its place: the text to insert (first line not
    indented, lines ended by the style's ``eol``) and whether the printer
    laid it out all (else a statement of it, or all of it, is kept as
    written)."""

    text: str
    laid_out: bool


def layout_snippet(snippet: str, indent: str, style: Style, *, tsx: bool = False,
                   kind: str = "statements") -> SnippetLayout:
    """Statements (``kind="statements"``) or class members
    (``kind="members"``) laid out at ``indent``; the first line is not
    indented. Falls back to re-indenting the text as written."""
    body = L.dedent(snippet).strip("\n")
    try:
        doc, kept = snippet_doc(body, style, tsx=tsx, kind=kind)
    except L.Unsupported:
        return SnippetLayout(L.reindent(snippet, indent, style), False)
    return SnippetLayout(L.print_doc(doc, style, indent), not kept)


def render_file(template: str, style: Style, written_in: Style = Style()) -> str:
    """A new file from a template written in the ``written_in`` style, for
    ``style``. Each top-level statement is laid out by the printer when the
    printer gives back exactly the template's text in the template's own
    style (so the template stays the truth where the printer knows less;
    a statement it does not know is kept as written, restyled, inside a
    statement it lays out); any other statement is kept as written,
    re-indented and re-quoted."""
    if style == written_in:
        return template  # templates are written clean in their own style (tested)
    data = template.encode()
    tree = parse(data, TYPESCRIPT)
    if tree.root_node.has_error:
        return L.restyle_text(template, style)
    out: list[str] = []
    cursor = 0
    for node in tree.root_node.named_children:
        gap = data[cursor:node.start_byte].decode()
        out.append(style.eol * gap.count("\n") if gap.strip() == "" else L.restyle_text(gap, style))
        text = data[node.start_byte:node.end_byte].decode()
        out.append(_statement_for(data, node, text, style, written_in))
        cursor = node.end_byte
    tail = data[cursor:].decode()
    out.append(style.eol * tail.count("\n") if tail.strip() == "" else L.restyle_text(tail, style))
    return "".join(out)


def _statement_for(data: bytes, node: Node, text: str, style: Style, written_in: Style) -> str:
    if node.type != "comment":
        try:
            if L.print_doc(_Printer(data, written_in).statement_or_kept(node), written_in) == text:
                return L.print_doc(_Printer(data, style).statement_or_kept(node), style)
        except L.Unsupported:
            pass
    return L.restyle_text(text, style)
