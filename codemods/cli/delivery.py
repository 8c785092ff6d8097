"""`patch` and `pr`: a plan becomes a series of commits (delivery), the
series is checked (the checks wing, whose verdict is a value), the body is
written from both, and the branch is updated."""

from __future__ import annotations

from pathlib import Path

from ..deliver.forge import series_fingerprint
from typing import NamedTuple
from ..recipes.base import Bridge
from .output import Exit, author, fail, git_failures, print_json, progress, refusal, report_refactor, say


class SeriesRequest(NamedTuple):
    """The inputs shared by `patch` and `pr`."""

    repo: Path = Path(".")
    base: str = "HEAD"
    bridge: Bridge = Bridge.AUTO
    author: str | None = None  # "Name <email>"
    as_json: bool = False


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
    # the build job's artifact (codemods/publish/artifact.py) goes to this
    # folder; without --push, a failed check is recorded there, not exit 4
    artifact: Path | None = None


def _series(request: SeriesRequest):
    # the checks wing is loaded only by the commands that run it: never by `publish`
    from ..checks.tools import TOOLS
    from ..deliver import build
    from ..plan import repository

    repo = repository.open_repo(request.repo)
    name, email = author(request.author or configured_author(repo, request.base))
    return build.build_series(
        repo, request.base, request.bridge, repository.identity(name, email), TOOLS
    )


def configured_author(repo, base: str) -> str | None:
    """The ``author`` of the configuration committed in ``base``: the
    identity the scheduled job commits as, so that a run without --author
    (a laptop) makes the job's commits and finds them the tool's."""
    import git

    from ..plan.config import FILE_NAME, author_in

    try:
        text = repo.git.show(f"{base}:{FILE_NAME}")
    except git.GitCommandError:
        return None
    return author_in(text) or None


def patch(request: SeriesRequest, out: Path) -> int:
    """`mesh-codemod patch`: the series as `git am` files in ``out``."""
    from ..plan import environment

    with environment.sealed():
        return _patch(request, out)


def _patch(request: SeriesRequest, out: Path) -> int:
    from ..deliver import patches

    try:
        series = _series(request)
        written = patches.write_patches(series, out)
    except ValueError as err:
        return fail(str(err), Exit.USAGE, request.as_json)
    except (*git_failures(), OSError) as err:
        return fail(refusal(err), Exit.REFUSED, request.as_json)
    if request.as_json:
        print_json({**series_json(series), "patches": [str(p) for p in written]})
        return int(Exit.OK)
    series_header(series)
    if not written:
        say("nothing to do: the base already has every edit; no patch written")
    for path, commit in zip(written, series.commits):
        say(f"  {path}")
        for file, kind in commit.files:
            say(f"      {kind:<9} {file}")
    if written:
        say(f"wrote {len(written)} patch(es); apply them with: git am {out}/*.patch")
    return int(Exit.OK)


def series_header(series) -> None:
    say(f"target: {series.plan.target} ({series.repo.working_tree_dir})")
    say(f"bridge: {series.bridge.describe()}")
    say(f"base: {series.base}")
    for item in series.plan.left_alone():  # skipped, removed or edited: a person's decision
        say(f"left alone: {item['path']} ({item['step']}): {item['reason']}")


def _kind(series) -> str:
    from ..plan.changeover import kind

    return kind(series.plan)


def series_json(series) -> dict:
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
    }


def _pr_command(request: PrRequest, series) -> list[str]:
    """The command line that rebuilds exactly this branch and body."""
    args = ["pr", "--repo", ".", "--branch", request.branch, "--base", series.base]
    if series.plan.target != "sdk":  # the SDK has no bridge mode, and always the built-in layout (SPEC 7)
        args += ["--bridge", series.bridge.mode.value]
    return args + ["--author", str(series.identity)] + ([] if request.verify else ["--no-verify"])


def pr(request: PrRequest) -> int:
    """`mesh-codemod pr`: build the series from git objects, verify, push
    it with a lease, then point the branch at it (never the checked-out
    one). Credentials reach git's network calls only (`environment`)."""
    from ..plan import environment

    with environment.sealed():
        return _pr(request)


