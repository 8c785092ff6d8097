"""The build job's choice, as the publishing side takes it (SPEC 8; issue 30,
item 1).

Only the build job has the checkout's dependencies installed, so only it
can read which state-changed API the installed SDK declares. What crosses
to the publishing side is a choice among the tool's own wirings, a closed
set: the mode (sdk or compat), the form (1.x or 2.x), in sdk mode the API
(an event name or an accessor, and the params member, each from the names
`recipes/host/sdk_api.py` knows), and the installed version it was read
from. Publish takes it only when it fits the range the checkout's
`package.json` (the base's git objects) asks for; otherwise it decides
from git objects alone, as a checkout without an install does, and says
so. Every reason shown is written here from those values, never copied.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from ..plan.config import FORMS
from ..plan.model import detect_target
from ..recipes.base import Bridge, ModeChoice
from ..recipes.host import bridge_mode, sdk_api

_VERSION = re.compile(r"\d{1,6}\.\d{1,6}\.\d{1,6}(?:-[0-9A-Za-z.]{1,32})?")
_KEYS = {"mode", "form", "api", "installed"}


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


def why_not(data: object, tree: Path) -> str:
    """Why the record ``data`` is not one of the tool's wirings that fits
    the checkout at ``tree`` (its package.json's range); "" when it is."""
    if not isinstance(data, dict) or not set(data) <= _KEYS:
        return "not a record of mode, form, API and installed version"
    mode, form, installed = data.get("mode"), data.get("form"), data.get("installed", "")
    if mode not in (Bridge.SDK.value, Bridge.COMPAT.value):
        return "its mode is not sdk or compat"
    if form not in FORMS:
        return f"its form is not one of {', '.join(FORMS)}"
    if not isinstance(installed, str) or not _VERSION.fullmatch(installed):
        return "it names no installed SDK version"
    api = data.get("api")
    if mode == Bridge.SDK.value:
        names = {sdk_api.EVENT: sdk_api.EVENT_KEYS, sdk_api.ACCESSOR: sdk_api.ACCESSORS}
        if (
            not isinstance(api, dict) or set(api) != {"kind", "name", "field"}
            or api["kind"] not in names or api["name"] not in names[api["kind"]] or api["field"] not in sdk_api.FIELDS
        ):
            return "its sdk-mode API is not one of the tool's wirings"
    elif api is not None:
        return "compat mode wires no SDK API"
    wanted = bridge_mode.wanted_range(tree)
    if wanted is None:
        return f"the checkout's package.json asks for no {bridge_mode.SDK_NAME}"
    where, wanted_range = wanted
    if not bridge_mode.satisfies(installed, wanted_range):
        shown = re.sub(r"[^0-9A-Za-z.^~<>=|* -]", "?", wanted_range)[:40]
        return f"{bridge_mode.SDK_NAME} {installed} does not satisfy {shown} ({where})"
    major = bridge_mode.major_version(installed)
    expected = bridge_mode.FORM_2X if major is not None and major >= 2 else bridge_mode.FORM_1X
    if form != expected:
        return f"the {form} form does not go with {bridge_mode.SDK_NAME} {installed}"
    return ""


def resolver(data: object, notes: list[str]) -> Callable[[Path], ModeChoice]:
    """The publishing side's choice of mode, given the base's files: the
    build job's record when it fits (`why_not`), else the tool's own
    decision from git objects; a record turned down is named in ``notes``."""

    def choose(tree: Path) -> ModeChoice:
        target = detect_target(tree)
        own = target.choose_mode(tree, Bridge.AUTO)
        if target.name != "host" or data is None or (isinstance(data, dict) and data.get("installed") == ""):
            return own  # nothing was installed to read: the build decided from the same files
        problem = why_not(data, tree)
        if problem:
            notes.append(f"the build job's choice of wiring was not used ({problem}): decided from git objects")
            return own
        installed = data["installed"]
        where = f"{bridge_mode.SDK_NAME} {installed}, as the build job read it"
        api = None
        if data["mode"] == Bridge.SDK.value:
            api = sdk_api.SdkApi(data["api"]["kind"], data["api"]["name"], data["api"]["field"], where)
        else:
            api = sdk_api.PROPOSED
        reason = f"the build job's reading of the installed {where.split(',')[0]}"
        return ModeChoice(Bridge(data["mode"]), reason, data["form"], f"the installed SDK is {installed}", api)

    return choose
