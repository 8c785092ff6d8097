"""The feature's names, in one table for both halves (SPEC 6 and 10).

The SDK recipes write these names into ext-apps, and the host recipes wire
mesh to them. A run takes its table from its context (`Context.names`), so
the names the SDK's maintainers settle on are one change here (or a
`[names]` table for one run), and both halves regenerate from it.

Text the tool inserts spells a name of the table as a hole, `{{field}}`
(`{{sender}}`, `{{context_field}}`, `{{Term}}` for the prose term with a
capital), filled by :func:`fill`; no template spells a name by hand.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Names(NamedTuple):
    """The protocol's names and the SDK API names derived from them, after
    the SDK's own pattern (size-changed: ``sizechange`` /
    ``onsizechange`` / ``sendSizeChanged``), and the prose term the
    headings and docs use."""

    method: str  # the JSON-RPC notification method
    notification_type: str  # its interface in spec.types.ts
    method_constant: str  # the constant beside SIZE_CHANGED_METHOD
    context_field: str  # the host context field
    capability: str  # the member of McpUiHostCapabilities
    event: str  # the event-map key (addEventListener)
    accessor: str  # the 1.x on* accessor (shapes A and B only)
    sender: str  # the App method that sends it
    term: str  # the prose term, lower case ("app state")

    @property
    def schema(self) -> str:
        """The zod schema the generator makes of the notification's type."""
        return f"{self.notification_type}Schema"

    def holes(self) -> dict[str, str]:
        """What each hole of a template is filled with."""
        return {**self._asdict(), "schema": self.schema, "Term": self.term[:1].upper() + self.term[1:],
                "Term_title": self.term.title()}


# The seed's names: the ones the host half shipped with.
NAMES = Names(
    method="ui/notifications/state-changed",
    notification_type="McpUiStateChangedNotification",
    method_constant="STATE_CHANGED_METHOD",
    context_field="appState",
    capability="appState",
    event="statechange",
    accessor="onstatechange",
    sender="sendStateChanged",
    term="app state",
)

# The names the discussion for ext-apps #465 recommends: the SDK's prose
# says "View", and "app state" already names model context in its docs.
RECOMMENDED = Names(
    method="ui/notifications/view-state-changed",
    notification_type="McpUiViewStateChangedNotification",
    method_constant="VIEW_STATE_CHANGED_METHOD",
    context_field="viewState",
    capability="viewState",
    event="viewstatechange",
    accessor="onviewstatechange",
    sender="sendViewStateChanged",
    term="view state",
)

_HOLE = re.compile(r"\{\{(\w+)\}\}")


def fill(template: str, names: Names, **more: str) -> str:
    """``template`` with each ``{{hole}}`` filled from ``names`` (its fields,
    ``schema``, ``Term``, ``Term_title``) or ``more``; a hole neither
    fills is an error, so a template cannot ship with one open."""
    values = {**names.holes(), **more}

    def hole(match: re.Match[str]) -> str:
        if match.group(1) not in values:
            raise KeyError(f"no value for the hole {match.group(0)}")
        return values[match.group(1)]

    return _HOLE.sub(hole, template)
