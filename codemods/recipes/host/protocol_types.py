"""mcp-apps/types.ts: where mesh keeps the protocol's types, compat mode's
schema of state-changed (SPEC 4, "types.ts").

compat mode registers the notification with a zod schema of its own, in
the form of the installed SDK's major version: the whole notification for
1.x's ``setNotificationHandler(schema, handler)``, its params for 2.x's
``setNotificationHandler(method, { params }, handler)``. A report without
``state`` fails ``z.json()``, so the SDK drops it before the handler runs.
sdk mode needs no schema: another wiring's goes, with its ``zod`` import,
once nothing else imports it.
"""

from __future__ import annotations

from ...engine.editor import FileEditor
from ...engine.outcome import Conflict, NotApplicable
from ...engine.statements import Statement, as_form, statement
from ..base import Bridge, Context
from .common import fill
from .roles import candidates, imported

PATH = "apps/mesh/src/mcp-apps/types.ts"
# What only this file defines: how it is found where the team moved it.
DEFINES = "export function getUIResourceUri("
# The wirings' labels (bridge_wiring.COMPAT_1X, COMPAT_2X) -> their schema.
NOTIFICATION, PARAMS = "StateChangedNotificationSchema", "StateChangedParamsSchema"

_NOTIFICATION = """
// `{{method}}`: the app reports the state it shows, any
// JSON value (`null` for its initial view). A report without a state is
// malformed and ignored.
export const StateChangedNotificationSchema = z.object({
  method: z.literal("{{method}}"),
  params: z.object({ state: z.json() }),
});
"""

_PARAMS = """
// The params of `{{method}}`: the app reports the state it
// shows, any JSON value (`null` for its initial view). A report without a
// state is malformed and ignored.
export const StateChangedParamsSchema = z.object({ state: z.json() });
"""


def schemas() -> dict[str, Statement]:
    """Each compat form's schema, by the name the bridge store imports."""
    return {NOTIFICATION: statement(fill(_NOTIFICATION)), PARAMS: statement(fill(_PARAMS))}


def wiring_label(ctx: Context) -> str:
    return "sdk mode" if ctx.bridge is Bridge.SDK else f"compat mode, {ctx.form} form"


def wanted(ctx: Context) -> str:
    """The schema this run's wiring imports ("" in sdk mode)."""
    if ctx.bridge is Bridge.SDK:
        return ""
    return PARAMS if ctx.form == "2.x" else NOTIFICATION


def importers(ctx: Context, name: str, path: str) -> list[str]:
    """The files of the checkout besides the bridge store (which this run
    rewrites) that import ``name`` from this file at ``path``."""
    store = ctx.at("apps/mesh/src/mcp-apps/use-app-bridge.ts")
    return [
        file for file, f in candidates(ctx.repo, name)
        if file not in (path, store) and name in imported(f, path).values()
    ]


def transform(ed: FileEditor, ctx: Context) -> None:
    name = wanted(ctx)
    root = ed.source.root
    for other, schema in schemas().items():
        if other == name or ed.find_statement(root, schema) is None:
            continue
        users = importers(ctx, other, ed.path)
        if users:
            ed.note(f"kept `{other}`, which only the earlier wiring used: {', '.join(users)} import it")
            continue
        ed.retire_statement(root, as_form(schema._replace(label=f"the schema `{other}`"), "migrate"))
    if not name:
        ed.drop_unused_imports("zod", ["z"], "only the earlier wiring's schema used it")
        if not ed.edits:
            raise NotApplicable(f"{wiring_label(ctx)} registers no schema of its own")
        return
    if ed.imported_name("zod", "z", package=True) is None and ed.namespace_import("zod", package=True) != "z":
        if ed.namespace_import("zod", package=True) is not None:
            raise Conflict(ed.path, "imports zod under another name than `z`: import `z` from it, or add the schema by hand")
        ed.ensure_import("zod", ["z"])
    ed.ensure_statements_at_end(root, [schemas()[name]], spaced=True)
