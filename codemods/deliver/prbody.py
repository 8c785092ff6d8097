"""The pull request's description (Markdown), from the series and the checks."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from .. import __version__
from ..recipes.names import NAMES
from .templates import code

# The problem in two sentences, by target; the host's is the default.
PROBLEMS = {
    "host": (
        "An MCP app's internal navigation (which conversation, which view) is lost "
        "when Studio reloads it, and cannot be shared as a link. "
        "With this change the app reports its view with `ui/notifications/state-changed`, "
        "Studio keeps it in the `appState` search param, and hands it back in "
        "`hostContext.appState` when the app (re)loads."
    ),
    "sdk": (
        "A host cannot restore an MCP app's internal view after a reload or from a "
        "shared link, because the app has no way to report it. "
        "This adds the `ui/notifications/state-changed` notification "
        f"(`{NAMES.sender}` in the app, the `{NAMES.event}` event in the bridge), "
        "`hostContext.appState` and the `appState` host capability, mirroring `size-changed`."
    ),
}


TITLE = "Deep-link app state for MCP apps (appState)"


def title(series) -> str:
    """The PR's title, by the kind of change (`changeover.kind`): mesh's
    `<type>(mcp-apps): ...` on the host (`mesh_body`)."""
    from ..plan import changeover

    plan = series.plan
    if plan.target == "host":
        from . import mesh_body

        return mesh_body.title(series)
    kind = changeover.kind(plan)
    if kind in (changeover.MIGRATION, changeover.BOTH):
        _, to, _ = changeover.migration(plan)
        upgrade = f"upgrade to mesh-codemod {__version__} and " if kind == changeover.BOTH else ""
        return f"appState: {upgrade}migrate the state-changed wiring to {to}"
    if kind == changeover.UPGRADE:
        return f"appState: upgrade to mesh-codemod {__version__} (from {changeover.upgraded_from(plan)[0]})"
    if kind == changeover.COMPLETION:
        return "appState: complete the deep-link app state feature"
    return TITLE


def introduction(series) -> list[str]:
    """The body's first section: what this change does, by its kind."""
    from ..plan import changeover

    plan = series.plan
    kind = changeover.kind(plan)
    problem = PROBLEMS.get(plan.target, PROBLEMS["host"])
    if kind == changeover.FIRST:
        return ["## Deep-link app state for MCP apps", "", problem, ""]
    lines = [f"## {title(series).removeprefix('appState: ').capitalize()}", ""]
    if kind in (changeover.MIGRATION, changeover.BOTH):
        was, to, why = changeover.migration(plan)
        lines += [
            f"The checkout has the appState feature wired in {was}; this migrates it to {to}.",
            f"Why: {why}.",
            "",
            "The state-changed handler is replaced, and what only the earlier wiring used (its schema"
            " and imports) is removed; every other line stays.",
            "",
        ]
    if kind in (changeover.UPGRADE, changeover.BOTH):
        releases = changeover.upgraded_from(plan)
        lines += [
            f"The checkout holds what mesh-codemod {' and '.join(releases)} wrote; release {__version__}"
            " writes it differently. Only what is still exactly an earlier release's output is replaced.",
            "",
        ]
        entries = changeover.changelog_entries(releases[0]) if releases else {}
        if entries:
            lines += [f"What changed since {releases[0]} (mesh-codemod's CHANGELOG.md):", ""]
            for version, items in entries.items():
                lines += [f"- **{version}**"] + [f"  - {item}" for item in items]
            lines.append("")
    if kind == changeover.COMPLETION:
        present = [r for r in plan.results if r.status.value == "already"]
        lines += [
            f"The checkout has part of the appState feature ({len(present)} of the tool's steps are there);"
            " this adds what is missing:",
            "",
        ]
        lines += [f"- {code(c.path)} ({c.kind})" for c in plan.changes]
        lines.append("")
    lines += ["What the feature is: " + problem[0].lower() + problem[1:], ""]
    return lines


