"""use-app-bridge.ts: the bridge store carries appState both ways.

It puts the state into the ``ui/initialize`` host context, hears
``ui/notifications/state-changed`` (SPEC section 5), and pushes a state that
changed in the URL from outside to the mounted app (SPEC section 3, rule 3).
"""

from __future__ import annotations

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.statements import Item, Statement, as_form, form, statement
from ...engine.outcome import AnchorMissing, Conflict
from ..base import Bridge, Context
from ..names import NAMES
from . import sdk_api
from .common import PROP_MEMBERS, module_like
from .sdk_api import SdkApi

PATH = "apps/mesh/src/mcp-apps/use-app-bridge.ts"

# The private members this step writes; a team may rename them.
MEMBERS = frozenset({"this.appStateJson", "this.bridgeAppState", "this.pushAppState"})

APP_STATE_FIELD = """
// Serialized state the app currently has: compare by value, not identity.
private appStateJson: string | undefined;
"""

# The app and the bridge part ways when the app reports a state: the bridge
# keeps the context it was given, and the app shows its own state.
BRIDGE_APP_STATE_FIELD = """
// The state in the context the bridge holds and answers ui/initialize with.
private bridgeAppState: unknown;
"""

# Until the app reports a state of its own, it shows (or, still loading, will
# show) the one in the bridge's context.
REMEMBER_INITIAL = [
    statement("this.bridgeAppState = appState;", role="this.bridgeAppState = appState", names=MEMBERS),
    statement(
        "this.appStateJson = JSON.stringify(appState);", role="this.appStateJson = JSON.stringify(appState)", names=MEMBERS
    ),
]

# The SDK's setHostContext replaces the whole context that ui/initialize
# answers with, but notifies the app only of keys that differ from the old
# one (SDK 1.7.1). So a state the bridge already holds (a link back to where
# the app started) is sent on its own, and every other state goes through the
# context, which also reaches an app that is still loading (rule 6).
PUSH_APP_STATE = """
// setHostContext sends only the keys that differ from the context the bridge
// holds: a state it already holds (a link back to where the app started) is
// sent on its own.
private pushAppState(appState: unknown) {
  if (!this.bridge || this.disposed) return;
  if (JSON.stringify(appState) === JSON.stringify(this.bridgeAppState)) {
    this.bridge.sendHostContextChange({ appState });
    return;
  }
  this.bridgeAppState = appState;
  this.pushHostContext();
}
"""

# The wiring of state-changed, one form per mode and SDK major version. A
# handler for a bridge that has since been replaced or torn down must not
# touch the store (rule 4).
SDK = "sdk mode (the API the installed SDK declares)"
COMPAT_1X = "compat mode, 1.x form (setNotificationHandler(StateChangedNotificationSchema, handler))"
COMPAT_2X = f'compat mode, 2.x form (setNotificationHandler("{NAMES.method}", {{ params }}, handler))'

_HANDLER_BODY = """
  if (this.disposed || this.bridge !== bridge) return;
  // null, or no state at all (an older app's `params: {{}}`), is no state.
  const state = params.{field} ?? undefined;
  this.appStateJson = JSON.stringify(state);
  this.config.onAppStateChange?.(state);
"""


def sdk_handler(api: SdkApi) -> Statement:
    """sdk mode's handler, with exactly the API the SDK declares (SPEC 5):
    ``bridge.addEventListener(key, ...)`` or ``bridge.<accessor> = ...``,
    the state read from the params member it declares."""
    body = _HANDLER_BODY.format(field=api.field)
    if api.kind == sdk_api.EVENT:
        text = f'bridge.addEventListener("{api.name}", (params) => {{{body}}});'
        role = f'$B.addEventListener("{api.name}", $$$)'
    else:
        text = f"bridge.{api.name} = (params) => {{{body}}};"
        role = f"$B.{api.name} = $H"
    return statement(text, role=role, label=f"{SDK.split(' (', 1)[0]} ({api.describe()})", names=MEMBERS)


def _sdk_variants() -> list[Statement]:
    """sdk mode's handler for every API an SDK may declare."""
    return [
        sdk_handler(SdkApi(kind, name, field, ""))
        for kind, names in ((sdk_api.EVENT, sdk_api.EVENT_KEYS), (sdk_api.ACCESSOR, sdk_api.ACCESSORS))
        for name in names
        for field in sdk_api.FIELDS
    ]


