"""The build job's choice, as the publishing side takes it (SPEC 8; issue 30,
item 1; issue 39).

Only the build job has the checkout's dependencies installed, so only it
can read which state-changed API the installed SDK declares. What crosses
to the publishing side is a choice among the tool's own wirings, a closed
set: the mode (sdk or compat), the form (1.x or 2.x), in sdk mode the API
(an event name or an accessor, and the params member, each from the names
`recipes/host/sdk_api.py` knows), and the installed version it was read
from. Publish takes it only when that version is the one the base's
lockfile resolves (`locked_version`: git objects, read as data), its
wiring is one the tool knows that version to declare (`KNOWN`; a version
it does not know: any wiring of the closed set, said in the PR) and it
fits the range the base's `package.json` asks for. Anything else refuses
(exit 3), as does a base without a lockfile entry for the SDK. A record
that names no installed version leaves the choice to publish, from git
objects alone, as a checkout without an install decides. Every reason
shown is written here from those values, never copied.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import git

from ..plan.config import FORMS
from ..plan.model import detect_target
from ..recipes.base import Bridge, ModeChoice
from ..recipes.host import bridge_mode, sdk_api
from . import jsondata

_VERSION = re.compile(r"\d{1,6}\.\d{1,6}\.\d{1,6}(?:-[0-9A-Za-z.]{1,32})?")
_KEYS = {"mode", "form", "api", "installed"}
SDK = bridge_mode.SDK_NAME
# the released SDKs the tool knows, none of which declares a state-changed
# API: compat is their wiring, in their major's form
KNOWN = {"1.7.1": bridge_mode.FORM_1X, "2.0.4": bridge_mode.FORM_2X}
LOCKFILES = ("bun.lock", "package-lock.json")
MAX_LOCKFILE = 32 * 1024 * 1024
# bun.lock and package-lock.json nest a few levels; far more is not one
MAX_DEPTH = 16
# the workspace whose resolution counts: mesh's app
WORKSPACE = bridge_mode.MANIFESTS[0].as_posix()


class ChoiceProblem(Exception):
    """The choice cannot be taken (exit 3), or the base resolves no SDK."""


def record(choice: ModeChoice, checkout: Path) -> dict:
    """The build side: the choice the series was built with, and the
    installed SDK's version (none: "")."""
    out: dict = {"mode": choice.mode.value, "form": choice.form or ""}
    api = choice.sdk_api
    if choice.mode is Bridge.SDK and api is not None and not getattr(api, "problem", ""):
        out["api"] = {"kind": api.kind, "name": api.name, "field": api.field}
    installed = bridge_mode.installed_sdk(checkout)
    out["installed"] = installed[0] if installed is not None and _VERSION.fullmatch(installed[0]) else ""
    return out


def locked_version(repo: git.Repo, base: str) -> str:
    """The SDK version the base's lockfile resolves for mesh's app: in
    bun.lock the workspace's own entry (``<its name>/<SDK>``) first, then
    the hoisted one; in package-lock.json ``apps/mesh/node_modules/<SDK>``
    first. ChoiceProblem without a lockfile or an entry."""
    tree = repo.commit(base).tree
    for name in LOCKFILES:
        try:
            blob = tree / name
        except KeyError:
            continue
        if blob.type != "blob" or blob.size > MAX_LOCKFILE:
            raise ChoiceProblem(f"the base's {name} is not a file of at most {MAX_LOCKFILE} bytes")
        try:
            data = jsondata.loads(blob.data_stream.read().decode("utf-8"), MAX_DEPTH, trailing_commas=True)
        except (UnicodeDecodeError, ValueError) as err:
            raise ChoiceProblem(f"the base's {name} cannot be read ({err})") from None
        version = _bun_version(data) if name == "bun.lock" else _npm_version(data)
        if not _VERSION.fullmatch(version):
            raise ChoiceProblem(f"the base's {name} resolves no {SDK} for {WORKSPACE}: refused")
        return version
    raise ChoiceProblem(f"the base has no lockfile ({' or '.join(LOCKFILES)}) to bind the choice of wiring to: refused")


def _bun_version(data: object) -> str:
    """``packages[key][0]`` is ``"<name>@<version>"``."""
    workspaces = data.get("workspaces") if isinstance(data, dict) else None
    packages = data.get("packages") if isinstance(data, dict) else None
    workspace = workspaces.get(WORKSPACE) if isinstance(workspaces, dict) else None
    name = workspace.get("name") if isinstance(workspace, dict) else None
    for key in ([f"{name}/{SDK}"] if isinstance(name, str) else []) + [SDK]:
        entry = packages.get(key) if isinstance(packages, dict) else None
        if isinstance(entry, list) and entry and isinstance(entry[0], str) and entry[0].startswith(f"{SDK}@"):
            return entry[0][len(SDK) + 1:]
    return ""


