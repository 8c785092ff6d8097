"""The upstream change for the MCP Apps SDK (SPEC section 7), as its
maintainers review it: the proposal for ext-apps #465 that they decide on
first, then two PR bodies, the SEP text's (`spec(draft): ...`) and the
code's stacked on it (`feat: add ...`), each in the repository's template
(else the MCP sections).

Every sentence about the code comes from one reading of the plan
(`recipes.sdk.summary`): what the diff holds, never what the tool would
do on another revision. The bodies link the proposal and never ask its
questions themselves."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..recipes.names import RECOMMENDED
from ..recipes.sdk import summary

EXT_APPS = "https://github.com/modelcontextprotocol/ext-apps"
UPSTREAM_BRANCH = "main"
REFERENCE_HOST = "https://github.com/decocms/mesh"
DISCUSSION = f"{EXT_APPS}/issues/465"
TEMPLATE = ".github/pull_request_template.md"
# The MCP repositories' template sections, used where the checkout has none.
MCP_SECTIONS = (
    "Motivation and Context",
    "How Has This Been Tested?",
    "Breaking Changes",
    "Types of changes",
    "Checklist",
    "Additional context",
)
TYPES = (
    ("Bug fix (non-breaking change which fixes an issue)", False),
    ("New feature (non-breaking change which adds functionality)", True),
    ("Breaking change (fix or feature that would cause existing functionality to change)", False),
    ("Documentation update", True),
)
CHECKLIST = (
    "I have read the [MCP Documentation](https://modelcontextprotocol.io)",
    "My code follows the repository's style guidelines",
    "New and existing tests pass locally",
    "I have added appropriate error handling",
    "I have added or updated documentation as needed",
)
# Each check of `verify` on an SDK checkout, as the SDK's CI step it stands for.
SDK_STEPS = (
    ("format", "Prettier (`npm run prettier`), on the touched files"),
    ("typecheck", "`tsc --noEmit`"),
    ("tests", "`npm test` (`bun test`), on the test files of the touched modules"),
    ("build", "`npm run build`"),
    ("generated", "the generator (`npm run generate:schemas`), then `git diff --exit-code`"),
    ("parse", "the touched files parse (tree-sitter, Markdown)"),
)


def compare_url(fork: str | None, branch: str) -> str:
    """The upstream compare page of ``branch`` of the fork (its owner, else a
    placeholder to fill): the PR numbers do not exist yet."""
    return f"{EXT_APPS}/compare/{UPSTREAM_BRANCH}...{fork or '<fork>'}:{branch}"


def fork_owner(url: str) -> str | None:
    """The owner of a GitHub remote URL, None for another host."""
    match = re.search(r"github\.com[:/]([^/]+)/[^/]+?(?:\.git)?/?$", url or "")
    return match.group(1) if match else None


def code_title(series) -> str:
    """The code PR's title: its first code commit's subject (`feat: add ...`)."""
    return next((c.group.subject for c in series.commits if c.group.id != "spec"), series.commits[0].group.subject)


# ----------------------------------------------------------------------
# The proposal for #465
# ----------------------------------------------------------------------


def discussion(series, spec_branch: str, code_branch: str, fork: str | None) -> str:
    """The comment for ext-apps #465 (about 40 to 60 lines): the problem,
    the two scopes, the names with a recommendation, the same View, the
    size floor, the experimental-capability alternative, both branches."""
    c = summary.read(series.plan)
    w, names = c.w, c.w.names
    rows = [
        ("method", f"`{names.method}`", f"`{RECOMMENDED.method}`"),
        ("host context field", f"`hostContext.{names.context_field}`", f"`hostContext.{RECOMMENDED.context_field}`"),
        ("host capability", f"`{names.capability}: {{ maxLength? }}`", f"`{RECOMMENDED.capability}: {{ maxLength? }}`"),
        ("bridge event, App method", f"`{names.event}`, `{names.sender}`", f"`{RECOMMENDED.event}`, `{RECOMMENDED.sender}`"),
        ("prose term", names.term, RECOMMENDED.term),
    ]
    same = names == RECOMMENDED
    table = ["| what | proposed |", "| --- | --- |", *(f"| {a} | {b} |" for a, b, _ in rows)] if same else [
        "| what | in the branches | recommended |", "| --- | --- | --- |", *(f"| {a} | {b} | {r} |" for a, b, r in rows)
    ]
    return "\n".join([
        "## A proposal for #465: let the host keep a View's navigation state",
        "",
        "**The problem.** A View's own navigation (which invoice is open, which tab is shown) lives only in"
        " its iframe: a reload, a reopened conversation or a link sent to a colleague shows the initial view"
        " again. Only the host can put that place into its URL, history or conversation; the View cannot.",
        "",
        "**Two scopes.** #465 asks for parity with the Apps SDK's `setWidgetState`, which mixes two things:",
        "",
        "1. *Navigation state that the host keeps and the model never sees.* The View reports a small JSON"
        " value; a host that advertises a capability may keep it (in its page URL, say) and hands it back"
        " when the same View loads again.",
        "2. *State the model sees* (`setWidgetState` parity). `ui/update-model-context` covers part of it;"
        " the closed #194 proposed the rest.",
        "",
        "We propose the first, first: it is additive, needs no policy for what the model reads, and is what"
        " the documented `localStorage` + `viewUUID` pattern cannot give (a link, another device). The"
        " second can come later without changing it.",
        "",
        "**Names to settle.** " + (
            "We propose these names:" if same else
            "The branches use the names the reference host started with; we recommend renaming before review:"
        ),
        "",
        *table,
        "",
        "The spec and the SDK say \"View\", and the SDK docs already use \"app state\" for model context"
        " (`App_updateModelContext_appState`)"
        + ("." if same else f", so `{names.context_field}` would name two things.")
        + " The names are one table in our tool: both branches regenerate from the one you choose.",
        "",
        "**Which View gets a state back.** The same server and `ui://` resource, rendered for the same tool"
        " call as the host durably identifies it (the id it stores with the conversation). Not"
        " `hostContext.toolInfo.id`: that is the JSON-RPC id of `tools/call`, unique only within one"
        " connection, so a reload, another session or another user can meet it again. A View shown without"
        " a tool call (a panel) is identified by the place the host shows it in; our reference host"
        f" ([decocms/mesh]({REFERENCE_HOST})) keys its panels by connection and tool.",
        "",
        f"**The size floor.** `maxLength` counts UTF-8 bytes of the state's JSON text. A host that advertises"
        f" `{w.capability}` without it keeps at least 1024 bytes: base64 of 1024 bytes plus a key naming the"
        " View still fits a 2 KB URL, the length commonly taken as safe for a link.",
        "",
        "**An alternative: the experimental slot.** Released SDKs strip capability keys they do not know"
        f" (2.0.4's `McpUiHostCapabilitiesSchema` drops `{w.capability}`), while 2.0.4 passes"
        " `hostCapabilities.experimental` through as a record, so a capability there (#708) reaches Views on"
        " 2.x releases already deployed. A member of its own gets a typed schema and docs, but reaches Views"
        " only from the SDK release that adds it. The branches propose the member.",
        "",
        "**The branches** (no PRs opened yet; the code is stacked on the spec):",
        "",
        f"- spec: {compare_url(fork, spec_branch)}",
        f"- code: {compare_url(fork, code_branch)}",
        "",
        "What we would like decided here, before either PR is reviewed:",
        "",
        "1. the scope: host-kept navigation state first, model-visible state later;",
        "2. the names;",
        "3. \"the same View\" as above;",
        "4. a capability of its own, or the experimental slot.",
        "",
    ])


# ----------------------------------------------------------------------
# The bodies
# ----------------------------------------------------------------------


def _links(kind: str, spec_reason: str = "", spec_url: str = "") -> list[str]:
    """Where the change comes from: the discussion and its proposal, how it
    differs from the closed widget-state proposal, the reference host; and
    the other PR (``spec_reason``: why the code has none to stack on)."""
    if kind == "spec":
        other = "the SDK change that implements it is stacked on it"
    elif spec_reason:
        other = f"there is no spec PR to stack on: {spec_reason}"
    else:
        spec = f"[the spec PR]({spec_url})" if spec_url else "the spec PR"
        other = f"the SEP text it implements is {spec}, which it stacks on (its first commit)"
    return [
        f"Implements the proposal in [#465]({DISCUSSION}) (see also [#62]({EXT_APPS}/issues/62)): scope, names"
        " and \"the same View\" are discussed there, not here. Unlike the closed"
        f" [#194]({EXT_APPS}/pull/194), the state is not model-visible: it is the View's own navigation state,"
        f" which a host may keep and hand back; what the model should know still goes through"
        f" `ui/update-model-context`. {other[0].upper() + other[1:]}.",
        "",
        f"A reference host implementation is proposed for [decocms/mesh]({REFERENCE_HOST}) (Studio): it keeps"
        " each View's state in the page URL and advertises the capability with its `maxLength`.",
    ]


def render_code(series, report, tail: list[str], not_run: str = "", spec_url: str = "") -> str:
    """The code PR's body: the SDK change alone (the SEP text is the spec
    PR's), in the repository's template or the MCP sections; ``tail``: the
    tool's own details (what it left alone, how to reproduce), collapsed;
    ``not_run``: why no check ran, when not `--no-verify`; ``spec_url``: the
    spec branch's compare page."""
    c = summary.read(series.plan)
    content = {
        "motivation": [*_links("code", c.spec_reason, spec_url), "", *_api(c)],
        "tested": tested(report) if report is not None or not not_run else [not_run],
        "breaking": _breaking(c),
        "types": None,  # the template's own checkboxes, ticked
        "checklist": None,
        "additional": _additional(c),
    }
    template = _template(series)
    if template is None:
        lines = []
        for title in MCP_SECTIONS:
            key = _section_key(title)
            lines += [f"## {title}", ""]
            if key == "types":
                lines += [f"- [{'x' if on else ' '}] {label}" for label, on in TYPES]
            elif key == "checklist":
                lines += checklist(report)
            else:
                lines += content[key]
            lines.append("")
    else:
        keys = {_section_key(line.lstrip("#").strip()) for line in template.splitlines() if line.startswith("#")}
        if "additional" not in keys:  # the generated files' story goes with the motivation
            content["motivation"] = content["motivation"] + ["", "### Generated files", "", *content["additional"]]
        lines = filled(template, content, report)
    return "\n".join(lines + _details(series, tail))


