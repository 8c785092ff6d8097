"""use-app-bridge.ts: the bridge store carries appState both ways.

The store keeps two facts per app: what it shows now, and its slot in the
last location. It hands the app its slot in the ``ui/initialize`` host
context (built by a method of its own around ``buildHostContext``, which
keeps the state the bridge holds in every later context), hears
``ui/notifications/state-changed`` (bridge_wiring), and pushes a slot that
a navigation moving in the history changed (the Navigation API tells; the
apps' own writes replace the entry) to the app, unless it shows it already.

0.6.0's members, statements, parameter and imports that this release no
longer writes are removed while they are as 0.6.0 wrote them (an edited
one is refused, named): its forms sit beside the current snippets.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from functools import cache

from tree_sitter import Node

from ...engine.editor import FileEditor
from ...engine.find import squash
from ...engine.outcome import AnchorMissing, Conflict
from ...engine.statements import Form, FormChange, Item, Statement, code_of, form, statement
from ..base import Context, Notice
from ..names import KNOWN, Names
from . import bridge_role, bridge_wiring, by_other_hands
from .capability import ensure_capability
from .bridge_wiring import MEMBERS, SCHEMAS, wiring
from .common import (
    FLOOR,
    MODULE_PATH,
    PROP_MEMBERS,
    earlier_import,
    ensure_import_like_neighbours,
    fill,
    folder_import,
    fragment_statements,
    import_of,
)
from .protocol_types import PATH as TYPES_PATH

PATH = "apps/mesh/src/mcp-apps/use-app-bridge.ts"
# What only the bridge store defines: how it is found where the team moved
# it; else by what it does (bridge_role.ROLE).
DEFINES = f"function {bridge_role.HOST_CONTEXT}("
ROLE = bridge_role.ROLE

# Page-wide, beside the theme observer: apps hear a slot that the page's last
# navigation moving in the history changed.
NAVIGATION = statement(
    """
    // The page's last navigation to another history entry (a link,
    // back/forward; writes of the apps' states replace the entry), with its
    // appState param. Without the Navigation API there is none: apps restore
    // their state on load only.
    let lastNavigation: { param: string | null } | undefined;
    function onNavigation(event: Event) {
      const { navigationType, target } = event as Event & {
        navigationType?: string;
        target: { currentEntry: { url: string } };
      };
      if (navigationType === "replace") return;
      const { searchParams } = new URL(target.currentEntry.url);
      lastNavigation = { param: searchParams.get(APP_STATE_PARAM) };
    }
    """
)
LISTEN = statement(
    """
    (globalThis as { navigation?: EventTarget }).navigation?.addEventListener(
      "currententrychange",
      onNavigation,
    );
    """,
    role='$N.navigation?.addEventListener("currententrychange", $H)',
)

SHOWN_FIELD = """
// What the app shows now, (as JSON) its slot in the last location, the state
// in the context the bridge holds, and the last navigation it heard.
private shownAppState: unknown;
"""
LAST_FIELD = "private lastAppState: string | undefined;"
CONTEXT_FIELD = "private contextAppState: unknown;"
HEARD_FIELD = "private heardNavigation: typeof lastNavigation;"

# attach(): what the app starts from, before the context is built; it hears
# only the navigations after it.
STARTING = [
    statement("this.shownAppState = appState;", role="this.shownAppState = appState", names=MEMBERS),
    statement("this.contextAppState = appState;", role="this.contextAppState = appState", names=MEMBERS),
    statement(
        "this.lastAppState = JSON.stringify(appState ?? null);",
        role="this.lastAppState = JSON.stringify(appState ?? null)",
        names=MEMBERS,
    ),
    statement("this.heardNavigation = lastNavigation;", role="this.heardNavigation = lastNavigation", names=MEMBERS),
]

# updateConfig(), last: the push decision (fragments/push.ts). The state
# goes into the context the bridge holds unless it holds it already, so an
# app that initializes again over the bridge starts from it too.
_PUSH = fragment_statements("push.ts")
# 0.7.0 sent a pushed state to a live app alone: the context the bridge
# held kept the state it started from.
_PUSH_070 = """
    if (this.snapshot.isLoading) {
      this.contextAppState = this.shownAppState;
      this.pushHostContext();
    } else {
      this.bridge.sendHostContextChange({ {{context_field}}: this.shownAppState });
    }
    """

# Where the team's own builder puts the state in the context, a loading
# app starts from what that builder reads.
_PUSH_TEAMS_CONTEXT = """
    if (this.snapshot.isLoading) {
      this.pushHostContext();
    } else {
      this.bridge.sendHostContextChange({ {{context_field}}: this.shownAppState });
    }
    """


@cache
def push_statements(config: str, names: Names, own_context: bool = True) -> list[Statement]:
    """The push decision's statements, ``config`` being the name of the
    parameter of ``updateConfig()``; where the team's builder puts the state
    in the context, a loading app starts from what it reads."""
    def texts(names: Names) -> list[str]:
        found = [fill(text, names).replace("config.", f"{config}.") for text in _PUSH]
        if not own_context:
            found[-1] = fill(_PUSH_TEAMS_CONTEXT, names)
        return found

    def was(names: Names) -> str:  # 0.7.0's last statement
        return fill(_PUSH_070 if own_context else _PUSH_TEAMS_CONTEXT, names)

    wanted = texts(names)
    # what another name set wrote (the SDK's names changed): a migration
    others = [texts(other) for other in KNOWN if other != names]
    last = len(wanted) - 1
    return [statement(wanted[0], names=MEMBERS)] + [
        statement(t, role=t, names=MEMBERS, earlier=[
            form(f"the push of `{other.context_field}`", o[i], o[i], kind="migrate", names=MEMBERS)
            for other, o in zip((k for k in KNOWN if k != names), others) if o[i] != t
        ] + [
            form(f"0.7.0, the push of `{n.context_field}`", was(n), was(n), kind="upgrade" if n == names else "migrate",
                 names=MEMBERS)
            for n in KNOWN if i == last and was(n) != t
        ])
        for i, t in enumerate(wanted) if i
    ]


HOST_CONTEXT = """
/** The host context, with the state the app starts from (never resent). */
private hostContext(){returns} {{
{moved}  const {field} = this.contextAppState;
  return {{
    ...{call},
    ...({field} !== undefined && {{ {field} }}),
  }};
}}
"""

# ---- what 0.6.0 wrote and this release does not ----

_060 = f"{FLOOR}, the bridge store"
_NAMES_060 = frozenset(
    {"this.appStateJson", "this.bridgeAppState", "this.pushAppState", "this.urlAppStateJson", "this.reportedAppStates"}
)
PARAMETER_060 = Form(f"{_060}'s `appState` parameter of buildHostContext", "appState?: unknown")
SPREAD_060 = Form(f"{_060}'s `appState` in buildHostContext", "...(appState !== undefined && { appState })")
# Found by what they set, whatever the value (another value is an edit;
# each its own metavariable, since a match binds it for the file).
STARTING_060 = [
    form(_060, "this.bridgeAppState = appState;", "this.bridgeAppState = $BRIDGE_STATE"),
    form(_060, "this.appStateJson = JSON.stringify(appState);", "this.appStateJson = $STATE_JSON"),
    form(_060, "this.urlAppStateJson = this.appStateJson;", "this.urlAppStateJson = $URL_JSON"),
    form(_060, "this.reportedAppStates = [];", "this.reportedAppStates = $REPORTED"),
    form(
        f"{_060}'s capability",
        """
        // Rule 8: a site that keeps state says so, with the largest state it keeps
        // (bytes of JSON text; whatever the app's key, it fits the URL's cap).
        const appStateCapability = this.config.onAppStateChange
          ? { appState: { maxLength: 1024 } }
          : {};
        """,
    ),
]
FOLLOW_060 = form(_060, "this.followUrlAppState();", "this.followUrlAppState()")
MEMBERS_060 = {
    "appStateJson": """
        // Serialized state the app currently has: compare by value, not identity.
        private appStateJson: string | undefined;
        """,
    "bridgeAppState": """
        // The state in the context the bridge holds and answers ui/initialize with.
        private bridgeAppState: unknown;
        """,
    "urlAppStateJson": """
        // The app's slot as the URL last held it, and the app's reports the URL has
        // yet to show (its echo is not a navigation), serialized.
        private urlAppStateJson: string | undefined;
        """,
    "reportedAppStates": "private reportedAppStates: (string | undefined)[] = [];",
    "pushAppState": """
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
        """,
    "followUrlAppState": """
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
        """,
    "reportAppState": """
        // What the app reports it shows: the render site keeps it in the URL, and
        // the URL's echo of it is never pushed back.
        private reportAppState(state: unknown) {
          const json = JSON.stringify(state);
          this.appStateJson = json;
          if (!this.config.onAppStateChange) return;
          if (json !== this.urlAppStateJson) this.reportedAppStates.push(json);
          this.config.onAppStateChange(state);
        }
        """,
}


def transform(ed: FileEditor, ctx: Context) -> None:
    # The store by role (bridge_role): its class, its interfaces and the
    # host context's builder, whatever the team named them or wherever it
    # moved the builder.
    build_name, build = bridge_role.host_context(ed)
    store, name = bridge_role.store_class(ed)
    dropped = _without_060_parameter(ed, build) if build is not None else None

    for interface in dict.fromkeys((bridge_role.config_interface(ed, store, name), bridge_role.options_interface(ed, name))):
        ed.ensure_members(ed.interface(interface), PROP_MEMBERS)
    # Exported for its tests (use-app-bridge.test.ts).
    if store.parent is None or store.parent.type != "export_statement":
        ed.edits.insert(store.start_byte, "export ")

    for member, text in MEMBERS_060.items():
        ed.retire_member(store, member, Form(f"{_060}'s `{member}`", text))
    # The team's builder puts the state in the context itself: the store
    # keeps no context state of its own, and the builder's calls stay.
    field = ctx.names.context_field
    teams = by_other_hands.context_entry(ed, build, field) if build is not None and dropped is None else None
    if teams is not None:
        ed.note(Notice(f"mesh puts {field} in the host context itself at {ed.path}:{teams.start_point[0] + 1}: kept as it is"))
    own = teams is None
    _navigation(ed, store)
    # The statements found first, inserted last: a field the team renamed is
    # known by the name the statements that are there give it.
    if own:
        _host_context(ed, store, name, build_name, build, dropped, ctx.names)
    _attach(ed, store, name, build_name, dropped, ctx, own)
    _push(ed, store, ctx.names, own)
    _fields(ed, store, own)

    # The team hears state-changed itself: no second registration, and no
    # schema imported for one.
    team = by_other_hands.teams(ed, ctx.repo, ctx.names)
    if team is not None:
        ed.note(by_other_hands.handled_by_the_team(ed, team, ctx))
        # the push decision still reads the format
        ensure_import_like_neighbours(ed, ctx, MODULE_PATH, ["APP_STATE_PARAM", "readAppState"], alias=False)
        return
    # Heard in any method of the store (a helper that registerHandlers
    # calls, say); the size handler is needed only to add it.
    handlers = ed.body(ed.method(store, "registerHandlers"))
    try:
        wanted = bridge_wiring.handler(ctx, ed.path)
    except Conflict as conflict:  # named at the store's file, wherever it is
        raise type(conflict)(ed.path, conflict.reason) from None
    _not_an_edited_form(ed, store, wanted)
    ed.ensure_statements_after(
        lambda: ed.statement(
            handlers, lambda s: s.startswith("bridge.onsizechange="), "`bridge.onsizechange = ...` in `registerHandlers()`"
        ),
        [wanted],
        block=handlers,
        scope=store,
    )
    _schema_import(ed, ctx)


def _not_an_edited_form(ed: FileEditor, store: Node, wanted: Statement) -> None:
    """A registration of state-changed that is neither the run's handler nor
    one of its earlier forms as written, but nearer to an earlier form than
    to the run's (the tool's handler, someone edited since), would be kept
    where this release rewrites what it calls: refused, named. One nearer
    to the run's handler is the team's edit of it: kept."""
    for role in wanted.alike:
        node = ed.find_role(store, role)
        if node is None:
            continue
        if ed.same_code(node, wanted.snippet, wanted.names) or any(
            ed.same_code(node, was.snippet, was.names, comments=True) for was in wanted.earlier
        ):
            return
        text = squash(ed.text(node))
        nearest = max((wanted, *wanted.earlier), key=lambda f: SequenceMatcher(None, text, squash(code_of(f.snippet)), autojunk=False).ratio())
        # the tool's handler reaches the site's callback (0.6.0's through a method of its own)
        if nearest is wanted or not any(name in text for name in ("onAppStateChange", "reportAppState")):
            return
        if ed.merge_statement(node, nearest, wanted):  # the edits merge with the change
            return
        first, last = node.start_point[0] + 1, node.end_point[0] + 1
        raise Conflict(
            ed.path,
            f"{ed.path} lines {first}-{last} hold {nearest.label}, changed since mesh-codemod wrote it: "
            f"not replaced with this release's {wanted.label}; restore the written form or make the change by hand",
        )


def _without_060_parameter(ed: FileEditor, build: Node) -> int | None:
    """0.6.0's `appState` parameter of ``buildHostContext`` and its spread
    into the context, removed: the index of the parameter (the calls'
    argument there goes too), None when it was not there."""
    params = ed.parameters(build)
    entries = ed.entries(params)
    index = next((i for i, p in enumerate(entries) if ed.item_key(p) == "appState"), None)
    if index is None or not ed.retire_list_item(params, PARAMETER_060):
        return None
    returned = ed.statement(ed.body(build), lambda s: s.startswith("return{"), "the object returned by `buildHostContext`")
    ed.retire_list_item(returned.named_children[0], SPREAD_060)
    return index


def _fields(ed: FileEditor, store: Node, own_context: bool) -> None:
    def unsub_theme():
        return ed.class_member(store, "unsubTheme")

    ed.ensure_class_member(store, "shownAppState", SHOWN_FIELD, after=unsub_theme, names=MEMBERS)
    shown = ed.class_members(store, ed.member_name("shownAppState"))
    ed.ensure_class_member(store, "lastAppState", LAST_FIELD, after=lambda: shown[0] if shown else unsub_theme(), names=MEMBERS)
    last = ed.class_members(store, ed.member_name("lastAppState"))
    if own_context:
        ed.ensure_class_member(
            store, "contextAppState", CONTEXT_FIELD, after=lambda: (last or shown)[0] if last or shown else unsub_theme(),
            names=MEMBERS,
        )
    context = ed.class_members(store, ed.member_name("contextAppState")) if own_context else []
    ed.ensure_class_member(
        store, "heardNavigation", HEARD_FIELD,
        after=lambda: (context or last or shown)[0] if context or last or shown else unsub_theme(), names=MEMBERS,
    )


def _navigation(ed: FileEditor, store: Node) -> None:
    """The page's navigation flag after the theme observer's subscription
    (the function ``attach()`` subscribes with), else right before the
    store; ``attach()`` listens for it after subscribing."""
    attach = ed.method(store, "attach")
    subscribed = [
        n for n in ed.walk(attach)
        if n.type == "assignment_expression" and squash(ed.text(n.child_by_field_name("left"))) == "this.unsubTheme"
    ]
    call = subscribed[0].child_by_field_name("right") if subscribed else None
    subscribe = ed.text(call.child_by_field_name("function")) if call is not None and call.type == "call_expression" else ""
    root = ed.source.root
    functions = [n for n in root.named_children if n.type == "function_declaration" and ed.name_of(n) == subscribe]
    top = store.parent if store.parent is not None and store.parent.type == "export_statement" else store
    ed.ensure_statements_after(
        lambda: functions[0] if functions else top.prev_named_sibling, [NAVIGATION], block=root, spaced=True
    )

    def subscription() -> Node:  # needed only where the listener is missing
        if not subscribed:
            raise AnchorMissing(ed.path, "`this.unsubTheme = ...` in `attach()`, to listen for navigations after it")
        return ed.enclosing_statement(subscribed[0])

    block = subscription().parent if subscribed else ed.body(attach)
    ed.ensure_statements_after(subscription, [LISTEN], block=block, scope=attach)


def _push(ed: FileEditor, store: Node, names: Names, own_context: bool) -> None:
    """The push decision, last in ``updateConfig(config)``; 0.6.0's call of
    its own method goes."""
    update = ed.method(store, "updateConfig")
    body = ed.body(update)
    ed.retire_statement(body, FOLLOW_060)
    params = ed.entries(ed.parameters(update))
    parameter = params[0].child_by_field_name("pattern") if params else None
    if parameter is None or parameter.type != "identifier":
        raise AnchorMissing(ed.path, "the config parameter of `updateConfig`")
    ed.ensure_statements_at_end(body, push_statements(ed.text(parameter), names, own_context), spaced=True)


def _host_context(
    ed: FileEditor, store: Node, name: str, build_name: str, build: Node | None, dropped: int | None, names: Names
) -> None:
    """``pushHostContext()`` sets the context ``hostContext()`` builds: the
    builder's result, with the state the bridge holds (rule 5: a theme or
    display-mode push neither resends it nor drops it from the context the
    bridge keeps). What the builder's call needed of ``pushHostContext()``
    (its config read) moves with it."""
    push = ed.method(store, "pushHostContext")
    body = ed.body(push)
    calls = ed.calls(push, build_name)
    written = ed.class_members(store, ed.member_name("hostContext"))
    if written:
        _rename_context_field(ed, written[0], names)
    if written or not calls:
        return
    call = calls[0]
    setter = ed.enclosing_statement(call)
    if setter.parent is None or setter.parent.id != body.id:
        raise AnchorMissing(ed.path, f"the statement of `pushHostContext()` of `{name}` that calls `{build_name}`")
    arguments = [a for i, a in enumerate(ed.entries(call.child_by_field_name("arguments"))) if i != dropped]
    used = {ed.text(n) for a in arguments for n in ed.walk(a) if n.type == "identifier"}
    # a comment among the arguments (in either call the method replaces) goes with them
    commented = [c for c in (call, *ed.calls(ed.method(store, "attach"), build_name)) if _has_comment(ed, c)]
    text = f"{build_name}({', '.join(ed.text(a) for a in arguments)})"
    if commented and dropped is None:
        text = ed.text(commented[0])
    moved = [
        s for s in ed.entries(body)
        if s.id != setter.id and s.type == "lexical_declaration" and _bound(ed, s) and _bound(ed, s) <= used
        and not _used_outside(ed, body, s, setter, _bound(ed, s))
    ]
    returns = build.child_by_field_name("return_type") if build is not None else None
    method = HOST_CONTEXT.format(
        returns=ed.text(returns) if returns is not None else "",
        moved="".join(f"  {ed.text(s)}\n" for s in moved),
        field=names.context_field,
        call=text,
    )
    ed.ensure_class_member(store, "hostContext", method, after=push, spaced=True, names=MEMBERS)
    for statement_ in moved:
        ed.remove_lines(statement_, statement_)
    callee = setter.named_children[0].child_by_field_name("function") if setter.named_children else None
    if callee is None or setter.named_children[0].type != "call_expression":
        raise AnchorMissing(ed.path, f"`this.bridge.setHostContext({build_name}(...))` in `pushHostContext()`")
    call = setter.named_children[0]  # the statement keeps its own `;`, or none
    ed.edits.replace(call.start_byte, call.end_byte, f"{ed.text(callee)}(this.{ed.member_name('hostContext')}())")


def _rename_context_field(ed: FileEditor, member: Node, names: Names) -> None:
    """``hostContext()`` as written under another name set's context field
    (``const appState = this.contextAppState`` and its ``{ appState }``):
    the field becomes the run's, a migration."""
    for other in KNOWN:
        old = other.context_field
        if old == names.context_field or ed.find_role(member, f"const {old} = this.contextAppState", MEMBERS) is None:
            continue
        nodes = [
            n for n in ed.walk(member)
            if n.type in {"identifier", "shorthand_property_identifier"} and ed.text(n) == old
        ]
        for node in nodes:
            ed.edits.replace(node.start_byte, node.end_byte, names.context_field)
        first, last = member.start_point[0] + 1, member.end_point[0] + 1
        ed.form_changes.append(
            FormChange("migrate", f"lines {first}-{last}", f"`{old}` in the host context", f"`{names.context_field}`")
        )
        return