def _npm_version(data: object) -> str:
    packages = data.get("packages") if isinstance(data, dict) else None
    for key in (f"{WORKSPACE}/node_modules/{SDK}", f"node_modules/{SDK}"):
        entry = packages.get(key) if isinstance(packages, dict) else None
        if isinstance(entry, dict) and isinstance(entry.get("version"), str):
            return entry["version"]
    return ""


def why_not(data: object, tree: Path, locked: str) -> str:
    """Why the record ``data`` is not one of the tool's wirings for the
    SDK ``locked`` that fits the checkout at ``tree`` (its package.json's
    range); "" when it is, or when it names no installed version (then
    publish decides)."""
    if not isinstance(data, dict) or not set(data) <= _KEYS:
        return "not a record of mode, form, API and installed version"
    mode, form, installed, api = data.get("mode"), data.get("form"), data.get("installed"), data.get("api")
    if mode not in (Bridge.SDK.value, Bridge.COMPAT.value):
        return "its mode is not sdk or compat"
    if form not in FORMS:
        return f"its form is not one of {', '.join(FORMS)}"
    if mode == Bridge.SDK.value:
        names = {sdk_api.EVENT: sdk_api.EVENT_KEYS, sdk_api.ACCESSOR: sdk_api.ACCESSORS}
        if (
            not isinstance(api, dict) or set(api) != {"kind", "name", "field"}
            or not all(isinstance(v, str) for v in api.values())
            or api["kind"] not in names or api["name"] not in names[api["kind"]] or api["field"] not in sdk_api.FIELDS
        ):
            return "its sdk-mode API is not one of the tool's wirings"
    elif api is not None:
        return "compat mode wires no SDK API"
    if installed == "":
        return ""
    if not isinstance(installed, str) or not _VERSION.fullmatch(installed):
        return "it names no installed SDK version"
    if installed != locked:
        return f"it was read from {SDK} {installed}; the base's lockfile resolves {locked}"
    known = KNOWN.get(locked)
    if known is not None and (mode, form) != (Bridge.COMPAT.value, known):
        return f"{SDK} {locked} declares no state-changed API: its wiring is compat in the {known} form"
    wanted = bridge_mode.wanted_range(tree)
    if wanted is None:
        return f"the checkout's package.json asks for no {SDK}"
    where, wanted_range = wanted
    if not bridge_mode.satisfies(installed, wanted_range):
        shown = re.sub(r"[^0-9A-Za-z.^~<>=|* -]", "?", wanted_range)[:40]
        return f"{SDK} {installed} does not satisfy {shown} ({where})"
    major = bridge_mode.major_version(installed)
    expected = bridge_mode.FORM_2X if major is not None and major >= 2 else bridge_mode.FORM_1X
    if form != expected:
        return f"the {form} form does not go with {SDK} {installed}"
    return ""


def resolver(data: object, locked: Callable[[], str]) -> Callable[[Path], ModeChoice]:
    """The publishing side's choice of mode, given the base's files: the
    build job's record when it is one of the tool's wirings for the SDK
    the base's lockfile resolves (``locked``: `locked_version`), the
    tool's own decision from git objects when it names nothing installed;
    ChoiceProblem otherwise."""

    def choose(tree: Path) -> ModeChoice:
        version = locked()
        problem = why_not(data, tree, version)
        if problem:
            raise ChoiceProblem(f"the build job's choice of wiring is refused: {problem}")
        if data["installed"] == "":
            return detect_target(tree).choose_mode(tree, Bridge.AUTO)  # nothing was installed: the same files decide
        where = f"{SDK} {version}, as the build job read it"
        if data["mode"] == Bridge.SDK.value:
            api = sdk_api.SdkApi(data["api"]["kind"], data["api"]["name"], data["api"]["field"], where)
        else:
            api = sdk_api.PROPOSED
        reason = f"the build job's reading of the installed {SDK} {version}, which the base's lockfile resolves"
        if version not in KNOWN:
            reason += "; a version mesh-codemod does not know, so its reading is taken as one of the tool's wirings"
        return ModeChoice(Bridge(data["mode"]), reason, data["form"], f"the installed SDK is {version}", api)

    return choose
