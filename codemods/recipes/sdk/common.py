"""What the SDK recipes share: the names of the new notification, beside
those of the size-changed notification they mirror, and the house style of
the revision's doc comments."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from typing import NamedTuple
from ..names import NAMES

if TYPE_CHECKING:
    from tree_sitter import Node

    from ...engine.editor import FileEditor

SIZE = "McpUiSizeChangedNotification"
STATE = NAMES.notification_type
SIZE_SCHEMA = f"{SIZE}Schema"
STATE_SCHEMA = f"{STATE}Schema"
SIZE_METHOD_CONST = "SIZE_CHANGED_METHOD"
STATE_METHOD_CONST = NAMES.method_constant
SIZE_METHOD = "ui/notifications/size-changed"
STATE_METHOD = NAMES.method
HOST_CONTEXT = "McpUiHostContext"
HOST_CAPABILITIES = "McpUiHostCapabilities"
APP_STATE = NAMES.context_field
CAPABILITY = NAMES.capability
SIZE_EVENT = "sizechange"
STATE_EVENT = NAMES.event
SIZE_ACCESSOR = "onsizechange"
STATE_ACCESSOR = NAMES.accessor
SIZE_SENDER = "sendSizeChanged"
STATE_SENDER = NAMES.sender

# Copying a size-changed construct and renaming these words gives its
# state-changed twin (the method string is renamed inside its quotes).
RENAMES: tuple[tuple[str, str], ...] = (
    (SIZE, STATE),
    (SIZE_SCHEMA, STATE_SCHEMA),
    (f"{SIZE}SchemaInferredType", f"{STATE}SchemaInferredType"),
    (SIZE_METHOD_CONST, STATE_METHOD_CONST),
    (SIZE_ACCESSOR, STATE_ACCESSOR),
    (SIZE_EVENT, STATE_EVENT),
    (SIZE_SENDER, STATE_SENDER),
)


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


def rename(text: str) -> str:
    """A size-changed construct's text as its state-changed twin."""
    return renamed(text, RENAMES).replace(SIZE_METHOD, STATE_METHOD)


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


# The @description texts: ts-to-zod turns each member's into `.describe()`.
STATE_DESCRIPTION = (
    "The view's navigation state: a JSON object, array, string, number or boolean it can show its place"
    " from, or null for its initial view. Required: a notification without it is rejected."
)
# `state`'s type: what JSON can hold, `null` included, never `undefined`, so
# that ts-to-zod's schema rejects `params: {}` (`unknown` would accept it).
# `unknown[]` beside `object` because ts-to-zod makes `object` a record,
# which zod checks to be a plain object (an array is not).
STATE_TYPE = "object | unknown[] | string | number | boolean | null"
MAX_LENGTH = "maxLength"
MAX_LENGTH_DESCRIPTION = "Largest state the host keeps, in bytes of its JSON text."
APP_STATE_DESCRIPTION = (
    f"A navigation state for the view to restore, from its own {STATE_METHOD} or from a link."
    " Validate it before use."
)
CAPABILITY_DESCRIPTION = f"Host keeps view state ({STATE_METHOD}) and hands it back in hostContext.{APP_STATE}."


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
    def of(cls, doc: str) -> "DocStyle":
        party = "Guest UI" if "Guest UI" in doc else "view"
        fence = "```ts" if re.search(r"^\s*\*\s*```ts\b", doc, re.MULTILINE) else "```typescript"
        return cls(party, "`}" in doc, fence, rename(tag_paragraph(doc, "@deprecated")))

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
