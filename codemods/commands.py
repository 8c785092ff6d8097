"""What each command does and prints, and the exit code it returns.

Shared by the typer command line (`cli.py`) and the fast path
(`fastpath.py`); it imports neither typer nor git, so that the commands a CI
job runs most (`apply --check`, `apply --dry-run`) start quickly.
"""

from __future__ import annotations

import sys
from enum import IntEnum
from pathlib import Path

from .engine.record import NamedTuple
from .engine.outcome import Refused, Status
from .formatter import FormatterMode
from .recipes.base import Bridge


class Exit(IntEnum):
    OK = 0
    PENDING = 1
    USAGE = 2
    REFUSED = 3
    VERIFY_FAILED = 4


class ApplyRequest(NamedTuple):
    repo: Path = Path(".")
    dry_run: bool = False
    check: bool = False
    as_json: bool = False
    bridge: Bridge = Bridge.AUTO
    only: tuple[str, ...] | list[str] = ()
    lock_timeout: float = 30.0
    formatter: FormatterMode = FormatterMode.AUTO
    # created files to write again although someone removed them (see runner.plan)
    restore: tuple[str, ...] | list[str] = ()


_COLORS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
_BOLD = "\x1b[1m"
_STATUS_WORDS = {
    Status.ALREADY: "applied",
    Status.APPLIED: "pending",
    Status.REFUSED: "refused",
    Status.SKIPPED: "skipped",
}


def _err(message: str) -> None:
    print(message, file=sys.stderr)


def _colored(diff: str) -> str:
    out = []
    for line in diff.splitlines(keepends=True):
        color = _BOLD if line.startswith(("+++", "---", "diff --git")) else _COLORS.get(line[:1])
        out.append(f"{color}{line.rstrip(chr(10))}\x1b[0m\n" if color else line)
    return "".join(out)


def _print_json(data: object) -> None:
    import json

    print(json.dumps(data, indent=2))


def _fail(message: str, code: Exit, as_json: bool) -> int:
    if as_json:
        _print_json({"error": message, "exit": int(code)})
    else:
        _err(f"mesh-codemod: {message}")
    return int(code)


def _plan(
    repo: Path, bridge: Bridge, only: list[str], formatter: FormatterMode = FormatterMode.AUTO, restore=()
):
    from .runner import plan

    return plan(repo, bridge, only, formatter, restore)


def _header(plan, layout: bool = True) -> None:
    """The target, the bridge mode and, where the run lays files out
    (``layout``), the formatter, each with why."""
    _err(f"target: {plan.target} ({plan.repo})")
    _err(f"bridge: {plan.bridge.describe()}")
    if layout and plan.formatter is not None:
        name = plan.formatter.name
        _err(f"formatter: {name} ({plan.formatter.reason})")
    for notice in plan.notices:
        _err(f"note: {notice}")


def _layout_lines(plan) -> list[str]:
    """Each file's layout, files that share one (and its reason) on one line."""
    groups: dict[tuple[str, str], list[str]] = {}
    for change in plan.changes:
        if change.layout is not None:
            groups.setdefault((change.layout.kind, change.layout.reason), []).append(change.path)
    if len(groups) == 1:
        [((kind, reason), paths)] = groups.items()
        if len(paths) > 1:
            return [f"  layout: {kind} for all {len(paths)} files ({reason})"]
    lines = []
    for (kind, reason), paths in groups.items():
        lines.append(f"  layout: {kind} ({reason}):")
        lines.extend(f"    {path}" for path in paths)
    return lines


def _step_lines(plan, applied_word: str) -> list[str]:
    lines = []
    for result in plan.results:
        word = {
            Status.APPLIED: applied_word,
            Status.ALREADY: "already there",
            Status.REFUSED: "refused",
            Status.SKIPPED: "skipped",
        }[result.status]
        line = f"  {result.step:<18} {word:<14} {result.path}"
        for extra in ([result.reason] if result.reason else []) + [n for n in result.notes if n.startswith("found ")]:
            line += f"\n  {'':<18} {extra}"
        for change in result.form_changes:
            line += f"\n  {'':<18} {_form_change_line(change, result.why)}"
        lines.append(line)
    return lines


def _form_change_line(change, why: str) -> str:
    """``migrate lines 3-9: <from> -> <to> (why)``; an upgrade needs no why."""
    return str(change) + (f" (why: {why})" if change.kind == "migrate" else "")


