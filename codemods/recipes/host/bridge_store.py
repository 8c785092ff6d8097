"""use-app-bridge.ts: the bridge store carries appState both ways.

It puts the state into the ``ui/initialize`` host context, hears
``ui/notifications/state-changed`` (SPEC section 5), and pushes a state that
changed in the URL from outside to the mounted app (SPEC section 3, rule 3).
"""

from __future__ import annotations

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.statements import Item, Statement, as_form, statement
from ...engine.outcome import AnchorMissing, Conflict
from ..base import Bridge, Context
from ..names import NAMES
from . import bridge_role, sdk_api
from .common import MODULE_PATH, PROP_MEMBERS, import_of
from .sdk_api import SdkApi

PATH = "apps/mesh/src/mcp-apps/use-app-bridge.ts"
# What only the bridge store defines: how it is found where the team moved
# it; else by what it does (bridge_role.ROLE).
DEFINES = f"function {bridge_role.HOST_CONTEXT}("
ROLE = bridge_role.ROLE

# The private members this step writes; a team may rename them.
MEMBERS = frozenset(
    {
        "this.appStateJson",
        "this.bridgeAppState",
        "this.pushAppState",
        "this.urlAppStateJson",
        "this.reportedAppStates",
    }
)

APP_STATE_FIELD = """
// Serialized state the app currently has: compare by value, not identity.
private appStateJson: string | undefined;
"""

# Rule 3 tells a navigation from the echo of the app's own report by what
# the URL held before and the reports it has yet to show.
URL_APP_STATE_FIELDS = """
// The app's slot as the URL last held it, and the app's reports the URL has
// yet to show (its echo is not a navigation), serialized.
private urlAppStateJson: string | undefined;
private reportedAppStates: (string | undefined)[] = [];
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
    statement(
        "this.urlAppStateJson = this.appStateJson;", role="this.urlAppStateJson = this.appStateJson", names=MEMBERS
    ),
    statement("this.reportedAppStates = [];", role="this.reportedAppStates = []", names=MEMBERS),
]

# Rule 8: the capability only where the render site keeps state, spread into
# the host capabilities: the SDKs released so far do not declare it, and a
# spread member is not checked against the parameter's type (where an SDK
# declares it, it fits).
CAPABILITIES = statement(
    """
    // Rule 8: a site that keeps state says so, with the largest state it keeps
    // (bytes of JSON text; whatever the app's key, it fits the URL's cap).
    const appStateCapability = this.config.onAppStateChange
      ? { appState: { maxLength: 1024 } }
      : {};
    """,
)
CAPABILITY_SPREAD = Item("...appStateCapability", "...appStateCapability")

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
  // A report without a state (`params: {{}}`) is no state, like null.
  this.reportAppState(params.{field} ?? undefined);
"""
# The app's report: what it shows now. The render site writes it to the URL;
# until the URL holds it, its echo is no navigation (rule 3).
REPORT_APP_STATE = """
// What the app reports it shows: the render site keeps it in the URL, and
// the URL's echo of it is never pushed back.
private reportAppState(state: unknown) {
  const json = JSON.stringify(state);
  this.appStateJson = json;
  if (!this.config.onAppStateChange) return;
  if (json !== this.urlAppStateJson) this.reportedAppStates.push(json);
  this.config.onAppStateChange(state);
}
"""