NOT_RUN = "Not run (`--no-verify`)."


def render(series, report, command: Sequence[str], not_run: str = NOT_RUN) -> str:
    """``series`` is a `build.Series`; ``report`` a `verify.Report`, the
    publishing side's `verdict.Verdict`, or None (then ``not_run`` says why)."""
    target = series.plan.target
    if target == "sdk":  # written for the SDK's maintainers (SPEC section 7)
        return render_sdk(series, report, command, not_run)
    if target == "host":  # as mesh writes them (SPEC section 4)
        from . import mesh_body

        *reproduce, fingerprint = _reproduce(series, command)
        return mesh_body.render(
            series, report, introduction(series), reproduce, fingerprint, left_alone_section(series.plan),
            "" if not_run == NOT_RUN else not_run,
        )
    raise ValueError(f"no PR body for target {target!r}")


def _reproduce(series, command: Sequence[str]) -> list[str]:
    return [
        "```sh",
        f"mesh-codemod --version   # mesh-codemod {__version__}",
        shlex.join(["mesh-codemod", *command]),
        "```",
        "",
        f"Tool: mesh-codemod {__version__}. Base commit: `{series.base}`. "
        f"Commits are authored by {series.identity} with the base commit's date "
        f"({series.date}), so the same command on the same base gives the same commit ids.",
        "",
        fingerprint_line(series),
    ]


def fingerprint_line(series) -> str:
    """The change's fingerprint as an HTML comment: once this PR is closed
    without merging, a run with the same fingerprint proposes nothing."""
    from .forge import series_fingerprint
    from .forge import fingerprint_line as line

    return line(series_fingerprint(series))


def left_alone_section(plan) -> list[str]:
    """The files the change leaves alone because of a human decision: steps
    the checkout's configuration skips, created files someone removed, and
    files someone edited since the tool wrote them."""
    left = plan.left_alone()
    if not left:
        return []
    words = {
        "config": "skipped by `.mesh-codemod.toml`",
        "decision": "removed by someone while the rest of the feature is there: not created again"
        " (`mesh-codemod apply --restore {step}` brings it back)",
        "edited": "edited since mesh-codemod wrote it: left as it is; compare it with this release's by hand",
        "pair": "kept at its release: the file it goes with was edited since, and the two change release"
        " together (upgrade both by hand)",
    }
    lines = ["", "## Left alone", ""]
    for item in left:
        lines.append(f"- {code(item['path'])} ({item['step']}): {words[item['why']].format(step=item['step'])}")
    return lines


# --- the SDK's body ----------------------------------------------------------

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
_TYPES = (
    ("Bug fix (non-breaking change which fixes an issue)", False),
    ("New feature (non-breaking change which adds functionality)", True),
    ("Breaking change (fix or feature that would cause existing functionality to change)", False),
    ("Documentation update", True),
)


def render_sdk(series, report, command: Sequence[str], not_run: str = NOT_RUN) -> str:
    """The SDK PR body in the repository's PR template (its
    `.github/pull_request_template.md`, else the MCP sections), each
    section filled with what this change is; the tool's own details in a
    collapsed block at the end."""
    plan = series.plan
    content = {
        "motivation": sdk_discussion() + [""] + _motivation(plan),
        "tested": _tested(report) if report is not None or not_run == NOT_RUN else [not_run],
        "breaking": _breaking(),
        "types": None,  # the template's own checkboxes, ticked
        "checklist": None,
        "additional": _additional(series, plan),
    }
    template = _template(series)
    if template is None:
        lines = []
        for title in MCP_SECTIONS:
            key = _section_key(title)
            lines += [f"## {title}", ""]
            if key == "types":
                lines += [f"- [{'x' if on else ' '}] {label}" for label, on in _TYPES]
            elif key == "checklist":
                lines += _checklist(report)
            else:
                lines += content[key]
            lines.append("")
    else:
        keys = {_section_key(line.lstrip("#").strip()) for line in template.splitlines() if line.startswith("#")}
        if "additional" not in keys:  # the generated files' story goes with the motivation
            content["motivation"] = content["motivation"] + ["", "### Generated files", "", *content["additional"]]
        lines = _fill_template(template, content, report)
    lines += [
        "<details><summary>How this PR was made (mesh-codemod)</summary>",
        "",
        *_commits(series),
        *left_alone_section(plan),
        "",
        *_reproduce(series, command),
        "",
        "</details>",
        "",
    ]
    return "\n".join(lines)


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


