"""Layout: how code is laid out for a :class:`~.style.Style`, as Biome does.

Pure functions, no I/O and nothing about any one target. Code is turned
into a document of groups, indents and possible line breaks (the algebra
that Prettier, and Biome after it, print with), and one rule prints every
group: *fit it on the line, else break it*. A snippet, a list, a condition,
an arrow body, a type assertion, a destructuring, a call and a JSX
attribute list are all laid out by that one rule.

Snippets are written as ordinary TypeScript beside the recipe step that
inserts them; :func:`.snippet_printer.layout_snippet` parses them and lays
them out for the depth and style of the place they go. A construct the printer does not know
is kept as written (re-indented), never guessed at.
"""

from __future__ import annotations

import itertools
import re
from textwrap import dedent

from .style import Style

# ----------------------------------------------------------------------
# The document algebra
# ----------------------------------------------------------------------


# The nodes are plain slotted classes: documents are built and printed by
# the thousand, never compared or unpacked.


class Group:
    """Printed on one line if it fits, else with its lines broken; a
    conditional group tries ``states`` in order before breaking fully."""

    __slots__ = ("contents", "broken", "id", "states")

    def __init__(self, contents: object, broken: bool = False, id: str = "", states: tuple = ()) -> None:
        self.contents = contents
        self.broken = broken  # already broken (a hard line inside, or kept expanded)
        self.id = id
        self.states = states  # conditional group: the layouts to try, in order


class Indent:
    """Lines broken inside it start one indent level deeper."""

    __slots__ = ("contents",)

    def __init__(self, contents: object) -> None:
        self.contents = contents


class Align:
    """Lines broken inside it start ``n`` columns further in (a ternary's
    branch, under its ``? ``): spaces, or, where tabs indent and an indent
    follows it, one tab (as Prettier counts it)."""

    __slots__ = ("contents", "n")

    def __init__(self, n: int, contents: object) -> None:
        self.n = n
        self.contents = contents


# An Align's columns in an indent, until the indent is written out.
_ALIGNED = "\x01"


class Line:
    """A possible line break: a space (nothing if ``soft``) when its group is
    flat, a new line when broken; ``hard`` always breaks."""

    __slots__ = ("soft", "hard")

    def __init__(self, soft: bool = False, hard: bool = False) -> None:
        self.soft = soft  # "" when flat (else " ")
        self.hard = hard


class IfBreak:
    """``broken`` or ``flat`` depending on how a group was printed (a
    trailing comma, say)."""

    __slots__ = ("broken", "flat", "group")

    def __init__(self, broken: object, flat: object = "", group: str = "") -> None:
        self.broken = broken
        self.flat = flat
        self.group = group  # the group whose mode decides; "" for the enclosing one


class IndentIfBreak:
    """Indented only when the group named ``group`` broke."""

    __slots__ = ("contents", "group")

    def __init__(self, contents: object, group: str) -> None:
        self.contents = contents
        self.group = group


LINE, SOFT, HARD = Line(), Line(soft=True), Line(hard=True)
_GROUP_IDS = itertools.count()


def group(*parts, broken: bool = False, id: str = "") -> Group:
    contents = list(parts)
    return Group(contents, broken or _has_hard(contents), id)


def _has_hard(doc) -> bool:
    """Whether ``doc`` holds a hard line break (a broken group counts)."""
    stack = [doc]
    while stack:
        d = stack.pop()
        kind = type(d)
        if kind is list:
            stack.extend(d)
        elif kind is Line:
            if d.hard:
                return True
        elif kind is Group:
            if d.broken:
                return True
        elif kind is Indent or kind is IndentIfBreak or kind is Align:
            stack.append(d.contents)
    return False


def join(separator, docs) -> list:
    out: list = []
    for i, doc in enumerate(docs):
        if i:
            out.append(separator)
        out.append(doc)
    return out


_FLAT, _BREAK = 0, 1


