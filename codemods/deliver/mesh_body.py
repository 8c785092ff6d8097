"""The pull request to mesh, as mesh writes them (SPEC 4, last paragraph):
a title in its squash-merge convention (`<type>(mcp-apps): ...`), the body
in the checkout's `.github/pull_request_template.md` read from the base
commit (What / Screenshots / How to Test / Migration Notes / Checklist),
a manual test plan a reviewer can follow, every check of mesh's CI with
what did not run and why, the upstream proposal, and the tool's own
details in a collapsed block. A change whose checks failed leads with them
and the `skip` line that opts out of the steps they name (its PR is a
draft). Paths are code spans that nothing in them can end (`templates`).
The fingerprint is the body's last line."""

from __future__ import annotations

import json

from .. import __version__
from ..recipes.base import Bridge
from .templates import code, fill

TEMPLATE = ".github/pull_request_template.md"
PROPOSAL = "modelcontextprotocol/ext-apps#465"
PROPOSAL_URL = "https://github.com/modelcontextprotocol/ext-apps/issues/465"
RELEASED_SDKS = "1.7.1 and 2.0.4"

# mesh's template's sections, used where the base commit has none
SECTIONS = (
    "## What is this contribution about?",
    "## Screenshots/Demonstration",
    "## How to Test",
    "## Migration Notes",
    "## Review Checklist",
    "- [ ] PR title is clear and descriptive",
    "- [ ] Changes are tested and working",
    "- [ ] Documentation is updated (if needed)",
    "- [ ] No breaking changes",
)


def title(series) -> str:
    """`<type>(mcp-apps): ...` by the kind of change (`changeover.kind`)."""
    from ..plan import changeover

    plan = series.plan
    kind = changeover.kind(plan)
    if kind in (changeover.MIGRATION, changeover.BOTH):
        phrase = changeover.migration_phrase(plan)
        follow = changeover.following(plan)
        if follow and kind == changeover.MIGRATION:
            return f"refactor(mcp-apps): follow the SDK's {follow}"
        if kind == changeover.BOTH:
            return f"fix(mcp-apps): upgrade appState to mesh-codemod {__version__} and {phrase}"
        return f"refactor(mcp-apps): {phrase}"
    if kind == changeover.UPGRADE:
        return f"fix(mcp-apps): upgrade appState to mesh-codemod {__version__} (from {changeover.upgraded_from(plan)[0]})"
    if kind == changeover.COMPLETION:
        return "feat(mcp-apps): complete the appState deep links"
    return "feat(mcp-apps): keep each app's state in the URL (appState deep links)"


def render(
    series, report, introduction: list[str], reproduce: list[str], fingerprint: str, left_alone: list[str],
    not_run: str = "",
) -> str:
    """The body. ``introduction`` says what the change does, by its kind;
    ``reproduce`` (the commands and identity) goes in the collapsed block;
    ``left_alone``: the files a human decision keeps, with the introduction."""
    content = {
        "what": _what(series, introduction) + [("#" + line if line.startswith("## ") else line) for line in left_alone],
        "screenshots": _screenshots(),
        "test": _how_to_test(report, not_run),
        "migration": _migration(series),
        "checklist": None,  # the template's own boxes, ticked where true
    }
    while reproduce and reproduce[-1] == "":
        reproduce = reproduce[:-1]
    lines = _failed(series, report) + fill(_template(series), content, _key, lambda label: _true(label, report), {"checklist"})
    lines += ["", "<details><summary>How this PR was made (mesh-codemod)</summary>", "", *_details(series), ""]
    lines += [*reproduce, "", "</details>", "", fingerprint, ""]
    return "\n".join(lines)


def _failed(series, report) -> list[str]:
    """The lead of a change whose checks failed: each failed check with the
    series' files its findings name, and the `skip` line for the steps
    that wrote them (every step of the series when they name none)."""
    failed = report.failed if report is not None else []
    if not failed:
        return []
    steps_of = {change.path: change.steps for change in series.plan.changes}
    named = [path for check in failed for path in check.files if path in steps_of]
    steps = list(dict.fromkeys(step for path in (named or steps_of) for step in steps_of[path]))
    checks = ", ".join(
        code(check.name) + (f" ({', '.join(code(path) for path in check.files)})" if check.files else "")
        for check in failed
    )
    what = "the steps that wrote these files" if named else "this change's steps"
    return [
        f"> **Draft: mesh's checks failed on this change**: {checks}.",
        ">",
        f"> To leave {what} out for good, add {code('skip = ' + json.dumps(steps))} to `.mesh-codemod.toml`"
        " on the target branch; to decline this change, close this PR.",
        "",
    ]


def _template(series) -> str:
    try:
        blob = series.repo.commit(series.base).tree / TEMPLATE
        return blob.data_stream.read().decode("utf-8")
    except (KeyError, ValueError, AttributeError, UnicodeDecodeError):
        return "\n".join(SECTIONS) + "\n"


def _key(heading: str) -> str | None:
    words = heading.lower()
    for key, marks in (
        ("screenshots", ("screenshot", "demonstration", "demo")),
        ("migration", ("migration",)),
        ("checklist", ("checklist",)),
        ("test", ("how to test", "testing", "test plan", "tested")),
        ("what", ("contribution", "what", "summary", "description")),
    ):
        if any(mark in words for mark in marks):
            return key
    return None


def _true(label: str, report) -> bool:
    """Whether a checklist item holds: ticked only when it does."""
    words = label.lower()
    if "title" in words:
        return True  # `<type>(mcp-apps): ...`, mesh's own form
    if "breaking" in words:
        return True  # additive: optional props, a new search param
    # "tested and working" holds after a run in a browser, which the tool
    # cannot know of; documentation, and anything else it cannot know
    return False


