"""`NamedTuple`, as typing's class syntax makes it, less the cost of typing's
check of each field's annotation.

Under ``from __future__ import annotations`` every annotation is a string,
which ``typing.NamedTuple`` turns into a ``ForwardRef`` by compiling it:
~5 ms of each dry run for the tool's ~35 record classes, a twelfth of the
run. The classes made here are the same ``collections.namedtuple`` classes
with the same fields, defaults, methods and docstrings; their
``__annotations__`` keep the strings as written.
"""

from __future__ import annotations

import collections
import sys
from typing import TYPE_CHECKING

# As in typing: the namespace keys never copied, and those a record may not set.
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
_PROHIBITED = frozenset(
    {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults", "_make", "_replace", "_asdict", "_source"}
)


class _RecordMeta(type):
    def __new__(cls, typename: str, bases: tuple, ns: dict):
        if bases != (_Record,):
            raise TypeError("a record inherits from NamedTuple only")
        types = ns.get("__annotations__", {})
        defaults: list[str] = []
        for field in types:
            if field in ns:
                defaults.append(field)
            elif defaults:
                raise TypeError(f"Non-default namedtuple field {field} cannot follow default field(s) {', '.join(defaults)}")
        record = collections.namedtuple(typename, list(types), defaults=[ns[n] for n in defaults], module=ns["__module__"])
        record.__annotations__ = record.__new__.__annotations__ = dict(types)
        for key in ns:
            if key in _PROHIBITED:
                raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
            if key not in _SPECIAL and key not in record._fields:
                setattr(record, key, ns[key])
        return record


_Record = type.__new__(_RecordMeta, "NamedTuple", (), {})

if TYPE_CHECKING or sys.version_info >= (3, 14):
    # 3.14 evaluates annotations lazily (PEP 649/749): typing's own, not a
    # namespace this module has not been tried with.
    from typing import NamedTuple
else:

    def NamedTuple(*args, **kwargs):  # noqa: N802 (typing's name, for the class syntax)
        """Only the class syntax: ``class Layout(NamedTuple): kind: str``."""
        raise TypeError("use the class syntax: class Name(NamedTuple)")

    NamedTuple.__mro_entries__ = lambda bases: (_Record,)
