"""Choose the bridge mode, and the SDK form of the wiring, from the SDK the
checkout has installed (or, without one, the version its package.json asks
for)."""

from __future__ import annotations

import re
from pathlib import Path

from ..manifest import read_manifest
from ..base import Bridge, ModeChoice
from ..names import KNOWN, NAMES, Names
from . import bridge_role, bridge_store, sdk_api

SDK_NAME = "@modelcontextprotocol/ext-apps"
SDK_PACKAGE = Path("node_modules") / SDK_NAME
# Where a mesh checkout's package manager puts the SDK (bun's isolated
# layout links it under the app; a hoisted install puts it at the root).
SDK_LOCATIONS = (Path("apps/mesh") / SDK_PACKAGE, SDK_PACKAGE)
# The package.json files that may ask for the SDK, the app's first.
MANIFESTS = (Path("apps/mesh"), Path("."))
# 2.x keeps the 1.x `(schema, handler)` registration as a deprecated
# overload of this type ("1.x form ... removed in 3.0").
LEGACY_SETTER = "LegacyNotificationHandlerSetter"
FORM_1X, FORM_2X = "1.x", "2.x"


def choose_bridge(repo: Path, requested: Bridge, table: Names | None = None) -> ModeChoice:
    """``auto`` picks ``sdk`` when the installed SDK declares a
    state-changed API whose types fit (read from its declarations, see
    sdk_api.py), else ``compat``; the reason says why. The form is the one
    of the SDK's major version (see :func:`sdk_form`). The API sdk mode
    wires goes with the choice: what the installed SDK declares, else the
    API proposed upstream (no SDK to read).

    No migration without evidence (SPEC 5a): without an installed SDK, or
    with one that does not satisfy the range the checkout's package.json
    asks for (a stale install), a checkout that is wired already keeps its
    mode, and its form unless the range says otherwise.

    The SDK's declarations decide the names (of ``table``, the run's
    `[names]`, and the sets the tool knows, the one the SDK declares) and
    the capability's shape; where the tool cannot tell what the SDK's
    Views send, every mode refuses, naming what it declares."""
    installed = installed_sdk(repo)
    wanted = wanted_range(repo)
    stale = ""
    if installed is not None and wanted is not None and not satisfies(installed[0], wanted[1]):
        stale = (
            f"installed {SDK_NAME} {installed[0]} does not satisfy {wanted[1]} ({wanted[0]}): "
            "run `bun install`"
        )
        installed = None
    form, form_reason = sdk_form(repo, installed)
    if stale:
        form_reason = f"{form_reason}; {stale}"
    # Without an installed SDK, a checkout wired in sdk mode keeps its API.
    api = (current_sdk_api(repo) if installed is None else None) or sdk_api.PROPOSED._replace(name=(table or NAMES).event)
    if installed is not None:
        version, _declarations, package = installed
        table = table or NAMES
        declared, unknown = sdk_api.declared_names(package, (table, *KNOWN), repo)
        names = declared or table
        api = sdk_api.read(package, form, repo, names) or sdk_api.SdkApi(
            sdk_api.EVENT, "", "", "",
            problem=f"installed {SDK_NAME} {version} ({_label(package, repo)}) declares no state-changed API "
            f"(no {', '.join(sdk_api.event_keys(names))} in AppBridgeEventMap, "
            f"no {', '.join(sdk_api.accessors(names))} on AppBridge)",
        )
        capability, note = sdk_api.capability_value(package, names, repo)
        api = api._replace(capability=capability, capability_note=note, names=declared if declared != table else None)
        context = sdk_api.context_problem(package, repo, names)
        if context:  # no mode's code type-checks against it: the bridge store refuses
            api = api._replace(problem=api.problem or context, context_problem=context)
        if unknown:  # no mode's code hears the SDK's Views: blocked until [names] says
            api = api._replace(problem=api.problem or unknown, names_problem=unknown)
    if requested is not Bridge.AUTO:
        return ModeChoice(requested, f"--bridge {requested.value} was given", form, form_reason, api)
    if installed is None:
        missing = stale or f"no installed {SDK_NAME} found (run `bun install` to detect it)"
        current = current_wiring(repo)
        if current is not None:
            mode, current_form = current
            if wanted is None:  # nothing says which form: the checkout's stays too
                form, form_reason = current_form or form, f"{missing}; the checkout's form is kept"
            return ModeChoice(
                mode,
                f"{missing}; the checkout is wired in {mode.value} mode and stays so (no migration without evidence)",
                form,
                form_reason,
                api,
            )
        return ModeChoice(Bridge.COMPAT, missing, form, form_reason, api)
    version = installed[0]
    if api.problem:
        return ModeChoice(Bridge.COMPAT, f"{api.problem}; compat mode", form, form_reason, api)
    return ModeChoice(
        Bridge.SDK, f"installed {SDK_NAME} {version} declares {api.describe()} in {api.source}", form, form_reason, api
    )


