"""`open-pr` and `publish`: the pull request on GitHub and the publish
job's push. Neither starts a process of the checkout."""

from __future__ import annotations

from pathlib import Path

from ..engine.record import NamedTuple
from .output import Exit, author, fail, git_failures, print_json, refusal, say


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
                decision, slug, request.branch, request.base_branch, title, body, forge.blocked_comment(report),
                pulls=pulls,
            )
    except forge.ReportError as err:
        return fail(str(err), Exit.USAGE, as_json)
    except forge.ForgeError as err:
        return fail(str(err), Exit.REFUSED, as_json)
    forge.write_outputs(decision, summary=not request.dry_run)
    if as_json:
        print_json({**decision.to_json(), "dry_run": request.dry_run, "repo": slug})
    else:
        number = f" #{decision.number}" if decision.number else ""
        say(f"{'would ' if request.dry_run else ''}{decision.action}{number}: {decision.reason}")
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
    from ..plan import environment

    with environment.sealed():
        return _publish(request)


def _publish(request: PublishRequest) -> int:
    import json

    from ..deliver import branches, repository
    from ..publish import artifact as publish

    as_json = request.as_json
    try:
        repository.check_branch_name(request.branch)
        if request.push is not None:
            repository.check_remote_name(request.push)
        repo = repository.open_repo(request.repo)
        repository.refuse_shallow(repo, "publish checks the artifact's base against the target's history")
        name, email = author(request.author)
        identity = repository.identity(repo, name, email)
        checked = publish.check_artifact(repo, request.artifact, request.branch, request.target, identity)
        data = publish.report(checked, repo)
        data["push"] = {"remote": request.push, "pushed": False}
        if request.push is not None:
            try:
                _, seen, foreign = branches.check_branch(checked.own, request.branch, request.push, request.force)
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
            else:
                if seen != checked.tip:
                    branches.push_branch(repo, request.push, request.branch, checked.tip, seen)
                    data["push"] = {"remote": request.push, "lease": seen, "pushed": True}
                data["replaced"] = [c.hexsha for c in foreign]
    except ValueError as err:
        return fail(str(err), Exit.USAGE, as_json)
    except publish.ArtifactProblem as err:
        return fail(f"the artifact is refused: {err}", Exit.REFUSED, as_json)
    except (*git_failures(), OSError) as err:
        return fail(refusal(err), Exit.REFUSED, as_json)
    if request.report_out is not None:
        request.report_out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if as_json:
        print_json(data)
    else:
        say(f"artifact {data['digest']}: the tool's own work on {data['base'][:12]} ({len(data['commits'])} commit(s))")
        if "blocked" in data:
            say(f"blocked: {data['blocked']['reason']}")
        elif request.push:
            pushed = data["push"]["pushed"]
            say(f"push to {request.push}: " + ("pushed" if pushed else "nothing to push (already up to date)"))
    return int(Exit.OK)