def _has_comment(ed: FileEditor, node: Node) -> bool:
    return any(n.type == "comment" for n in ed.walk(node))


def _bound(ed: FileEditor, declaration: Node) -> set[str]:
    names = set()
    for declarator in ed.entries(declaration):
        if declarator.type == "variable_declarator":
            names |= ed.bound_names(declarator)
    return names


def _used_outside(ed: FileEditor, scope: Node, declaration: Node, inside: Node, names: set[str]) -> bool:
    """Whether ``scope`` uses one of ``names`` outside ``declaration`` and
    ``inside`` (and what earlier forms' removal takes away)."""
    skip = [declaration, inside]
    for node in ed.walk(scope):
        if node.type not in {"identifier", "shorthand_property_identifier"} or ed.text(node) not in names:
            continue
        if any(s.start_byte <= node.start_byte < s.end_byte for s in skip):
            continue
        if any(r.start <= node.start_byte < r.end for r in ed.edits if r.end > r.start):
            continue
        return True
    return False


def _attach(
    ed: FileEditor, store: Node, name: str, build_name: str, dropped: int | None, ctx: Context, own_context: bool
) -> None:
    """``attach()`` starts the app from its slot: the config read for it,
    the context from ``hostContext()``, the capability where the site
    keeps state; 0.6.0's statements for it go."""
    attach = ed.method(store, "attach")
    pattern = ed.destructuring_of(attach, "this.config", "client")
    declaration = ed.enclosing_statement(pattern)
    for was in STARTING_060:
        ed.retire_statement(declaration.parent, was)
    calls = ed.calls(attach, build_name) if own_context else []
    context = ed.enclosing_statement(calls[0]) if calls else None
    if not own_context:
        context = _building_host_context(ed, attach, build_name)
    elif calls:
        ed.edits.replace(calls[0].start_byte, calls[0].end_byte, f"this.{ed.member_name('hostContext')}()")
    else:
        context = _declaring_host_context(ed, attach)
    # the config read: what only the builder's call used goes, the state comes
    entries = ed.entries(pattern)
    gone = [
        e for e in entries
        if calls and e.type == "shorthand_property_identifier_pattern"
        and not _used_outside(ed, ed.body(attach), declaration, calls[0], {ed.text(e)})
    ]
    if any(c.type == "comment" for c in pattern.named_children):
        # the team's comments stay with the names they are about
        for entry in gone:
            ed.drop_list_item(pattern, entry)
        ed.ensure_list_items(pattern, [Item(n, n) for n in ("appState", "onAppStateChange")])
    else:
        kept = [ed.text(e) for e in entries if e not in gone]
        wanted = kept + [n for n in ("appState", "onAppStateChange") if n not in kept]
        if wanted != [ed.text(e) for e in entries]:
            value = declaration.named_children[0].child_by_field_name("value")
            text = f"{ed.text(declaration).split(' ', 1)[0]} {{ {', '.join(wanted)} }} = {ed.text(value)};"
            ed.edits.replace(declaration.start_byte, declaration.end_byte, ed.render(text, ed.source.indent_of(declaration)))
    ed.ensure_statements_after(declaration, [s for s in STARTING if own_context or "contextAppState" not in s.snippet])
    ensure_capability(ed, attach, context, name, ctx)