def apply(request: ApplyRequest) -> int:
    """`mesh-codemod apply`: plan, then write (or show, or only check)."""
    from .lock import Busy, repo_lock
    from .runner import TargetError

    if request.dry_run and request.check:
        return _fail("--dry-run and --check cannot be combined", Exit.USAGE, request.as_json)
    writing_allowed = not (request.dry_run or request.check)
    try:
        with repo_lock(request.repo, request.lock_timeout):
            plan = _plan(request.repo, request.bridge, request.only, request.formatter, request.restore)
            if writing_allowed and plan.pending:
                from .runner import refuse_unwritable

                refuse_unwritable(plan)
            writing = writing_allowed and plan.pending and not plan.refused
            if writing:
                from .runner import write

                write(plan.repo, plan.changes)
    except TargetError as err:
        return _fail(str(err), Exit.REFUSED, request.as_json)
    except Busy as err:
        return _fail(str(err), Exit.REFUSED, request.as_json)
    except ValueError as err:
        return _fail(str(err), Exit.USAGE, request.as_json)
    except (OSError, Refused) as err:
        return _fail(f"nothing written: {err}", Exit.REFUSED, request.as_json)

    if request.as_json:
        report = plan.to_json()
        report["written"] = writing
        if request.dry_run and not plan.refused:
            report["diff"] = plan.diff()
        _print_json(report)
    else:
        _header(plan)
        for line in _step_lines(plan, "applied" if writing else "pending") + _layout_lines(plan):
            _err(line)
        if request.dry_run and plan.pending and not plan.refused:
            # A refused run changes nothing: its partial diff is no proposal.
            diff = plan.diff()
            sys.stdout.write(_colored(diff) if sys.stdout.isatty() else diff)
        _err(_summary(plan, writing, request.check))

    if plan.refused:
        return int(Exit.REFUSED)
    if request.check and plan.pending:
        return int(Exit.PENDING)
    return int(Exit.OK)


def _summary(plan, writing: bool, check: bool) -> str:
    if plan.refused:
        return f"refused: {len(plan.refused)} step(s) cannot run; nothing was written"
    if not plan.pending:
        left = [r for r in plan.results if r.status is Status.SKIPPED and r.kind in ("config", "decision")]
        if left:
            return f"nothing to do: every step is applied or left alone ({len(left)} by the team's decision)"
        return "nothing to do: every step is already applied"
    if writing:
        return f"wrote {len(plan.changes)} file(s)"
    return f"{len(plan.changes)} file(s) would change" + ("" if check else "; nothing written")


def status(repo: Path, as_json: bool, formatter: FormatterMode = FormatterMode.AUTO) -> int:
    """`mesh-codemod status`: each step applied, pending or refused."""
    from .runner import TargetError

    try:
        plan = _plan(repo, Bridge.AUTO, [], formatter)
    except TargetError as err:
        return _fail(str(err), Exit.REFUSED, as_json)
    except ValueError as err:
        return _fail(str(err), Exit.USAGE, as_json)
    states = [
        {
            **r.to_json(),
            "status": _STATUS_WORDS[r.status],
            **({"reason": _pending_reason(plan.repo, r)} if r.status is Status.APPLIED else {}),
        }
        for r in plan.results
    ]
    if as_json:
        _print_json({**plan.to_json(), "steps": states})
    else:
        _header(plan)
        for state in states:
            line = f"{state['step']:<18} {state['status']:<8} {state['path']}"
            if "reason" in state:
                line += f"\n{'':<18} {state['reason']}"
            print(line)
        for result, change in plan.form_changes:
            print(f"{result.step:<18} {change.kind:<8} {result.path} {_form_change_line(change, result.why)}")
        for line in _layout_lines(plan):
            print(line)
    return int(Exit.REFUSED if plan.refused else Exit.OK)


def _pending_reason(repo: Path, result) -> str:
    """Why a step is pending: what it would add or change."""
    if result.form_changes:
        return "; ".join(str(c) for c in result.form_changes)
    added = [str(n) for n in result.notes if not n.startswith(("found ", "created beside"))]
    if added:
        first = " ".join(added[0].split())
        first = first if len(first) <= 70 else first[:67] + "..."
        return f"missing: `{first}`" + (f" and {len(added) - 1} more" if len(added) > 1 else "")
    if not (repo / result.path).exists():
        return "the file does not exist yet"
    return "the file would change"


