"""What the installed MCP Apps SDK declares for state-changed (SPEC 5).

sdk mode wires exactly the API the SDK ships, read from its type
declarations with tree-sitter: the ``AppBridgeEventMap`` key that
``addEventListener`` takes, or an ``on*`` accessor of ``AppBridge``; the
member of its params that holds the state; and the type of
``McpUiHostContext.appState``, which the host fills with whatever JSON
value the URL holds. The names looked for are the run's (names.py, or
`[names]`) and the ones an earlier proposal used; where the SDK declares
several, the one not marked ``@deprecated`` is wired.

The SDK's declarations decide the names and the capability's shape (SPEC 5
and 10): :func:`declared_names` says which name set the tool knows the SDK
declares (or why it cannot tell), :func:`capability_value` what the host
capability is written as.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from tree_sitter import Node

from typing import NamedTuple
from ...engine.parsing import TYPESCRIPT, parse
from ..names import NAMES, Names

# The earlier proposal's event key and accessor (state-changed's method).
EARLIER_EVENT, EARLIER_ACCESSOR = "appstatechange", "onappstatechange"


def event_keys(names: Names = NAMES) -> tuple[str, ...]:
    """The event-map keys that mean state-changed under ``names``, its own first."""
    return tuple(dict.fromkeys((names.event, EARLIER_EVENT)))


def accessors(names: Names = NAMES) -> tuple[str, ...]:
    """The 1.x accessors that mean state-changed under ``names``, its own first."""
    return tuple(dict.fromkeys((names.accessor, EARLIER_ACCESSOR)))


def fields(names: Names = NAMES) -> tuple[str, ...]:
    """The params members that may hold the state, ``state`` first."""
    return tuple(dict.fromkeys(("state", names.context_field)))


# The seed table's (what a record of the build job may name).
EVENT_KEYS, ACCESSORS, FIELDS = event_keys(), accessors(), fields()
# The capability the host advertises where the SDK declares no shape for it
# (an SDK that predates the feature strips it), or one numeric member.
DEFAULT_CAPABILITY = "{ maxLength: 1024 }"
CAPABILITY_SIZE = 1024
# A state type the host can hand any decoded JSON value to.
OPEN_TYPES = frozenset({"unknown", "any"})
EVENT, ACCESSOR = "event", "accessor"


class SdkApi(NamedTuple):
    """How sdk mode hears state-changed: ``bridge.addEventListener(name,
    ...)`` (kind ``event``) or ``bridge.<name> = ...`` (kind ``accessor``),
    with the state in ``params.<field>``. ``source`` says where that was
    read; ``problem``, when set, is why sdk mode cannot wire it (a refusal
    naming the declaration)."""

    kind: str
    name: str
    field: str
    source: str
    problem: str = ""
    # Why no mode's code type-checks against the SDK's host context (its
    # ``appState`` typed narrower than unknown): the bridge store refuses.
    context_problem: str = ""
    # Why the tool cannot tell which names the SDK's Views send: every
    # mode is blocked until `[names]` says.
    names_problem: str = ""
    # The host capability's value in the shape McpUiHostCapabilities
    # declares ("" = left out: the tool cannot fill that shape), and why
    # it is left out.
    capability: str = DEFAULT_CAPABILITY
    capability_note: str = ""
    # The name set the installed SDK declares (names.Names), when it is not
    # the run's table: both modes wire those names.
    names: object = None

    def describe(self) -> str:
        call = f'addEventListener("{self.name}")' if self.kind == EVENT else self.name
        return f"bridge.{call}, params.{self.field}"


def probe(kind: str, name: str) -> str:
    """How a handler of that API starts, without spaces and with double
    quotes (a probe of a checkout's wiring, not a recognition)."""
    return f'bridge.addEventListener("{name}",' if kind == EVENT else f"bridge.{name}="


# Without an installed SDK there are no declarations to read: the API this
# project proposes, in the form every SDK that can ship it has (1.7 and 2.x
# declare addEventListener and deprecate every event-backed on* accessor).
PROPOSED = SdkApi(EVENT, NAMES.event, "state", "no installed SDK to read; the API proposed upstream (names.py)")


def _readable(data: bytes) -> bytes:
    """Declaration text tree-sitter parses: ``import("zod").ZodObject``
    types, which its grammar does not know, become an identifier of the
    same length (offsets stay)."""
    return re.sub(rb'import\("[^"\n]*"\)', lambda m: b"I" + b"_" * (len(m.group()) - 1), data)


class _Declarations:
    """The .d.ts files of one folder of the package, parsed on demand."""

    def __init__(self, folder: Path, root: Path) -> None:
        self.folder = folder
        self.root = root
        self._parsed: dict[Path, tuple[bytes, Node]] = {}

    def label(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def parsed(self, path: Path) -> tuple[bytes, Node]:
        if path not in self._parsed:
            data = _readable(path.read_bytes())
            self._parsed[path] = (data, parse(data, TYPESCRIPT).root_node)
        return self._parsed[path]

    def files(self) -> list[Path]:
        return sorted(self.folder.glob("*.d.ts"))

    def find_type(self, name: str) -> tuple[Path, bytes, Node] | None:
        """The interface or type alias ``name`` declared in the folder."""
        for path in self.files():
            data, root = self.parsed(path)
            if name.encode() not in data:
                continue
            for node in _walk(root):
                if node.type in {"interface_declaration", "type_alias_declaration"} and _text(
                    data, node.child_by_field_name("name")
                ) == name:
                    return path, data, node
        return None


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _text(data: bytes, node: Node | None) -> str:
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace") if node is not None else ""


def _members(data: bytes, body: Node) -> dict[str, Node]:
    """The property signatures of an object type or interface body, by name."""
    found = {}
    for child in body.named_children:
        if child.type == "property_signature":
            found[_text(data, child.child_by_field_name("name")).strip("\"'")] = child
    return found


def _type_of(member: Node) -> Node | None:
    annotation = member.child_by_field_name("type")
    return annotation.named_children[0] if annotation is not None and annotation.named_children else None


def _object_members(decls: _Declarations, data: bytes, node: Node | None, depth: int = 0) -> dict[str, tuple[bytes, Node]] | None:
    """The members of the object type ``node`` stands for, following
    ``Name``, ``Name["params"]`` and parentheses; None when it cannot be
    read."""
    if node is None or depth > 8:
        return None
    if node.type == "parenthesized_type":
        return _object_members(decls, data, node.named_children[0], depth + 1)
    if node.type in {"object_type", "interface_body"}:
        return {name: (data, member) for name, member in _members(data, node).items()}
    if node.type == "type_identifier":
        found = decls.find_type(_text(data, node))
        if found is None:
            return None
        _path, found_data, declaration = found
        body = declaration.child_by_field_name("body") or declaration.child_by_field_name("value")
        return _object_members(decls, found_data, body, depth + 1)
    if node.type == "lookup_type" and len(node.named_children) == 2:
        owner, key = node.named_children
        members = _object_members(decls, data, owner, depth + 1)
        wanted = _text(data, key).strip("\"'")
        if members is None or wanted not in members:
            return None
        member_data, member = members[wanted]
        return _object_members(decls, member_data, _type_of(member), depth + 1)
    return None


def _deprecated(data: bytes, member: Node) -> bool:
    """Whether the doc comment right above ``member`` says @deprecated."""
    above = member.prev_named_sibling
    return above is not None and above.type == "comment" and "@deprecated" in _text(data, above)


def _class_body(data: bytes, root: Node, name: str) -> Node | None:
    for node in _walk(root):
        if node.type == "class_declaration" and _text(data, node.child_by_field_name("name")) == name:
            return node.child_by_field_name("body")
    return None


def _accessor_params(data: bytes, members: list[Node]) -> Node | None:
    """The params type of an ``on*`` accessor: the callback's first
    parameter (``set onx(callback: ((params: T) => void) | undefined)``),
    or a field's function type."""
    for member in members:
        for node in _walk(member):
            if node.type == "function_type":
                parameters = node.child_by_field_name("parameters")
                first = parameters.named_children[0] if parameters is not None and parameters.named_children else None
                return _type_of(first) if first is not None else None
    return None


def read(package: Path, form: str, root: Path | None = None, names: Names = NAMES) -> SdkApi | None:
    """The state-changed API the package at ``package`` declares, or None
    when it declares none. ``form``: the SDK form the run chose ("2.x":
    addEventListener is the current form whatever the accessors say).
    Declarations are named relative to ``root`` (the checkout); ``names``:
    the name set looked for."""
    EVENT_KEYS, ACCESSORS, FIELDS = event_keys(names), accessors(names), fields(names)  # noqa: N806 (the run's names)
    candidates = sorted((package / "dist").rglob("app-bridge.d.ts")) if (package / "dist").is_dir() else []
    candidates += sorted(p for p in package.rglob("app-bridge.d.ts") if p not in candidates and "node_modules" not in p.relative_to(package).parts)
    for declaration in candidates:
        decls = _Declarations(declaration.parent, root or package.parent)
        data, root = decls.parsed(declaration)
        where = decls.label(declaration)
        events: dict[str, Node] = {}
        found_map = decls.find_type("AppBridgeEventMap")
        if found_map is not None and found_map[0] == declaration:
            _path, map_data, map_node = found_map
            body = map_node.child_by_field_name("body") or map_node.child_by_field_name("value")
            members = _members(map_data, body) if body is not None and body.type in {"object_type", "interface_body"} else {}
            events = {key: members[key] for key in EVENT_KEYS if key in members}
            # where the SDK declares several names, the current one: a key
            # whose doc comment says @deprecated only when no other is left
            events = {key: node for key, node in events.items() if not _deprecated(map_data, node)} or events
        body = _class_body(data, root, "AppBridge")
        found_accessors: dict[str, list[Node]] = {}
        if body is not None:
            for member in body.named_children:
                name = _text(data, member.child_by_field_name("name"))
                if name in ACCESSORS and member.type in {"method_signature", "public_field_definition", "property_signature"}:
                    found_accessors.setdefault(name, []).append(member)
        if not events and not found_accessors:
            continue
        api, params = None, None
        current_accessors = {
            name: members for name, members in found_accessors.items() if not any(_deprecated(data, m) for m in members)
        }
        if events and (form == "2.x" or not current_accessors):
            params_data = found_map[1] if found_map is not None else data
            # the current name where the SDK declares both (one deprecated)
            current_keys = [k for k in EVENT_KEYS if k in events and not _deprecated(params_data, events[k])]
            key = (current_keys or [k for k in EVENT_KEYS if k in events])[0]
            api, params = SdkApi(EVENT, key, "", f"{where} (AppBridgeEventMap.{key})"), _type_of(events[key])
        else:
            name = next(n for n in ACCESSORS if n in (current_accessors or found_accessors))
            api = SdkApi(ACCESSOR, name, "", f"{where} (AppBridge.{name})")
            params, params_data = _accessor_params(data, found_accessors[name]), data
        members = _object_members(decls, params_data, params)
        if members is None:
            return api._replace(
                problem=f"{api.source}: cannot read the params type `{_text(params_data, params) or '?'}` "
                "of the declaration (an object type with the state)"
            )
        field = next((f for f in FIELDS if f in members), "")
        if not field:
            return api._replace(
                problem=f"{api.source}: its params (`{_text(params_data, params)}`) have none of "
                f"{', '.join(f'`{f}`' for f in FIELDS)} to read the state from"
            )
        return api._replace(field=field, problem=_context_problem(decls, names))
    return None


def _context_problem(decls: _Declarations, names: Names = NAMES) -> str:
    """Why the host cannot hand the SDK's ``McpUiHostContext.appState`` a
    decoded URL value, or "" when it can (the member is absent, behind an
    index signature, or typed unknown/any)."""
    found = decls.find_type("McpUiHostContext")
    if found is None:
        return ""
    path, data, declaration = found
    body = declaration.child_by_field_name("body") or declaration.child_by_field_name("value")
    if body is None or body.type not in {"object_type", "interface_body"}:
        return ""
    member = _members(data, body).get(names.context_field)
    if member is None:
        return ""
    declared = _text(data, _type_of(member))
    if declared in OPEN_TYPES:
        return ""
    return (
        f"{decls.label(path)} line {member.start_point[0] + 1}: `McpUiHostContext.{names.context_field}` is declared "
        f"`{declared}`, but the host "
        "hands back whatever JSON value the URL holds (or null to clear it), which that type does not "
        "promise, in either bridge mode; use an SDK that types it `unknown`"
    )


def _spec_folders(package: Path) -> list[Path]:
    return sorted({p.parent for p in package.rglob("spec.types.d.ts") if "node_modules" not in p.relative_to(package).parts})


def context_problem(package: Path, root: Path | None = None, names: Names = NAMES) -> str:
    """Why the host cannot hand the package's ``McpUiHostContext.appState``
    a decoded URL value, whatever the bridge mode; "" when it can."""
    for folder in _spec_folders(package):
        problem = _context_problem(_Declarations(folder, root or package.parent), names)
        if problem:
            return problem
    return ""


def capability_value(package: Path, names: Names = NAMES, root: Path | None = None) -> tuple[str, str]:
    """The host capability as the package's ``McpUiHostCapabilities``
    declares its member ``names.capability`` (SPEC 10): not declared (an
    SDK that strips it) ``{ maxLength: 1024 }``; an object of one optional
    numeric member, 1024 in it; ``boolean``, ``true``. Any other shape:
    ("", why), the capability left out."""
    for folder in _spec_folders(package):
        decls = _Declarations(folder, root or package.parent)
        found = decls.find_type("McpUiHostCapabilities")
        if found is None:
            continue
        path, data, declaration = found
        body = declaration.child_by_field_name("body") or declaration.child_by_field_name("value")
        member = _members(data, body).get(names.capability) if body is not None else None
        if member is None:
            return DEFAULT_CAPABILITY, ""
        declared = _type_of(member)
        if declared is not None and _text(data, declared) in {"boolean", "true"}:
            return "true", ""
        inner = _members(data, declared) if declared is not None and declared.type == "object_type" else {}
        if len(inner) == 1 and len([c for c in declared.named_children if c.type != "comment"]) == 1:
            (key, only), = inner.items()
            if _text(data, _type_of(only)) == "number" and "?" in _text(data, only).split(":", 1)[0]:
                return f"{{ {key}: {CAPABILITY_SIZE} }}", ""
        return "", (
            f"{decls.label(path)}: `McpUiHostCapabilities.{names.capability}` is declared "
            f"`{_text(data, declared)}`, a shape the tool cannot fill: the capability is left out "
            "(write it by hand where the render site keeps state)"
        )
    return DEFAULT_CAPABILITY, ""


# A View-to-Host notification of a state, and an event-map key for one:
# what an SDK declares for the feature under any names.
_STATE_METHOD = re.compile(r'"(ui/notifications/[a-z-]*state[a-z-]*-changed)"')
_STATE_EVENT = re.compile(r"(?<![\w$])([a-z]*statechange)\??:")


def _declares(text: str, names: Names) -> bool:
    return (
        f'"{names.method}"' in text
        or re.search(rf"(?<![\w$]){re.escape(names.event)}\??:", text) is not None
        or re.search(rf"(?<![\w$]){re.escape(names.accessor)}\(", text) is not None
    )


def _deprecated_set(text: str, names: Names) -> bool:
    """Whether the event key of ``names`` is declared under a doc comment
    that says @deprecated."""
    comment = r"/\*\*(?:(?!\*/).)*@deprecated(?:(?!\*/).)*\*/\s*"
    return re.search(rf"{comment}{re.escape(names.event)}\??:", text, re.DOTALL) is not None


def declared_names(package: Path, known: tuple[Names, ...], root: Path | None = None) -> tuple[Names | None, str]:
    """The name set of ``known`` the package's declarations hold for the
    feature (where several: the one not deprecated), or (None, why the tool
    cannot tell): a state notification under names no set knows, or two
    sets undeprecated. (None, "") when it declares none."""
    texts = []
    for path in sorted(package.rglob("*.d.ts")):
        if "node_modules" not in path.relative_to(package).parts:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    text = "\n".join(texts)
    label = f"{_label(package, root)}"
    declared = [n for n in dict.fromkeys(known) if _declares(text, n)]
    current = [n for n in declared if not _deprecated_set(text, n)] or declared
    rows = "`[names]` in .mesh-codemod.toml (rows: " + ", ".join(Names._fields) + ")"
    if len(current) > 1:
        both = " and ".join(f"`{n.method}` ({n.event})" for n in current)
        return None, f"{label} declares {both}, none deprecated: the tool cannot tell which the SDK's Views send; name it in {rows}"
    if current:
        return current[0], ""
    methods = sorted(set(_STATE_METHOD.findall(text)))
    events = sorted(set(_STATE_EVENT.findall(text)) - {EARLIER_EVENT})
    if methods or events:
        what = ", ".join([*(f"the method `{m}`" for m in methods), *(f"the event `{e}`" for e in events)])
        return None, (
            f"{label} declares {what}, names the tool does not know: it cannot tell what the SDK's Views send "
            f"or read; name them in {rows}"
        )
    return None, ""


def _label(path: Path, root: Path | None) -> str:
    try:
        return path.relative_to(root).as_posix() if root is not None else path.as_posix()
    except ValueError:
        return path.as_posix()
