"""The commit of a change over time: a checkout that has the feature in an
earlier form (another bridge mode or SDK form, an earlier release's output)
gets one commit of its own that brings it to the current form (SPEC 5a);
one that has part of it gets one commit that completes it. `kind` names
which change a plan is, for the commit and the PR's title and body."""

from __future__ import annotations

import re
from pathlib import Path

from .. import __version__
from ..engine.outcome import Status
from ..recipes.base import CommitGroup
from .model import Plan

FIRST, MIGRATION, UPGRADE, BOTH, COMPLETION = (
    "first change", "migration", "upgrade", "migration and upgrade", "completion",
)


def kind(plan: Plan) -> str:
    """What the change does to the checkout: brings the feature for the
    first time, migrates its wiring, upgrades an earlier release's output
    (or both), or completes a tree that has most of it."""
    kinds = {c.kind for _, c in plan.form_changes}
    if kinds >= {"migrate", "upgrade"}:
        return BOTH
    if "migrate" in kinds:
        return MIGRATION
    if "upgrade" in kinds:
        return UPGRADE
    # Mostly there already: the change completes it (one commit). With
    # less there (a piece mesh wrote by itself, say) it is the first change.
    already = sum(r.status is Status.ALREADY for r in plan.results)
    if plan.changes and already > sum(r.status is Status.APPLIED for r in plan.results):
        return COMPLETION
    return FIRST


def migration(plan: Plan) -> tuple[str, str, str] | None:
    """(from, to, why) of the plan's migration of the wiring (else its
    first migration: a file or schema it replaces)."""
    found = migrations(plan)
    if not found:
        return None
    result, change = found[0]
    return _short(change.was), _short(change.now).removeprefix(__version__ + ", "), result.why


def migrations(plan: Plan) -> list:
    """The plan's migrations, the wiring's first (its label names a mode,
    not a release)."""
    found = [(r, c) for r, c in plan.form_changes if c.kind == "migrate"]
    return sorted(found, key=lambda rc: bool(re.match(r"\d", _short(rc[1].now))))


def migration_phrase(plan: Plan) -> str:
    """What the plan's migration does, for a subject or a title: "migrate
    the state-changed wiring to <mode>", or, where the wiring stays in sdk
    mode and only the SDK's API changed, "follow the SDK's ..."."""
    found = migrations(plan)
    if not found:
        return ""
    change = found[0][1]
    was, now = _short(change.was).split(", ")[-1], _short(change.now).removeprefix(__version__ + ", ")
    if was == now == "sdk mode":
        api = change.now.split(" (", 1)[1].rstrip(")") if " (" in change.now else "state-changed API"
        return f"follow the SDK's {api.split(', params.')[0]}"
    return f"migrate the state-changed wiring to {now}"


def following(plan: Plan) -> str:
    """What of the installed SDK's the plan's migrations follow (SPEC 10):
    "names", "capability shape", both, or "" (read from the capability's
    migration, ``the capability `key: shape```)."""
    def capability(label: str) -> tuple[str, str]:
        key, _, shape = label.split("`")[1].partition(": ") if label.count("`") >= 2 else ("", "", "")
        return key, shape

    what = []
    for _result, change in plan.form_changes:
        if change.kind == "migrate" and change.was.startswith("the capability `"):
            (was_key, was_shape), (key, shape) = capability(change.was), capability(change.now)
            what += ["names"] * (was_key != key) + ["capability shape"] * (was_shape != shape)
    return " and ".join(dict.fromkeys(what))


def wiring_migration(plan: Plan) -> str:
    """The wiring the plan's handler migrates to ("" when it keeps its own)."""
    for _result, change in plan.form_changes:
        now = _short(change.now).removeprefix(__version__ + ", ")
        if change.kind == "migrate" and now.startswith(("sdk mode", "compat mode")):
            return now
    return ""


def upgraded_from(plan: Plan) -> list[str]:
    """The earlier releases whose output the plan upgrades, oldest first:
    the release each upgraded form's label names before its first comma."""
    heads = [c.was.split(",", 1)[0] for _, c in plan.form_changes if c.kind == "upgrade"]
    return sorted({v for head in heads for v in re.findall(r"\d+\.\d+\.\d+", head)}, key=_version_key)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def completion_group(plan: Plan) -> CommitGroup:
    """One commit that adds what a checkout with part of the feature lacks."""
    present = [r for r in plan.results if r.status is Status.ALREADY]
    steps = tuple(dict.fromkeys(s for c in plan.changes for s in c.steps))
    body = [
        f"The checkout has part of the appState feature ({len(present)} of the tool's",
        f"steps are there); this adds what is missing, as release {__version__} writes it:",
        "",
    ]
    body += [f"- {c.path} ({c.kind}): {', '.join(c.steps)}" for c in plan.changes]
    return CommitGroup(
        id="completion", subject="feat(mcp-apps): complete the appState feature", body="\n".join(body), steps=steps
    )