def _fill_template(template: str, content: dict, report) -> list[str]:
    """The SDK's template filled (`templates.fill`), the type and checklist
    boxes ticked where they apply."""
    from .templates import fill

    return fill(template, content, _section_key, lambda label: _ticked(label, report), {"types", "checklist"}) + [""]


def _ticked(label: str, report) -> bool:
    words = label.lower()
    if "new feature" in words or "documentation" in words:
        return True
    if "bug fix" in words or "breaking change" in words:
        return False
    if "tests pass" in words:
        return _tests_passed(report)
    if "added tests" in words or "added or updated tests" in words or "documentation as needed" in words:
        return True
    if "style" in words:  # only when the SDK's own Prettier check ran and passed
        return report is not None and any(
            c.name in {"prettier", "format", "lint"} and c.outcome.value == "passed" and c.command and not _as_on_base(c)
            for c in report.checks
        )
    if "error handling" in words:  # a notification adds no error path to handle
        return False
    return "read the" in words


def _as_on_base(check) -> bool:
    """A check that found something, only what the base has as well."""
    return check.outcome.value == "passed" and any(w in check.summary for w in ("no new finding", "no new failure"))


def _tests_passed(report) -> bool:
    if report is None:
        return False
    # passed with a command: tests ran (not "no tests beside the touched files")
    return any(c.name == "tests" and c.outcome.value == "passed" and c.command and not _as_on_base(c) for c in report.checks)


def _checklist(report) -> list[str]:
    items = (
        "I have read the [MCP Documentation](https://modelcontextprotocol.io)",
        "My code follows the repository's style guidelines",
        "New and existing tests pass locally",
        "I have added appropriate error handling",
        "I have added or updated documentation as needed",
    )
    return [f"- [{'x' if _ticked(item, report) else ' '}] {item}" for item in items]


def _commits(series) -> list[str]:
    lines = ["Commits:", ""]
    for commit in series.commits:
        lines.append(f"- `{commit.sha[:12]}` {commit.group.subject}")
        for path, kind in commit.files:
            lines.append(f"  - `{path}` ({kind})")
    return lines


# Each check of `verify` on an SDK checkout, as the SDK's CI step it stands for.
_SDK_STEPS = (
    ("format", "Prettier (`npm run prettier`), on the touched files"),
    ("typecheck", "`tsc --noEmit`"),
    ("tests", "`npm test` (`bun test`), on the test files of the touched modules"),
    ("build", "`npm run build`"),
    ("generated", "the generator (`npm run generate:schemas`), then `git diff --exit-code`"),
    ("parse", "the touched files parse (tree-sitter, Markdown)"),
)