def print_doc(doc, style: Style, indent: str = "") -> str:
    """The document printed at ``indent``, its first line starting right
    after the indent, its lines ended by ``style.eol``."""
    width = style.line_width
    width_of = style.width_of
    out: list[str] = []
    pos = width_of(indent)
    modes: dict[str, int] = {}
    # After a forced line break, groups printed flat are measured again.
    remeasure = False
    stack: list[tuple[str, int, object]] = [(indent, _BREAK, doc)]
    while stack:
        ind, mode, d = stack.pop()
        kind = type(d)
        if kind is str:
            out.append(d)
            pos += width_of(d) if "\t" in d else len(d)
        elif kind is list:
            stack.extend((ind, mode, part) for part in reversed(d))
        elif kind is Line:
            if mode == _FLAT and not d.hard:
                text = "" if d.soft else " "
                out.append(text)
                pos += len(text)
            else:
                shown = ind.replace(_ALIGNED, " ") if _ALIGNED in ind else ind
                out.append("\n" + shown)
                pos = width_of(shown)
                remeasure = remeasure or mode == _FLAT
        elif kind is Group:
            if mode == _FLAT and not d.broken and not remeasure:
                stack.append((ind, _FLAT, d.contents))
                if d.id:
                    modes[d.id] = _FLAT
                continue
            remeasure = False
            chosen_mode, contents = _BREAK, d.contents
            if not d.broken and _fits((ind, _FLAT, d.contents), stack, width - pos, width_of, modes):
                chosen_mode = _FLAT
            elif d.states:
                # Conditional group: the first state whose first line fits.
                for state in d.states[:-1]:
                    if _fits((ind, _FLAT, state), stack, width - pos, width_of, modes):
                        chosen_mode, contents = _FLAT, state
                        break
                else:
                    contents = d.states[-1]
            if d.id:
                modes[d.id] = chosen_mode
            stack.append((ind, chosen_mode, contents))
        elif kind is Indent:
            stack.append((_indented(ind, style), mode, d.contents))
        elif kind is IndentIfBreak:
            inner = _indented(ind, style) if modes.get(d.group, mode) == _BREAK else ind
            stack.append((inner, mode, d.contents))
        elif kind is Align:
            stack.append((ind + _ALIGNED * d.n, mode, d.contents))
        elif kind is IfBreak:
            stack.append((ind, mode, _if_break(d, mode, modes)))
        else:
            raise TypeError(f"not a layout document: {d!r}")
    lines = "".join(out).split("\n")
    # no spaces at the end of a line (a break after an empty indent, say)
    return style.eol.join([line.rstrip(" \t") for line in lines[:-1]] + lines[-1:])


def _indented(ind: str, style: Style) -> str:
    """``ind`` one level deeper; with tabs, each alignment before the new
    level becomes a tab."""
    if _ALIGNED in ind and style.indent == "\t":
        ind = re.sub(_ALIGNED + "+", "\t", ind)
    return ind + style.indent


def _fits(next_cmd, rest, room: int, width_of, modes: dict) -> bool:
    """Whether the text up to the next line break fits in ``room`` columns."""
    cmds = [next_cmd]
    rest_index = len(rest)
    while room >= 0:
        if not cmds:
            if rest_index == 0:
                return True
            cmds.append(rest[rest_index - 1])
            rest_index -= 1
            continue
        ind, mode, d = cmds.pop()
        kind = type(d)
        if kind is str:
            room -= width_of(d) if "\t" in d else len(d)
        elif kind is list:
            cmds.extend((ind, mode, part) for part in reversed(d))
        elif kind is Line:
            if mode == _BREAK or d.hard:
                return True
            room -= 0 if d.soft else 1
        elif kind is Group:
            group_mode = _BREAK if d.broken else mode
            contents = d.states[-1] if d.states and group_mode == _BREAK else d.contents
            cmds.append((ind, group_mode, contents))
        elif kind is Indent or kind is IndentIfBreak or kind is Align:
            cmds.append((ind, mode, d.contents))
        elif kind is IfBreak:
            cmds.append((ind, mode, _if_break(d, mode, modes)))
        else:
            raise TypeError(f"not a layout document: {d!r}")
    return False


def _if_break(d: IfBreak, mode: int, modes: dict) -> object:
    """What an IfBreak prints: its group's mode decides (the enclosing
    group's, ``mode``, when it names none)."""
    chosen = modes.get(d.group, mode) if d.group else mode
    return d.broken if chosen == _BREAK else d.flat


def fits(line: str, style: Style) -> bool:
    """The "fit" half of the rule for a line already written out: whether
    Biome would leave it on one line (its printed width within the line
    width; a trailing comment is not counted, see SourceFile.code_line)."""
    return style.width_of(line) <= style.line_width