def _what(series, introduction: list[str]) -> list[str]:
    lines = [line for line in introduction if not line.startswith("## ")]
    while lines and lines[0] == "":
        lines.pop(0)
    names = series.plan.names
    if series.bridge.mode is not Bridge.SDK:  # an SDK that ships the notification is wired in sdk mode
        capability = getattr(series.bridge.sdk_api, "capability", "{ maxLength: 1024 }")
        advertised = (
            f"Where a render site keeps state, Studio advertises `{names.capability}: {capability}` in the"
            f" host capabilities of `ui/initialize`. The released SDKs ({RELEASED_SDKS}) strip that unknown"
            " capability in the View's `App`, so `app.getHostCapabilities()` does not show it yet: Views see it once"
            " the SDK change ships."
            if capability else
            f"Studio does not advertise `{names.capability}`: the installed SDK declares a shape for it that the tool"
            " cannot fill (the run's report names it)."
        )
        lines += [
            f"**Experimental** until the MCP Apps SDK ships the notification: it is proposed upstream in"
            f" [{PROPOSAL}]({PROPOSAL_URL}), and its name and shape may change there.",
            "",
            f"{advertised} The state itself (`hostContext.{names.context_field}`) reaches them today.",
            "",
        ]
    lines += [
        "An app hears a new state only after a navigation that moves to another history entry (a link,"
        " Back/Forward) and changes its slot; Studio tells those from its own writes, which replace the entry,"
        " with the Navigation API (`navigation`'s `currententrychange`: Chromium 102+, Safari 26.2+,"
        " Firefox 147+). Without it Studio pushes nothing, and apps restore their state on load only.",
        "",
        "Files:",
        "",
    ]
    for commit in series.commits:
        lines += [f"- {code(path)} ({kind})" for path, kind in commit.files]
    return lines


def _screenshots() -> list[str]:
    return [
        "No UI of its own: the app's state shows in the URL, as an `appState` search param",
        "(`?appState=<base64url JSON>`, one slot per app on the page).",
    ]


# the raw notification an app sends; no released SDK has a sender yet
NOTIFICATION = (
    'window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/state-changed",'
    ' params: { state: { view: "settings" } } }, "*");'
)
LISTENER = (
    'window.addEventListener("message", (e) => e.data?.method === "ui/notifications/host-context-changed"'
    ' && console.log("appState pushed:", e.data.params.appState));'
)


def _how_to_test(report, not_run: str = "") -> list[str]:
    lines = [
        "No released SDK can send the notification yet, so send it by hand from an app's frame:",
        "",
        "1. `bun run dev`, open a project and a chat whose tool call shows an MCP app (or an app in the main panel).",
        "2. In the browser's DevTools, choose the app's iframe in the Console's JavaScript context selector, and run"
        " (the first line logs what Studio pushes to the app; run it again after a reload):",
        "   ```js",
        f"   {LISTENER}",
        f"   {NOTIFICATION}",
        "   ```",
        "3. Expected: the URL gains an `appState` param and no new history entry (Back leaves the page).",
        "4. Reload: the app gets `{ view: \"settings\" }` back as `hostContext.appState` in its `ui/initialize`"
        " result (an SDK app: `app.getHostContext()?.appState`). Open the URL in a new tab: the same.",
        "5. With two apps on the page (two tool calls in a thread), send a different state from each: the URL"
        " keeps both, and neither app hears a push for the other's report.",
        "6. Copy the URL, send `{ state: { view: \"b\" } }`, then go back to the copied URL without a reload, in"
        " the page's own console: `history.pushState(null, \"\", COPIED_URL); dispatchEvent(new PopStateEvent(\"popstate\"))`."
        " The app logs `appState pushed: { view: \"settings\" }`; Back pushes `{ view: \"b\" }`.",
        "7. Send `params: { state: null }`: the app's slot leaves the URL. Send `params: {}`: nothing changes.",
        "8. Send a state over 1024 bytes of JSON (`{ state: \"x\".repeat(3000) }`): a console warning says the URL"
        " does not keep it, and the app keeps its view; switching a tab or toggling the panel then pushes nothing"
        " to it.",
        "",
        "The tool details view keeps no state: there, a state sent is ignored, and nothing is pushed.",
        "",
        "### mesh's CI on this branch",
        "",
    ]
    if report is None:
        lines.append(not_run or "Not run with this PR (`--no-verify`): CI runs them.")
        return lines
    by_outcome: dict[str, list[str]] = {}
    for check in report.checks:
        by_outcome.setdefault(check.outcome.value, []).append(check.name)
    ran = by_outcome.get("passed", []) + by_outcome.get("failed", [])
    lines.append(
        f"mesh-codemod ran mesh's checks on the branch's tree ({len(report.files)} touched file(s)), each against"
        " the base so only new findings count."
    )
    lines += [""] + [f"- {what}: {', '.join(code(n) for n in names)}" for what, names in (
        ("Ran", ran),
        ("Not available here (CI runs them; the table says why)", by_outcome.get("not available", [])),
        ("Not run here (CI runs them; the table says why)", by_outcome.get("not run", [])),
    ) if names]
    lines += [
        "",
        report.markdown(),
    ]
    return lines


def _migration(series) -> list[str]:
    return ["None: no database migration, configuration or setup step."]


def _details(series) -> list[str]:
    lines = ["Commits:", ""]
    for commit in series.commits:
        lines.append(f"- `{commit.sha[:12]}` {commit.group.subject}")
    # the reason may name a path the base chose: a code span
    lines += ["", f"Bridge mode: {code(series.bridge.describe())}."]
    lines += ["", "Layout: mesh-codemod's own, in the style of the base's formatter configuration, wherever the"
              " series is built; mesh's formatter checks it (the `format` check)."]
    return lines
