"""The typer command line (SPEC section 9): options, help and usage errors.

Each command only converts its options into a call of the module that
conducts it (`planning`, `delivery`, `checking`, `github`), which prints
and returns the exit code; a command imports only its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..plan.formatting import FormatterMode
from ..recipes.base import Bridge

app = typer.Typer(
    name="mesh-codemod",
    help="Add deep-link app state (appState) to a Studio (decocms/mesh) checkout.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

RepoOption = Annotated[
    Path, typer.Option("--repo", help="The checkout to work on.", show_default="current directory")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print a machine-readable report.")]
FormatterOption = Annotated[
    FormatterMode,
    typer.Option(
        "--formatter",
        help="Pass the edited files through the checkout's Biome (auto: when node_modules/.bin/biome exists).",
    ),
]


@app.command("apply", short_help="Compute every edit, then write it, show it (--dry-run) or only report (--check).")
def apply_command(
    repo: RepoOption = Path("."),
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the diff; write nothing.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 when edits are pending.")] = False,
    as_json: JsonOption = False,
    bridge: Annotated[Bridge, typer.Option("--bridge", help="How the host hears state-changed.")] = Bridge.AUTO,
    only: Annotated[Optional[list[str]], typer.Option("--only", help="Run only this step (repeatable).")] = None,
    lock_timeout: Annotated[
        float, typer.Option("--lock-timeout", help="Seconds to wait for another run on the same checkout.")
    ] = 30.0,
    formatter: FormatterOption = FormatterMode.AUTO,
    restore: Annotated[
        Optional[list[str]],
        typer.Option(
            "--restore",
            help="Create this step's file again although someone removed it while the rest of the feature is there (repeatable).",
        ),
    ] = None,
) -> None:
    """Detect the target, compute every edit, then write it (or show it).
    Steps that .mesh-codemod.toml skips, and files someone removed, are left alone."""
    from . import planning

    request = planning.ApplyRequest(
        repo, dry_run, check, as_json, bridge, only or [], lock_timeout, formatter, restore or []
    )
    raise typer.Exit(planning.apply(request))


@app.command("status", short_help="Each step: applied, pending, or refused with its reason.")
def status_command(
    repo: RepoOption = Path("."), as_json: JsonOption = False, formatter: FormatterOption = FormatterMode.AUTO
) -> None:
    """Each step: applied, pending, or refused with its reason."""
    from . import planning

    raise typer.Exit(planning.status(repo, as_json, formatter))


@app.command("list", short_help="The steps with their ids and one-line descriptions.")
def list_command(as_json: JsonOption = False) -> None:
    """The steps with their ids and one-line descriptions."""
    from . import planning

    raise typer.Exit(planning.list_steps(as_json))


AuthorOption = Annotated[
    Optional[str],
    typer.Option("--author", help="Author and committer, 'Name <email>'.", show_default="mesh-codemod's own; patch and pr: the committed `author` first; never git config"),
]
BaseOption = Annotated[str, typer.Option("--base", help="The commit the series builds on.")]
BridgeOption = Annotated[Bridge, typer.Option("--bridge", help="How the host hears state-changed.")]
RequireChecksOption = Annotated[
    bool,
    typer.Option(
        "--require-checks",
        help="Fail (exit 4) when a check cannot run, e.g. without node_modules, instead of reporting it as not available.",
    ),
]


@app.command("patch", short_help="Write the edits as a patch series for `git am`.")
def patch_command(
    out: Annotated[Path, typer.Option("--out", help="Folder for 0001-*.patch and onward.")],
    repo: RepoOption = Path("."),
    base: BaseOption = "HEAD",
    bridge: BridgeOption = Bridge.AUTO,
    author: AuthorOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write the edits as a patch series (one commit per logical change) for `git am`,
    in the built-in layout (the checkout's formatter checks it: `verify`)."""
    from . import delivery

    raise typer.Exit(delivery.patch(delivery.SeriesRequest(repo, base, bridge, author, as_json), out))