def _label(path: Path, repo: Path) -> str:
    try:
        return path.relative_to(repo).as_posix()
    except ValueError:
        return path.as_posix()


# What each wiring's registration looks like, without spaces and with one
# kind of quote (a probe only: the recipe finds the statement by its role).
# (every name set the tool knows: a checkout wired under the SDK's names)
_EVENT_KEYS = tuple(dict.fromkeys(key for names in KNOWN for key in sdk_api.event_keys(names)))
_ACCESSORS = tuple(dict.fromkeys(name for names in KNOWN for name in sdk_api.accessors(names)))
_WIRINGS = (
    *((sdk_api.probe(sdk_api.EVENT, key), Bridge.SDK, "") for key in _EVENT_KEYS),
    *((sdk_api.probe(sdk_api.ACCESSOR, name), Bridge.SDK, "") for name in _ACCESSORS),
    ("setNotificationHandler(StateChangedNotificationSchema", Bridge.COMPAT, FORM_1X),
    *((f'setNotificationHandler("{names.method}"', Bridge.COMPAT, FORM_2X) for names in KNOWN),
)


def _bridge_store(repo: Path) -> tuple[str, str] | None:
    """The checkout's bridge store, wherever the team moved it (its usual
    path, else the one file that plays its part or defines what it does),
    and its text."""
    path = bridge_role.store_file(repo, bridge_store.PATH, bridge_store.DEFINES)
    if path is None:
        return None
    try:
        return path, (repo / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def current_wiring(repo: Path) -> tuple[Bridge, str] | None:
    """The mode (and, in compat mode, the form) the checkout's bridge store
    registers state-changed in; None when it has no such registration."""
    store = _bridge_store(repo)
    if store is None:
        return None
    flat = re.sub(r"\s+", "", store[1]).replace("'", '"').replace("`", '"')
    found = [(mode, form) for marker, mode, form in _WIRINGS if marker in flat]
    return found[0] if len(found) == 1 else None


def current_sdk_api(repo: Path) -> sdk_api.SdkApi | None:
    """The state-changed API the checkout's sdk-mode handler uses, if it is
    wired in sdk mode: without an installed SDK to read, that is the
    evidence of what the SDK it was written for declares."""
    store = _bridge_store(repo)
    if store is None:
        return None
    path, text = store
    flat = re.sub(r"\s+", "", text).replace("'", '"').replace("`", '"')
    found = [
        (kind, name)
        for kind, names in ((sdk_api.EVENT, _EVENT_KEYS), (sdk_api.ACCESSOR, _ACCESSORS))
        for name in names
        if sdk_api.probe(kind, name) in flat
    ]
    if len(found) != 1:
        return None
    kind, name = found[0]
    fields = dict.fromkeys(f for names in KNOWN for f in sdk_api.fields(names))
    field = next((f for f in reversed(fields) if f"params.{f}??undefined" in flat or f"=params.{f};" in flat), "state")
    # the names it was wired under, where they are another set's
    names = next((n for n in KNOWN if name in (n.event, n.accessor)), None)
    return sdk_api.SdkApi(kind, name, field, f"the checkout's own wiring ({path})", names=names if names != NAMES else None)


def wanted_range(repo: Path) -> tuple[str, str] | None:
    """(package.json, range) of the first manifest that asks for the SDK."""
    for folder in MANIFESTS:
        manifest = read_manifest(repo / folder)
        for field in ("dependencies", "devDependencies", "peerDependencies"):
            deps = manifest.get(field)
            wanted = deps.get(SDK_NAME) if isinstance(deps, dict) else None
            if isinstance(wanted, str):
                return (folder / "package.json").as_posix(), wanted
    return None


def _version_tuple(text: str) -> tuple[int, ...] | None:
    match = re.match(r"^\s*v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?", text)
    if not match:
        return None
    return tuple(int(part) if part and part.isdigit() else -1 for part in match.groups())


def satisfies(version: str, wanted: str) -> bool:
    """Whether ``version`` is in the npm range ``wanted`` (^, ~, exact,
    comparisons, x-ranges, ``||``); a range this does not read (a tag, a
    path, a URL) counts as satisfied: it is no evidence either way."""
    have = _version_tuple(version)
    if have is None or -1 in have:
        return True
    wanted = wanted.strip().split("@")[-1] if wanted.startswith("npm:") else wanted.strip()
    if wanted.startswith(("workspace:", "file:", "link:", "git", "http")) or wanted in ("", "*", "latest", "next"):
        return True
    for alternative in wanted.split("||"):
        parts = alternative.split()
        if parts and all(_one(have, part) for part in parts):
            return True
    return not any(_version_tuple(re.sub(r"^[~^<>=]+", "", a.strip())) for a in wanted.split("||"))


def _one(have: tuple[int, ...], comparator: str) -> bool:
    operator = re.match(r"^(\^|~|>=|<=|>|<|=)?", comparator)[0]
    bound = _version_tuple(comparator[len(operator):])
    if bound is None:
        return True
    major, minor, patch = bound
    floor = (major, max(minor, 0), max(patch, 0))
    if operator == "^":
        if major > 0:
            return floor <= have < (major + 1, 0, 0)
        return floor <= have < ((0, minor + 1, 0) if minor > 0 else (0, 0, patch + 1))
    if operator == "~" or (not operator or operator == "=") and (minor == -1 or patch == -1):
        if minor == -1:
            return floor <= have < (major + 1, 0, 0)
        return floor <= have < (major, minor + 1, 0)
    if operator in ("", "="):
        return have == floor
    return {">=": have >= floor, ">": have > floor, "<=": have <= floor, "<": have < floor}[operator]


def sdk_form(repo: Path, installed: tuple[str, str, Path] | None = None) -> tuple[str, str]:
    """"1.x" or "2.x", and why: the installed SDK's declarations (2.x
    declares the 1.x registration a legacy overload) and version, else the
    major version of the range the checkout's package.json asks for."""
    if installed is not None:
        version, declarations, _package = installed
        if LEGACY_SETTER in declarations:
            return FORM_2X, f"{version} declares the 1.x registration legacy ({LEGACY_SETTER})"
        major = major_version(version)
        if major is not None and major >= 2:
            return FORM_2X, f"the installed SDK is {version}"
        return FORM_1X, f"the installed SDK is {version}"
    for folder in MANIFESTS:
        manifest = read_manifest(repo / folder)
        for field in ("dependencies", "devDependencies", "peerDependencies"):
            deps = manifest.get(field)
            wanted = deps.get(SDK_NAME) if isinstance(deps, dict) else None
            if not isinstance(wanted, str):
                continue
            where = (folder / "package.json").as_posix()
            major = major_version(wanted)
            if major is not None and major >= 2:
                return FORM_2X, f"{where} asks for {SDK_NAME} {wanted}"
            return FORM_1X, f"{where} asks for {SDK_NAME} {wanted}"
    return FORM_1X, f"no {SDK_NAME} installed or asked for; the 1.x form"


def major_version(version: str) -> int | None:
    """The major version a version or range starts with (`^2.0.4`, `2.x`,
    `>=2`, `npm:pkg@2.0.4`)."""
    match = re.search(r"(?:^|[\s^~=>v@])(\d+)(?:\.|$|\s|x)", version.strip())
    return int(match.group(1)) if match else None


def installed_sdk(repo: Path) -> tuple[str, str, Path] | None:
    """The installed SDK's version, the text of its bridge declarations and
    its folder."""
    for location in SDK_LOCATIONS:
        package = repo / location
        if not (package / "package.json").is_file():
            continue
        from ..manifest import package_version

        version = package_version(package) or "?"
        declarations = sorted((package / "dist").rglob("app-bridge.d.ts")) or sorted(package.rglob("*.d.ts"))
        legacy = sorted((package / "dist").rglob("legacy-handlers.d.ts"))
        texts = []
        for declaration in [*declarations, *legacy]:
            try:
                texts.append(declaration.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
        return version, "\n".join(texts), package
    return None