def render_spec(series, tail: list[str]) -> str:
    """The spec PR's body: the SEP text alone, what it adds and what it
    removes; no code, so no code check ran for it."""
    c = summary.read(series.plan)
    w = c.w
    added = [n for n in c.spec if n.startswith("added ") or n.startswith("listed ")]
    removed = [n for n in c.spec if n.startswith("removed ")]
    lines = [
        "## Motivation and Context",
        "",
        *_links("spec"),
        "",
        "`specification/draft/apps.mdx` (the dated versions, such as `specification/2026-01-26/`, are"
        " untouched):",
        "",
        f"- a `{w.method}` entry after `ui/notifications/size-changed`, in the form of its siblings: the"
        " method, its JSON-RPC example, the View's and the Host's rules as short RFC 2119 lists",
        f"- `{w.field}?: unknown` in `HostContext`, whose doc is where \"the same View\" is defined (the"
        " host's durable identity of the tool call, or the place it shows a View without one), and the"
        f" `{w.capability}` capability in `HostCapabilities`",
        *(f"- {n[0].lower() + n[1:]}" for n in added if "entry after" not in n and "?:" not in n),
        "",
        "It removes: " + ("; ".join(n.removeprefix("removed ") for n in removed) + "." if removed else "nothing."),
        "",
        "## How Has This Been Tested?",
        "",
        "A text change: the edited draft parses as Markdown and the TypeScript blocks it edits parse. No code"
        " changes here, so `npm run build`, `npm test` and `npm run prettier`: not run for this PR (they run"
        " on the stacked SDK PR).",
        "",
        "## Breaking Changes",
        "",
        "None: an optional notification, an optional context field and an optional capability; Hosts and"
        " Views that do not know them are unaffected (the Backward Compatibility paragraph says so).",
        "",
        "## Types of changes",
        "",
        *[f"- [{'x' if label.startswith(('New feature', 'Documentation')) else ' '}] {label}" for label, _ in TYPES],
        "",
        "## Checklist",
        "",
        *[f"- [{'x' if 'documentation' in item else ' '}] {item}" for item in CHECKLIST],
        "",
    ]
    return "\n".join(lines + _details(series, tail))


