"""The pull request's description (Markdown), from the series and the checks."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from .. import __version__
from .templates import code

# The problem in two sentences (the host's: the SDK's bodies are
# `sdk_body`'s).
PROBLEM = (
    "An MCP app's internal navigation (which conversation, which view) is lost "
    "when Studio reloads it, and cannot be shared as a link. "
    "With this change the app reports its view with `ui/notifications/state-changed`, "
    "Studio keeps it in the `appState` search param, and hands it back in "
    "`hostContext.appState` when the app (re)loads."
)


TITLE = "Deep-link app state for MCP apps (appState)"


def title(series) -> str:
    """The PR's title, by the kind of change (`changeover.kind`): mesh's
    `<type>(mcp-apps): ...` on the host (`mesh_body`)."""
    from ..plan import changeover

    plan = series.plan
    if plan.target == "host":
        from . import mesh_body

        return mesh_body.title(series)
    if plan.target == "sdk":
        from . import sdk_body

        return sdk_body.code_title(series)
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
    problem = PROBLEM
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


def render(series, report, command: Sequence[str], not_run: str = NOT_RUN, spec_url: str = "") -> str:
    """``series`` is a `build.Series`; ``report`` a `verify.Report`, the
    publishing side's `verdict.Verdict`, or None (then ``not_run`` says why);
    ``spec_url``: where the SDK's spec branch is (its compare page)."""
    target = series.plan.target
    if target == "sdk":  # written for the SDK's maintainers (SPEC section 7)
        from . import sdk_body

        tail = [*left_alone_section(series.plan), "", *_reproduce(series, command)]
        return sdk_body.render_code(series, report, tail, "" if not_run == NOT_RUN else not_run, spec_url)
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


def render_sdk_spec(series, command: Sequence[str]) -> str:
    """The body of the spec PR (the SEP text alone, under the code PR that
    stacks on it): `sdk_body.render_spec`."""
    from . import sdk_body

    return sdk_body.render_spec(series, [*left_alone_section(series.plan), "", *_reproduce(series, command)])