# null, or a report without `state` (an older app's `{ state: undefined }`
# arrives as `params: {}`), is no state: the param goes (SPEC section 2).
HANDLERS = {
    COMPAT_1X: statement(
        """
        bridge.setNotificationHandler(StateChangedNotificationSchema, ({ params }) => {
          if (this.disposed || this.bridge !== bridge) return;
          // null, or no state at all (an older app's `params: {}`), is no state.
          const state = params.state ?? undefined;
          this.appStateJson = JSON.stringify(state);
          this.config.onAppStateChange?.(state);
        });
        """,
        role="$B.setNotificationHandler(StateChangedNotificationSchema, $$$)",
        label=COMPAT_1X,
        names=MEMBERS,
    ),
    # 2.x validates the params with the schema and hands the handler the
    # params themselves.
    COMPAT_2X: statement(
        f"""
        bridge.setNotificationHandler(
          "{NAMES.method}",
          {{ params: StateChangedParamsSchema }},
          (params) => {{
            if (this.disposed || this.bridge !== bridge) return;
            // null, or no state at all (an older app's `params: {{}}`), is no state.
            const state = params.state ?? undefined;
            this.appStateJson = JSON.stringify(state);
            this.config.onAppStateChange?.(state);
          }},
        );
        """,
        role=f'$B.setNotificationHandler("{NAMES.method}", $$$)',
        label=COMPAT_2X,
        names=MEMBERS,
    ),
}

# 0.3.0 took a null state for a state, and ignored a report without one.
HANDLERS_0_3_0 = {
    SDK: form(
        "0.3.0, sdk mode (bridge.onappstatechange)",
        """
        bridge.onappstatechange = ({ state }) => {
          if (this.disposed || this.bridge !== bridge) return;
          this.appStateJson = JSON.stringify(state);
          this.config.onAppStateChange?.(state);
        };
        """,
        role="$B.onappstatechange = $H",
        names=MEMBERS,
    ),
    COMPAT_1X: form(
        f"0.3.0, {COMPAT_1X}",
        """
        bridge.setNotificationHandler(StateChangedNotificationSchema, ({ params }) => {
          if (this.disposed || this.bridge !== bridge) return;
          this.appStateJson = JSON.stringify(params.state);
          this.config.onAppStateChange?.(params.state);
        });
        """,
        role="$B.setNotificationHandler(StateChangedNotificationSchema, $$$)",
        names=MEMBERS,
    ),
    COMPAT_2X: form(
        f"0.3.0, {COMPAT_2X}",
        """
        bridge.setNotificationHandler(
          "ui/notifications/state-changed",
          { params: StateChangedParamsSchema },
          ({ state }) => {
            if (this.disposed || this.bridge !== bridge) return;
            this.appStateJson = JSON.stringify(state);
            this.config.onAppStateChange?.(state);
          },
        );
        """,
        role='$B.setNotificationHandler("ui/notifications/state-changed", $$$)',
        names=MEMBERS,
    ),
}
# Every way of hearing state-changed, whatever the mode or SDK version: one
# of them anywhere in the store is the work of this step, never added twice.
REGISTRATIONS = (
    f'$B.setNotificationHandler("{NAMES.method}", $$$)',
    "$B.setNotificationHandler(StateChangedNotificationSchema, $$$)",
    *(f"$B.{name} = $H" for name in sdk_api.ACCESSORS),
    *(f'$B.addEventListener("{name}", $$$)' for name in sdk_api.EVENT_KEYS),
)
# The name each form imports from app-state.ts (sdk mode: none).
SCHEMAS = {SDK: "", COMPAT_1X: "StateChangedNotificationSchema", COMPAT_2X: "StateChangedParamsSchema"}


def wiring(ctx: Context) -> str:
    """The label of the form this run wires state-changed in."""
    if ctx.bridge is Bridge.SDK:
        return SDK
    return COMPAT_2X if ctx.form == "2.x" else COMPAT_1X