def _pr(request: PrRequest) -> int:
    from ..deliver import branches, prbody
    from ..plan import repository

    as_json = request.series.as_json
    try:
        # names first: a malformed one is a usage error before any work
        repository.check_branch_name(request.branch)
        if request.push is not None:
            repository.check_remote_name(request.push)
        # the formatter and the checks run the repository's code, which can
        # reach the checkout (through the copy's node_modules links): the
        # push never runs with a configuration it changed meanwhile
        configured = repository.configuration_state(repository.open_repo(request.series.repo))
        try:
            series = _series(request.series)
        except Exception as err:
            from ..deliver.build import Blocked

            if not isinstance(err, Blocked) or request.fail_on_blocked:
                raise
            if request.artifact is not None:  # the publish job meets the refactor on its own rebuild
                from ..publish import artifact as publish
                from ..publish.choice import record

                choice = record(err.plan.bridge, Path(request.series.repo))
                publish.write_artifact(request.artifact, request.branch, err.base, None, choice, publish.NO_SERIES, None)
            report = {
                "target": err.plan.target,
                "bridge": err.plan.bridge.to_json(),
                "base": err.base,
                "branch": request.branch,
                "commits": [],
                "left_alone": err.plan.left_alone(),
                "push": {"remote": request.push, "pushed": False},
                "blocked": err.to_json(),
            }
            if request.body_out:  # the build job's summary: every blocked step and its way out
                from ..deliver.forge import blocked_summary

                request.body_out.write_text(blocked_summary(report), encoding="utf-8")
            return report_refactor(report, as_json, fail_on_blocked=False)
        if not series.commits:
            message = f"nothing to do: {series.base[:12]} already has every edit; branch {request.branch} left alone"
            if request.artifact is not None:  # the publish job decides for itself, from the base
                from ..publish import artifact as publish

                publish.write_series_artifact(series, request.branch, request.artifact, None)
            if as_json:
                print_json({**series_json(series), "branch": request.branch, "nothing_to_do": True})
            else:
                say(message)
            return int(Exit.OK)
        try:
            local, seen, foreign = branches.check_branch(series, request.branch, request.push, request.force)
        except branches.ForeignCommits as err:
            if request.fail_on_blocked:
                raise
            _report_blocked(series, request, err, as_json)
            return int(Exit.OK)
        report = None
        if request.verify:
            report = verify_commit(series, request.require_checks)
        if repository.configuration_state(series.repo) != configured:
            raise repository.GitProblem(
                "the repository's git configuration changed while its formatter or checks ran (core.sshCommand, "
                "a remote's URL, ...): nothing pushed, branch not moved; look at .git/config"
            )
        body = prbody.render(series, report, _pr_command(request, series), spec_url=_spec_url(series, request))
        if request.body_out:
            request.body_out.write_text(body, encoding="utf-8")
        # the build job (an artifact, no push) records failed checks: its PR is a draft (SPEC 8)
        if report is not None and report.failed and (request.artifact is None or request.push is not None):
            message = (
                f"verification failed ({', '.join(c.name for c in report.failed)}); "
                f"branch {request.branch} not updated, nothing pushed"
            )
            untouched = branches.BranchUpdate("not updated", replaced=foreign)
            _report_pr(series, request, untouched, report, body, as_json, message)
            return int(Exit.VERIFY_FAILED)
        update = branches.update_branch(series, request.branch, request.push, local, seen, foreign)
        stacked = _stack_spec_branch(series, request)
        if request.artifact is not None:
            from ..publish import artifact as publish

            publish.write_series_artifact(series, request.branch, request.artifact, report.to_json() if report else None)
    except ValueError as err:
        return fail(str(err), Exit.USAGE, as_json)
    except (*git_failures(), OSError) as err:
        return fail(refusal(err), Exit.REFUSED, as_json)
    _report_pr(series, request, update, report, body, as_json, stacked=stacked)
    return int(Exit.OK)