def _api(c: summary.Change) -> list[str]:
    """The SDK change, each line true of the diff."""
    w = c.w
    lines = ["### The change" + (f" (this revision's shape {c.shape})" if c.shape else ""), ""]
    items = []
    if "spec-types" in c.changed:
        items.append(summary.declared(c))
    if "schema" in c.changed:
        items.append(f"`src/generated/`: `{w.state_schema}`, and `{w.field}` in the host context's schema"
                     + (" and the capability in the host capabilities'" if c.capability else "")
                     + " (how they were made: below)")
    if "types" in c.changed:
        names = [w.state, w.state_schema] + ([w.method_const] if c.method_constant else [])
        items.append(f"`src/types.ts` re-exports {', '.join(f'`{n}`' for n in names)}. {summary.union_sentence(c)}".strip())
    if "app-bridge" in c.changed:
        items.append(f"`src/app-bridge.ts`: {summary.wiring(c)}")
    if "app" in c.changed:
        items.append(f"`src/app.ts`: {summary.guard_sentence(c)}")
    examples = [(p, side) for s, p, side in (("bridge-examples", "`src/app-bridge.examples.ts`", "host's"),
                                             ("app-examples", "`src/app.examples.ts`", "View's")) if s in c.changed]
    if examples:
        paths, sides = (" and ".join(part) for part in zip(*examples))
        items.append(f"{paths}: the {sides} example{'s' if len(examples) > 1 else ''}, counting the state's UTF-8"
                     " bytes against the advertised `maxLength`")
    if c.tests:
        items.append("`src/app-bridge.test.ts`: " + "; ".join(f"\"{t}\"" for t in c.tests))
    if c.docs:
        items.append("docs: " + "; ".join(c.docs))
    return lines + ([f"- {item}" for item in items] or ["Nothing: the code already has it."])