def list_steps(as_json: bool) -> int:
    """`mesh-codemod list`: every target's steps with their ids and descriptions."""
    from .recipes import targets

    every = tuple(targets())
    if as_json:
        rows = [
            {"target": t.name, "id": s.id, "path": s.path, "description": s.description}
            for t in every
            for s in t.steps
        ]
        _print_json(rows)
    else:
        for index, target in enumerate(every):
            print(("\n" if index else "") + f"{target.name}: {target.description}")
            for step in target.steps:
                print(f"  {step.id:<18} {step.description}")
    return int(Exit.OK)


# --- patch, pr, verify: git and the repo's own tools ---------------------------


class SeriesRequest(NamedTuple):
    """The inputs shared by `patch` and `pr`."""

    repo: Path = Path(".")
    base: str = "HEAD"
    bridge: Bridge = Bridge.AUTO
    author: str | None = None  # "Name <email>"
    as_json: bool = False
    formatter: FormatterMode = FormatterMode.AUTO


class PrRequest(NamedTuple):
    series: SeriesRequest
    branch: str
    push: str | None = None
    body_out: Path | None = None
    force: bool = False
    verify: bool = True
    require_checks: bool = False  # a check that cannot run fails (exit 4)
    # a branch holding commits that are not the tool's: exit 3 instead of
    # leaving it alone with exit 0
    fail_on_blocked: bool = False
    # the build job's artifact (codemods/publish.py) goes to this folder
    artifact: Path | None = None


def _author(value: str | None) -> tuple[str | None, str | None]:
    if value is None:
        return None, None
    import re

    match = re.fullmatch(r"\s*([^<>]+?)\s*<([^<>\s]+)>\s*", value)
    if not match:
        raise ValueError(f"--author must look like 'Name <email>', not {value!r}")
    return match[1], match[2]


def _series(request: SeriesRequest):
    from . import gitops

    repo = gitops.open_repo(request.repo)
    name, email = _author(request.author)
    return gitops.build_series(
        repo, request.base, request.bridge, gitops.identity(repo, name, email), request.formatter
    )


def _git_failures():
    import git

    from . import gitops
    from .runner import TargetError

    # any git failure is a refusal with git's words, never a traceback
    return gitops.GitProblem, TargetError, Refused, git.GitError


def _refusal(err: Exception) -> str:
    """The message for a refusal; a failed git command in git's own words."""
    import git

    if isinstance(err, git.GitCommandError):
        command = err.command if isinstance(err.command, list) else str(err.command).split()
        words = [str(w) for w in command[1:] if not str(w).startswith("-")][:1]
        stderr = (err.stderr or "").strip().removeprefix("stderr:").strip().strip("'").strip()
        detail = stderr.splitlines()[-1] if stderr else f"exit code {err.status}"
        return f"git {' '.join(words) or 'command'} failed: {detail}"
    return str(err)


def patch(request: SeriesRequest, out: Path) -> int:
    """`mesh-codemod patch`: the series as `git am` files in ``out``."""
    from . import environment

    with environment.sealed():
        return _patch(request, out)


def _patch(request: SeriesRequest, out: Path) -> int:
    from . import gitops

    try:
        series = _series(request)
        written = gitops.write_patches(series, out)
    except ValueError as err:
        return _fail(str(err), Exit.USAGE, request.as_json)
    except (*_git_failures(), OSError) as err:
        return _fail(_refusal(err), Exit.REFUSED, request.as_json)
    if request.as_json:
        _print_json({**_series_json(series), "patches": [str(p) for p in written]})
        return int(Exit.OK)
    _series_header(series)
    if not written:
        _err("nothing to do: the base already has every edit; no patch written")
    for path, commit in zip(written, series.commits):
        _err(f"  {path}")
        for file, kind in commit.files:
            _err(f"      {kind:<9} {file}")
    if written:
        _err(f"wrote {len(written)} patch(es); apply them with: git am {out}/*.patch")
    return int(Exit.OK)


