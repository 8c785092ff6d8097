"""What the SDK recipes share: the names of the new notification, beside
those of the size-changed notification they mirror, and the house style of
the revision's doc comments."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from typing import NamedTuple
from ..names import NAMES, Names, fill

if TYPE_CHECKING:
    from tree_sitter import Node

    from ..base import Context

    from ...engine.editor import FileEditor

SIZE = "McpUiSizeChangedNotification"
SIZE_SCHEMA = f"{SIZE}Schema"
SIZE_METHOD_CONST = "SIZE_CHANGED_METHOD"
SIZE_METHOD = "ui/notifications/size-changed"
HOST_CONTEXT = "McpUiHostContext"
HOST_CAPABILITIES = "McpUiHostCapabilities"
SIZE_EVENT = "sizechange"
SIZE_ACCESSOR = "onsizechange"
SIZE_SENDER = "sendSizeChanged"
MAX_LENGTH = "maxLength"


class Words:
    """The new notification's names (a run's table, `Context.names`) beside
    those of the size-changed notification they mirror: copying a
    size-changed construct and renaming its words gives its twin."""

    def __init__(self, names: Names) -> None:
        self.names = names
        self.state = names.notification_type
        self.state_schema = names.schema
        self.method = names.method
        self.method_const = names.method_constant
        self.field = names.context_field
        self.capability = names.capability
        self.event = names.event
        self.accessor = names.accessor
        self.sender = names.sender
        self.renames: tuple[tuple[str, str], ...] = (
            (SIZE, self.state),
            (SIZE_SCHEMA, self.state_schema),
            (f"{SIZE}SchemaInferredType", f"{self.state}SchemaInferredType"),
            (SIZE_METHOD_CONST, self.method_const),
            (SIZE_ACCESSOR, self.accessor),
            (SIZE_EVENT, self.event),
            (SIZE_SENDER, self.sender),
        )

    def rename(self, text: str) -> str:
        """A size-changed construct's text as its twin (the method string
        is renamed inside its quotes)."""
        return renamed(text, self.renames).replace(SIZE_METHOD, self.method)

    def twin(self, name: str) -> str:
        """The size-changed name that ``name`` (one of the new names, or a
        name that starts with the notification's type) mirrors."""
        for size, state in self.renames:
            if name == state:
                return size
        if name.startswith(self.state):
            return SIZE + name[len(self.state):]
        return name

    def fill(self, template: str, **more: str) -> str:
        """``template``'s holes filled from the names (`recipes.names.fill`)."""
        return fill(template, self.names, **more)


@lru_cache(maxsize=8)
def words(names: Names = NAMES) -> Words:
    return Words(names)


def words_of(ctx: "Context | None") -> Words:
    """The run's words (its names table); a step planned outside a run
    (another step's file, derived) takes the table's defaults."""
    return words(ctx.names if ctx is not None else NAMES)


_FRAGMENTS = Path(__file__).resolve().parent / "fragments"


@lru_cache(maxsize=None)
def fragment(name: str) -> str:
    """A fragment of inserted text (fragments/, package data), its holes
    open: fill them with :meth:`Words.fill`."""
    return (_FRAGMENTS / name).read_text(encoding="utf-8")


def read_text(path: Path) -> str:
    """The file's text, or "" when the revision has no such file."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def renamed(text: str, renames: Sequence[tuple[str, str]]) -> str:
    """``text`` with each whole word of ``renames`` replaced, in one pass
    (so a replacement is never renamed again)."""
    table = dict(renames)
    pattern = re.compile(
        r"(?<![\w$])(" + "|".join(re.escape(old) for old in sorted(table, key=len, reverse=True)) + r")(?![\w$])"
    )
    return pattern.sub(lambda m: table[m.group(1)], text)




def indented(lines: Iterable[str], indent: str) -> str:
    """Lines joined for :meth:`~codemods.engine.editor.FileEditor.insert_after`:
    the first bare, the rest at ``indent``."""
    return "\n".join(line if index == 0 or not line else indent + line for index, line in enumerate(lines))


def insert_documented(editor: FileEditor, twin: Node, after: Node, doc: list[str], code: str) -> None:
    """``code`` under a ``/** ... */`` block of the ``doc`` lines (wrapped to
    the line width), inserted after ``after``, both at the indent of
    ``twin``: the member that the new one mirrors."""
    indent = editor.source.indent_of(twin)
    lines = jsdoc(doc, indent, width=editor.style.line_width)
    editor.insert_after(after, indented(lines, indent) + "\n" + indent + code)


class DocStyle(NamedTuple):
    """How a revision writes its doc comments, read from the size-changed
    doc comment that the new one sits beside."""

    # "Guest UI" in early revisions, "view" later.
    party: str
    # `{@link X `X`}` (later revisions) or `{@link X}`.
    labelled_links: bool
    # the opening of a code example: "```ts" or "```typescript"
    fence: str
    # the twin's `@deprecated` paragraph, renamed ("" when it has none): later
    # revisions deprecate every on* accessor in favour of addEventListener
    deprecated: str

    @classmethod
    def of(cls, doc: str, w: Words) -> "DocStyle":
        party = "Guest UI" if "Guest UI" in doc else "view"
        fence = "```ts" if re.search(r"^\s*\*\s*```ts\b", doc, re.MULTILINE) else "```typescript"
        return cls(party, "`}" in doc, fence, w.rename(tag_paragraph(doc, "@deprecated")))

    def link(self, target: str, label: str | None = None) -> str:
        if not self.labelled_links:
            return f"{{@link {target}}}"
        return f"{{@link {target} `{label or target.split('!')[-1]}`}}"

    @property
    def Party(self) -> str:
        return self.party[0].upper() + self.party[1:]


def jsdoc(lines: list[str], indent: str = "", *, width: int) -> list[str]:
    """A ``/** ... */`` block from its content lines, prose lines wrapped to
    fit the line ``width`` at ``indent`` (code examples and tags are kept
    whole, as the SDK's own comments keep them)."""
    import textwrap

    width = width - len(indent) - len(" * ")
    out, in_code = [], False
    for line in lines:
        if line.startswith("```"):
            in_code = not in_code
        if in_code or line.startswith("```") or line.startswith("@") or len(line) <= width:
            out.append(line)
        else:
            # a link or a code span is never split across lines
            kept = re.sub(r"\{@link [^}]*\}|`[^`]*`", lambda m: m.group(0).replace(" ", "\0"), line)
            wrapped = textwrap.wrap(kept, width, break_long_words=False, break_on_hyphens=False)
            out.extend(part.replace("\0", " ") for part in wrapped)
    return ["/**", *[f" * {line}".rstrip() for line in out], " */"]


def tag_paragraph(doc: str, tag: str) -> str:
    """The text of a doc comment's ``tag`` block, its wrapped lines joined:
    up to a blank line, the next tag or the end of the comment."""
    found: list[str] = []
    for line in doc.splitlines():
        content = line.strip().removeprefix("/**").removesuffix("*/").strip().lstrip("*").strip()
        if found and (not content or content.startswith("@")):
            break
        if found or content.startswith(tag):
            found.append(content)
    return " ".join(found)


# ----------------------------------------------------------------------
# Doc examples kept in `.examples.ts` companion files
# ----------------------------------------------------------------------

_SOURCE = re.compile(r'```(?:ts|typescript)\s+source="\./([\w.-]+\.examples\.ts)#(\w+)"')


def companion(doc: str) -> tuple[str, str] | None:
    """The companion file and region an `@example` of ``doc`` is synced
    from (`source="./app.examples.ts#Region"`), or None."""
    match = _SOURCE.search(doc)
    return (match.group(1), match.group(2)) if match else None


def region_name(twin: str, member: str, purpose: str, camel: str) -> str:
    """A region name in the style of the twin's: `Class_member_purpose`
    where the twin's is so named, else a camelCase name."""
    parts = twin.split("_")
    if len(parts) >= 3:
        return f"{parts[0]}_{member}_{purpose}"
    return camel
