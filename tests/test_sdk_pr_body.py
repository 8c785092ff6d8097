"""The PR body for the SDK's maintainers (SPEC section 7): the SEP text
changed, the API in the revision's shape, compatibility, how the generated
files were made and how it was verified."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .gitrepo import BOT, commit_all, git
from .node_tools import require_pinned_schemas
from .sdk_support import SDK_FIXTURES, hand_written  # noqa: F401  (fixture)
from .support import invoke


def _body(tmp_path: Path, shape: str, edit=None) -> str:
    repo = tmp_path / shape
    shutil.copytree(SDK_FIXTURES / shape / "input", repo)
    if edit:
        edit(repo)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "sdk-shaped fixture")
    out = tmp_path / "PR.md"
    result = invoke("pr", "--repo", repo, "--branch", "codemod/app-state", "--author", BOT, "--no-verify", "--body-out", out)
    assert result.exit_code == 0, result.output
    return out.read_text()


@pytest.mark.parametrize(("shape", "letter", "wiring"), [
    ("shape-a", "A", "`AppBridge.onstatechange`, a setter that registers the schema with `setNotificationHandler`"),
    ("shape-b", "B", "the `statechange` event (an `AppBridgeEventMap` key and its `eventSchemas` entry) and the `AppBridge.onstatechange`"),
    ("shape-c", "C", "the `statechange` event (an `AppBridgeEventMap` key and its `eventSchemas` entry), for `addEventListener"),
])
def test_the_body_speaks_to_the_sdk_maintainers(
    shape: str, letter: str, wiring: str, tmp_path: Path, hand_written: None
) -> None:
    body = _body(tmp_path, shape)
    # the MCP sections, in order, when the checkout has no template
    titles = [line for line in body.splitlines() if line.startswith("## ")]
    assert titles == [
        "## Motivation and Context", "## How Has This Been Tested?", "## Breaking Changes",
        "## Types of changes", "## Checklist", "## Additional context",
    ]
    # the SDK change only: the SEP text is the spec PR's
    assert "### The SEP text" not in body and "MUST" not in body
    assert "The SEP text it implements is [the spec PR](https://github.com/modelcontextprotocol/ext-apps/compare/main...<fork>:codemod/app-state-spec), which it stacks on" in body
    assert f"### The change (this revision's shape {letter})" in body
    assert f"`src/app-bridge.ts`: {wiring}" in body
    assert ("`AppBridge.onstatechange`" in body) == (letter != "C")
    assert ("no `onstatechange` accessor" in body) == (letter == "C")
    assert "`App.sendStateChanged(params)`" in body
    assert ("checks the handshake first (`_assertInitialized`)" in body) == (letter == "C")
    assert ("the `appState` host capability with `maxLength`" in body) == (letter != "A")
    assert "A host that ignores `ui/notifications/state-changed` is unaffected" in body
    assert "An app that never sends it is unaffected" in body
    assert "- [x] New feature (non-breaking change which adds functionality)" in body
    assert "- [ ] Breaking change" in body
    # not run, so not ticked
    assert "- [ ] New and existing tests pass locally" in body
    assert "were not run with this PR (`--no-verify`)" in body
    assert "was edited in the generator's style, not regenerated" in body and "`npm run generate:schemas`" in body
    # the tool's own details are collapsed at the end, not in the main text
    details = body.index("<details><summary>How this PR was made (mesh-codemod)</summary>")
    assert details > body.index("## Additional context")
    assert body.index("mesh-codemod --version") > details and body.index("spec(draft): add ui/notifications/state-changed") > details
    assert body.rstrip().endswith("</details>")
    assert "## Bridge mode" not in body and "## Layout" not in body
    # the reproduce line names only the flags that matter on the SDK
    reproduce = next(line for line in body.splitlines() if line.startswith("mesh-codemod pr "))
    assert "--bridge" not in reproduce and "--formatter" not in reproduce and "--author" in reproduce
    assert reproduce.endswith(" --no-verify")  # as the run that made the body, whose testing section cites it


def test_the_body_says_the_pinned_toolchain_made_the_generated_files(tmp_path: Path) -> None:
    require_pinned_schemas()
    body = _body(tmp_path, "shape-b")
    line = next(line for line in body.splitlines() if line.startswith("Generated files:"))
    # plain words: what did not run and why, then what ran
    assert line.startswith("Generated files: `src/generated/` was regenerated from the edited `src/spec.types.ts` with"
                           " ts-to-zod 5.1.0, zod 4.3.6 and Prettier 3.6.2 (the versions mesh-codemod pins), run under Bun")
    assert line.endswith(": the checkout has no node_modules, so `npm run generate:schemas` was not run.")
    assert "beside the sources" not in body
    assert "edited in the generator's style" not in body


TEMPLATE = """## Summary