def _series_header(series) -> None:
    _err(f"target: {series.plan.target} ({series.repo.working_tree_dir})")
    _err(f"bridge: {series.bridge.describe()}")
    _err(f"base: {series.base}")
    for item in series.plan.left_alone():  # skipped, removed or edited: a person's decision
        _err(f"left alone: {item['path']} ({item['step']}): {item['reason']}")


def series_fingerprint(series) -> str:
    """The change's fingerprint (`forge.fingerprint`): a closed PR with the
    same one was a "no" to this very change."""
    from .forge import fingerprint

    return fingerprint([(c.path, c.old, c.new) for c in series.plan.changes])


def _kind(series) -> str:
    from .changeover import kind

    return kind(series.plan)


def _series_json(series) -> dict:
    return {
        "fingerprint": series_fingerprint(series),
        "kind": _kind(series),
        "left_alone": series.plan.left_alone(),
        "target": series.plan.target,
        "bridge": series.bridge.to_json(),
        "base": series.base,
        "tip": series.tip,
        "author": str(series.identity),
        "commits": [
            {
                "sha": c.sha,
                "group": c.group.id,
                "subject": c.group.subject,
                "files": [{"path": p, "change": k} for p, k in c.files],
            }
            for c in series.commits
        ],
        # how each file was laid out, and why (the checkout's formatter only
        # where it changed layout alone)
        "files": [
            {"path": c.path, **({"layout": c.layout.to_json()} if getattr(c, "layout", None) else {})}
            for c in series.plan.changes
        ],
    }


def _pr_command(request: PrRequest, series) -> list[str]:
    """The command line that rebuilds exactly this branch."""
    args = ["pr", "--repo", ".", "--branch", request.branch, "--base", series.base]
    args += ["--bridge", series.bridge.mode.value, "--author", str(series.identity)]
    formatter = series.plan.formatter
    if formatter is not None:  # the layout depends on it: name it, so that a rerun fails rather than differs
        args += ["--formatter", "biome" if formatter.biome else "none"]
    return args


def pr(request: PrRequest) -> int:
    """`mesh-codemod pr`: build the series from git objects, verify, push
    it with a lease, then point the branch at it (never the checked-out
    one). Credentials reach git's network calls only (`environment`)."""
    from . import environment

    with environment.sealed():
        return _pr(request)


def _pr(request: PrRequest) -> int:
    from . import gitops, prbody

    as_json = request.series.as_json
    try:
        # names first: a malformed one is a usage error before any work
        gitops.check_branch_name(request.branch)
        if request.push is not None:
            gitops.check_remote_name(request.push)
        # the formatter and the checks run the repository's code, which can
        # reach the checkout (through the copy's node_modules links): the
        # push never runs with a configuration it changed meanwhile
        configured = gitops.configuration_state(gitops.open_repo(request.series.repo))
        series = _series(request.series)
        if not series.commits:
            message = f"nothing to do: {series.base[:12]} already has every edit; branch {request.branch} left alone"
            if as_json:
                _print_json({**_series_json(series), "branch": request.branch, "nothing_to_do": True})
            else:
                _err(message)
            return int(Exit.OK)
        try:
            local, seen, foreign = gitops.check_branch(series, request.branch, request.push, request.force)
        except gitops.ForeignCommits as err:
            if request.fail_on_blocked:
                raise
            _report_blocked(series, request, err, as_json)
            return int(Exit.OK)
        report = None
        if request.verify:
            report = _verify_commit(series, request.require_checks)
        if gitops.configuration_state(series.repo) != configured:
            raise gitops.GitProblem(
                "the repository's git configuration changed while its formatter or checks ran (core.sshCommand, "
                "a remote's URL, ...): nothing pushed, branch not moved; look at .git/config"
            )
        body = prbody.render(series, report, _pr_command(request, series))
        if request.body_out:
            request.body_out.write_text(body, encoding="utf-8")
        if report is not None and report.failed:
            message = (
                f"verification failed ({', '.join(c.name for c in report.failed)}); "
                f"branch {request.branch} not updated, nothing pushed"
            )
            untouched = gitops.BranchUpdate("not updated", replaced=foreign)
            _report_pr(series, request, untouched, report, body, as_json, message)
            return int(Exit.VERIFY_FAILED)
        update = gitops.update_branch(series, request.branch, request.push, local, seen, foreign)
        stacked = _stack_spec_branch(series, request)
        if request.artifact is not None:
            from . import publish

            built = {**_series_json(series), "branch": request.branch, "verify": report.to_json() if report else None}
            publish.write_artifact(series, request.branch, request.artifact, body, built)
    except ValueError as err:
        return _fail(str(err), Exit.USAGE, as_json)
    except (*_git_failures(), OSError) as err:
        return _fail(_refusal(err), Exit.REFUSED, as_json)
    _report_pr(series, request, update, report, body, as_json, stacked=stacked)
    return int(Exit.OK)


