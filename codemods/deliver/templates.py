"""A repository's pull-request template, filled (mesh's and the SDK's
alike): each section the tool knows gets this change's text in place of
the template's placeholder, checkboxes are ticked only where true, and a
section the tool does not know is kept as it is."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_BOX = re.compile(r"^(\s*[-*] )\[[ xX]\] (.*)$")


def fill(
    template: str,
    content: dict[str, list[str]],
    key_of: Callable[[str], str | None],
    ticked: Callable[[str], bool],
    boxes: Collection[str],
) -> list[str]:
    """The template's lines with ``content`` (by section key, ``key_of`` a
    heading's text) in place of each known section's placeholder (its
    comments, sample text, quotes); in the sections named in ``boxes``,
    each checkbox ticked exactly when ``ticked(label)``. No trailing blank
    line."""
    out: list[str] = []
    key: str | None = None
    for line in template.splitlines():
        heading = _HEADING.match(line)
        if heading:
            key = key_of(heading.group(1))
            while out and out[-1] == "":
                out.pop()
            out += ([""] if out else []) + [line, ""]
            if content.get(key) is not None:
                out += content[key]
            continue
        if content.get(key) is not None:
            continue  # the placeholder, replaced above
        stripped = line.strip()
        if stripped.startswith("<!--") and stripped.endswith("-->"):
            continue
        box = _BOX.match(line)
        if box and key in boxes:
            out.append(f"{box.group(1)}[{'x' if ticked(box.group(2)) else ' '}] {box.group(2)}")
        elif stripped or (out and out[-1] != ""):
            out.append(line)
    while out and out[-1] == "":
        out.pop()
    return out


def code(text: str) -> str:
    """``text`` (a path, a name: the base chooses them) as a Markdown code
    span that nothing in it can end early: no link, image, HTML, emphasis
    or mention renders from it. Line breaks and other control characters
    show as U+FFFD. In a table cell, escape its ``|`` too."""
    text = "".join(ch if ch.isprintable() else "\ufffd" for ch in text)
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text[:1] in ("`", " ") or text[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def block(lines: list[str]) -> list[str]:
    """``lines`` (sentences that may hold paths and names) as a fenced
    Markdown code block that nothing in them can close: they render as
    they are."""
    text = "\n".join("".join(ch if ch.isprintable() else "\ufffd" for ch in line) for line in lines)
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return [f"{fence}text", text, fence]


def plain(text: str) -> str:
    """``text`` (a sentence that may hold paths and names) as Markdown
    that renders as that text: every ASCII punctuation mark escaped, so
    nothing in it is a link, an image, HTML, a code span or emphasis."""
    text = "".join(ch if ch.isprintable() else "\ufffd" for ch in text)
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)