<!-- What does this change and why? -->

## How was it tested?

<!-- Commands you ran -->

## Type of change

- [ ] Bug fix
- [ ] New feature
- [ ] Documentation update

## Release notes

Our own section: left as it is.
"""


def test_the_repository_template_is_filled_when_the_checkout_has_one(tmp_path: Path) -> None:
    def add_template(repo: Path) -> None:
        (repo / ".github").mkdir()
        (repo / ".github/pull_request_template.md").write_text(TEMPLATE)

    body = _body(tmp_path, "shape-b", add_template)
    titles = [line for line in body.splitlines() if line.startswith("## ")]
    assert titles == ["## Summary", "## How was it tested?", "## Type of change", "## Release notes"]
    assert "<!-- What does this change" not in body and "<!-- Commands you ran" not in body
    assert body.count("<!-- mesh-codemod-fingerprint: sha256:") == 1  # the closed-PR check reads it
    summary = body[body.index("## Summary"):body.index("## How was it tested?")]
    assert "### The change (this revision's shape B)" in summary and "### Generated files" in summary
    assert "were not run with this PR" in body[body.index("## How was it tested?"):body.index("## Type of change")]
    assert "- [ ] Bug fix\n- [x] New feature\n- [x] Documentation update" in body
    assert "Our own section: left as it is." in body
    assert "## Motivation and Context" not in body
    assert body.rstrip().endswith("</details>")


def test_a_revision_without_the_draft_says_there_is_no_spec_pr_and_why(tmp_path: Path) -> None:
    body = _body(tmp_path, "shape-c", lambda repo: shutil.rmtree(repo / "specification"))
    assert "There is no spec PR to stack on: no specification/draft/apps.mdx in this revision" in body
    assert "spec(draft)" not in body and "the spec PR" not in body


def test_the_bodies_link_the_proposal_and_never_ask_the_naming_question(
    tmp_path: Path, hand_written: None
) -> None:
    body = _body(tmp_path, "shape-c")
    motivation = body[body.index("## Motivation and Context"):body.index("## How Has This Been Tested?")]
    assert "Implements the proposal in [#465](https://github.com/modelcontextprotocol/ext-apps/issues/465)" in motivation
    assert "[#62](https://github.com/modelcontextprotocol/ext-apps/issues/62)" in motivation
    assert "[#194](https://github.com/modelcontextprotocol/ext-apps/pull/194)" in motivation
    assert "not model-visible" in motivation
    # mesh has the host side only once its own PR merges: proposed, not shipped
    assert "A reference host implementation is proposed for [decocms/mesh](https://github.com/decocms/mesh)" in motivation
    assert "?" not in motivation.replace("?:", "").replace(")?.", "")  # it asks nothing
    assert "viewState" not in body
    breaking = body[body.index("## Breaking Changes"):body.index("## Types of changes")]
    assert "None." not in breaking.split("\n\n")[1]
    assert "`AppBridgeEventMap` gains a `statechange` key" in breaking
    # the event-map key is required, so only the wire's new members are all optional
    assert "every new wire member is optional" in breaking
    checklist = body[body.index("## Checklist"):body.index("## Additional context")]
    # --no-verify: nothing ran, so neither the style box nor the tests box is ticked
    assert "- [ ] My code follows the repository's style guidelines" in checklist
    assert "- [ ] New and existing tests pass locally" in checklist
    assert "- [ ] I have added appropriate error handling" in checklist
    assert "- [ ] I have read the [MCP Documentation]" in checklist  # a person says so, not the tool


def test_pr_makes_the_spec_branch_and_the_code_branch_stacked_on_it(tmp_path: Path, hand_written: None) -> None:
    """Spec first (SPEC 7): `<branch>-spec` holds the SEP-text commit alone,
    touching only specification/; the code branch's first commit is that
    same commit; each has its own body."""
    repo = tmp_path / "sdk"
    shutil.copytree(SDK_FIXTURES / "shape-c-full" / "input", repo)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "sdk-shaped fixture")
    out = tmp_path / "PR.md"
    result = invoke("pr", "--repo", repo, "--branch", "codemod/app-state", "--author", BOT, "--no-verify", "--body-out", out)
    assert result.exit_code == 0, result.output
    base = git(repo, "rev-parse", "main").strip()
    spec = git(repo, "rev-parse", "codemod/app-state-spec").strip()
    code = git(repo, "rev-parse", "codemod/app-state").strip()
    assert git(repo, "rev-parse", f"{spec}^").strip() == base
    chain = git(repo, "rev-list", "--reverse", f"{base}..{code}").split()
    assert chain[0] == spec and len(chain) >= 4
    touched = git(repo, "diff", "--name-only", base, spec).split()
    assert touched == ["specification/draft/apps.mdx"]
    later = git(repo, "diff", "--name-only", spec, code).split()
    assert "docs/patterns.md" in later and not any(p.startswith("specification/") for p in later)
    assert git(repo, "log", "-1", "--format=%s", spec).strip() == "spec(draft): add ui/notifications/state-changed"
    spec_body = (tmp_path / "PR.spec.md").read_text()
    assert "The SDK change that implements it is stacked on it." in spec_body
    assert "[#465](https://github.com/modelcontextprotocol/ext-apps/issues/465)" in spec_body
    assert "A reference host implementation is proposed for [decocms/mesh]" in spec_body
    assert "`npm run build`, `npm test` and `npm run prettier`: not run for this PR" in spec_body
    assert "- [ ] New and existing tests pass locally" in spec_body
    # a new protocol notification is a new feature; reading the docs is a person's statement
    assert "- [x] New feature (non-breaking change which adds functionality)" in spec_body
    assert "- [ ] I have read the [MCP Documentation]" in spec_body
    assert "### The change" not in spec_body
    # what it removes as well as what it adds
    assert 'It removes: "Keeping View state between sessions" from the future work under "Extensibility".' in spec_body
    assert '- added "App State from Links" under "Security Implications › Mitigations"' in spec_body
    assert "spec branch codemod/app-state-spec (created)" in result.stderr


def test_pr_writes_the_proposal_for_465_beside_the_bodies(tmp_path: Path, hand_written: None) -> None:
    """The comment the maintainers decide on before either PR is reviewed
    (SPEC 7): the problem, the two scopes, the names with a recommendation
    from the one names table, the same View, the size floor, #708, and the
    compare URLs of both branches on the fork pushed to."""
    from codemods.recipes.names import NAMES, RECOMMENDED

    repo = tmp_path / "sdk"
    shutil.copytree(SDK_FIXTURES / "shape-c-full" / "input", repo)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "sdk-shaped fixture")
    git(repo, "remote", "add", "origin", "git@github.com:octo/ext-apps.git")
    out = tmp_path / "PR.md"
    result = invoke("pr", "--repo", repo, "--branch", "codemod/app-state", "--author", BOT, "--no-verify", "--body-out", out)
    assert result.exit_code == 0, result.output
    comment = (tmp_path / "PR.discussion.md").read_text()
    lines = comment.rstrip("\n").splitlines()
    assert 40 <= len(lines) <= 60, len(lines)
    for part in ("**The problem.**", "**Two scopes.**", "`setWidgetState`", "model never sees",
                 "**Names to settle.**", "**Which View gets a state back.**", "durably identifies",
                 "JSON-RPC id of `tools/call`", "**The size floor.**",
                 "UTF-8 bytes", "1024", "2 KB URL", "#708", "experimental",
                 # the trade-off: deployed SDKs strip an unknown key but pass the experimental record
                 "`McpUiHostCapabilitiesSchema` drops `appState`", "through as a record", "typed schema"):
        assert part in comment, part
    for a, b in zip(NAMES, RECOMMENDED):  # every row of the table, as it is and as recommended
        if a != b and a not in ("McpUiStateChangedNotification", "STATE_CHANGED_METHOD", "onstatechange"):
            assert a in comment and b in comment, (a, b)
    assert "https://github.com/modelcontextprotocol/ext-apps/compare/main...octo:codemod/app-state-spec" in comment
    assert "https://github.com/modelcontextprotocol/ext-apps/compare/main...octo:codemod/app-state\n" in comment
    # the bodies link it and leave the question to it
    for body in (out.read_text(), (tmp_path / "PR.spec.md").read_text()):
        assert "Implements the proposal in [#465]" in body and "viewState" not in body

    # without --body-out: printed after the bodies
    again = invoke("pr", "--repo", repo, "--branch", "codemod/other", "--author", BOT, "--no-verify")
    assert again.exit_code == 0, again.output
    code, spec, proposal = (again.stdout.index(m) for m in (
        "### The change", "It removes:", "## A proposal for #465"))
    assert code < spec < proposal