def _stack_spec_branch(series, request: PrRequest) -> dict | None:
    """For a series that opens with the SEP text (the SDK target), the spec
    branch: that first commit alone, which the code branch stacks on, with
    its own body (written beside --body-out as `<name>.spec.md`). The same
    checks as the code branch's: a branch holding commits that are not the
    tool's is refused unless --force."""
    from . import gitops, prbody

    part = gitops.spec_part(series)
    if part is None:
        return None
    branch = gitops.spec_branch_name(request.branch)
    local, seen, foreign = gitops.check_branch(part, branch, request.push, request.force)
    body = prbody.render_sdk_spec(part, _pr_command(request, series), request.branch)
    if request.body_out:
        request.body_out.with_name(request.body_out.stem + ".spec.md").write_text(body, encoding="utf-8")
    update = gitops.update_branch(part, branch, request.push, local, seen, foreign)
    return {
        "branch": branch,
        "tip": part.tip,
        "title": part.commits[0].group.subject,
        "local": {"before": update.local_before, "action": update.local_action},
        "push": {"remote": request.push, "pushed": update.pushed},
        "body": body,
    }


def _report_blocked(series, request: PrRequest, err, as_json: bool) -> None:
    """The branch holds commits the tool did not make: it is left alone
    (nothing verified, moved or pushed), and the run stays green."""
    from . import prbody

    reason = (
        f"branch {request.branch} holds {len(err.found)} commit(s) that mesh-codemod did not make: "
        "left alone, nothing pushed (--force replaces them; --fail-on-blocked exits 3 instead)"
    )
    commits = [
        {
            "sha": f.commit.hexsha,
            "author": f"{f.commit.author.name} <{f.commit.author.email}>",
            "subject": f.commit.summary,
            "why": f.reason,
        }
        for f in err.found
    ]
    if as_json:
        _print_json(
            {
                **_series_json(series),
                "title": prbody.title(series),
                "branch": request.branch,
                "push": {"remote": request.push, "pushed": False},
                "blocked": {"reason": reason, "commits": commits},
            }
        )
        return
    _series_header(series)
    _err(f"blocked: {reason}")
    _err(str(err).split("\n", 1)[1] if "\n" in str(err) else str(err))


def _report_pr(
    series, request: PrRequest, update, report, body: str, as_json: bool, error: str = "", stacked: dict | None = None
) -> None:
    """``update`` is a gitops.BranchUpdate; ``stacked`` the spec branch the
    code branch stacks on (SDK target)."""
    from . import prbody

    if stacked is not None and not as_json:
        _err(f"spec branch {stacked['branch']} ({stacked['local']['action']}): {stacked['title']}")
    if as_json:
        data = {
            **({"stacked_on": stacked} if stacked is not None else {}),
            **_series_json(series),
            "branch": request.branch,
            "local": {"before": update.local_before, "action": update.local_action},
            "push": {"remote": request.push, "lease": update.remote_seen, "pushed": update.pushed},
            "replaced": [c.hexsha for c in update.replaced],
            "verify": report.to_json() if report else None,
            "title": prbody.title(series),
            "body": body,
        }
        if error:
            data.update(error=error, exit=int(Exit.VERIFY_FAILED))
        _print_json(data)
        return
    _series_header(series)
    for commit in series.commits:
        _err(f"  {commit.sha[:12]} {commit.group.subject}")
    for commit in update.replaced:
        _err(f"  replaced (--force): {commit.hexsha[:12]} {commit.author.name}: {commit.summary}")
    _err(f"branch {request.branch}: {update.local_action} ({series.tip[:12]})")
    if request.push:
        _err(f"push to {request.push}: " + ("pushed" if update.pushed else "nothing to push (already up to date)"))
    if report is not None:
        _err("verify:\n" + report.text())
    if not request.body_out:
        print(body)
    if error:
        _err(f"mesh-codemod: {error}")