def _tested(report) -> list[str]:
    """What ran and what did not, each of the SDK's CI steps on a line of
    its own: ran and passed, ran and failed, or not run and why."""
    if report is None:
        return [
            "The SDK's checks were not run with this PR (`--no-verify`). Not run: "
            + "; ".join(step for _, step in _SDK_STEPS[:-1])
            + ". Please run `npm run build`, `npm test` and `npm run prettier` (or let CI run them)."
        ]
    by_name = {c.name: c for c in report.checks}
    lines = [
        f"The SDK's CI steps, run by `mesh-codemod verify` on the branch's tree ({len(report.files)} touched"
        " file(s)), each compared with the base commit so that only new findings count:",
        "",
    ]
    for name, step in _SDK_STEPS:
        check = by_name.get(name)
        said = " ".join(check.summary.split("\n")) if check else "this version of the tool has no such check"
        outcome = check.outcome.value if check else ""
        ran = {"passed": f"ran, passed ({said})", "failed": f"ran, **failed** ({said})"}
        if check and _as_on_base(check):  # it failed, as it does on the base: not this change's, not a pass
            ran["passed"] = f"ran, failed as on the base: nothing new ({said})"
        lines.append(f"- {step}: {ran.get(outcome, f'not run: {said}')}")
    return lines + ["", report.markdown()]


# The upstream discussion the SDK bodies link (SPEC section 7).
EXT_APPS = "https://github.com/modelcontextprotocol/ext-apps"
REFERENCE_HOST = "https://github.com/decocms/mesh"


def sdk_discussion() -> list[str]:
    """Where the change comes from and what it asks the maintainers: the
    open discussion it answers, how it differs from the closed widget-state
    proposal, the reference host, and the naming question."""
    from ..recipes.names import NAMES

    return [
        f"Answers the open discussion in [#465]({EXT_APPS}/issues/465) (feature parity with the Apps SDK's"
        f" `setWidgetState`) and [#62]({EXT_APPS}/issues/62) (SEP: define state behavior). Unlike the closed"
        f" [#194]({EXT_APPS}/pull/194), the state is not model-visible: it is the View's own navigation state,"
        " which a host may keep (in its page URL, say) and hand back when the same View loads again; what the"
        " model should know still goes through `ui/update-model-context`.",
        "",
        f"Reference host implementation: [decocms/mesh]({REFERENCE_HOST}) (Studio) keeps each View's state in"
        " the page URL, advertises the capability with its `maxLength`, and pushes a state a link brought.",
        "",
        f"Naming question: `{NAMES.context_field}` is the name the host side started with; the SDK's prose"
        " says \"View\", and \"app state\" already names model-context content in its docs. Would `viewState`"
        " (or another name) suit better? A rename is one line of the names table on our side.",
    ]


def _breaking() -> list[str]:
    return [
        "No existing wire message, type or method changes, and every new member is optional. One source-level"
        " note: `AppBridgeEventMap` gains a `statechange` key, so code that lists every key of that map"
        " exhaustively (a `Record<keyof AppBridgeEventMap, ...>`, a `satisfies` of the whole map) needs an"
        " entry for it.",
        "",
        "- A host that ignores `ui/notifications/state-changed` is unaffected: it is a notification, so no"
        " answer is awaited, and a host without a handler drops it like any other notification it does not"
        " handle. A host that never sets `appState` sends the same `ui/initialize` result as before, and one"
        " that does not advertise the `appState` capability tells apps to keep their state themselves.",
        "- An app that never sends it is unaffected: nothing it sends or receives changes, and"
        " `hostContext.appState` is only there when a host kept a state for it.",
    ]


