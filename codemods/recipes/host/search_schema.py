"""index.tsx: the unified chat route accepts the appState search param.

``.catch(undefined)``: a malformed value is dropped, never an error screen.
"""

from __future__ import annotations

from ...engine.editor import FileEditor
from ...engine.statements import Item
from ...engine.outcome import AnchorMissing
from ..base import Context

PATH = "apps/mesh/src/web/index.tsx"
SCHEMA = "unifiedChatSearchSchema"


def transform(ed: FileEditor, ctx: Context) -> None:
    if not ed.variables(SCHEMA):
        raise AnchorMissing(
            ed.path,
            f"`const {SCHEMA} = z.object({{...}})`, the unified chat route's search schema",
            "mesh has it since 2026-04-21; older revisions are not supported",
        )
    value = ed.variable(SCHEMA).child_by_field_name("value")
    callee = value.child_by_field_name("function") if value is not None and value.type == "call_expression" else None
    if callee is None or not ed.text(callee).endswith(".object"):
        found = ed.text(value).split("(")[0] + "(...)" if value is not None else "nothing"
        raise AnchorMissing(ed.path, f"`{SCHEMA} = z.object({{...}})` (it is `{SCHEMA} = {found}`)")
    shape = ed.object_argument(value)
    ed.ensure_list_items(shape, [Item("appState", "appState: z.string().optional().catch(undefined)")])