def _verify_commit(series, require: bool = False):
    """Run the checks on the tip's tree (a temporary copy with the
    checkout's node_modules linked), against the base commit."""
    from . import gitops, verify

    checkout = Path(series.repo.working_tree_dir)
    files = [path for c in series.commits for path, _ in c.files]  # verify.run sorts them, once each
    baseline = _baseline(series.repo, checkout, series.base, "base", against=series.tip)
    with gitops.tree_with_dependencies(series.repo, series.tip) as tree, _progress() as note:
        return verify.run(
            tree, files, baseline, note, linked_from=checkout, target=series.plan.target, require=require
        )


def verify_checkout(
    repo: Path, as_json: bool, require: bool = False, base: str | None = None, target: str | None = None
) -> int:
    """`mesh-codemod verify`: the checks on the files the tool targets, in
    place. The type check's baseline is the commit the change was made on
    (`_checkout_baseline`), never a HEAD that holds others' commits above
    the tool's."""
    from . import environment

    with environment.sealed():
        return _verify_checkout(repo, as_json, require, base, target)


def _verify_checkout(repo: Path, as_json: bool, require: bool, base: str | None, target: str | None = None) -> int:
    from . import verify
    from .runner import TargetError

    try:
        # only whether edits are pending matters here, not their layout
        current = _plan(repo, Bridge.AUTO, [], FormatterMode.NONE)
        baseline = _checkout_baseline(repo, base, target)
    except (TargetError, _BaselineProblem) as err:
        return _fail(str(err), Exit.REFUSED, as_json)
    files = [r.path for r in current.results if (repo / r.path).is_file()]  # verify.run sorts them, once each
    try:
        with _progress(as_json) as note:
            report = verify.run(repo, files, baseline, note, target=current.target, require=require)
    except _git_failures() as err:  # exporting the baseline's tree
        return _fail(_refusal(err), Exit.REFUSED, as_json)
    described = baseline.describe if baseline else "none (not a git checkout): every type error counts"
    if as_json:
        _print_json({**report.to_json(), "pending": current.pending, "baseline": described})
    else:
        _header(current, layout=False)  # verify plans only to find the files, without laying them out
        _err(f"baseline: {described}")
        if current.pending:
            _err(f"note: {len(current.changes)} file(s) still have pending edits (`mesh-codemod apply`)")
        print(f"verify: {len(report.files)} file(s)\n{report.text()}")
    return int(Exit.VERIFY_FAILED if report.failed else Exit.OK)


class _BaselineProblem(Exception):
    """--base cannot be used (exit 3)."""


def _checkout_baseline(repo: Path, base: str | None, target: str | None = None):
    """The unpatched tree to compare type errors with, the commit the change
    was made on: ``--base``; else the commit below the tool's own commits
    (by their trailer) on HEAD's first-parent history, with a reviewer's
    commits or a merge on top of them; else the merge base of HEAD with
    ``--target``; else HEAD, which then holds no commit of the tool's (the
    change, if any, is in the working tree). None outside a git checkout."""
    import git

    from . import gitops

    try:
        git_repo = gitops.open_repo(repo)
        if base is not None:
            rev = gitops.resolve(git_repo, base).hexsha
            return _baseline(git_repo, repo, rev, "--base", f"--base {base} ({rev[:12]})")
        head = git_repo.head.commit
        stop = None
        if target is not None:
            target_rev = gitops.resolve(git_repo, target).hexsha
            stop = git_repo.git.merge_base(head.hexsha, target_rev).strip()
    except (gitops.GitProblem, git.GitError, ValueError) as err:
        if base is not None or target is not None:
            option = f"--base {base}" if base is not None else f"--target {target}"
            raise _BaselineProblem(f"{option}: {err}") from None
        return None
    try:
        found = _below_tool_commits(head, stop)
    except _ShallowHistory:
        raise _BaselineProblem(
            f"{repo} is a shallow clone and verify looks for the commit the change was made on "
            f"in HEAD's history: {gitops.SHALLOW_HINT}; or give --base"
        ) from None
    if found is not None:
        below, count, above = found
        on_top = f", {above} other commit(s) above them" if above else ""
        describe = f"{below.hexsha[:12]}, the base of the {count} mesh-codemod commit(s) below HEAD{on_top}"
        return _baseline(git_repo, repo, below.hexsha, "base", describe)
    if stop is not None:
        return _baseline(git_repo, repo, stop, "merge base", f"{stop[:12]}, the merge base of HEAD with {target}")
    return _baseline(git_repo, repo, head.hexsha, "HEAD")