def handler(ctx: Context) -> Statement:
    """The run's handler; every other form becomes it (a migration)."""
    current = wiring(ctx)
    if ctx.sdk_api is not None and ctx.sdk_api.context_problem:
        raise Conflict(PATH, f"{current} cannot hand the state back: {ctx.sdk_api.context_problem}")
    if current == SDK:
        api = ctx.sdk_api if ctx.sdk_api is not None else sdk_api.PROPOSED
        if api.problem:
            raise Conflict(PATH, f"sdk mode cannot wire state-changed: {api.problem}")
        wanted = sdk_handler(api)
    else:
        wanted = HANDLERS[current]
    others = [as_form(other) for label, other in HANDLERS.items() if label != current]
    others += [as_form(other) for other in _sdk_variants() if other.role != wanted.role or other.snippet != wanted.snippet]
    # 0.3.0's own form of this wiring is an upgrade; of another, a migration.
    releases = [
        earlier if label == current else earlier._replace(kind="migrate")
        for label, earlier in HANDLERS_0_3_0.items()
    ]
    return wanted._replace(earlier=tuple(others + releases), alike=REGISTRATIONS)


URL_STATE_NAMES = MEMBERS | {"appStateJson"}


# 0.1.0 pushed a state from the URL as a host-context change of its own; a
# link back to where the app started then reached an app that was still
# loading too late, or not at all.
PUSH_URL_STATE_0_1_0 = form(
    "0.1.0",
    """
    if (config.appState !== undefined && appStateJson !== this.appStateJson) {
      this.appStateJson = appStateJson;
      this.bridge.sendHostContextChange({ appState: config.appState });
    }
    """,
    role="this.bridge.sendHostContextChange({ appState: config.appState })",
    names=URL_STATE_NAMES,
)

# 0.2.0 and 0.3.0 pushed nothing when the param went away.
PUSH_URL_STATE_0_3_0 = form(
    "0.3.0",
    """
    if (config.appState !== undefined && appStateJson !== this.appStateJson) {
      this.appStateJson = appStateJson;
      this.pushAppState(config.appState);
    }
    """,
    role="this.pushAppState(config.appState)",
    names=URL_STATE_NAMES,
)

# Rule 3: the URL changed from outside (a deep link, back/forward). The state
# is decoded anew on every render, so compare serialized values; what the app
# itself just reported is already in appStateJson and is not echoed back.
PUSH_URL_STATE = [
    statement(
        """
        // A state that reached the URL from outside (deep link, back/forward)
        // goes to the app; one the app just reported is never echoed back.
        const appStateJson = JSON.stringify(config.appState);
        """,
        names=URL_STATE_NAMES,
    ),
    # The param went away (a link without state): the app hears null, since
    # a key missing from host-context-changed would mean "unchanged".
    statement(
        """
        if (appStateJson !== this.appStateJson) {
          this.appStateJson = appStateJson;
          this.pushAppState(config.appState ?? null);
        }
        """,
        role="this.pushAppState(config.appState ?? null)",
        earlier=[PUSH_URL_STATE_0_1_0, PUSH_URL_STATE_0_3_0],
        names=URL_STATE_NAMES,
    ),
]


# Rule 8: the host advertises that it keeps state, in every mode. An SDK
# that does not declare the capability would reject the member in an object
# typed McpUiHostCapabilities, so the type names it too (harmless where the
# SDK declares it).
CAPABILITY = Item(NAMES.capability, f"{NAMES.capability}: {{}}")
CAPABILITY_TYPE = f"{{ {NAMES.capability}?: object }}"


def advertise_capability(ed: FileEditor, attach: Node) -> None:
    """``appState: {}`` in the host capabilities that ``attach()`` hands to
    ``new AppBridge(client, hostInfo, capabilities, ...)``: an object there,
    or the constant it names."""
    where = "the host capabilities passed to `new AppBridge(...)` in `attach()` of `BridgeStore`"
    news = [
        n for n in ed.walk(attach)
        if n.type == "new_expression" and ed.text(n.child_by_field_name("constructor")) == "AppBridge"
    ]
    arguments = news[0].child_by_field_name("arguments").named_children if len(news) == 1 else []
    if len(arguments) < 3:
        raise AnchorMissing(ed.path, where)
    capabilities, annotation = arguments[2], None
    if capabilities.type == "identifier":
        declarator = ed.variable(ed.text(capabilities))
        annotation = declarator.child_by_field_name("type")
        capabilities = declarator.child_by_field_name("value")
    if capabilities is None or capabilities.type != "object":
        raise AnchorMissing(ed.path, where)
    ed.ensure_list_items(capabilities, [CAPABILITY])
    declared = annotation.named_children[0] if annotation is not None and annotation.named_children else None
    if declared is not None and NAMES.capability not in ed.text(declared):
        ed.edits.replace(declared.start_byte, declared.end_byte, f"{ed.text(declared)} & {CAPABILITY_TYPE}")


