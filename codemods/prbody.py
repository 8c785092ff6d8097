"""The pull request's description (Markdown), from the series and the checks."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from . import __version__
from .recipes.names import NAMES

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


def title(series) -> str:
    """The PR's title."""
    return "Deep-link app state for MCP apps (appState)"


def render(series, report, command: Sequence[str]) -> str:
    """``series`` is a `gitops.Series`; ``report`` a `verify.Report` or None."""
    target = series.plan.target
    problem = PROBLEMS.get(target, PROBLEMS["host"])
    lines = ["## Deep-link app state for MCP apps", "", problem, ""]
    if target == "sdk":  # written for the SDK's maintainers (SPEC section 7)
        lines += sdk_sections(series.plan)
    lines += ["## Commits", ""]
    for commit in series.commits:
        lines.append(f"- `{commit.sha[:12]}` {commit.group.subject}")
        for path, kind in commit.files:
            lines.append(f"  - `{path}` ({kind})")
    lines += left_alone_section(series.plan)
    if target == "host":  # the bridge mode is a host choice (SPEC section 5)
        mode = series.bridge.mode.value
        lines += ["", "## Bridge mode", "", f"`{mode}`{series.bridge.describe()[len(mode):]}."]
    formatter = series.plan.formatter
    if formatter is not None and target == "host":  # the SDK has no Biome: nothing to say
        name = formatter.name
        lines += ["", "## Layout", "", f"Formatter: {name} ({formatter.reason}).", ""]
        groups: dict = {}
        for change in series.plan.changes:
            if change.layout:
                groups.setdefault(change.layout, []).append(f"`{change.path}`")
        for layout, paths in groups.items():
            lines.append(f"- {layout.kind} ({layout.reason}): {', '.join(paths)}")
    lines += ["", "## Verification", ""]
    if report is None:
        lines.append("Not run (`--no-verify`).")
    else:
        whose = "The SDK's own checks (Prettier, tsc, bun test)" if target == "sdk" else "mesh's own checks"
        lines.append(f"{whose} on the {len(report.files)} touched file(s), on the branch's tree:")
        lines += ["", report.markdown()]
    lines += [
        "",
        "## How to reproduce",
        "",
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
        "",
    ]
    return "\n".join(lines)


def fingerprint_line(series) -> str:
    """The change's fingerprint as an HTML comment: once this PR is closed
    without merging, a run with the same fingerprint proposes nothing."""
    from .commands import series_fingerprint
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
    }
    lines = ["", "## Left alone", ""]
    for item in left:
        lines.append(f"- `{item['path']}` ({item['step']}): {words[item['why']].format(step=item['step'])}")
    return lines


# --- the SDK's sections -----------------------------------------------------


def sdk_sections(plan) -> list[str]:
    """What the SDK's maintainers review: the SEP text, the API in this
    revision's shape, compatibility, and how the generated files were made
    (``plan`` is the series' `runner.Plan`)."""
    from .engine.outcome import Status

    results = {r.step: r for r in plan.results}
    changed = {step for change in plan.changes for step in change.steps}
    new_text = {c.path: c.new.decode("utf-8", "replace") for c in plan.changes}

    def note_of(step: str, prefix: str) -> str:
        result = results.get(step)
        return next((n for n in (result.notes if result else ()) if n.startswith(prefix)), "")

    lines = ["## The SEP text", ""]
    spec = results.get("spec")
    if spec is not None and "spec" in changed:
        lines += [
            f"`{spec.path}` (the draft; the dated versions such as `specification/2026-01-26/` are not touched):",
            "",
            "- a `ui/notifications/state-changed` entry under \"Notifications (View → Host)\", right after"
            " `ui/notifications/size-changed` and in its form: the View SHOULD send it when its own navigation"
            " changes, keeps the state small and puts nothing secret in it (a Host may keep it in a URL); a Host"
            " MAY keep the state, one that does SHOULD hand it back in `hostContext.appState` of the"
            " `ui/initialize` result and MAY push a changed state with `ui/notifications/host-context-changed`;"
            " a Host treats a state it hands back as untrusted input (it can come from a link);",
            "- `appState?: unknown`, with a doc comment, in the draft's `HostContext` interface.",
        ]
    elif spec is not None and spec.status is Status.SKIPPED and spec.reason:
        lines.append(f"Not changed: {spec.reason}.")
    else:
        lines.append("Not changed: the draft already describes the notification and the field.")

    shape = note_of("app-bridge", "shape ")
    lines += ["", "## The API" + (f" (this revision's {shape.split(':')[0]})" if shape else ""), ""]
    if shape:
        lines += [f"This revision is {shape}; the new members are wired exactly like their size-changed twins.", ""]
    api = []
    if "spec-types" in changed:
        constant = "STATE_CHANGED_METHOD" in new_text.get(results["spec-types"].path, "")
        api.append(
            "`src/spec.types.ts`: `McpUiStateChangedNotification` (`method: \"ui/notifications/state-changed\"`,"
            " `params: { state: unknown }`), `appState?: unknown` on `McpUiHostContext`"
            + (", and `STATE_CHANGED_METHOD` beside `SIZE_CHANGED_METHOD`" if constant else "")
        )
    if "schema" in changed:
        api.append("`src/generated/`: `McpUiStateChangedNotificationSchema` and `appState` in `McpUiHostContextSchema`")
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

    lines += [
        "",
        "## Compatibility",
        "",
        "Additive only: no existing type, method or message changes, and every new member is optional.",
        "",
        "- A host that ignores `ui/notifications/state-changed` is unaffected: it is a notification, so no"
        " answer is awaited, and a host without a handler drops it like any other notification it does not"
        " handle. A host that never sets `appState` sends the same `ui/initialize` result as before.",
        "- An app that never sends it is unaffected: nothing it sends or receives changes, and"
        " `hostContext.appState` is only there when a host kept a state for it.",
    ]

    generated = [results[s] for s in ("schema", "schema-test", "schema-json") if s in results and s in changed]
    if generated:
        lines += ["", "## Generated files", ""]
        regenerated = [r.path for r in generated if any("regenerated with" in n for n in r.notes)]
        written = [r.path for r in generated if r.path not in regenerated]
        if regenerated:
            lines.append(
                "Regenerated with `npm run generate:schemas` from the edited `src/spec.types.ts`: "
                + ", ".join(f"`{p}`" for p in regenerated) + "."
            )
        if written:
            lines.append(
                "Written in the generator's style (ts-to-zod's schemas and type checks, then Prettier) rather"
                " than by running it, as the change was planned without `node_modules`: "
                + ", ".join(f"`{p}`" for p in written)
                + ". Please confirm with `npm run generate:schemas` that it gives the same bytes (the SDK's CI"
                " fails on any difference)."
            )
    return lines + [""]