_HISTORY_LIMIT = 1000  # first-parent commits looked at for the tool's own


def _below_tool_commits(head, stop: str | None):
    """(the commit below the newest run of the tool's commits, how many
    there are, how many other commits sit above them) on HEAD's
    first-parent history down to ``stop``; None when there is none."""
    from . import gitops

    cuts = gitops.shallow_cuts(head.repo)

    def cut(commit) -> bool:  # the history ends here only because the clone is shallow
        if commit.hexsha in cuts:
            raise _ShallowHistory()
        return False

    commit, above = head, 0
    while gitops.TRAILER not in commit.message.splitlines():
        if commit.hexsha == stop or above >= _HISTORY_LIMIT or cut(commit) or not commit.parents:
            return None
        commit, above = commit.parents[0], above + 1
    count = 0
    while gitops.TRAILER in commit.message.splitlines() and commit.hexsha != stop and not cut(commit):
        if len(commit.parents) != 1:
            break
        commit, count = commit.parents[0], count + 1
    return (commit, count, above) if count else None


class _ShallowHistory(Exception):
    """HEAD's history ends at a shallow clone's cut."""


def _baseline(git_repo, checkout: Path, rev: str, label: str, describe: str = "", against: str | None = None):
    """The type check's baseline: the files of ``rev`` (called ``label``)
    with the checkout's node_modules linked, cached by the commit and the
    lock files the dependencies were installed from; and the files that the
    patched tree (``against``, a commit; None: the working tree) changes,
    as ``rev`` has them."""
    from . import gitops, verify

    return verify.Baseline(
        key=f"{rev}:{gitops.lock_digest(checkout)}",
        describe=describe or f"{label} {rev[:12]}",
        tree=lambda: gitops.tree_with_dependencies(git_repo, rev),
        checkout=checkout,
        changes=lambda: gitops.changed_files(git_repo, rev, against),
    )


def _progress(quiet: bool = False):
    """A callback naming the running check: a rich spinner on a terminal."""
    from contextlib import contextmanager, nullcontext

    if quiet or not sys.stderr.isatty():
        return nullcontext()

    @contextmanager
    def spinner():
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        with Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
            console=Console(stderr=True), transient=True,
        ) as bar:
            task = bar.add_task("verify", total=None)
            yield lambda name: bar.update(task, description=f"verify: {name}")

    return spinner()


# --- open-pr: the pull request on GitHub (no git, no checkout) ----------------


class OpenPrRequest(NamedTuple):
    branch: str
    base_branch: str
    report: Path
    body_file: Path | None = None
    repo_slug: str | None = None
    dry_run: bool = False
    as_json: bool = False


def open_pr(request: OpenPrRequest) -> int:
    """`mesh-codemod open-pr`: decide what the branch's PR needs (see
    `forge`), do it unless ``dry_run``, and write the workflow outputs."""
    import json
    import os
    import re

    from . import forge

    as_json = request.as_json
    slug = request.repo_slug or os.environ.get("GITHUB_REPOSITORY") or os.environ.get("GH_REPO") or ""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+", slug):
        what = f"--repo-slug {slug!r}" if slug else "no --repo-slug, $GITHUB_REPOSITORY or $GH_REPO"
        return _fail(f"{what}: give the repository as OWNER/NAME", Exit.USAGE, as_json)
    for option, name in (("--branch", request.branch), ("--base-branch", request.base_branch)):
        if not name or name.startswith("-") or any(ch.isspace() or ord(ch) < 32 for ch in name):
            return _fail(f"{option} {name!r} is not a branch name", Exit.USAGE, as_json)
    try:
        report = json.loads(request.report.read_text(encoding="utf-8"))
        if not isinstance(report, dict):
            raise ValueError("not a JSON object")
        body = request.body_file.read_text(encoding="utf-8") if request.body_file else report.get("body", "")
    except (OSError, ValueError) as err:
        return _fail(f"--report {request.report} or its body cannot be read: {err}", Exit.USAGE, as_json)
    mark = report.get("fingerprint", "")
    if mark and forge.fingerprint_in(body) != mark:
        body = f"{body.rstrip()}\n\n{forge.fingerprint_line(mark)}\n"
    try:
        pulls = forge.own_pulls(slug, request.branch, request.base_branch)
        decision = forge.decide(report, pulls)
        if decision.action in ("open", "update") and not body.strip():
            raise forge.ReportError("no PR body: give --body-file, or a report with one")
        if not request.dry_run:
            title = report.get("title") or forge.DEFAULT_TITLE
            decision = forge.act(
                decision, slug, request.branch, request.base_branch, title, body, forge.blocked_comment(report)
            )
    except forge.ReportError as err:
        return _fail(str(err), Exit.USAGE, as_json)
    except forge.ForgeError as err:
        return _fail(str(err), Exit.REFUSED, as_json)
    forge.write_outputs(decision, summary=not request.dry_run)
    if as_json:
        _print_json({**decision.to_json(), "dry_run": request.dry_run, "repo": slug})
    else:
        number = f" #{decision.number}" if decision.number else ""
        _err(f"{'would ' if request.dry_run else ''}{decision.action}{number}: {decision.reason}")
    return int(Exit.OK)