# ----------------------------------------------------------------------
# Building blocks: one function per construct, all printed by one rule
# ----------------------------------------------------------------------


def trailing_comma_text(style: Style, kind: str = "list") -> str:
    """The comma Biome adds after the last item of a broken list: ``kind``
    "call" (arguments, parameters) only with trailingCommas "all"."""
    if style.trailing_commas == "none" or (kind == "call" and style.trailing_commas == "es5"):
        return ""
    return ","


def trailing_comma(style: Style, kind: str = "list") -> IfBreak:
    """:func:`trailing_comma_text` where the list breaks."""
    return IfBreak(trailing_comma_text(style, kind), "")


def delimited(open_: str, items: list, close: str, style: Style, *, pad: bool = False,
              kind: str = "list", broken: bool = False) -> Group:
    """A comma-separated list: on one line if it fits, else one item per line;
    ``pad``: braces, with a space inside them where the style has one."""
    if not items:
        return group(open_, close)
    space = LINE if pad and style.bracket_spacing else SOFT
    return group(
        open_, Indent([space, join([",", LINE], items)]), trailing_comma(style, kind), space, close,
        broken=broken,
    )


# Prints nothing, and breaks every group around it.
_BREAK_PARENT = Group([], True)


def call_arguments(args: list, style: Style, *, hug_last: bool = False) -> Group | list:
    """``(a, b)``; with ``hug_last`` the last argument (an object or a
    function) may open on the line of the call and break inside itself."""
    if not args:
        return group("()")
    all_broken = ["(", Indent([SOFT, join([",", LINE], args)]), trailing_comma(style, "call"), SOFT, ")"]
    if not hug_last:
        return group(*all_broken)
    flat = ["(", join([", "], args), ")"]
    hugged = ["(", join([", "], args[:-1] + [_force_break(args[-1])]), ")"]
    call = Group(flat, _has_hard(args[:-1]), states=(hugged, all_broken))
    # a hugged argument that breaks inside breaks what holds the call
    # (Prettier's breakParent): `=> f(() => {` goes to the next line
    return [_BREAK_PARENT, call] if _has_hard(args[-1]) else call


def _force_break(doc):
    if isinstance(doc, Group):
        return Group(doc.contents, True, doc.id, doc.states)
    if isinstance(doc, list) and doc:
        # The last group of a function: its body.
        for i in range(len(doc) - 1, -1, -1):
            if isinstance(doc[i], Group):
                return doc[:i] + [_force_break(doc[i])] + doc[i + 1:]
    return doc


def condition(test) -> list:
    """The parenthesised test of an ``if``: broken, it goes on its own lines."""
    return [group("(", Indent([SOFT, test]), SOFT, ")")]


def binary_chain(operands: list, operators: list, *, in_parens: bool = False) -> object:
    """``a && b && c``: on one line, else one operand per line, the
    operator at the end of each line. Inside parentheses (an ``if`` test)
    the parentheses' group breaks it; elsewhere the continuation lines are
    indented."""
    parts: list = [operands[0]]
    for op, operand in zip(operators, operands[1:]):
        parts += [" ", op, LINE, operand]
    if in_parens:
        return parts
    return group(parts[0], Indent(parts[1:]))


def conditional(test, consequent, alternate) -> Group:
    """``test ? a : b``; broken, each branch on its own indented line, what
    breaks inside a branch aligned under it."""
    return group(test, Indent([LINE, "? ", Align(2, consequent), LINE, ": ", Align(2, alternate)]))


def arrow_body(head, body, *, chain: bool = False, tail: str | None = None) -> list:
    """``head => body``: a block or an object stays on the line; another
    expression moves to the next line, indented, when it does not fit.
    ``tail``: the function is a call's hugged last argument, which then
    closes on a line of its own after ``tail`` (its trailing comma)."""
    if chain:
        return [head, " => ", body]
    if tail is not None:
        return [head, " =>", group(Indent([LINE, body]), IfBreak(tail, ""), SOFT)]
    return [head, " =>", group(Indent([LINE, body]))]


