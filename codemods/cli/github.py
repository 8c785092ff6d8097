"""`open-pr` and `publish`: the pull request on GitHub and the publish
job's push. Neither starts a process of the checkout."""

from __future__ import annotations

from pathlib import Path

from typing import NamedTuple
from .output import Exit, author, fail, git_failures, print_json, refusal, report_refactor, say


class OpenPrRequest(NamedTuple):
    branch: str
    base_branch: str
    report: Path
    body_file: Path | None = None
    repo_slug: str | None = None
    dry_run: bool = False
    as_json: bool = False
    # only PRs these logins opened can say "no" (declined); none: any of the repository's own
    pr_author: tuple[str, ...] = ()


def open_pr(request: OpenPrRequest) -> int:
    """`mesh-codemod open-pr`: decide what the branch's PR needs (see
    `forge`), do it unless ``dry_run``, and write the workflow outputs.
    Starts no program but gh (and git), enforced (`publish.guard`)."""
    from ..publish import guard

    with guard.armed():
        return _open_pr(request)


def _open_pr(request: OpenPrRequest) -> int:
    import json
    import os
    import re

    from ..deliver import forge

    as_json = request.as_json
    slug = request.repo_slug or os.environ.get("GITHUB_REPOSITORY") or os.environ.get("GH_REPO") or ""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+", slug):
        what = f"--repo-slug {slug!r}" if slug else "no --repo-slug, $GITHUB_REPOSITORY or $GH_REPO"
        return fail(f"{what}: give the repository as OWNER/NAME", Exit.USAGE, as_json)
    for option, name in (("--branch", request.branch), ("--base-branch", request.base_branch)):
        if not name or name.startswith("-") or any(ch.isspace() or ord(ch) < 32 for ch in name):
            return fail(f"{option} {name!r} is not a branch name", Exit.USAGE, as_json)
    try:
        report = json.loads(request.report.read_text(encoding="utf-8"))
        if not isinstance(report, dict):
            raise ValueError("not a JSON object")
        body = request.body_file.read_text(encoding="utf-8") if request.body_file else report.get("body", "")
    except (OSError, ValueError) as err:
        return fail(f"--report {request.report} or its body cannot be read: {err}", Exit.USAGE, as_json)
    mark = report.get("fingerprint", "")
    if mark and body.strip():  # one fingerprint line, in its fixed place: the last line
        body = forge.with_fingerprint(body, mark)
    try:
        pulls = forge.own_pulls(slug, request.branch, request.base_branch)
        decision = forge.decide(report, pulls, request.pr_author)
        if decision.action in ("open", "update") and not body.strip():
            raise forge.ReportError("no PR body: give --body-file, or a report with one")
        if not request.dry_run:
            title = report.get("title") or forge.DEFAULT_TITLE
            decision = forge.act(
                decision, slug, request.branch, request.base_branch, title, body, forge.blocked_comment(report),
                pulls=pulls, draft=bool(report.get("draft")),
            )
    except forge.ReportError as err:
        return fail(str(err), Exit.USAGE, as_json)
    except forge.ForgeError as err:
        return fail(str(err), Exit.REFUSED, as_json)
    notes = [str(n) for n in report.get("notes") or [] if isinstance(n, str)]
    forge.write_outputs(decision, summary=not request.dry_run, notes=notes)
    if as_json:
        print_json({**decision.to_json(), "dry_run": request.dry_run, "repo": slug})
    else:
        number = f" #{decision.number}" if decision.number else ""
        say(f"{'would ' if request.dry_run else ''}{decision.action}{number}: {decision.reason}")
    return int(Exit.OK)


class PublishRequest(NamedTuple):
    repo: Path
    artifact: Path | None
    branch: str
    target: str
    push: str | None = None
    author: str | None = None
    force: bool = False
    fail_on_blocked: bool = False
    report_out: Path | None = None
    as_json: bool = False
    # the report of an earlier `publish --report-out`: push the series it
    # built (kept under publish.kept.REF beside the report), without rebuilding
    built: Path | None = None
    # a verdict with a failed check exits 4, nothing published (else: a draft PR)
    fail_on_failed_checks: bool = False


def publish(request: PublishRequest) -> int:
    """`mesh-codemod publish`: the publish job's side. Rebuild the series
    on the artifact's base (`publish.rebuild`: the build job's verdict and
    choice are all it takes) in a repository of its own that borrows the
    checkout's objects (`publish.gitdir`), and keep it there (`publish.kept`),
    then push publish's own commits with the lease; with ``built``, push the
    series an earlier run kept, without building again. Starts no program
    but git (`guard`, armed first); credentials reach git's network calls
    only."""
    from ..plan import environment
    from ..publish import guard

    with guard.armed(), environment.sealed():
        return _publish(request)