class PublishRequest(NamedTuple):
    repo: Path
    artifact: Path
    branch: str
    target: str
    push: str | None = None
    author: str | None = None
    force: bool = False
    fail_on_blocked: bool = False
    report_out: Path | None = None
    as_json: bool = False


def publish(request: PublishRequest) -> int:
    """`mesh-codemod publish`: the publish job's side. Check the build
    job's artifact (`publish.check_artifact`: only the tool's own work, on
    a base that the target holds), then push its branch with the lease.
    Starts no process of the checkout; credentials reach git's network
    calls only."""
    from . import environment

    with environment.sealed():
        return _publish(request)


def _publish(request: PublishRequest) -> int:
    import json

    from . import gitops, publish

    as_json = request.as_json
    try:
        gitops.check_branch_name(request.branch)
        if request.push is not None:
            gitops.check_remote_name(request.push)
        repo = gitops.open_repo(request.repo)
        gitops.refuse_shallow(repo, "publish checks the artifact's base against the target's history")
        name, email = _author(request.author)
        identity = gitops.identity(repo, name, email)
        checked = publish.check_artifact(repo, request.artifact, request.branch, request.target, identity)
        data = publish.report(checked, repo)
        data["push"] = {"remote": request.push, "pushed": False}
        if request.push is not None:
            try:
                _, seen, foreign = gitops.check_branch(checked.own, request.branch, request.push, request.force)
            except gitops.ForeignCommits as err:
                if request.fail_on_blocked:
                    raise
                data["blocked"] = {
                    "reason": f"branch {request.branch} holds {len(err.found)} commit(s) that mesh-codemod did not make: "
                    "left alone, nothing pushed",
                    "commits": [
                        {"sha": f.commit.hexsha, "author": f"{f.commit.author.name} <{f.commit.author.email}>",
                         "subject": f.commit.summary, "why": f.reason}
                        for f in err.found
                    ],
                }
            else:
                if seen != checked.tip:
                    gitops.push_branch(repo, request.push, request.branch, checked.tip, seen)
                    data["push"] = {"remote": request.push, "lease": seen, "pushed": True}
                data["replaced"] = [c.hexsha for c in foreign]
    except ValueError as err:
        return _fail(str(err), Exit.USAGE, as_json)
    except publish.ArtifactProblem as err:
        return _fail(f"the artifact is refused: {err}", Exit.REFUSED, as_json)
    except (*_git_failures(), OSError) as err:
        return _fail(_refusal(err), Exit.REFUSED, as_json)
    if request.report_out is not None:
        request.report_out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if as_json:
        _print_json(data)
    else:
        _err(f"artifact {data['digest']}: the tool's own work on {data['base'][:12]} ({len(data['commits'])} commit(s))")
        if "blocked" in data:
            _err(f"blocked: {data['blocked']['reason']}")
        elif request.push:
            pushed = data["push"]["pushed"]
            _err(f"push to {request.push}: " + ("pushed" if pushed else "nothing to push (already up to date)"))
    return int(Exit.OK)
