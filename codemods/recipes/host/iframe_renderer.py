"""mcp-app-renderer.tsx: the iframe renderer passes appState to the bridge."""

from __future__ import annotations

from ...engine.editor import FileEditor
from ..base import Context
from .common import PROP_MEMBERS, PROP_NAMES

PATH = "apps/mesh/src/mcp-apps/mcp-app-renderer.tsx"


def transform(ed: FileEditor, ctx: Context) -> None:
    ed.ensure_members(ed.interface("MCPAppRendererProps"), PROP_MEMBERS)
    renderer = ed.function("MCPAppRenderer")
    ed.ensure_list_items(ed.props_pattern(renderer), PROP_NAMES)
    bridge_call = ed.call(renderer, "useAppBridge", "`MCPAppRenderer`")
    ed.ensure_list_items(ed.object_argument(bridge_call), PROP_NAMES)
