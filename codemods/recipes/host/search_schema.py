"""index.tsx: the unified chat route accepts the appState search param.

``.catch(undefined)``: a malformed value is dropped, never an error screen.
"""

from __future__ import annotations

from ...engine.editor import FileEditor, Item
from ..base import Context

PATH = "apps/mesh/src/web/index.tsx"
SCHEMA = "unifiedChatSearchSchema"


def transform(ed: FileEditor, ctx: Context) -> None:
    schema = ed.variable(SCHEMA)
    shape = ed.object_argument(
        ed.expect_call(schema.child_by_field_name("value"), f"`{SCHEMA} = z.object({{...}})`")
    )
    ed.ensure_list_items(shape, [Item("appState", "appState: z.string().optional().catch(undefined)")])