def _motivation(plan) -> list[str]:
    """What the SDK's maintainers review: the problem, the SEP text, the
    API in this revision's shape, and how the generated files were made."""
    from ..engine.outcome import Status

    results = {r.step: r for r in plan.results}
    changed = {step for change in plan.changes for step in change.steps}
    new_text = {c.path: c.new.decode("utf-8", "replace") for c in plan.changes}

    def note_of(step: str, prefix: str) -> str:
        result = results.get(step)
        return next((n for n in (result.notes if result else ()) if n.startswith(prefix)), "")

    lines = [PROBLEMS["sdk"], "", "### The SEP text", ""]
    spec = results.get("spec")
    if spec is not None and "spec" in changed:
        lines += [
            f"`{spec.path}` (the draft; the dated versions such as `specification/2026-01-26/` are not touched):",
            "",
            "- a `ui/notifications/state-changed` entry under \"Notifications (View → Host)\", right after"
            " `ui/notifications/size-changed` and in its form. The View SHOULD send it when its own navigation"
            " changes (debounced, small, nothing secret, `null` for its initial view) and SHOULD check the"
            " `appState` capability first (else keep the state itself, e.g. `localStorage` + `viewUUID`); `state`"
            " is required (a notification without it is malformed and ignored); it MUST validate a restored state"
            " and MUST NOT take state-changing actions only because one asks (read-only loads are expected). A Host"
            " MAY keep the state; one that hands it back in `hostContext.appState` MUST advertise the capability"
            " (SHOULD with its `maxLength`), MAY push changes with `host-context-changed` (`null` = the initial"
            " view), MUST NOT hand a state to another View (\"the same View\" per tool call: server, `ui://`"
            " resource, tool and tool call), MAY drop states over its limit and SHOULD accept a stated minimum"
            " size; privacy and host guidance (no secrets, logs, history, `Referrer-Policy`). Not model context"
            " (contrast `ui/update-model-context`);",
            "- `appState?: unknown` in the draft's `HostContext`, documented as a state that may come from a"
            " link, and `appState?: { maxLength?: number }` in its `HostCapabilities`;",
            *(f"- {note[0].lower() + note[1:]};" for note in spec.notes if note.startswith("added \"")),
        ]
        left_out = [n for n in spec.notes if n.startswith("no ")]
        if left_out:
            lines += ["", "Left out, since the draft has no place for it: " + "; ".join(left_out) + "."]
    elif spec is not None and spec.status is Status.SKIPPED and spec.reason:
        lines.append(f"Not changed: {spec.reason}.")
    else:
        lines.append("Not changed: the draft already describes the notification and the field.")

    shape = note_of("app-bridge", "shape ")
    lines += ["", "### The API" + (f" (this revision's {shape.split(':')[0]})" if shape else ""), ""]
    if shape:
        lines += [f"This revision is {shape}; the new members are wired exactly like their size-changed twins.", ""]
    api = []
    if "spec-types" in changed:
        text = new_text.get(results["spec-types"].path, "")
        api.append(
            "`src/spec.types.ts`: `McpUiStateChangedNotification` (`method: \"ui/notifications/state-changed\"`,"
            " `params: { state }`, `state` a JSON value or `null` = no state, never missing, so the schema rejects"
            " `params: {}`), `appState?: unknown` on `McpUiHostContext`"
            + (
                ", `appState?: { maxLength?: number }` in `McpUiHostCapabilities` (documented like `downloadFile`)"
                if "maxLength?: number" in text
                else ""
            )
            + (", and `STATE_CHANGED_METHOD` beside `SIZE_CHANGED_METHOD`" if "STATE_CHANGED_METHOD" in text else "")
        )
    if "schema" in changed:
        api.append("`src/generated/`: `McpUiStateChangedNotificationSchema` and `appState` in the host context and capabilities schemas")
    if "types" in changed:
        api.append("`src/types.ts`: the re-exports, and the notification in the app-to-host `AppNotification` union")
    if "app-bridge" in changed:
        if shape.startswith("shape A"):
            wiring = f"`AppBridge.{NAMES.accessor}`, a setter registering the schema with `setNotificationHandler`, like `onsizechange`"
        elif shape.startswith("shape B"):
            wiring = (
                f"the `{NAMES.event}` event (event map and `eventSchemas` entry) and the `AppBridge.{NAMES.accessor}`"
                " get/set accessors over it, like `onsizechange`"
            )
        else:
            wiring = (
                f"the `{NAMES.event}` event (event map and `eventSchemas` entry), for"
                f" `addEventListener(\"{NAMES.event}\", ...)`; no `{NAMES.accessor}` accessor, since this"
                " revision deprecates every event-backed `on*` accessor"
            )
        api.append(f"`src/app-bridge.ts`: {wiring}")
    if "app" in changed:
        guard = "_assertInitialized" in new_text.get(results["app"].path, "")
        api.append(
            f"`src/app.ts`: `App.{NAMES.sender}(params)`, like `sendSizeChanged`"
            + (f", guarded by `this._assertInitialized(\"{NAMES.sender}\")` like the other host calls" if guard else "")
        )
    lines += [f"- {item}" for item in api] or ["Nothing: the code already has it."]
    return lines