def _publish(request: PublishRequest) -> int:
    import json
    from contextlib import ExitStack

    from ..plan import repository
    from ..publish import artifact as publish
    from ..publish import gitdir, kept

    as_json = request.as_json
    if (request.artifact is None) == (request.built is None):
        return fail("give --artifact (rebuild the series) or --built (push the series an earlier run built), "
                    "one of them", Exit.USAGE, as_json)
    if request.built is not None and request.push is None:
        return fail("--built pushes what an earlier run built: give --push REMOTE", Exit.USAGE, as_json)
    repo = None
    with ExitStack() as stack:
        try:
            repository.check_branch_name(request.branch)
            if request.push is not None:
                repository.check_remote_name(request.push)
            name, email = author(request.author)
            if request.built is not None:
                data = kept.read_report(request.built)
                own = kept.restore(request.built, data, request.branch, (name, email)) if kept.pending(data) else None
                notes = [n for n in data.get("notes") or [] if isinstance(n, str)]
            else:
                repo = stack.enter_context(gitdir.created(request.repo, request.report_out))
                repository.refuse_shallow(repo, "publish checks the artifact's base against the target's history")
                identity = repository.identity(name, email)
                published = publish.rebuild(repo, request.artifact, request.branch, request.target, identity)
                own, notes = published.own, published.notes
                failed = [c.name for c in published.verdict.failed] if published.verdict else []
                if failed and request.fail_on_failed_checks:
                    return fail(f"mesh's checks failed on this series ({', '.join(failed)}): nothing published "
                                "(--fail-on-failed-checks)", Exit.VERIFY_FAILED, as_json)
                kept.keep(repo, own)  # the push step pushes exactly this, without building again
                data = publish.report(published, request.branch)
            data["push"] = {"remote": request.push, "pushed": False}
            if own is not None and request.push is not None and own.commits:
                _push(own, request, data)
        except publish.RefactorBlocked as err:  # nothing to push; the report also goes to --report-out
            if repo is not None:
                kept.drop(repo)
            data = {**err.report(request.branch), "push": {"remote": request.push, "pushed": False}}
            if request.report_out is not None:
                request.report_out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
            return report_refactor(data, request.as_json, request.fail_on_blocked)
        except ValueError as err:
            return fail(str(err), Exit.USAGE, as_json)
        except publish.ArtifactProblem as err:
            what = "the kept series is refused" if request.built is not None else "the artifact is refused"
            return fail(f"{what}: {err}", Exit.REFUSED, as_json)
        except (*git_failures(), OSError) as err:
            return fail(refusal(err), Exit.REFUSED, as_json)
    if request.report_out is not None:
        request.report_out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if as_json:
        print_json(data)
        return int(Exit.OK)
    if request.built is not None:
        what = f"tip {own.tip[:12]}, {len(own.commits)} commit(s)" if own is not None else "nothing to push"
        say(f"the series the check step built, kept under {kept.REF} ({what}): not rebuilt")
    else:
        say(f"mesh-codemod's own series on {own.base[:12]} ({len(own.commits)} commit(s)), tip {own.tip[:12]}")
        for note in notes:
            say(f"note: {note}")
    if data.get("draft"):
        say("draft: mesh's checks failed on this series; the PR is a draft that leads with them "
            "(--fail-on-failed-checks exits 4 instead)")
    if "blocked" in data:
        say(f"blocked: {data['blocked']['reason']}")
    elif request.push and own is not None and own.commits:
        pushed = data["push"]["pushed"]
        say(f"push to {request.push}: " + ("pushed" if pushed else "nothing to push (already up to date)"))
    return int(Exit.OK)


def _push(own, request: PublishRequest, data: dict) -> None:
    """Push publish's own series (``own``) with the lease, unless the
    branch holds commits the tool did not make (then ``data`` says blocked,
    or ForeignCommits under --fail-on-blocked)."""
    from ..deliver import branches

    try:
        _, seen, foreign = branches.check_branch(own, request.branch, request.push, request.force)
    except branches.ForeignCommits as err:
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
        return
    if seen != own.tip:
        branches.push_branch(own.repo, request.push, request.branch, own.tip, seen)
        data["push"] = {"remote": request.push, "lease": seen, "pushed": True}
    data["replaced"] = [c.hexsha for c in foreign]
