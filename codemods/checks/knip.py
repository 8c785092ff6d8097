"""The knip check: `bun run knip` as mesh's `test.yml` runs it, and only
the findings the unpatched base tree lacks count.

knip reports unused files, exports and dependencies of the whole
repository, so a finding is known by its kind, file and name (never its
line: edits move lines). The patched tree runs first; only when it has
findings does the base tree run (or its cached findings count), so a clean
repository costs one run.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .model import Check, Outcome, execute, first_lines, installed_bun, strip_ansi

CACHE_FORMAT = 1  # bump when the cached findings' form changes


Finding = tuple[str, str, str]  # (kind, file, name)


def knip_check(context) -> Check:
    """``context`` is a `typecheck.Context`: the patched tree, and the
    base tree to compare with (`context.source`)."""
    root = context.root
    if "knip" not in _scripts(root):
        return Check("knip", Outcome.NOT_AVAILABLE, "the checkout's package.json has no `knip` script")
    bun = installed_bun(root, "knip")
    if isinstance(bun, Check):
        return bun
    command = [bun, "run", "knip", "--reporter", "json"]
    shown = "bun run knip --reporter json"
    found = _run(command, root)
    if isinstance(found, str):
        return Check("knip", Outcome.FAILED, "knip failed without a report", shown, found)
    if not found:
        return Check("knip", Outcome.PASSED, "knip: no findings", shown)
    base = _base_findings(context, command) if context.source is not None else None
    if isinstance(base, str):
        return Check("knip", Outcome.FAILED, "knip failed on the unpatched tree without a report", shown, base)
    compared = f" (baseline: {context.source.describe})" if context.source else ""
    known = found & base if base is not None else set()
    new = found - known
    if new:
        kept = "every finding counts (no baseline)" if base is None else f"{len(known)} already in the unpatched tree"
        return Check(
            "knip", Outcome.FAILED, f"knip: {len(new)} new finding(s); {kept}{compared}", shown,
            first_lines("\n".join(describe(f) for f in sorted(new))),
        )
    return Check("knip", Outcome.PASSED, f"knip: no new findings; {len(known)} already in the unpatched tree{compared}", shown)


def describe(finding: Finding) -> str:
    kind, file, name = finding
    return f"{KINDS.get(kind, kind)}: {name} {file}" if name else f"{KINDS.get(kind, kind)}: {file}"


# knip's own headings for its JSON keys
KINDS = {
    "files": "Unused file",
    "dependencies": "Unused dependency",
    "devDependencies": "Unused devDependency",
    "optionalPeerDependencies": "Referenced optional peerDependency",
    "unlisted": "Unlisted dependency",
    "binaries": "Unlisted binary",
    "unresolved": "Unresolved import",
    "exports": "Unused export",
    "nsExports": "Exports in used namespace",
    "types": "Unused exported type",
    "nsTypes": "Exported types in used namespace",
    "enumMembers": "Unused exported enum member",
    "classMembers": "Unused exported class member",
    "duplicates": "Duplicate export",
    "catalog": "Unused catalog entry",
}


def findings(report: dict) -> set[Finding]:
    """Each finding of knip's JSON report (`--reporter json`): unused files
    by path, the rest by kind, file and name."""
    found: set[Finding] = {("files", path, "") for path in report.get("files", []) if isinstance(path, str)}
    for row in report.get("issues", []):
        file = row.get("file", "")
        for kind, items in row.items():
            if kind in ("file", "owners"):
                continue
            if kind == "files":  # older reports mark an unused file in its row
                if items:
                    found.add(("files", file, ""))
            elif isinstance(items, dict):  # enum and class members, by their parent
                found.update((kind, file, f"{parent}.{_name(i)}") for parent, members in items.items() for i in members)
            elif isinstance(items, list):
                found.update((kind, file, _name(i)) for i in items)
    return found


def _name(item) -> str:
    if isinstance(item, list):  # duplicates: the names of one export
        return "|".join(_name(i) for i in item)
    return str(item.get("name", "")) if isinstance(item, dict) else str(item)


def _run(command: list[str], cwd: Path) -> set[Finding] | str:
    """The findings of one run, or its output when it gave no report (exit
    code 0: none; 1: findings; anything else, or no JSON: a failure)."""
    result = execute(command, cwd)
    output = strip_ansi(result.stdout)
    report = _json_report(output)
    if result.returncode not in (0, 1) or report is None:
        return first_lines(strip_ansi(result.stdout + result.stderr)) or f"exit code {result.returncode}, no output"
    found = findings(report)
    if result.returncode == 1 and not found:
        return first_lines(strip_ansi(result.stdout + result.stderr))
    return found


def _json_report(output: str) -> dict | None:
    """The JSON line among what `bun run` prints around it."""
    for line in reversed(output.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and "issues" in value:
                return value
    return None


def _base_findings(context, command: list[str]) -> set[Finding] | str | None:
    """The base tree's findings, cached by the base commit and the lock
    files; None when the base tree cannot run knip."""
    from .typecheck import cache_dir

    baseline = context.source
    key = hashlib.sha256(f"{CACHE_FORMAT}\0{baseline.key}".encode()).hexdigest()[:32]
    cached = cache_dir().parent / "knip" / f"{key}.json"
    try:
        return {tuple(f) for f in json.loads(cached.read_text())["findings"]}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    with baseline.tree() as tree:
        if "knip" not in _scripts(tree):
            return None
        found = _run(command, tree)
    if isinstance(found, set):
        cached.parent.mkdir(parents=True, exist_ok=True)
        temp = cached.with_suffix(f".{os.getpid()}.tmp")
        temp.write_text(json.dumps({"findings": sorted(found)}, indent=1))
        os.replace(temp, cached)
    return found


def _scripts(root: Path) -> dict:
    try:
        scripts = json.loads((root / "package.json").read_text(encoding="utf-8")).get("scripts", {})
    except (OSError, ValueError, AttributeError):
        return {}
    return scripts if isinstance(scripts, dict) else {}
