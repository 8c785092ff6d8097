"""The pull request on GitHub: find the repository's own one, decide what
to do, and do it, through `gh api` alone (SPEC 5a, "Living with the team").

What a run does with the PR, given the report of `mesh-codemod pr` (or
`patch`) for the branch:

- ``none``: the base already has the change (nothing to publish);
- ``blocked``: the branch holds commits that are not the tool's; it is
  left alone, and the open PR gets one comment saying why (once per PR);
- ``update``: the repository's own open PR from the branch gets the new
  body and title;
- a PR whose checks failed (the report's ``draft``) is opened as a draft,
  and an open one is turned into a draft, or back, by GitHub's GraphQL
  (REST cannot); a closed draft is a "no" like any closed PR;
- ``declined``: no open PR, and a PR of the repository's own from the
  branch that holds this same change (the fingerprint in its body) was
  closed without merging: a "no". Nothing is pushed or opened until the
  change differs;
- ``open``: otherwise, a new PR.

Only the repository's own PRs count: the lookup asks GitHub for the branch
of the repository's owner (``head=OWNER:BRANCH``) into the base branch, in
any state, every page of them, and keeps those whose head repository is
the repository itself (a fork's PR from a branch of the same name is never
read or edited).

This module starts no process but `gh`, and none inside the checkout: it
runs in the job that holds the write token. Every path or name it writes
into a comment or the job summary is escaped for Markdown (`templates`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Sequence

from typing import NamedTuple

from .templates import block, code, plain

FINGERPRINT_MARK = "mesh-codemod-fingerprint:"
_FINGERPRINT = re.compile(r"<!-- mesh-codemod-fingerprint: (sha256:[0-9a-f]{64}) -->")
# the login GitHub gives the workflow token's PRs: "declined" reads only those
DEFAULT_LOGIN = "github-actions[bot]"
BLOCKED_MARK = "<!-- mesh-codemod-blocked -->"
ACTIONS = ("none", "blocked", "update", "declined", "open", "closed")
DEFAULT_TITLE = "Deep-link app state for MCP apps (appState)"


class ForgeError(Exception):
    """GitHub could not be asked or told (exit 3)."""


class ReportError(ValueError):
    """The report or the options cannot be used (exit 2)."""


# --- the change's fingerprint -------------------------------------------------


def fingerprint(changes: Sequence[tuple[str, bytes | None, bytes]]) -> str:
    """``sha256:<hex>`` of what the change does, from ``(path, old, new)``
    per file: the path and the inserted and removed tokens, modulo layout
    (TypeScript through the syntax tree; other files line by line, without
    their indentation). Neither the base's unrelated lines nor the commit
    ids count, so the same change on a base that moved on has the same
    fingerprint; another release's output, another bridge mode or SDK form
    has another."""
    digest = hashlib.sha256()
    for path, old, new in sorted(changes, key=lambda c: c[0]):
        digest.update(f"{path}\0{'created' if old is None else 'modified'}\0".encode())
        before, after = _tokens(path, old or b""), _tokens(path, new)
        import difflib

        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                digest.update(f"{tag}\0{' '.join(before[i1:i2])}\0{' '.join(after[j1:j2])}\n".encode())
    return "sha256:" + digest.hexdigest()


def _tokens(path: str, data: bytes) -> list[str]:
    if not data:
        return []
    if path.endswith((".ts", ".tsx", ".mts", ".cts")):
        try:
            from ..engine.equivalence import layout_key
            from ..engine.parsing import language_for

            return layout_key(data, language_for(path)).split()
        except Exception:  # does not parse: compare its lines instead
            pass
    return [line.strip() for line in data.decode("utf-8", "replace").splitlines() if line.strip()]


def series_fingerprint(series) -> str:
    """The change's fingerprint (`fingerprint`): a closed PR with the same
    one was a "no" to this very change."""
    return fingerprint([(c.path, c.old, c.new) for c in series.plan.changes])


def fingerprint_line(value: str) -> str:
    """The line a PR body carries it in (an HTML comment: not rendered)."""
    return f"<!-- {FINGERPRINT_MARK} {value} -->"


def fingerprint_in(body: str | None) -> str:
    """The fingerprint of a body the tool wrote: its last non-empty line,
    exactly the fingerprint line, and nowhere else (a line placed earlier,
    say by whoever wrote text above it, is not read)."""
    lines = [line for line in (body or "").splitlines() if line.strip()]
    match = _FINGERPRINT.fullmatch(lines[-1].strip()) if lines else None
    return match[1] if match else ""


def with_fingerprint(body: str, value: str) -> str:
    """``body`` ending in the fingerprint line, its one fixed place."""
    kept = [line for line in body.rstrip().splitlines() if FINGERPRINT_MARK not in line]
    return "\n".join([*kept, "", fingerprint_line(value)]).lstrip("\n") + "\n"


# --- GitHub, through gh -------------------------------------------------------


class PullRequest(NamedTuple):
    number: int
    state: str  # "open" | "closed"
    merged: bool
    body: str
    url: str = ""
    author: str = ""  # the login that opened it
    title: str = ""
    draft: bool = False
    node_id: str = ""  # GraphQL's id: a draft is turned into a PR and back there


Runner = Callable[[list[str], bytes | None], str]


def run_gh(args: list[str], stdin: bytes | None = None) -> str:
    """`gh api ARGS`, started in a temporary folder (never the checkout),
    its output as text; a failure is a ForgeError with gh's own words. A
    502 (GitHub's gateway, now and then) is asked once more."""
    for attempt in (1, 2):
        with tempfile.TemporaryDirectory(prefix="mesh-codemod-gh-") as folder:
            try:
                result = subprocess.run(
                    ["gh", "api", *args], input=stdin, capture_output=True, cwd=folder, check=False
                )
            except FileNotFoundError:
                raise ForgeError("gh not found on PATH (the GitHub CLI runs the PR lookup)") from None
        if result.returncode == 0 or attempt == 2 or b"HTTP 502" not in result.stderr:
            break
    if result.returncode != 0:
        detail = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ForgeError(f"gh api {args[-1] if args else ''} failed: {detail[-1] if detail else result.returncode}")
    return result.stdout.decode("utf-8", "replace")


def _pages(text: str) -> list:
    """The items of `gh api --paginate` output: one JSON array per page,
    written one after the other."""
    decoder, items, at = json.JSONDecoder(), [], 0
    text = text.strip()
    while at < len(text):
        value, end = decoder.raw_decode(text, at)
        items.extend(value if isinstance(value, list) else [value])
        at = end
        while at < len(text) and text[at].isspace():
            at += 1
    return items


def own_pulls(slug: str, branch: str, base_branch: str, gh: Runner = run_gh) -> list[PullRequest]:
    """Every PR of the repository ``slug`` from its own ``branch``, in any
    state, newest first, whatever base it targets (a PR closed before the
    default branch was renamed keeps its old base: still a "no").
    ``base_branch`` is kept for the callers; it filters nothing."""
    from urllib.parse import quote

    owner = slug.split("/", 1)[0]
    query = f"state=all&per_page=100&head={quote(f'{owner}:{branch}', safe='')}"
    found = []
    for item in _pages(gh(["--paginate", f"repos/{slug}/pulls?{query}"], None)):
        head = item.get("head") or {}
        repo = (head.get("repo") or {}).get("full_name", "")
        if repo.lower() != slug.lower() or head.get("ref") != branch:
            continue  # a fork's PR from a branch of the same name
        found.append(
            PullRequest(
                int(item["number"]), item.get("state", ""), bool(item.get("merged_at")),
                item.get("body") or "", item.get("html_url", ""), str((item.get("user") or {}).get("login", "")),
                item.get("title") or "", bool(item.get("draft")), str(item.get("node_id") or ""),
            )
        )
    return sorted(found, key=lambda p: -p.number)


# --- the decision -------------------------------------------------------------


class Decision(NamedTuple):
    action: str  # one of ACTIONS
    number: int | None
    reason: str

    def to_json(self) -> dict:
        return {"action": self.action, "number": self.number, "reason": self.reason}


# How the job summary names what a human decision leaves alone
_LEFT = {"conflict": "edited, and this release conflicts with the edits: merge them by hand"}


def decide(report: dict, pulls: Sequence[PullRequest], logins: Sequence[str] = ()) -> Decision:
    """What to do, from the build's report and the repository's own PRs;
    with ``logins``, only the PRs one of them opened can say "no" (the
    tool's login may change: an App token after the workflow's)."""
    open_pr = next((p for p in pulls if p.state == "open"), None)
    if report.get("error"):
        return Decision("none", open_pr and open_pr.number, f"the build failed: {report['error']}")
    blocked = report.get("blocked")
    if blocked and blocked.get("steps"):  # a refactor the tool cannot follow: nothing was built
        return Decision("blocked", open_pr and open_pr.number, blocked.get("reason", "a step cannot run"))
    if report.get("nothing_to_do") or not report.get("commits"):
        if open_pr is not None and not report.get("left_alone"):
            where = f" (at {report['base'][:12]})" if report.get("base") else ""
            return Decision(
                "closed", open_pr.number,
                f"the base{where} already holds the change of #{open_pr.number}, which landed there another way: closed",
            )
        left = [f"{item.get('path', '')} ({_LEFT.get(item.get('why', ''), item.get('why', ''))})"
                for item in report.get("left_alone") or []]
        if not left:
            return Decision("none", open_pr and open_pr.number, "the base already has every edit")
        return Decision(
            "none", open_pr and open_pr.number,
            f"nothing to propose: the base has every edit the team did not opt out of; "
            f"left alone by the team's decision: {', '.join(left)}",
        )
    blocked = report.get("blocked")
    if blocked:
        return Decision("blocked", open_pr and open_pr.number, blocked.get("reason", "the branch holds other commits"))
    if open_pr is not None:
        return Decision("update", open_pr.number, f"#{open_pr.number} is open: its description is brought up to date")
    mine = report.get("fingerprint", "")
    if not mine:
        raise ReportError("the report has no fingerprint (made by `mesh-codemod pr --json` of this release?)")
    for pull in pulls:
        if pull.state != "closed" or fingerprint_in(pull.body) != mine:
            continue
        if logins and pull.author not in logins:
            continue
        if pull.merged:  # merged, and the whole of it is pending again: the team took it out
            why = "was merged, and the base no longer has it (reverted)"
        else:
            why = "was closed without merging"
        return Decision(
            "declined", pull.number,
            f"#{pull.number} proposed this same change ({mine[:19]}…) and {why}: "
            "a no; nothing is pushed or opened until the change differs "
            "(to make it permanent, skip the steps in .mesh-codemod.toml)",
        )
    return Decision("open", None, "no open PR from the branch, and no closed one with this change")


# --- acting on it -------------------------------------------------------------


def _payload(data: dict) -> bytes:
    return json.dumps(data).encode("utf-8")


def act(
    decision: Decision, slug: str, branch: str, base_branch: str, title: str, body: str, blocked_comment: str,
    gh: Runner = run_gh, pulls: Sequence[PullRequest] = (), draft: bool = False,
) -> Decision:
    """Open, update, close or comment as ``decision`` says; the decision as
    done (with the new PR's number). ``pulls``: the lookup's, to leave a PR
    whose title, body and draft state are already these alone; ``draft``:
    the PR is (opened as, or turned into) a draft."""
    if decision.action == "open":
        try:
            created = json.loads(
                gh(["-X", "POST", f"repos/{slug}/pulls", "--input", "-"],
                   _payload({"title": title, "head": branch, "base": base_branch, "body": body, "draft": draft}))
            )
        except ForgeError as err:
            # another run opened it meanwhile (outside the concurrency group): update that one
            if "422" not in str(err):
                raise
            again = next((p for p in own_pulls(slug, branch, base_branch, gh) if p.state == "open"), None)
            if again is None:
                raise
            done = act(decision._replace(action="update", number=again.number), slug, branch, base_branch, title,
                       body, blocked_comment, gh, [again], draft)
            return done._replace(reason=f"{done.reason} (opened meanwhile by another run)")
        as_draft = " as a draft" if draft else ""
        return decision._replace(number=int(created["number"]), reason=f"opened #{created['number']}{as_draft}")
    if decision.action == "update":
        current = next((p for p in pulls if p.number == decision.number), None)
        said = []
        if current is None or current.body != body or current.title != title:
            gh(["-X", "PATCH", f"repos/{slug}/pulls/{decision.number}", "--input", "-"],
               _payload({"title": title, "body": body}))
            said.append(f"updated #{decision.number}")
        if current is not None and current.draft != draft and current.node_id:
            mutation = "convertPullRequestToDraft" if draft else "markPullRequestReadyForReview"
            query = f"mutation($id: ID!) {{ {mutation}(input: {{pullRequestId: $id}}) {{ pullRequest {{ isDraft }} }} }}"
            gh(["graphql", "--input", "-"], _payload({"query": query, "variables": {"id": current.node_id}}))
            said.append(f"#{decision.number} is {'a draft now' if draft else 'ready for review now'}")
        return decision._replace(reason="; ".join(said) or f"#{decision.number} is up to date: nothing sent")
    if decision.action == "closed" and decision.number is not None:
        gh(["-X", "POST", f"repos/{slug}/issues/{decision.number}/comments", "--input", "-"],
           _payload({"body": f"mesh-codemod closes this PR: {decision.reason.removesuffix(': closed')}, "
                             "so it has nothing left to propose."}))
        gh(["-X", "PATCH", f"repos/{slug}/pulls/{decision.number}", "--input", "-"], _payload({"state": "closed"}))
        return decision
    if decision.action == "blocked" and decision.number is not None:
        comments = _pages(gh(["--paginate", f"repos/{slug}/issues/{decision.number}/comments?per_page=100"], None))
        told = "\n".join(c.get("body") or "" for c in comments if BLOCKED_MARK in (c.get("body") or ""))
        # one comment per new set of commits (a reviewer's next commit gets
        # its own), and per refactor the tool cannot follow
        named = set(re.findall(r"`([0-9a-f]{12})`", blocked_comment))
        if (named and named <= set(re.findall(r"`([0-9a-f]{12})`", told))) or (not named and blocked_comment in told):
            return decision._replace(reason=f"{decision.reason} (#{decision.number} was told already)")
        gh(["-X", "POST", f"repos/{slug}/issues/{decision.number}/comments", "--input", "-"],
           _payload({"body": f"{BLOCKED_MARK}\n{blocked_comment}"}))
        return decision._replace(reason=f"{decision.reason} (commented on #{decision.number})")
    return decision


def blocked_summary(report: dict) -> str:
    """The job summary of a run that blocks steps on a checkout that has
    the feature: each step, its file and why, and the line that opts out."""
    return f"**mesh-codemod: blocked**\n\n{blocked_comment(report)}\n"


def blocked_comment(report: dict) -> str:
    blocked = report.get("blocked") or {}
    if blocked.get("steps"):
        lines = ["mesh-codemod cannot take these steps on this checkout, so it leaves this PR as it is:", ""]
        lines += [f"- {code(s.get('path', ''))} ({plain(s.get('step', ''))}): {plain(s.get('reason', ''))}"
                  for s in blocked["steps"]]
        skips = sorted({s.get("step", "") for s in blocked["steps"]})
        lines += [
            "",
            "To opt out of these steps for good, add this line to `.mesh-codemod.toml` on the target branch: "
            f"{code('skip = ' + json.dumps(skips))}. Scheduled runs stay green meanwhile.",
        ]
        return "\n".join(lines)
    commits = blocked.get("commits") or []
    lines = [
        "mesh-codemod leaves this branch alone: it holds commits that mesh-codemod did not make, "
        "and replacing them would lose that work.",
        "",
    ]
    lines += [f"- `{c.get('sha', '')[:12]}` {plain(c.get('author', ''))}: {plain(c.get('subject', ''))} "
              f"({plain(c.get('why', ''))})" for c in commits[:10]]
    lines += [
        "",
        "Scheduled runs stay green and do not touch the branch while these commits are on it. "
        "To let the tool take it over again, merge or drop the PR, or run it once with `force: true` "
        "(which replaces these commits). A commit added later gets a comment of its own.",
    ]
    return "\n".join(lines)


def write_outputs(decision: Decision, summary: bool, notes: Sequence[str] = ()) -> None:
    """pr-action and pr-number to $GITHUB_OUTPUT; with ``summary``, one
    line to $GITHUB_STEP_SUMMARY, and the publishing side's ``notes``."""
    output = os.environ.get("GITHUB_OUTPUT")
    if output:
        with open(output, "a", encoding="utf-8") as handle:
            handle.write(f"pr-action={decision.action}\npr-number={decision.number or ''}\n")
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary and step_summary:
        with open(step_summary, "a", encoding="utf-8") as handle:
            # the reason and notes may name paths: a code block, where nothing renders
            lines = ["", f"**mesh-codemod: {decision.action}**", "", *block([decision.reason, *notes]), ""]
            handle.write("\n".join(lines))