def _stack_spec_branch(series, request: PrRequest) -> dict | None:
    """For a series that opens with the SEP text (the SDK target), the spec
    branch: that first commit alone, which the code branch stacks on, with
    its own body (written beside --body-out as `<name>.spec.md`). The same
    checks as the code branch's: a branch holding commits that are not the
    tool's is refused unless --force."""
    from ..deliver import branches, build, prbody

    part = build.spec_part(series)
    if part is None:
        return None
    branch = branches.spec_branch_name(request.branch)
    local, seen, foreign = branches.check_branch(part, branch, request.push, request.force)
    body = prbody.render_sdk_spec(part, _pr_command(request, series))
    comment = discussion(series, branch, request)
    if request.body_out:
        request.body_out.with_name(request.body_out.stem + ".spec.md").write_text(body, encoding="utf-8")
        request.body_out.with_name(request.body_out.stem + ".discussion.md").write_text(comment, encoding="utf-8")
    update = branches.update_branch(part, branch, request.push, local, seen, foreign)
    return {
        "branch": branch,
        "tip": part.tip,
        "title": part.commits[0].group.subject,
        "local": {"before": update.local_before, "action": update.local_action},
        "push": {"remote": request.push, "pushed": update.pushed},
        "body": body,
        "discussion": comment,
    }


def _fork(series, request: PrRequest) -> str | None:
    """The owner of the fork the branches go to (`--push`, else origin)."""
    from ..deliver import sdk_body

    remote = {r.name: r for r in series.repo.remotes}.get(request.push or "origin")
    return sdk_body.fork_owner(next(iter(remote.urls), "")) if remote is not None else None


def _spec_url(series, request: PrRequest) -> str:
    """The compare page of the SDK's spec branch, "" without one."""
    from ..deliver import branches, build, sdk_body

    if build.spec_part(series) is None:
        return ""
    return sdk_body.compare_url(_fork(series, request), branches.spec_branch_name(request.branch))


def discussion(series, spec_branch: str, request: PrRequest) -> str:
    """The proposal for ext-apps #465 (SPEC 7), with the compare URLs of
    both branches on the fork they are pushed to (`--push`, else origin)."""
    from ..deliver import sdk_body

    return sdk_body.discussion(series, spec_branch, request.branch, _fork(series, request))


def _report_blocked(series, request: PrRequest, err, as_json: bool) -> None:
    """The branch holds commits the tool did not make: it is left alone
    (nothing verified, moved or pushed), and the run stays green."""
    from ..deliver import prbody

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
        print_json(
            {
                **series_json(series),
                "title": prbody.title(series),
                "branch": request.branch,
                "push": {"remote": request.push, "pushed": False},
                "blocked": {"reason": reason, "commits": commits},
            }
        )
        return
    series_header(series)
    say(f"blocked: {reason}")
    say(str(err).split("\n", 1)[1] if "\n" in str(err) else str(err))


def _report_pr(
    series, request: PrRequest, update, report, body: str, as_json: bool, error: str = "", stacked: dict | None = None
) -> None:
    """``update`` is a branches.BranchUpdate; ``stacked`` the spec branch the
    code branch stacks on (SDK target)."""
    from ..deliver import prbody

    if stacked is not None and not as_json:
        say(f"spec branch {stacked['branch']} ({stacked['local']['action']}): {stacked['title']}")
    if as_json:
        data = {
            **({"stacked_on": stacked} if stacked is not None else {}),
            **series_json(series),
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
        print_json(data)
        return
    series_header(series)
    for commit in series.commits:
        say(f"  {commit.sha[:12]} {commit.group.subject}")
    for commit in update.replaced:
        say(f"  replaced (--force): {commit.hexsha[:12]} {commit.author.name}: {commit.summary}")
    say(f"branch {request.branch}: {update.local_action} ({series.tip[:12]})")
    if request.push:
        say(f"push to {request.push}: " + ("pushed" if update.pushed else "nothing to push (already up to date)"))
    if report is not None:
        say("verify:\n" + report.text())
    if not request.body_out:  # the bodies, then the proposal for #465
        print(body)
        if stacked is not None:
            print(stacked["body"])
            print(stacked["discussion"])
    if error:
        say(f"mesh-codemod: {error}")


def verify_commit(series, require: bool = False):
    """Run the checks on the tip's tree (a temporary copy with the
    checkout's node_modules linked), against the base commit."""
    from ..checks import verify
    from ..plan import trees
    from ..plan.baseline import baseline_of

    checkout = Path(series.repo.working_tree_dir)
    files = [path for c in series.commits for path, _ in c.files]  # verify.run sorts them, once each
    baseline = baseline_of(series.repo, checkout, series.base, "base", against=series.tip)
    with trees.tree_with_dependencies(series.repo, series.tip) as tree, progress() as note:
        return verify.run(
            tree, files, baseline, note, linked_from=checkout, target=series.plan.target, require=require
        )