def _breaking(c: summary.Change) -> list[str]:
    w = c.w
    note = []
    if c.shape in ("B", "C"):
        note = [
            f"One source-level note: `AppBridgeEventMap` gains a `{w.event}` key, so code that lists every key of"
            " that map exhaustively (a `Record<keyof AppBridgeEventMap, ...>`) needs an entry for it.",
            "",
        ]
    return [
        "No existing wire message, type or method changes, and every new wire member is optional.",
        "",
        *note,
        f"- A host that ignores `{w.method}` is unaffected: it is a notification, so nothing waits for an answer."
        f" A host that never sets `{w.field}` sends the same `ui/initialize` result as before.",
        f"- An app that never sends it is unaffected; `hostContext.{w.field}` is only there when a host kept a"
        " state for it.",
    ]


def _additional(c: summary.Change) -> list[str]:
    line = summary.generated_sentence(c)
    if not line:
        return ["None."]
    if "not regenerated" in line:
        return [f"Generated files: {line} (the SDK's CI fails on any difference)."]
    return [f"Generated files: {line}"]


def checklist(report) -> list[str]:
    """The MCP checklist, each box ticked only where true."""
    return [f"- [{'x' if _ticked(item, report) else ' '}] {item}" for item in CHECKLIST]


def filled(template: str, content: dict, report) -> list[str]:
    """The repository's own template filled (`templates.fill`), its type and
    checklist boxes ticked only where true."""
    from .templates import fill

    return fill(template, content, _section_key, lambda label: _ticked(label, report), {"types", "checklist"}) + [""]


