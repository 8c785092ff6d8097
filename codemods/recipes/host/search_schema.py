"""index.tsx: the unified chat route accepts the appState search param.

``.catch(undefined)``: a malformed value is dropped, never an error screen.
"""

from __future__ import annotations

from ...engine.editor import FileEditor
from ...engine.statements import FormChange, Item
from ...engine.find import squash
from ...engine.outcome import AnchorMissing
from ..base import Context
from .common import MODULE_PATH, import_of

PATH = "apps/mesh/src/web/index.tsx"
SCHEMA = "unifiedChatSearchSchema"
VALUE = "z.string().optional().catch(undefined)"
# The key is the constant the hook and the module use (SPEC 2).
ENTRY = Item("[APP_STATE_PARAM]", f"[APP_STATE_PARAM]: {VALUE}")


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
    for entry in ed.entries(shape):
        # 0.1.0 to 0.4.0 spelled the key out; it is the module's constant now.
        if entry.type == "pair" and squash(ed.text(entry)) == squash(f"appState: {VALUE}"):
            ed.edits.replace(entry.start_byte, entry.end_byte, ENTRY.text)
            ed.form_changes.append(
                FormChange("upgrade", f"line {entry.start_point[0] + 1}", "0.1.0 to 0.4.0 (`appState:`)", "0.5.0")
            )
            break
    else:
        if not any(ed.item_key(entry) == "appState" for entry in ed.entries(shape)):
            ed.ensure_list_items(shape, [ENTRY])
    module, same = import_of(ed, ctx, MODULE_PATH, alias=True)
    ed.ensure_import(module, ["APP_STATE_PARAM"], same=same)
