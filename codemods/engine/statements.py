"""Statements as data: what a step ensures (a snippet, known by the name it
declares or by its role), the earlier forms that become it, and what an
ensure operation reports."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from textwrap import dedent
from typing import NamedTuple
from .equivalence import Group, canonical_tree, compile_pattern
from .parsing import TSX, TYPESCRIPT, parse


_DECLARED = re.compile(r"^\s*(?:export\s+)?(?:const|let|var|function|class)\s+([A-Za-z_$][\w$]*)")


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


@lru_cache(maxsize=4096)
def code_of(snippet: str) -> str:
    body = dedent(snippet).strip("\n")
    return "\n".join(line for line in body.split("\n") if not line.lstrip().startswith("//"))


# The roles given so far, each with its snippet's code and names, whose
# match against that code :func:`check_roles` has yet to prove. Every role
# is the recipes' own static data (the SDK handler's variants too: they are
# built from fixed name lists), so proving them is a self-check that the
# tests run over every recipe (tests/test_layout.py), not each run.
_UNCHECKED_ROLES: dict[tuple[str, str, frozenset[str]], None] = {}


@lru_cache(maxsize=None)
def _identity(snippet: str, role: str, names: frozenset[str]) -> tuple[str, str]:
    """(name, role) of a snippet: the name it declares, or else the role,
    which must match its own code (see :func:`check_roles`)."""
    code = code_of(snippet)
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


