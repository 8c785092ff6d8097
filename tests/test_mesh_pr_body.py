"""The pull request to mesh as mesh writes them (SPEC 4, last paragraph):
the title in its squash-merge convention, the body in the base commit's
`.github/pull_request_template.md`, a manual test plan with the raw
notification, the upstream proposal, the capability note, and the tool's
details collapsed, the fingerprint on the last line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from .gitrepo import BOT, commit_all, fixture_repo
from .support import ROOT, invoke

SECTIONS = [
    "## What is this contribution about?",
    "## Screenshots/Demonstration",
    "## How to Test",
    "## Migration Notes",
    "## Review Checklist",
]


def _repo(tmp_path: Path, template: bool = True) -> Path:
    repo = fixture_repo(tmp_path / "mesh")
    if template:
        shutil.copytree(ROOT / "tests" / "mesh_github", repo / ".github")
        commit_all(repo, "the PR template")
    return repo


def _pr(repo: Path, *extra: str) -> dict:
    result = invoke("pr", "--repo", repo, "--branch", "codemod/app-state", "--author", BOT, "--no-verify", "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _headings(body: str) -> list[str]:
    return [line for line in body.splitlines() if line.startswith("## ")]


def test_the_first_change_reads_as_mesh_writes_its_prs(tmp_path: Path) -> None:
    from codemods.deliver import forge

    report = _pr(_repo(tmp_path))
    assert report["title"] == "feat(mcp-apps): keep each app's state in the URL (appState deep links)"
    body = report["body"]
    assert _headings(body) == SECTIONS
    # the template's placeholders gave way to this change's text
    assert not any(line.startswith("> ") for line in body.splitlines())
    what = body[body.index(SECTIONS[0]):body.index(SECTIONS[1])]
    assert "**Experimental** until the MCP Apps SDK ships" in what
    assert "[modelcontextprotocol/ext-apps#465](https://github.com/modelcontextprotocol/ext-apps/issues/465)" in what
    assert "released SDKs (1.7.1 and 2.0.4) strip that unknown capability" in what
    assert "Views see it once the SDK change ships" in what
    test = body[body.index(SECTIONS[2]):body.index(SECTIONS[3])]
    assert 'method: "ui/notifications/state-changed", params: { state: { view: "settings" } }' in test
    assert '"ui/notifications/host-context-changed"' in test
    assert "### mesh's CI on this branch\n\nNot run with this PR (`--no-verify`)" in test
    # no box ticked that is not true: nothing was tested here, no docs changed
    assert "- [x] PR title is clear and descriptive" in body
    assert "- [ ] Changes are tested and working" in body
    assert "- [ ] Documentation is updated (if needed)" in body
    assert "- [x] No breaking changes" in body
    # the tool's own details, collapsed after the template's sections
    details = body[body.index("<details><summary>How this PR was made (mesh-codemod)</summary>"):body.index("</details>")]
    assert body.index("## Review Checklist") < body.index("<details>")
    for part in ("Bridge mode: ``compat, 1.x form (", "Layout: mesh-codemod's own", "mesh-codemod pr --repo . --branch codemod/app-state", "Commits:"):
        assert part in details, part
    # the fingerprint is the body's last line, where the forge reads it
    last = body.rstrip("\n").splitlines()[-1]
    assert re.fullmatch(r"<!-- mesh-codemod-fingerprint: sha256:[0-9a-f]{64} -->", last)
    assert forge.fingerprint_in(body) == last.split()[2]
    assert body.count("mesh-codemod-fingerprint") == 1


def test_the_template_is_read_from_the_base_commit(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    template = repo / ".github" / "pull_request_template.md"
    template.write_text(template.read_text() + "\n## Rollout\n> Who turns it on.\n")
    commit_all(repo, "a section of the team's own")
    # the working tree's edit is not the base commit's
    template.write_text("## Only in the working tree\n")
    body = _pr(repo)["body"]
    assert _headings(body) == SECTIONS + ["## Rollout"]
    assert "> Who turns it on." in body, "a section the tool does not know is kept as it is"
    assert "Only in the working tree" not in body


def test_without_a_template_the_body_has_meshs_sections(tmp_path: Path) -> None:
    body = _pr(_repo(tmp_path, template=False))["body"]
    assert _headings(body) == SECTIONS
    assert "- [ ] Changes are tested and working" in body


def test_a_migration_and_an_upgrade_use_their_types(tmp_path: Path) -> None:
    from codemods import __version__

    from . import earlier_release

    repo = _repo(tmp_path)
    assert invoke("apply", "--repo", repo, "--bridge", "compat").exit_code == 0
    commit_all(repo, "the feature, compat mode")
    migration = _pr(repo, "--bridge", "sdk")
    assert migration["title"] == "refactor(mcp-apps): migrate the state-changed wiring to sdk mode"
    assert _headings(migration["body"]) == SECTIONS

    with earlier_release.recorded():
        old = _repo(tmp_path / "old")
        assert invoke("apply", "--repo", old, "--bridge", "compat").exit_code == 0
        commit_all(earlier_release.as_written(old), "mesh with an earlier release's appState merged")
        upgrade = _pr(old, "--bridge", "compat")
    assert upgrade["title"] == f"fix(mcp-apps): upgrade appState to mesh-codemod {__version__} (from {earlier_release.VERSION})"
    migration_notes = upgrade["body"][upgrade["body"].index("## Migration Notes"):upgrade["body"].index("## Review Checklist")]
    # 0.7.0 reads only the one format it writes: nothing to say of earlier links
    assert "None: no database migration" in migration_notes and "earlier" not in migration_notes


def test_a_series_read_back_from_git_names_the_tables_names(tmp_path: Path) -> None:
    """The push step's series (`publish.kept`) has a plan read from git
    objects, which names no names: its body speaks of the table's."""
    import git as gitpython

    from codemods.deliver import build, prbody
    from codemods.plan.model import Plan
    from codemods.plan.repository import Identity
    from codemods.recipes.base import Bridge, ModeChoice

    repo = gitpython.Repo(_repo(tmp_path))
    bridge = ModeChoice(Bridge.COMPAT, "the check step's choice")
    plan = Plan(Path(repo.working_tree_dir), "host", bridge, [], [])
    base = repo.head.commit.hexsha
    series = build.Series(repo, base, [], plan, bridge, Identity("Codemod Bot", "bot@example.com"), "2024-01-01")
    body = prbody.render(series, None, ["publish"])
    assert "Studio advertises `appState: { maxLength: 1024 }`" in body
    assert "(`hostContext.appState`) reaches them today" in body