def _additional(series, plan) -> list[str]:
    results = {r.step: r for r in plan.results}
    changed = {step for change in plan.changes for step in change.steps}
    generated = [results[s] for s in ("schema", "schema-test", "schema-json") if s in results and s in changed]
    lines: list[str] = []
    if generated:
        lines += ["Generated files:", ""]
        regenerated = [r.path for r in generated if any("regenerated with" in n for n in r.notes)]
        written = [r.path for r in generated if r.path not in regenerated]
        if regenerated:
            how = next((n for r in generated for n in r.notes if "regenerated with" in n), "")
            lines.append(
                f"- {how[0].upper() + how[1:]} from the edited `src/spec.types.ts`: "
                + ", ".join(f"`{p}`" for p in regenerated) + "."
            )
        if written:
            lines.append(
                "- Written in the generator's style (ts-to-zod's schemas and type checks, then Prettier) rather"
                " than by running it: " + ", ".join(f"`{p}`" for p in written)
                + ". Please confirm with `npm run generate:schemas` that it gives the same bytes (the SDK's CI"
                " fails on any difference)."
            )
    return lines or ["None."]


def render_sdk_spec(series, command: Sequence[str], code_branch: str) -> str:
    """The body of the spec PR (the SEP text alone, under the code PR that
    stacks on it), in the MCP sections: why, what the text says, what was
    checked (the text, no code), no breaking change, the boxes that are
    true."""
    plan = series.plan
    text = _motivation(plan)
    start = next((i for i, line in enumerate(text) if line.startswith("### The SEP text")), 0)
    end = next((i for i, line in enumerate(text) if line.startswith("### The API")), len(text))
    sep = text[start:end]
    while sep and sep[-1] == "":
        sep = sep[:-1]
    lines = [
        "## Motivation and Context",
        "",
        *sdk_discussion(),
        "",
        "This PR is the protocol change alone, to agree on first; the SDK change that implements it is"
        f" stacked on it (branch `{code_branch}`, whose first commit is this one).",
        "",
        *sep,
        "",
        "## How Has This Been Tested?",
        "",
        "A text change: the edited draft parses as Markdown and every TypeScript block that declares"
        " `HostContext` or `HostCapabilities` still parses; the dated versions are untouched. No code"
        " changes here, so `npm run build`, `npm test` and `npm run prettier` were not run for this PR"
        " (they run on the stacked SDK PR).",
        "",
        "## Breaking Changes",
        "",
        "None: the text adds an optional notification, an optional context field and an optional"
        " capability; Hosts and Views that do not know them are unaffected (see the Backward Compatibility"
        " paragraph it adds).",
        "",
        "## Types of changes",
        "",
        *[f"- [{'x' if label.startswith('Documentation') else ' '}] {label}" for label, _ in _TYPES],
        "",
        "## Checklist",
        "",
        "- [x] I have read the [MCP Documentation](https://modelcontextprotocol.io)",
        "- [ ] My code follows the repository's style guidelines",
        "- [ ] New and existing tests pass locally",
        "- [ ] I have added appropriate error handling",
        "- [x] I have added or updated documentation as needed",
        "",
        "<details><summary>How this PR was made (mesh-codemod)</summary>",
        "",
        *_commits(series),
        "",
        *_reproduce(series, command),
        "",
        "</details>",
        "",
    ]
    return "\n".join(lines)
