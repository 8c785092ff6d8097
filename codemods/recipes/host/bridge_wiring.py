"""How the bridge store hears state-changed (SPEC 5): one handler body,
in the form of each mode and SDK major version, and the forms 0.6.0 wrote.

compat 1.x: ``setNotificationHandler(StateChangedNotificationSchema, ...)``;
compat 2.x: ``setNotificationHandler("<method>", { params: StateChanged
ParamsSchema }, ...)``; sdk mode: the API the installed SDK declares
(``addEventListener("<event>", ...)`` or a 1.x ``on*`` accessor). Every
other form becomes the run's: a migration, or an upgrade of 0.6.0's own.
"""

from __future__ import annotations

from ...engine.outcome import Conflict
from ...engine.statements import Statement, as_form, form, statement
from ..base import Bridge, Context
from ..names import NAMES
from . import sdk_api
from .common import FLOOR
from .protocol_types import NOTIFICATION, PARAMS
from .sdk_api import SdkApi

SDK = "sdk mode (the API the installed SDK declares)"
COMPAT_1X = f"compat mode, 1.x form (setNotificationHandler({NOTIFICATION}, handler))"
COMPAT_2X = f'compat mode, 2.x form (setNotificationHandler("{NAMES.method}", {{ params }}, handler))'
# The schema each form imports from mcp-apps/types.ts (sdk mode: none).
SCHEMAS = {SDK: "", COMPAT_1X: NOTIFICATION, COMPAT_2X: PARAMS}

# The members the handler and the store's other statements use; a team may
# rename them.
MEMBERS = frozenset(
    {"this.shownAppState", "this.lastAppState", "this.contextAppState", "this.heardNavigation", "this.hostContext"}
)

# A handler for a bridge that has since been replaced or torn down (which
# sets it to null) touches nothing.
_BODY = """
  if (this.bridge !== bridge) return;
  this.shownAppState = params.{field};
  this.config.onAppStateChange?.(params.{field});
"""
_COMMENT = "// The app reports the state it shows: the render site keeps it.\n"

# 0.6.0's: the report went through a method that tracked the URL's echo.
_BODY_060 = """
  if (this.disposed || this.bridge !== bridge) return;
  // A report without a state (`params: {{}}`) is no state, like null.
  this.reportAppState(params.{field} ?? undefined);
"""
_MEMBERS_060 = frozenset(
    {"this.appStateJson", "this.bridgeAppState", "this.pushAppState", "this.urlAppStateJson", "this.reportedAppStates"}
)


def _sdk_form(api: SdkApi, body: str, comment: str, label: str, names: frozenset[str]) -> tuple[str, str, str]:
    """(snippet, role, label) of sdk mode's handler for ``api``."""
    if api.kind == sdk_api.EVENT:
        text = f'bridge.addEventListener("{api.name}", (params) => {{{body}}});'
        role = f'$B.addEventListener("{api.name}", $$$)'
    else:
        text = f"bridge.{api.name} = (params) => {{{body}}};"
        role = f"$B.{api.name} = $H"
    return comment + text, role, f"{label} ({api.describe()})"


def sdk_handler(api: SdkApi) -> Statement:
    """sdk mode's handler, with exactly the API the SDK declares (SPEC 5):
    ``bridge.addEventListener(key, ...)`` or ``bridge.<accessor> = ...``,
    the state read from the params member it declares."""
    text, role, label = _sdk_form(api, _BODY.format(field=api.field), _COMMENT, SDK.split(" (", 1)[0], MEMBERS)
    return statement(text, role=role, label=label, names=MEMBERS)


def _variants() -> list[SdkApi]:
    """Every API an SDK may declare."""
    return [
        SdkApi(kind, name, field, "")
        for kind, names in ((sdk_api.EVENT, sdk_api.EVENT_KEYS), (sdk_api.ACCESSOR, sdk_api.ACCESSORS))
        for name in names
        for field in sdk_api.FIELDS
    ]


def _compat(body: str, comment: str) -> dict[str, tuple[str, str]]:
    """compat mode's handler in each SDK form (snippet, role). 2.x
    validates the params with the schema and hands the handler the params
    themselves."""
    body_1x = body.format(field="state")
    body_2x = "\n".join("  " + line if line else line for line in body_1x.split("\n"))
    return {
        COMPAT_1X: (
            f"{comment}bridge.setNotificationHandler({NOTIFICATION}, ({{ params }}) => {{{body_1x}}});",
            f"$B.setNotificationHandler({NOTIFICATION}, $$$)",
        ),
        COMPAT_2X: (
            f'{comment}bridge.setNotificationHandler(\n  "{NAMES.method}",\n  {{ params: {PARAMS} }},\n'
            f"  (params) => {{{body_2x}  }},\n);",
            f'$B.setNotificationHandler("{NAMES.method}", $$$)',
        ),
    }


HANDLERS = {
    label: statement(text, role=role, label=label, names=MEMBERS) for label, (text, role) in _compat(_BODY, _COMMENT).items()
}
# Every way of hearing state-changed, whatever the mode or SDK version: one
# of them anywhere in the store is the work of this step, never added twice.
REGISTRATIONS = (
    f'$B.setNotificationHandler("{NAMES.method}", $$$)',
    f"$B.setNotificationHandler({NOTIFICATION}, $$$)",
    *(f"$B.{name} = $H" for name in sdk_api.ACCESSORS),
    *(f'$B.addEventListener("{name}", $$$)' for name in sdk_api.EVENT_KEYS),
)


def wiring(ctx: Context) -> str:
    """The label of the form this run wires state-changed in."""
    if ctx.bridge is Bridge.SDK:
        return SDK
    return COMPAT_2X if ctx.form == "2.x" else COMPAT_1X


def handler(ctx: Context, path: str) -> Statement:
    """The run's handler; every other form becomes it: another wiring's (a
    migration), 0.6.0's (an upgrade, or a migration where it was written
    for another wiring)."""
    current = wiring(ctx)
    if ctx.sdk_api is not None and ctx.sdk_api.context_problem:
        raise Conflict(path, f"{current} cannot hand the state back: {ctx.sdk_api.context_problem}")
    api = None
    if current == SDK:
        api = ctx.sdk_api if ctx.sdk_api is not None else sdk_api.PROPOSED
        if api.problem:
            raise Conflict(path, f"sdk mode cannot wire state-changed: {api.problem}")
        wanted = sdk_handler(api)
    else:
        wanted = HANDLERS[current]
    others = [as_form(other) for label, other in HANDLERS.items() if label != current]
    others += [
        form(f"{FLOOR}, {label}", text, role, kind="upgrade" if label == current else "migrate", names=_MEMBERS_060)
        for label, (text, role) in _compat(_BODY_060, "").items()
    ]
    for variant in _variants():
        same_api = api is not None and variant[:3] == api[:3]
        if not same_api:
            other = sdk_handler(variant)
            others.append(as_form(other))
        text, role, label = _sdk_form(variant, _BODY_060.format(field=variant.field), "", f"{FLOOR}, sdk mode", _MEMBERS_060)
        others.append(form(label, text, role, kind="upgrade" if same_api else "migrate", names=_MEMBERS_060))
    return wanted._replace(earlier=tuple(others), alike=REGISTRATIONS)
