"""use-app-bridge.ts: the bridge store carries appState both ways.

It puts the state into the ``ui/initialize`` host context, hears
``ui/notifications/state-changed`` (SPEC section 5), and pushes a state that
changed in the URL from outside to the mounted app (SPEC section 3, rule 3).
"""

from __future__ import annotations

from ...engine.editor import FileEditor, Item
from ...engine.outcome import Conflict
from ..base import Bridge, Context
from .common import PROP_MEMBERS, module_like

PATH = "apps/mesh/src/mcp-apps/use-app-bridge.ts"

APP_STATE_FIELD = """
// Serialized state the app currently has: compare by value, not identity.
private appStateJson: string | undefined;
"""

# The app already shows what it was initialized with.
REMEMBER_INITIAL = (
    "this.appStateJson = JSON.stringify(appState)",
    "this.appStateJson = JSON.stringify(appState);",
)

# A handler for a bridge that has since been replaced or torn down must not
# touch the store (rule 4).
SDK_HANDLER = (
    "bridge.onappstatechange =",
    """
    bridge.onappstatechange = ({ state }) => {
      if (this.disposed || this.bridge !== bridge) return;
      this.appStateJson = JSON.stringify(state);
      this.config.onAppStateChange?.(state);
    };
    """,
)
COMPAT_HANDLER = (
    "bridge.setNotificationHandler(StateChangedNotificationSchema",
    """
    bridge.setNotificationHandler(
      StateChangedNotificationSchema,
      ({ params }) => {
        if (this.disposed || this.bridge !== bridge) return;
        this.appStateJson = JSON.stringify(params.state);
        this.config.onAppStateChange?.(params.state);
      },
    );
    """,
)

# Rule 3: the URL changed from outside (a deep link, back/forward). The state
# is decoded anew on every render, so compare serialized values; what the app
# itself just reported is already in appStateJson and is not echoed back.
PUSH_URL_STATE = [
    (
        "const appStateJson = JSON.stringify(config.appState)",
        """
        // A state that reached the URL from outside (deep link, back/forward)
        // goes to the app; one the app just reported is never echoed back.
        const appStateJson = JSON.stringify(config.appState);
        """,
    ),
    (
        "this.bridge.sendHostContextChange({ appState: config.appState })",
        """
        if (config.appState !== undefined && appStateJson !== this.appStateJson) {
          this.appStateJson = appStateJson;
          this.bridge.sendHostContextChange({ appState: config.appState });
        }
        """,
    ),
]


def transform(ed: FileEditor, ctx: Context) -> None:
    if ctx.bridge is Bridge.COMPAT:
        ed.ensure_import(
            module_like(ed, "./host-styles", "./app-state", ".ts"),
            ["StateChangedNotificationSchema"],
            after_module_suffix="host-styles",
        )

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
    ed.ensure_class_member(
        store, "appStateJson", APP_STATE_FIELD, after=ed.class_member(store, "unsubTheme")
    )

    attach = ed.method(store, "attach")
    config_pattern = ed.destructuring_of(attach, "this.config", "client")
    ed.ensure_list_items(config_pattern, [Item("appState", "appState")])
    build_call = ed.call(attach, "buildHostContext", "`attach()` of `BridgeStore`")
    ed.ensure_list_items(build_call.child_by_field_name("arguments"), [Item("appState", "appState")])
    ed.ensure_statements_after(ed.enclosing_statement(build_call), [REMEMBER_INITIAL])

    handlers = ed.body(ed.method(store, "registerHandlers"))
    wanted, other = (SDK_HANDLER, COMPAT_HANDLER) if ctx.bridge is Bridge.SDK else (COMPAT_HANDLER, SDK_HANDLER)
    if ed.has_statement(handlers, other[0]) and not ed.has_statement(handlers, wanted[0]):
        raise Conflict(
            ed.path,
            f"state-changed is already wired in {'compat' if ctx.bridge is Bridge.SDK else 'sdk'} mode; "
            f"run with --bridge {'compat' if ctx.bridge is Bridge.SDK else 'sdk'} or revert it first",
        )
    size_handler = ed.statement(
        handlers, lambda s: s.startswith("bridge.onsizechange="), "`bridge.onsizechange = ...` in `registerHandlers()`"
    )
    ed.ensure_statements_after(size_handler, [wanted])

    ed.ensure_statements_at_end(ed.body(ed.method(store, "updateConfig")), PUSH_URL_STATE)
