"""mesh's whole pull-request CI in `verify` (SPEC 3 rule 9): knip against
the base, and every job of the checkout's workflows that cannot run here
listed "not run" with its reason, in the report and the PR body.

The stand-in Bun (tests/fake_tools/bun) answers `bun run knip --reporter
json` as knip's JSON reporter does; test_real_knip runs the real knip on a
small project of ours.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .gitrepo import BOT, commit_all
from .support import ROOT, invoke
from .test_verify import MODULE, NOT_RUN, _calls, checkout  # noqa: F401 (the fixture)


def _knip(report: dict) -> dict:
    return next(c for c in report["checks"] if c["check"] == "knip")


def test_an_unused_export_the_base_lacks_fails_knip(checkout: Path) -> None:
    assert invoke("apply", "--repo", checkout).exit_code == 0
    module = checkout / MODULE
    module.write_text(module.read_text() + "export const APP_STATE_LEFTOVER = 1; // UNUSED_EXPORT\n")
    result = invoke("verify", "--repo", checkout, "--json")
    assert result.exit_code == 4, result.output
    knip = _knip(json.loads(result.stdout))
    assert knip["outcome"] == "failed"
    assert knip["summary"].startswith("knip: 1 new finding(s); 1 already in the unpatched tree")
    assert knip["output"] == f"Unused export: APP_STATE_LEFTOVER {MODULE}"
    assert "legacy.ts" not in knip["output"], "a finding of the base is not shown as new"


def test_an_unused_export_the_base_has_too_is_not_new(checkout: Path, tmp_path: Path) -> None:
    """Moved by the change (another line), the same finding is still the
    base's: findings are compared by kind, file and name."""
    legacy = checkout / "apps/mesh/src/old.ts"
    legacy.write_text("export const OLD = 1; // UNUSED_EXPORT\n")
    commit_all(checkout, "an unused export, before the change")
    assert invoke("apply", "--repo", checkout).exit_code == 0
    legacy.write_text("// moved down\n\nexport const OLD = 1; // UNUSED_EXPORT\n")
    result = invoke("verify", "--repo", checkout, "--json")
    assert result.exit_code == 0, result.output
    assert _knip(json.loads(result.stdout))["summary"].startswith("knip: no new findings; 2 already in the unpatched tree")
    # the base's findings are cached: a second run starts knip once, in the checkout
    assert invoke("verify", "--repo", checkout).exit_code == 0
    runs = [c for c in _calls(tmp_path) if c.endswith(" run knip --reporter json")]
    assert len(runs) == 3 and sum(not c.startswith(str(checkout)) for c in runs) == 1, runs


def test_a_clean_knip_run_does_not_run_the_base(checkout: Path, tmp_path: Path) -> None:
    (checkout / "apps/mesh/src/legacy.ts").unlink()
    commit_all(checkout, "no legacy file")
    assert invoke("apply", "--repo", checkout).exit_code == 0
    result = invoke("verify", "--repo", checkout, "--json")
    assert result.exit_code == 0, result.output
    assert _knip(json.loads(result.stdout))["summary"] == "knip: no findings"
    assert [c for c in _calls(tmp_path) if c.endswith(" run knip --reporter json")] == [f"{checkout} run knip --reporter json"]


def test_knip_that_gives_no_report_fails(checkout: Path) -> None:
    """A run that ran nothing proves nothing: no JSON report is a failure."""
    assert invoke("apply", "--repo", checkout).exit_code == 0
    module = checkout / MODULE
    module.write_text(module.read_text() + "// KNIP_CRASH\n")
    result = invoke("verify", "--repo", checkout, "--json")
    assert result.exit_code == 4
    knip = _knip(json.loads(result.stdout))
    assert (knip["outcome"], knip["summary"]) == ("failed", "knip failed without a report")
    assert "knip crashed (planted)" in knip["output"]


def test_without_a_knip_script_knip_is_not_available(checkout: Path) -> None:
    manifest = checkout / "package.json"
    manifest.write_text(json.dumps({k: v for k, v in json.loads(manifest.read_text()).items() if k != "scripts"}))
    commit_all(checkout, "no knip script")
    assert invoke("apply", "--repo", checkout).exit_code == 0
    result = invoke("verify", "--repo", checkout, "--json")
    knip = _knip(json.loads(result.stdout))
    assert (knip["outcome"], knip["summary"]) == ("not available", "the checkout's package.json has no `knip` script")


def test_every_pull_request_job_that_cannot_run_here_says_why(checkout: Path) -> None:
    assert invoke("apply", "--repo", checkout).exit_code == 0
    result = invoke("verify", "--repo", checkout, "--json")
    assert result.exit_code == 0, result.output
    summaries = {c["check"]: c["summary"] for c in json.loads(result.stdout)["checks"] if c["outcome"] == "not run"}
    assert summaries == {
        "browser/browser": "needs the browser Playwright downloads (`playwright install`) and service containers (docker)",
        "checks/test": "the whole `bun test` suite needs NATS in docker; here `tests` runs the tests beside the touched files",
        "checks/build": "`bun run --cwd=apps/mesh build:server`: not one of the checks verify runs"
        " (its `knip` ran as the check of that name)",
        "checks/image-smoke": "needs a docker image build and run",
        "charts": "runs only for changes under deploy/charts/** (jobs render); this change has none",
    }
    # the release workflow runs on a tag, never on a pull request; the jobs
    # that verify runs in full (format, lint, typecheck) are its checks
    assert not any(name.startswith(("release", "checks/format", "checks/lint", "checks/typecheck")) for name in summaries)
    text = invoke("verify", "--repo", checkout).stdout
    assert "  checks/image-smoke not run" in text