def changelog_entries(since: str, until: str = __version__) -> dict[str, list[str]]:
    """The CHANGELOG.md entries (the first line of each item) of the
    releases after ``since`` up to ``until``, newest first; an unreleased
    version reads the "Unreleased" section. Empty when the file is not
    there (it ships beside the package, codemods/CHANGELOG.md)."""
    path = Path(__file__).parents[1] / "CHANGELOG.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        heading = re.match(r"^## \[([^\]]+)\]", line)
        if heading:
            current = heading[1]
            sections[current] = []
        elif current and line.startswith("- "):
            sections[current].append(line[2:].strip())
        elif current and line.startswith("  ") and sections[current] and not sections[current][-1].endswith("."):
            # the item's first sentence may wrap
            sections[current][-1] += " " + line.strip()
    released = [v for v in sections if v != "Unreleased"]
    wanted = {}
    for version, items in sections.items():
        label = until if version == "Unreleased" and until not in released else version
        if version == "Unreleased" and until in released:
            continue
        if version != "Unreleased" and not (_version_key(since) < _version_key(version) <= _version_key(until)):
            continue
        wanted[label] = [_first_sentence(item) for item in items]
    return wanted


def _first_sentence(item: str) -> str:
    match = re.match(r"^(.+?\.)(\s|$)", item)
    sentence = match[1] if match else item
    if len(sentence) > 240:
        sentence = sentence[:239].rstrip() + ("`" if sentence[:239].count("`") % 2 else "") + "…"
    return sentence


def _short(label: str) -> str:
    """A form's label without its parenthesised detail."""
    return label.split(" (", 1)[0]


def _left_reason(item: dict) -> str:
    if item["why"] == "pair":
        return "kept at its release, with the file it goes with, which someone edited"
    if item["why"] == "conflict":
        return "this release conflicts with edits made since mesh-codemod wrote it; merge them by hand"
    return "edited since mesh-codemod wrote it; compare it with this release's by hand"


def commit_group(plan: Plan) -> CommitGroup:
    """One group with every step, its message saying what became what and why."""
    wiring = migrations(plan)
    upgrades = [(r, c) for r, c in plan.form_changes if c.kind == "upgrade"]
    parts = []
    follow = following(plan)
    if follow:
        parts.append(f"follow the SDK's {follow}")
    if wiring and (wiring_migration(plan) or not follow):
        parts.append(migration_phrase(plan))
    if upgrades:
        parts.append(f"upgrade the appState feature to mesh-codemod {__version__}")
    subject = "refactor(mcp-apps): " + " and ".join(parts)
    body: list[str] = []
    if follow:
        body += [f"The installed SDK declares the feature's {follow} otherwise: the wire follows it.", ""]
    if wiring:
        body += [
            f"The checkout is wired in {_short(wiring[0][1].was)}; this run chose",
            f"{wiring[0][0].why}.",
            "The handler is replaced, and what only the earlier wiring used (its",
            "schema and imports) is removed. Every other line stays.",
            "",
        ]
    if upgrades:
        releases = upgraded_from(plan)
        body += [
            f"These files hold what mesh-codemod {' and '.join(releases)} wrote; release {__version__}",
            "writes them differently (see mesh-codemod's CHANGELOG.md). Only what is",
            "still exactly what a release wrote is replaced.",
            "",
        ]
    by_file: dict[str, list] = {}
    for result, change in plan.form_changes:
        by_file.setdefault(result.path, []).append(change)
    for path, changes in by_file.items():
        was = ", ".join(dict.fromkeys(_short(c.was) for c in changes))
        now = _short(changes[0].now)
        spans = [c.where.removeprefix("lines ").removeprefix("line ") for c in changes]
        where = "the file" if spans == ["the file"] else "lines " + ", ".join(spans)
        body.append(f"- {path}: {was} -> {now} ({where})")
    others = sorted({c.path for c in plan.changes} - set(by_file))
    body += [f"- {path}: completed to release {__version__}" for path in others]
    left = [item for item in plan.left_alone() if item["why"] in ("edited", "conflict", "pair")]
    if left:
        body += ["", "Left behind (a person's edit stands):"]
        body += [f"- {item['path']}: {_left_reason(item)}" for item in left]
    steps = tuple(dict.fromkeys(s for c in plan.changes for s in c.steps))
    return CommitGroup(id="change-over-time", subject=subject, body="\n".join(body), steps=steps)