def assignment(left, operator: str, right, *, layout: str = "fluid") -> list:
    """``left = right`` as Biome lays out a declaration or an assignment:
    ``fluid`` breaks after the operator only when the right side cannot
    start on the line; ``break-after-operator`` moves it down as a whole;
    ``chain`` keeps it on the line (a function, say)."""
    if layout == "chain":
        return [group(left), " ", operator, " ", right]
    if layout == "break-after-operator":
        return [group(left), " ", operator, group(Indent([LINE, right]))]
    key = f"assign{next(_GROUP_IDS)}"
    return [group(left), " ", operator, Group([Indent([LINE])], id=key), IndentIfBreak(group(right), key)]


def type_assertion(expression, type_) -> list:
    """``expression as Type``."""
    return [expression, " as ", type_]


def jsx_attributes(head: str, attributes: list[str], close: str, *, broken: bool = False) -> Group:
    """``<Tag a b />``: on one line, else one attribute per line (``broken``:
    one per line whether or not it fits)."""
    return group(
        head, Indent([LINE, join(LINE, attributes)]) if attributes else "", SOFT if close == ">" else LINE, close,
        broken=broken,
    )


# ----------------------------------------------------------------------
# Snippets: TypeScript text laid out through the building blocks
# ----------------------------------------------------------------------


class Unsupported(Exception):
    """A construct the printer does not lay out; the caller keeps the text."""


def requote(text: str, quote: str) -> str:
    """A string literal in the preferred quote, unless that needs more escapes
    (Biome's rule)."""
    if len(text) < 2 or text[0] not in "'\"" or text[-1] != text[0]:
        return text
    inner = text[1:-1]
    other = "'" if quote == '"' else '"'
    unescaped = inner.replace("\\" + text[0], text[0])
    if unescaped.count(quote) > unescaped.count(other):
        quote, other = other, quote
    if text[0] == quote:
        return text
    return quote + unescaped.replace(quote, "\\" + quote) + quote


# Snippets and templates are written with two spaces per indent level.
WRITTEN_STEP = 2


def reindent(text: str, indent: str, style: Style) -> str:
    """A block of text written with two spaces per level, re-indented to
    ``indent`` plus ``style.indent`` per level (first line not indented),
    its lines ended by ``style.eol``."""
    body = dedent(text).strip("\n")
    lines = []
    for line in body.split("\n"):
        stripped = line.lstrip(" ")
        if not stripped:
            lines.append("")
            continue
        depth, extra = divmod(len(line) - len(stripped), WRITTEN_STEP)
        lines.append(indent + style.indent * depth + " " * extra + stripped)
    return style.eol.join(lines)[len(indent):]


_STRING = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")


def requote_all(code: str, quote: str) -> str:
    """Every string literal of one line of code in the preferred quote."""
    return _STRING.sub(lambda m: requote(m.group(0), quote), code)


def restyle_text(text: str, style: Style) -> str:
    """A whole file written in mesh's style (two spaces per level, double
    quotes, semicolons, trailing commas) in ``style``'s indent, quotes,
    semicolons, trailing commas and line endings. Line breaks stay where
    they are: a new file's layout is decided by its template."""
    lines = text.split("\n")
    out = []
    for index, line in enumerate(lines):
        stripped = line.lstrip(" ")
        if not stripped:
            out.append("")
            continue
        depth, extra = divmod(len(line) - len(stripped), WRITTEN_STEP)
        code = stripped
        if not code.startswith(("//", "*", "/*")):
            code = restyle_line(requote_all(code, style.quote), lines[index + 1:], style)
        out.append(style.indent * depth + " " * extra + code)
    return style.eol.join(out)


def restyle_line(code: str, following: list[str], style: Style) -> str:
    """A line of code, written with semicolons and trailing commas, without
    the semicolon that ends it or the comma before a closing bracket on the
    next line where the style has none (``following``: the lines after it;
    with "es5", none before the parenthesis that closes arguments or
    parameters). A comment after it stays (one without quotes: a `//` in
    a string is not one)."""
    comment = _TRAILING_COMMENT.search(code)
    tail = comment.group(0) if comment else ""
    code = code[:len(code) - len(tail)]
    if not style.semicolons and code.endswith(";"):
        code = code[:-1]
    if style.trailing_commas != "all" and code.endswith(","):
        closing = next((l for l in following if l.strip()), "").lstrip()[:1]
        if closing == ")" or (closing in ("]", "}") and style.trailing_commas == "none"):
            code = code[:-1]
    return code + tail


_TRAILING_COMMENT = re.compile(r"(?<=[;,]) +//[^\"'`]*$")