def test_a_job_behind_a_path_filter_counts_when_the_change_meets_it(tmp_path: Path) -> None:
    from codemods.checks import workflows
    from codemods.checks.model import Outcome

    shutil.copytree(ROOT / "tests" / "mesh_github", tmp_path / ".github")
    ran = {name: Outcome.PASSED for name in ("format", "lint", "typecheck", "tests", "knip")}
    met = workflows.not_run(tmp_path, ["deploy/charts/app/values.yaml"], ran)
    charts = next(c for c in met if c.name == "charts/render")
    assert charts.summary == "`helm lint deploy/charts/app`: not one of the checks verify runs"
    assert not any(c.name == "charts" for c in met)


def test_workflows_are_read_as_yaml_and_a_file_that_is_not_one_is_left_out(tmp_path: Path) -> None:
    """`on:` is the trigger (YAML 1.1 reads the bare key as true); a file
    that is not YAML, not a mapping or too large is named with why, and
    the pull-request jobs are those of the others."""
    from codemods.checks.workflows import Job, pull_request_jobs
    from codemods.plan import workflows

    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "ci.yml").write_text(
        "on:\n  pull_request:\n    paths: ['apps/**']\njobs:\n  test:\n    steps:\n"
        "      - run: |\n          # the suite\n          bun install\n\n          bun test\n"
    )
    (folder / "broken.yml").write_text("on: [push\njobs: {}\n")
    (folder / "list.yaml").write_text("- on: pull_request\n")
    (folder / "huge.yml").write_text("#" * (workflows.MAX_BYTES + 1))
    read = {w.name: w for w in workflows.workflows(tmp_path)}
    assert read["ci.yml"].problem == "" and list(read["ci.yml"].data) == ["on", "jobs"]
    assert read["broken.yml"].problem.startswith("not YAML: ")
    assert read["list.yaml"].problem == "not a mapping"
    assert read["huge.yml"].problem == f"larger than {workflows.MAX_BYTES} bytes"
    assert pull_request_jobs(tmp_path) == [Job("ci.yml", "test", ("bun install\nbun test",), False, ("apps/**",))]


def test_the_pr_body_lists_every_check_knip_and_not_run_included(checkout: Path, tmp_path: Path) -> None:
    body = tmp_path / "body.md"
    result = invoke("pr", "--repo", checkout, "--branch", "codemod/app-state", "--author", BOT, "--body-out", body)
    assert result.exit_code == 0, result.output
    text = body.read_text()
    assert "| knip | passed | knip: no new findings; 1 already in the unpatched tree (baseline: base " in text
    for name in NOT_RUN:
        assert f"| {name} | not run | " in text, name
    assert "- Ran: `parse`, `format`, `lint`, `typecheck`, `tests`, `knip`\n" in text
    assert "- Not run here (CI runs them; the table says why): `browser/browser`, `checks/test`" in text
    # every check that could run passed, yet "tested and working" needs a
    # browser run the tool cannot know of (0.7.0): never ticked
    assert "- [ ] Changes are tested and working" in text
    assert "- [ ] Documentation is updated (if needed)" in text


KNIP = ROOT / "tools" / "node_modules" / ".bin" / "knip"


@pytest.mark.skipif(not KNIP.exists() and not os.environ.get("CI"), reason="tools/node_modules has no knip (scripts/setup --node)")
def test_real_knip_reports_an_unused_export_that_the_check_reads(tmp_path: Path) -> None:
    """The real knip (the version mesh's bun.lock pins, tools/package.json)
    on a small project: its JSON report gives the unused export the check
    counts, and none once the export is used."""
    from codemods.checks import knip

    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "package.json").write_text(json.dumps({"name": "p", "type": "module", "main": "src/index.ts"}))
    (project / "src/index.ts").write_text('import { used } from "./state";\nconsole.log(used);\n')
    (project / "src/state.ts").write_text('export const used = 1;\nexport const APP_STATE_PARAM = "appState";\n')

    def run() -> tuple[int, set]:
        done = subprocess.run([str(KNIP), "--reporter", "json"], cwd=project, capture_output=True, text=True, timeout=300)
        report = knip._json_report(done.stdout)
        assert report is not None, done.stdout + done.stderr
        return done.returncode, knip.findings(report)

    assert run() == (1, {("exports", "src/state.ts", "APP_STATE_PARAM")})
    (project / "src/index.ts").write_text(
        'import { APP_STATE_PARAM, used } from "./state";\nconsole.log(used, APP_STATE_PARAM);\n'
    )
    assert run() == (0, set())