@app.command("pr", short_help="Create or update the branch holding the series, and print the PR body.")
def pr_command(
    branch: Annotated[str, typer.Option("--branch", help="The branch to create or update.")],
    repo: RepoOption = Path("."),
    base: BaseOption = "HEAD",
    push: Annotated[Optional[str], typer.Option("--push", help="Push the branch to this remote, with a lease.")] = None,
    body_out: Annotated[
        Optional[Path], typer.Option("--body-out", help="Write the PR body here instead of printing it.")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace commits on the branch that the tool did not make.")] = False,
    fail_on_blocked: Annotated[
        bool,
        typer.Option(
            "--fail-on-blocked",
            help="Exit 3 when the branch holds commits the tool did not make, or a refactor the tool cannot follow blocks a step (default: leave it alone, say why, exit 0).",
        ),
    ] = False,
    verify: Annotated[bool, typer.Option("--verify/--no-verify", help="Run the repo's checks on the branch's tree.")] = True,
    require_checks: RequireChecksOption = False,
    bridge: BridgeOption = Bridge.AUTO,
    author: AuthorOption = None,
    as_json: JsonOption = False,
    artifact: Annotated[
        Optional[Path],
        typer.Option(
            "--artifact",
            help="Also write the build job's artifact here (bundle, body, report, manifest) for `mesh-codemod publish`.",
        ),
    ] = None,
) -> None:
    """Create or update a branch holding the series, built from git objects
    (the working tree, index and HEAD are not touched), and print the PR body."""
    if require_checks and not verify:
        raise typer.BadParameter("--require-checks needs the checks: drop --no-verify", param_hint="--require-checks")
    from . import delivery

    inputs = delivery.SeriesRequest(repo, base, bridge, author, as_json)
    request = delivery.PrRequest(inputs, branch, push, body_out, force, verify, require_checks, fail_on_blocked, artifact)
    raise typer.Exit(delivery.pr(request))


@app.command("publish", short_help="Rebuild the series on the build job's base and push it (the publish job).")
def publish_command(
    branch: Annotated[str, typer.Option("--branch", help="The branch to publish.")],
    target: Annotated[
        str, typer.Option("--target", help="The trusted branch the recorded base must be a commit of (e.g. origin/main).")
    ],
    artifact: Annotated[
        Optional[Path], typer.Option("--artifact", help="The folder `pr --artifact` wrote (the build job's): rebuild from it.")
    ] = None,
    built: Annotated[
        Optional[Path],
        typer.Option(
            "--built",
            help="The report an earlier `publish --report-out` wrote: push the series it built (kept under "
            "refs/mesh-codemod/publish beside the report) without rebuilding; exit 3 when that ref is missing or "
            "is not the report's series. Instead of --artifact; needs --push.",
        ),
    ] = None,
    repo: RepoOption = Path("."),
    push: Annotated[Optional[str], typer.Option("--push", help="Push the branch to this remote, with a lease.")] = None,
    author: AuthorOption = None,
    force: Annotated[bool, typer.Option("--force", help="Replace commits on the branch that the tool did not make.")] = False,
    fail_on_blocked: Annotated[
        bool, typer.Option("--fail-on-blocked", help="Exit 3 when the branch holds commits the tool did not make.")
    ] = False,
    report_out: Annotated[
        Optional[Path],
        typer.Option("--report-out", help="Write the report `open-pr --report` reads here; publish's own repository, "
                     "which keeps the series for `--built`, goes beside it."),
    ] = None,
    as_json: JsonOption = False,
    fail_on_failed_checks: Annotated[
        bool,
        typer.Option("--fail-on-failed-checks",
                     help="Exit 4, publishing nothing, when the build job's verdict names a failed check "
                     "(default: push the series and make its PR a draft that leads with the failed checks)."),
    ] = False,
) -> None:
    """Rebuild the series on the build job's base and push it: publish
    takes from the artifact (one file: its manifest) only the base (a
    commit of --target), the checks' verdict (check names from a closed
    set, bound to the series' fingerprint) and the choice of wiring (one of
    the tool's, for the SDK version the base's lockfile resolves); every
    commit, message and the PR body are its own. It works in a repository
    of its own that borrows the checkout's objects, never its
    configuration, and keeps its series there (refs/mesh-codemod/publish),
    which a later `publish --built REPORT --push` pushes without building
    again. Starts no program but git. Exit 3 when refused."""
    from . import github

    request = github.PublishRequest(
        repo, artifact, branch, target, push, author, force, fail_on_blocked, report_out, as_json, built,
        fail_on_failed_checks,
    )
    raise typer.Exit(github.publish(request))


@app.command("open-pr", short_help="Open or update the branch's pull request on GitHub, or decline to.")
def open_pr_command(
    branch: Annotated[str, typer.Option("--branch", help="The branch the PR comes from (the repository's own).")],
    base_branch: Annotated[str, typer.Option("--base-branch", help="The branch the PR targets.")],
    report: Annotated[
        Path, typer.Option("--report", help="The JSON report of `mesh-codemod pr --json` (or `patch --json`) for the branch.")
    ],
    body_file: Annotated[
        Optional[Path], typer.Option("--body-file", help="The PR body.", show_default="the report's body")
    ] = None,
    repo_slug: Annotated[
        Optional[str],
        typer.Option("--repo-slug", help="OWNER/NAME of the repository.", show_default="$GITHUB_REPOSITORY, else $GH_REPO"),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Decide and write the outputs; open, edit or comment on nothing.")
    ] = False,
    as_json: JsonOption = False,
    pr_author: Annotated[
        Optional[list[str]],
        typer.Option("--pr-author", help="Only PRs these logins opened can decline a change (the tool's identities "
                     "on GitHub; repeatable, or separated by commas or spaces).",
                     show_default="any of the repository's own"),
    ] = None,
) -> None:
    """Open or update the branch's pull request on GitHub, or decline to.

    Looks up the repository's own PRs from BRANCH into BASE_BRANCH in any
    state (`gh api --paginate`, head=OWNER:BRANCH; a fork's PR is never
    read) and decides, from the report: none (nothing to publish); blocked
    (the branch holds commits the tool did not make: one comment on the
    open PR, once); update (the open PR's title and body); declined (a PR
    with the same change fingerprint was closed without merging: nothing is
    opened); open (a new PR). Writes pr-action=none|blocked|update|declined|open
    and pr-number=N to $GITHUB_OUTPUT and, unless --dry-run, one line to
    $GITHUB_STEP_SUMMARY. Exit 0 for every decision; 2 for a bad report or
    option; 3 when gh fails. Starts no process but `gh api`, outside the
    checkout. In a workflow: run it with --dry-run before pushing, push
    only when pr-action is open or update, then run it without --dry-run.
    """
    from . import github

    logins = tuple(login for value in pr_author or () for login in value.replace(",", " ").split())
    request = github.OpenPrRequest(branch, base_branch, report, body_file, repo_slug, dry_run, as_json, logins)
    raise typer.Exit(github.open_pr(request))


@app.command("verify", short_help="Run the target's own checks on the files the tool edits, against the base.")
def verify_command(
    repo: RepoOption = Path("."),
    as_json: JsonOption = False,
    require_checks: RequireChecksOption = False,
    base: Annotated[
        Optional[str],
        typer.Option(
            "--base",
            help="The unpatched commit to compare the checks' findings with.",
            show_default="below the tool's commits in HEAD's history, else the merge base with --target, else HEAD",
        ),
    ] = None,
    target: Annotated[
        Optional[str],
        typer.Option("--target", help="The branch the change is for: without the tool's commits, the baseline is the merge base with it."),
    ] = None,
) -> None:
    """Run the repo's own checks (format, lint, type check against the unpatched tree, tests; on the MCP Apps SDK also the build and the generator with `git diff --exit-code`) on the files the tool edits, each against the base; exit 4 when one fails."""
    from . import checking

    raise typer.Exit(checking.verify_checkout(repo, as_json, require_checks, base, target))


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        print(f"mesh-codemod {__version__}")
        raise typer.Exit(0)


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Add deep-link app state (appState) to a Studio (decocms/mesh) checkout."""
