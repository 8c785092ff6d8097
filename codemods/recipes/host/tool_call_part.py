"""generic.tsx: the chat tool-call part keeps its app's state in the URL.

The part renders a local wrapper component that renders the iframe
renderer, so the two values are threaded through the wrapper's props.
"""

from __future__ import annotations

from ...engine.editor import FileEditor
from ...engine.statements import Item
from ..base import Context
from .common import (
    PROP_MEMBERS,
    PROP_NAMES,
    app_state_search,
    decode_statement,
    render_site_attributes,
    wire_render_site,
)

PATH = "apps/mesh/src/web/components/chat/message/parts/tool-call-part/generic.tsx"
WRAPPER = "MCPAppRenderer"

# Every part of a thread renders this component, most of them without an
# app: those select nothing, so a change of the URL never re-renders them
# (rule 7).
SEARCH = app_state_search(
    "\n    hasMCPApp && sourceId ? search.appState : undefined",
    "// Only a part that shows an app follows the param: a change of the URL\n"
    "// does not re-render the others.\n",
)

# The model-context source id is null without a connection: then there is no
# app key, no state and no navigation.
DECODE = decode_statement(
    "const appState = sourceId ? decodeAppState(sourceId, appStateParam) : undefined;",
)


def transform(ed: FileEditor, ctx: Context) -> None:
    body = ed.body(ed.function("GenericToolCallPart"))
    if not ed.has_statement(body, SEARCH):
        # The selector to add reads it: only a part that shows an app selects the param.
        ed.declaration_of(body, "hasMCPApp")
    part, iframe_renderer = wire_render_site(ed, "GenericToolCallPart", SEARCH, DECODE, key_may_be_null=True)
    ed.ensure_jsx_attributes(ed.jsx_element(part, WRAPPER, "`GenericToolCallPart`"), render_site_attributes(ed))

    wrapper = ed.function(WRAPPER)
    ed.ensure_members(ed.interface(f"{WRAPPER}Props"), PROP_MEMBERS)
    ed.ensure_list_items(ed.props_pattern(wrapper), PROP_NAMES)
    ed.ensure_jsx_attributes(
        ed.jsx_element(wrapper, iframe_renderer, f"the local `{WRAPPER}`"),
        [Item("appState", "appState={appState}"), Item("onAppStateChange", "onAppStateChange={onAppStateChange}")],
    )
