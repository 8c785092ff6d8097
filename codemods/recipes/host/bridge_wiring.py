"""How the bridge store hears state-changed (SPEC 5): one handler body,
in the form of each mode and SDK major version, and the forms 0.6.0 wrote.

compat 1.x: ``setNotificationHandler(StateChangedNotificationSchema, ...)``;
compat 2.x: ``setNotificationHandler("<method>", { params: StateChanged
ParamsSchema }, ...)``; sdk mode: the API the installed SDK declares
(``addEventListener("<event>", ...)`` or a 1.x ``on*`` accessor). Every
other form becomes the run's: a migration, or an upgrade of 0.6.0's own.
"""

from __future__ import annotations

import re

from ...engine.outcome import Conflict, NeedsDecision
from ...engine.style import parse_jsonc
from ...engine.statements import Statement, as_form, form, statement
from ..base import Bridge, Context
from ..names import KNOWN, NAMES, Names
from . import sdk_api
from .common import FLOOR
from .protocol_types import NOTIFICATION, PARAMS
from .sdk_api import SdkApi

SDK = "sdk mode (the API the installed SDK declares)"
COMPAT_1X = f"compat mode, 1.x form (setNotificationHandler({NOTIFICATION}, handler))"
COMPAT_2X = "compat mode, 2.x form (setNotificationHandler(method, { params }, handler))"
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
        role = f"$B.{api.name} = $HANDLER"
    return comment + text, role, f"{label} ({api.describe()})"


def sdk_handler(api: SdkApi) -> Statement:
    """sdk mode's handler, with exactly the API the SDK declares (SPEC 5):
    ``bridge.addEventListener(key, ...)`` or ``bridge.<accessor> = ...``,
    the state read from the params member it declares."""
    text, role, label = _sdk_form(api, _BODY.format(field=api.field), _COMMENT, SDK.split(" (", 1)[0], MEMBERS)
    return statement(text, role=role, label=label, names=MEMBERS)


def _variants(names: Names) -> list[SdkApi]:
    """Every API an SDK may declare, under ``names`` or another set the
    tool knows."""
    sets = tuple(dict.fromkeys((names, *KNOWN)))
    return list(dict.fromkeys(
        SdkApi(kind, name, field, "")
        for known in sets
        for kind, apis in ((sdk_api.EVENT, sdk_api.event_keys(known)), (sdk_api.ACCESSOR, sdk_api.accessors(known)))
        for name in apis
        for field in sdk_api.fields(known)
    ))


def _compat(body: str, comment: str, names: Names = NAMES) -> dict[str, tuple[str, str]]:
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
            f'{comment}bridge.setNotificationHandler(\n  "{names.method}",\n  {{ params: {PARAMS} }},\n'
            f"  (params) => {{{body_2x}  }},\n);",
            f'$B.setNotificationHandler("{names.method}", $$$)',
        ),
    }


def handlers(names: Names = NAMES) -> dict[str, Statement]:
    """compat mode's handler in each SDK form, for the method of ``names``."""
    return {
        label: statement(text, role=role, label=label, names=MEMBERS)
        for label, (text, role) in _compat(_BODY, _COMMENT, names).items()
    }


HANDLERS = handlers()


def registrations(names: Names = NAMES) -> tuple[str, ...]:
    """Every way of hearing state-changed under ``names``, whatever the mode
    or SDK version: one of them anywhere in the store is the work of this
    step, never added twice."""
    return (
        f'$B.setNotificationHandler("{names.method}", $$$)',
        f"$B.setNotificationHandler({NOTIFICATION}, $$$)",
        *(f"$B.{name} = $HANDLER" for name in sdk_api.accessors(names)),
        *(f'$B.addEventListener("{name}", $$$)' for name in sdk_api.event_keys(names)),
    )


REGISTRATIONS = registrations()


def wiring(ctx: Context) -> str:
    """The label of the form this run wires state-changed in."""
    if ctx.bridge is Bridge.SDK:
        return SDK
    return COMPAT_2X if ctx.form == "2.x" else COMPAT_1X


# oxlint's severities that leave a rule off
_OFF = ("off", "allow", 0)
_GUARD = re.compile(r"^([ \t]*)if \((.*)\) return;$", re.M)


def curly(ctx: Context) -> bool:
    """Whether the checkout's `.oxlintrc.json` turns on `curly` (SPEC 10):
    then the handler's guard is written and recognised braced."""
    try:
        data = parse_jsonc((ctx.repo / ".oxlintrc.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    rules = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(rules, dict):
        return False
    level = rules.get("curly", rules.get("eslint/curly", "off"))
    if isinstance(level, list):
        level = level[0] if level else "off"
    return level not in _OFF


def braced(snippet: str) -> str:
    """``snippet`` with each ``if (...) return;`` guard braced, as oxlint's
    `curly` fix leaves it."""
    return _GUARD.sub(lambda m: f"{m[1]}if ({m[2]}) {{\n{m[1]}  return;\n{m[1]}}}", snippet)


def _braced_forms(wanted: Statement) -> Statement:
    """``wanted`` with its guard braced; its earlier forms recognised
    braced too (the team's linter fixed them), and as written. The
    current handler unbraced is the team's to fix (its lint fails): kept."""
    forms = [*wanted.earlier]
    forms += [f._replace(snippet=braced(f.snippet)) for f in wanted.earlier if braced(f.snippet) != f.snippet]
    return wanted._replace(snippet=braced(wanted.snippet), earlier=tuple(forms))


def handler(ctx: Context, path: str) -> Statement:
    """The run's handler; every other form becomes it: another wiring's (a
    migration), 0.6.0's (an upgrade, or a migration where it was written
    for another wiring). Where the checkout's oxlint turns on `curly`, its
    guard is braced, and so is each earlier form it recognises."""
    found = _handler(ctx, path)
    return _braced_forms(found) if curly(ctx) else found


def _handler(ctx: Context, path: str) -> Statement:
    current = wiring(ctx)
    if ctx.sdk_api is not None and ctx.sdk_api.names_problem:
        raise NeedsDecision(path, f"{current} cannot hear the SDK's Views: {ctx.sdk_api.names_problem}")
    if ctx.sdk_api is not None and ctx.sdk_api.context_problem:
        raise Conflict(path, f"{current} cannot hand the state back: {ctx.sdk_api.context_problem}")
    api = None
    if current == SDK:
        api = ctx.sdk_api if ctx.sdk_api is not None else sdk_api.PROPOSED
        if api.problem:
            raise Conflict(path, f"sdk mode cannot wire state-changed: {api.problem}")
        wanted = sdk_handler(api)
    else:
        wanted = handlers(ctx.names)[current]
    # another name set's compat handlers: the same forms for its method
    sets = tuple(dict.fromkeys((ctx.names, *KNOWN)))
    others = [
        as_form(other) for known in sets for label, other in handlers(known).items()
        if label != current or known != ctx.names
    ]
    others += [
        form(f"{FLOOR}, {label}", text, role, kind="upgrade" if label == current else "migrate", names=_MEMBERS_060)
        for label, (text, role) in _compat(_BODY_060, "").items()
    ]
    for variant in _variants(ctx.names):
        same_api = api is not None and variant[:3] == api[:3]
        if not same_api:
            other = sdk_handler(variant)
            others.append(as_form(other))
        text, role, label = _sdk_form(variant, _BODY_060.format(field=variant.field), "", f"{FLOOR}, sdk mode", _MEMBERS_060)
        others.append(form(label, text, role, kind="upgrade" if same_api else "migrate", names=_MEMBERS_060))
    return wanted._replace(earlier=tuple(others), alike=registrations(ctx.names))