FOLLOW_URL_APP_STATE = """
// Rule 3: the app hears its slot of the URL only when a navigation it did not
// make changed it (a link, back/forward, an edited URL); never for its own
// report, another app's, or where the site keeps no state.
private followUrlAppState() {
  if (!this.config.onAppStateChange) return;
  const json = JSON.stringify(this.config.appState);
  if (json === this.urlAppStateJson) return;
  this.urlAppStateJson = json;
  const echo = this.reportedAppStates.indexOf(json);
  if (echo >= 0) {
    this.reportedAppStates.splice(0, echo + 1);
    return;
  }
  if (json === this.appStateJson) return;
  this.appStateJson = json;
  this.reportedAppStates = [];
  // The slot gone: null, since a missing key would mean no change.
  this.pushAppState(this.config.appState ?? null);
}
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


def _compat_handlers() -> dict[str, Statement]:
    """compat mode's handler in each SDK form. 2.x validates the params
    with the schema and hands the handler the params themselves."""
    body_1x = _HANDLER_BODY.format(field="state")
    body_2x = "\n".join("  " + line if line else line for line in body_1x.split("\n"))
    return {
        COMPAT_1X: statement(
            f"bridge.setNotificationHandler(StateChangedNotificationSchema, ({{ params }}) => {{{body_1x}}});",
            role="$B.setNotificationHandler(StateChangedNotificationSchema, $$$)",
            label=COMPAT_1X,
            names=MEMBERS,
        ),
        COMPAT_2X: statement(
            f'bridge.setNotificationHandler(\n  "{NAMES.method}",\n  {{ params: StateChangedParamsSchema }},\n'
            f"  (params) => {{{body_2x}  }},\n);",
            role=f'$B.setNotificationHandler("{NAMES.method}", $$$)',
            label=COMPAT_2X,
            names=MEMBERS,
        ),
    }


HANDLERS = _compat_handlers()
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
    return wanted._replace(earlier=tuple(others), alike=REGISTRATIONS)


# Rule 3, in a method of its own (FOLLOW_URL_APP_STATE).
PUSH_URL_STATE = statement("this.followUrlAppState();", role="this.followUrlAppState()")


def advertise_capability(ed: FileEditor, attach: Node, anchor: Node, store: str = bridge_role.CLASS) -> None:
    """The capability in the host capabilities that ``attach()`` (of the
    class ``store``) hands to ``new AppBridge(client, hostInfo,
    capabilities, ...)`` (under whatever name the file imports the SDK's
    bridge) where the site keeps state: spread into an object there, or
    into one made of the constant there (CAPABILITIES declares it, after
    ``anchor``)."""
    where = f"the host capabilities passed to `new AppBridge(...)` in `attach()` of `{store}`"
    news = bridge_role.constructions(ed, attach, bridge_role.bridge_constructors(ed))
    arguments = news[0].child_by_field_name("arguments").named_children if len(news) == 1 else []
    if len(arguments) < 3 or arguments[2].type not in {"object", "identifier"}:
        raise AnchorMissing(ed.path, where)
    argument = arguments[2]
    ed.ensure_statements_after(anchor, [CAPABILITIES])
    if argument.type == "object":
        ed.ensure_list_items(argument, [CAPABILITY_SPREAD])
        return
    # The constant becomes the first spread of an object; the statement is
    # laid out anew, since its arguments may no longer fit on one line (with
    # comments inside, which the printer leaves alone, the arguments break
    # one per line as Biome would break them).
    constant = ed.text(argument)
    bridge = ed.enclosing_statement(news[0])
    before = ed.source.data[bridge.start_byte:argument.start_byte].decode()
    after = ed.source.data[argument.end_byte:bridge.end_byte].decode()
    spread = f"{{ ...{constant}, {CAPABILITY_SPREAD.text} }}"
    laid = ed.laid_out(f"{before}{spread}{after}", ed.source.indent_of(bridge))
    if laid is not None:
        ed.edits.replace(bridge.start_byte, bridge.end_byte, laid)
    elif not ed.break_items(argument.parent, {2: spread}):
        # Comments between the arguments: the one argument changes in place.
        ed.edits.replace(argument.start_byte, argument.end_byte, spread)


def _host_context_with_app_state(ed: FileEditor, build: Node) -> None:
    """``buildHostContext`` (the function ``build`` of ``ed``'s file) takes
    appState and puts it into the context only when there is one."""
    ed.ensure_list_items(ed.parameters(build), [Item("appState", "appState?: unknown")])
    returned = ed.statement(
        ed.body(build), lambda s: s.startswith("return{"), "the object returned by `buildHostContext`"
    )
    ed.ensure_list_items(
        returned.named_children[0],
        [Item("...appState", "...(appState !== undefined && { appState })")],
    )


def transform(ed: FileEditor, ctx: Context) -> None:
    # The store by role (bridge_role): its class, its interfaces and the
    # host context's builder, whatever the team named them or wherever it
    # moved the builder.
    build_name = bridge_role.host_context(ed, ctx, _host_context_with_app_state)
    store, name = bridge_role.store_class(ed)

    interfaces = (bridge_role.config_interface(ed, store, name), bridge_role.options_interface(ed, name))
    for interface in dict.fromkeys(interfaces):
        ed.ensure_members(ed.interface(interface), PROP_MEMBERS)

    # Exported for its tests (use-app-bridge.test.ts).
    if store.parent is None or store.parent.type != "export_statement":
        ed.edits.insert(store.start_byte, "export ")
    attach = ed.method(store, "attach")
    config_pattern = ed.destructuring_of(attach, "this.config", "client")
    ed.ensure_list_items(config_pattern, [Item("appState", "appState")])
    build_call = ed.call(attach, build_name, f"`attach()` of `{name}`")
    ed.ensure_list_items(build_call.child_by_field_name("arguments"), [Item("appState", "appState")])
    context = ed.enclosing_statement(build_call)
    ed.ensure_statements_after(context, REMEMBER_INITIAL)
    # The capability goes after the statements above, as on a clean tree,
    # also where one of them is there already (a tree the feature is partly in).
    kept = ed.find_statement(context.parent, REMEMBER_INITIAL[1])
    advertise_capability(ed, attach, kept if kept is not None else context, name)

    # Heard in any method of the store (a helper that registerHandlers
    # calls, say); the size handler is needed only to add it.
    handlers = ed.body(ed.method(store, "registerHandlers"))
    try:
        wanted = handler(ctx)
    except Conflict as conflict:  # named at the store's file, wherever it is
        raise Conflict(ed.path, conflict.reason) from None
    ed.ensure_statements_after(
        lambda: ed.statement(
            handlers, lambda s: s.startswith("bridge.onsizechange="), "`bridge.onsizechange = ...` in `registerHandlers()`"
        ),
        [wanted],
        block=handlers,
        scope=store,
    )

    update = ed.body(ed.method(store, "updateConfig"))
    ed.ensure_statements_at_end(update, [PUSH_URL_STATE])

    # Theme and display-mode pushes keep the state the bridge holds: not
    # resent (it has not changed), not dropped from the context (rule 5).
    push_host_context = ed.method(store, "pushHostContext")
    context_call = ed.call(push_host_context, build_name, f"`pushHostContext()` of `{name}`")
    bridge_app_state = "this." + ed.member_name("bridgeAppState")
    ed.ensure_list_items(context_call.child_by_field_name("arguments"), [Item(bridge_app_state, bridge_app_state)])

    # The members, under the names the statements above found them by. The
    # field that anchors them is needed only to add one.
    def unsub_theme():
        return ed.class_member(store, "unsubTheme")

    ed.ensure_class_member(store, "appStateJson", APP_STATE_FIELD, after=unsub_theme, names=MEMBERS)
    # Added to a store that has appStateJson already (the feature partly
    # there): right after it.
    app_state_json = ed.class_members(store, ed.member_name("appStateJson"))
    ed.ensure_class_member(
        store,
        "bridgeAppState",
        BRIDGE_APP_STATE_FIELD,
        after=(lambda: app_state_json[0]) if app_state_json else unsub_theme,
        names=MEMBERS,
    )
    # The push the rule-3 method makes, under the name this file gives it
    # (the other members it uses are bound by the statements above).
    for follow in ed.class_members(store, "followUrlAppState"):
        ed.find_role(follow, "this.pushAppState(this.config.appState ?? null)", MEMBERS)
    ed.ensure_class_member(
        store, "pushAppState", PUSH_APP_STATE, after=push_host_context, spaced=True, names=MEMBERS
    )
    bridge_app_state_field = ed.class_members(store, ed.member_name("bridgeAppState"))
    ed.ensure_class_member(
        store,
        "urlAppStateJson",
        URL_APP_STATE_FIELDS,
        # after bridgeAppState, or where it goes (right after appStateJson), as on a clean tree
        after=(lambda: (bridge_app_state_field or app_state_json)[0])
        if bridge_app_state_field or app_state_json
        else unsub_theme,
        names=MEMBERS,
    )
    push_app_state = ed.class_members(store, ed.member_name("pushAppState"))
    anchor_method = (lambda: push_app_state[0]) if push_app_state else push_host_context
    ed.ensure_class_member(
        store, "followUrlAppState", FOLLOW_URL_APP_STATE, after=anchor_method, spaced=True, names=MEMBERS
    )
    ed.ensure_class_member(
        store, "reportAppState", REPORT_APP_STATE, after=anchor_method, spaced=True, names=MEMBERS
    )

    # The schema the wiring imports; what only an earlier form used goes.
    # (where the module is: beside the store, or wherever the team moved it)
    app_state, same = import_of(ed, ctx, MODULE_PATH, alias=False, anchor_suffix="./host-styles")
    schema = SCHEMAS[wiring(ctx)]
    if schema:
        ed.ensure_import(app_state, [schema], after_module_suffix="host-styles", same=same)
    unused = [name for name in SCHEMAS.values() if name and name != schema]
    still_used = ed.drop_unused_imports(
        app_state, unused, f"only the earlier wiring used it; now {wiring(ctx)}", same=same
    )
    if still_used:
        # app-state.ts of this wiring does not export it: the file would not build.
        raise Conflict(
            ed.path,
            f"`{still_used[0]}` (from app-state.ts) is used here besides the state-changed handler, "
            f"and {wiring(ctx)} has no such schema; remove that use, or keep the earlier wiring with --bridge",
        )