def _building_host_context(ed: FileEditor, attach: Node, build_name: str) -> Node:
    calls = ed.calls(attach, build_name)
    if not calls:
        raise AnchorMissing(ed.path, f"the host context built with `{build_name}(...)` in `attach()`")
    return ed.enclosing_statement(calls[0])


def _declaring_host_context(ed: FileEditor, attach: Node) -> Node:
    found = ed.find_role(ed.body(attach), "const $X = this.hostContext()", MEMBERS)
    if found is None:
        raise AnchorMissing(ed.path, "the host context built in `attach()`")
    return found


def _schema_import(ed: FileEditor, ctx: Context) -> None:
    """The schema the wiring registers, imported from where mesh keeps the
    protocol's types, after the format's import that the push decision
    reads; what only another wiring used goes, and so does 0.6.0's import
    of the schema from app-state.ts (first: the format's import replaces it)."""
    schema = SCHEMAS[wiring(ctx)]
    module, same = import_of(ed, ctx, MODULE_PATH, alias=False, anchor_suffix="./host-styles")
    for name in SCHEMAS.values():
        if name:
            ed.retire_statement(ed.source.root, earlier_import(f"{FLOOR}, the schema's import", [name], module))
    ensure_import_like_neighbours(ed, ctx, MODULE_PATH, ["APP_STATE_PARAM", "readAppState"], alias=False)
    if schema:
        ensure_import_like_neighbours(ed, ctx, TYPES_PATH, [schema], alias=False)
    ed.drop_unused_imports(module, [n for n in SCHEMAS.values() if n], "this release imports it from types.ts", same, moved=True)
    types, types_same, _anchor = folder_import(ed, ctx, TYPES_PATH, alias=False)
    unused = [n for n in SCHEMAS.values() if n and n != schema]
    still_used = ed.drop_unused_imports(types, unused, f"only the earlier wiring used it; now {wiring(ctx)}", types_same)
    if still_used:
        raise Conflict(
            ed.path,
            f"`{still_used[0]}` (from types.ts) is used here besides the state-changed handler, "
            f"and {wiring(ctx)} has no such schema; remove that use, or keep the earlier wiring with --bridge",
        )
