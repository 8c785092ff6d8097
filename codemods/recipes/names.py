"""The feature's names, in one table for both halves.

The SDK recipes write these names into ext-apps, and the host recipes wire
mesh to them. A rename that the SDK's maintainers ask for is a change of
one line here (and a release, since the generated code changes).
"""

from __future__ import annotations

from typing import NamedTuple


class Names(NamedTuple):
    """The protocol's names and the SDK API names derived from them, after
    the SDK's own pattern (size-changed: ``sizechange`` /
    ``onsizechange`` / ``sendSizeChanged``)."""

    method: str  # the JSON-RPC notification method
    notification_type: str  # its interface in spec.types.ts
    method_constant: str  # the constant beside SIZE_CHANGED_METHOD
    context_field: str  # the host context field (and the URL search param)
    capability: str  # the member of McpUiHostCapabilities
    event: str  # the event-map key (addEventListener)
    accessor: str  # the 1.x on* accessor (shapes A and B only)
    sender: str  # the App method that sends it


NAMES = Names(
    method="ui/notifications/state-changed",
    notification_type="McpUiStateChangedNotification",
    method_constant="STATE_CHANGED_METHOD",
    context_field="appState",
    capability="appState",
    event="statechange",
    accessor="onstatechange",
    sender="sendStateChanged",
)