def transform(ed: FileEditor, ctx: Context) -> None:
    build = ed.function("buildHostContext")
    ed.ensure_list_items(ed.parameters(build), [Item("appState", "appState?: unknown")])
    returned = ed.statement(
        ed.body(build), lambda s: s.startswith("return{"), "the object returned by `buildHostContext`"
    )
    ed.ensure_list_items(
        returned.named_children[0],
        [Item("...appState", "...(appState !== undefined && { appState })")],
    )

    for interface in ("BridgeStoreConfig", "UseAppBridgeOptions"):
        ed.ensure_members(ed.interface(interface), PROP_MEMBERS)

    store = ed.class_("BridgeStore")
    attach = ed.method(store, "attach")
    advertise_capability(ed, attach)
    config_pattern = ed.destructuring_of(attach, "this.config", "client")
    ed.ensure_list_items(config_pattern, [Item("appState", "appState")])
    build_call = ed.call(attach, "buildHostContext", "`attach()` of `BridgeStore`")
    ed.ensure_list_items(build_call.child_by_field_name("arguments"), [Item("appState", "appState")])
    ed.ensure_statements_after(ed.enclosing_statement(build_call), REMEMBER_INITIAL)

    # Heard in any method of the store (a helper that registerHandlers
    # calls, say); the size handler is needed only to add it.
    handlers = ed.body(ed.method(store, "registerHandlers"))
    ed.ensure_statements_after(
        lambda: ed.statement(
            handlers, lambda s: s.startswith("bridge.onsizechange="), "`bridge.onsizechange = ...` in `registerHandlers()`"
        ),
        [handler(ctx)],
        block=handlers,
        scope=store,
    )

    ed.ensure_statements_at_end(ed.body(ed.method(store, "updateConfig")), PUSH_URL_STATE)

    # Theme and display-mode pushes keep the state the bridge holds: not
    # resent (it has not changed), not dropped from the context (rule 5).
    push_host_context = ed.method(store, "pushHostContext")
    context_call = ed.call(push_host_context, "buildHostContext", "`pushHostContext()` of `BridgeStore`")
    bridge_app_state = "this." + ed.member_name("bridgeAppState")
    ed.ensure_list_items(context_call.child_by_field_name("arguments"), [Item(bridge_app_state, bridge_app_state)])

    # The members, under the names the statements above found them by. The
    # field that anchors them is needed only to add one.
    def unsub_theme():
        return ed.class_member(store, "unsubTheme")

    ed.ensure_class_member(store, "appStateJson", APP_STATE_FIELD, after=unsub_theme, names=MEMBERS)
    # Added to a store that has appStateJson already (0.1.0's): right after it.
    app_state_json = ed.class_members(store, ed.member_name("appStateJson"))
    ed.ensure_class_member(
        store,
        "bridgeAppState",
        BRIDGE_APP_STATE_FIELD,
        after=(lambda: app_state_json[0]) if app_state_json else unsub_theme,
        names=MEMBERS,
    )
    ed.ensure_class_member(
        store, "pushAppState", PUSH_APP_STATE, after=push_host_context, spaced=True, names=MEMBERS
    )

    # The schema the wiring imports; what only an earlier form used goes.
    app_state = module_like(ed, "./host-styles", "./app-state", ".ts")
    schema = SCHEMAS[wiring(ctx)]
    if schema:
        ed.ensure_import(app_state, [schema], after_module_suffix="host-styles")
    unused = [name for name in SCHEMAS.values() if name and name != schema]
    still_used = ed.drop_unused_imports(app_state, unused, f"only the earlier wiring used it; now {wiring(ctx)}")
    if still_used:
        # app-state.ts of this wiring does not export it: the file would not build.
        raise Conflict(
            ed.path,
            f"`{still_used[0]}` (from app-state.ts) is used here besides the state-changed handler, "
            f"and {wiring(ctx)} has no such schema; remove that use, or keep the earlier wiring with --bridge",
        )