def _template(series) -> str | None:
    """The PR template at the series' base commit (what the branch is made
    from), else None."""
    try:
        blob = series.repo.commit(series.base).tree / TEMPLATE
        return blob.data_stream.read().decode("utf-8")
    except (KeyError, ValueError, AttributeError, UnicodeDecodeError):
        return None


def _section_key(title: str) -> str | None:
    words = title.lower()
    for key, marks in (
        ("additional", ("additional",)),
        ("motivation", ("motivation", "context", "description", "summary")),
        ("tested", ("tested", "testing", "verification")),
        ("breaking", ("breaking",)),
        ("types", ("types of change", "type of change")),
        ("checklist", ("checklist",)),
    ):
        if any(mark in words for mark in marks):
            return key
    return None


def _ticked(label: str, report) -> bool:
    words = label.lower()
    if "read the" in words:  # "I have read the MCP Documentation": a person's statement, not the tool's
        return False
    if "new feature" in words or "documentation" in words:
        return True
    if "bug fix" in words or "breaking change" in words:
        return False
    if "tests pass" in words:  # ran (with a command) and passed, not only "as on the base"
        return report is not None and any(
            c.name == "tests" and c.outcome.value == "passed" and c.command and not _as_on_base(c) for c in report.checks
        )
    if "added tests" in words or "added or updated tests" in words:
        return True
    if "style" in words:  # only when the SDK's own Prettier check ran and passed
        return report is not None and any(
            c.name in {"prettier", "format", "lint"} and c.outcome.value == "passed" and c.command and not _as_on_base(c)
            for c in report.checks
        )
    return False  # "error handling": a notification adds no error path to handle


def _as_on_base(check) -> bool:
    """A check that found something, only what the base has as well."""
    return check.outcome.value == "passed" and any(w in check.summary for w in ("no new finding", "no new failure"))


def tested(report) -> list[str]:
    """What ran and what did not, each of the SDK's CI steps on a line of
    its own: ran and passed, ran and failed, or not run and why."""
    if report is None:
        return [
            "The SDK's checks were not run with this PR (`--no-verify`). Not run: "
            + "; ".join(step for _, step in SDK_STEPS[:-1])
            + ". Please run `npm run build`, `npm test` and `npm run prettier` (or let CI run them)."
        ]
    by_name = {c.name: c for c in report.checks}
    lines = [
        f"The SDK's CI steps, run by `mesh-codemod verify` on the branch's tree ({len(report.files)} touched"
        " file(s)), each compared with the base commit so that only new findings count:",
        "",
    ]
    for name, step in SDK_STEPS:
        check = by_name.get(name)
        said = " ".join(check.summary.split("\n")) if check else "this version of the tool has no such check"
        outcome = check.outcome.value if check else ""
        ran = {"passed": f"ran, passed ({said})", "failed": f"ran, **failed** ({said})"}
        if check and _as_on_base(check):  # it failed, as it does on the base: not this change's, not a pass
            ran["passed"] = f"ran, failed as on the base: nothing new ({said})"
        lines.append(f"- {step}: {ran.get(outcome, f'not run: {said}')}")
    return lines + ["", report.markdown()]


def _details(series, tail: Sequence[str]) -> list[str]:
    lines = ["<details><summary>How this PR was made (mesh-codemod)</summary>", "", "Commits:", ""]
    for commit in series.commits:
        lines.append(f"- `{commit.sha[:12]}` {commit.group.subject}")
        lines += [f"  - `{path}` ({kind})" for path, kind in commit.files]
    return lines + [*tail, "", "</details>", ""]
