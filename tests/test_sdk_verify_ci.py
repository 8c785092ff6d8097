"""`verify` on an SDK checkout runs what the SDK's CI runs: Prettier, tsc,
bun test, `npm run build`, and the generator followed by `git diff
--exit-code`; a check that cannot run says "not run" and why; the PR body's
"How Has This Been Tested" shows each check and ticks only what is true.

The checkout is test_sdk_verify's (the shape-B fixture with a tsconfig and
a bun test of ours, tools/node_modules linked as its node_modules) with two
scripts: `build` (tsc emitting declarations, tests left out) and `generate:schemas`, which
here is the pinned schema toolchain (codemods/recipes/sdk/pinned.py) run
on the checkout in place, as the SDK's script rewrites src/generated/.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from .gitrepo import commit_all
from .node_tools import require, require_pinned_schemas
from .support import ROOT, invoke
from .test_sdk_verify import _checks, _install, sdk_checkout  # noqa: F401 (a fixture)

GENERATE = """import subprocess
import sys
from pathlib import Path

sys.path.insert(0, {root!r})
from codemods.recipes.base import Planned
from codemods.recipes.sdk import pinned


def run(command, cwd, timeout=None, **options):
    return subprocess.run(command, cwd=cwd, timeout=timeout, capture_output=True, text=True)


spec = Planned("src/spec.types.ts", Path("src/spec.types.ts").read_bytes())
for path, data in pinned.regenerate(".", spec, pinned.toolchain(), run).items():
    Path(path).write_bytes(data)
"""


@pytest.fixture
def ci_checkout(sdk_checkout: Path) -> Path:  # noqa: F811 (the fixture imported above)
    """The SDK-shaped checkout with a build script and a generator, committed
    with the generator's own output, without node_modules."""
    require_pinned_schemas()
    if shutil.which("npm") is None:
        require(Path("/nonexistent/npm"), "npm on PATH", "install Node.js")
    manifest = json.loads((sdk_checkout / "package.json").read_text())
    manifest["scripts"] = {
        "build": "tsc -p tsconfig.build.json",
        "generate:schemas": f"{sys.executable} scripts/generate_schemas.py",
    }
    (sdk_checkout / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    # the build leaves the tests out (they test what the base does not have yet)
    build = {"extends": "./tsconfig.json", "exclude": ["src/**/*.test.ts"]}
    (sdk_checkout / "tsconfig.build.json").write_text(json.dumps(build, indent=2) + "\n")
    (sdk_checkout / "scripts").mkdir()
    (sdk_checkout / "scripts/generate_schemas.py").write_text(GENERATE.format(root=str(ROOT)))
    (sdk_checkout / ".gitignore").write_text("node_modules/\ndist/\n")
    commit_all(sdk_checkout, "a build script and the generator")
    return sdk_checkout


def _outcomes(result) -> dict[str, str]:
    return {name: c["outcome"] for name, c in _checks(result).items()}


@pytest.mark.slow
def test_verify_runs_the_sdks_ci_and_each_check_passes(ci_checkout: Path) -> None:
    assert invoke("apply", "--repo", ci_checkout).exit_code == 0
    _install(ci_checkout)
    result = invoke("verify", "--repo", ci_checkout, "--json")
    assert result.exit_code == 0, result.output
    assert _outcomes(result) == {
        "parse": "passed", "format": "passed", "typecheck": "passed", "tests": "passed",
        "build": "passed", "generated": "passed",
    }
    checks = _checks(result)
    assert checks["build"]["command"] == "npm run build"
    assert checks["generated"]["command"] == "npm run generate:schemas && git diff --exit-code"
    assert checks["generated"]["summary"] == "npm run generate:schemas: no difference in the generated files"
    # run on copies: the checkout holds no build output, and is as applied
    assert not (ci_checkout / "dist").exists()
    assert "state-changed" in (ci_checkout / "src/generated/schema.ts").read_text()


@pytest.mark.slow
def test_a_generated_file_edited_by_hand_fails_the_generator_check(ci_checkout: Path) -> None:
    assert invoke("apply", "--repo", ci_checkout).exit_code == 0
    _install(ci_checkout)
    schema = ci_checkout / "src/generated/schema.ts"
    schema.write_text(schema.read_text() + "export const handEdited = 1;\n")
    result = invoke("verify", "--repo", ci_checkout, "--json")
    assert result.exit_code == 4, result.output
    outcomes = _outcomes(result)
    assert outcomes["generated"] == "failed"
    assert {name for name, outcome in outcomes.items() if outcome == "failed"} == {"generated"}
    check = _checks(result)["generated"]
    assert "src/generated/schema.ts" in check["summary"]
    assert "-export const handEdited = 1;" in check["output"]


@pytest.mark.slow
def test_a_broken_build_fails_the_build_check_and_a_base_failure_does_not_count(ci_checkout: Path) -> None:
    assert invoke("apply", "--repo", ci_checkout).exit_code == 0
    _install(ci_checkout)
    manifest = json.loads((ci_checkout / "package.json").read_text())
    manifest["scripts"]["build"] = "tsc -p tsconfig.build.json && node -e \"process.exit(3)\""
    (ci_checkout / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    result = invoke("verify", "--repo", ci_checkout, "--json")
    assert result.exit_code == 4, result.output
    assert (_checks(result)["build"]["outcome"], _checks(result)["build"]["summary"]) == ("failed", "npm run build: exit 3")
    # the same script committed as the base: the failure is not this change's
    commit_all(ci_checkout, "a build that fails")
    result = invoke("verify", "--repo", ci_checkout, "--json", "--base", "HEAD")
    build = _checks(result)["build"]
    assert build["outcome"] == "passed" and "fails on the base as well" in build["summary"], build


@pytest.mark.slow
def test_without_node_modules_or_scripts_the_ci_steps_say_not_run_and_why(ci_checkout: Path) -> None:
    assert invoke("apply", "--repo", ci_checkout).exit_code == 0
    checks = _checks(invoke("verify", "--repo", ci_checkout, "--json"))
    assert (checks["build"]["outcome"], checks["build"]["summary"]) == ("not available", "node_modules not installed")
    assert (checks["generated"]["outcome"], checks["generated"]["summary"]) == ("not available", "node_modules not installed")
    _install(ci_checkout)
    manifest = json.loads((ci_checkout / "package.json").read_text())
    manifest["scripts"] = {"test": "bun test src"}
    (ci_checkout / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    checks = _checks(invoke("verify", "--repo", ci_checkout, "--json"))
    assert (checks["build"]["outcome"], checks["build"]["summary"]) == ("not run", "the checkout declares no `build` script")
    assert (checks["generated"]["outcome"], checks["generated"]["summary"]) == (
        "not run", "the checkout declares no `generate:schemas` script",
    )


def _report(**outcomes: str):
    from codemods.checks.model import Check, Outcome, Report

    summaries = {
        "passed": "it passed", "failed": "it failed", "not available": "node_modules not installed",
        "not run": "the checkout declares no `build` script",
    }
    command = {"passed": "a command", "failed": "a command"}
    return Report(["src/app.ts"], [Check(name, Outcome(o), summaries[o], command.get(o, "")) for name, o in outcomes.items()])


def test_the_body_shows_what_ran_and_what_did_not_and_ticks_nothing_untrue() -> None:
    from codemods.deliver import sdk_body

    report = _report(
        parse="passed", format="not available", typecheck="passed", tests="not available", build="not run",
        generated="failed",
    )
    tested = "\n".join(sdk_body.tested(report))
    assert "- Prettier (`npm run prettier`), on the touched files: not run: node_modules not installed" in tested
    assert "- `tsc --noEmit`: ran, passed (it passed)" in tested
    assert "- `npm test` (`bun test`), on the test files of the touched modules: not run: node_modules not installed" in tested
    assert "- `npm run build`: not run: the checkout declares no `build` script" in tested
    assert "then `git diff --exit-code`: ran, **failed** (it failed)" in tested
    checklist = sdk_body.checklist(report)
    assert "- [ ] My code follows the repository's style guidelines" in checklist
    assert "- [ ] New and existing tests pass locally" in checklist
    assert "- [ ] I have added appropriate error handling" in checklist
    # the repository's own template: the same boxes, the same answers
    template = "## Checklist\n\n- [x] New and existing tests pass locally\n- [x] My code follows the style guidelines\n"
    filled = sdk_body.filled(template, {}, report)
    assert "- [ ] New and existing tests pass locally" in filled and "- [ ] My code follows the style guidelines" in filled


def test_the_boxes_are_ticked_when_their_checks_ran_and_passed() -> None:
    from codemods.deliver import sdk_body

    report = _report(parse="passed", format="passed", typecheck="passed", tests="passed", build="passed", generated="passed")
    checklist = sdk_body.checklist(report)
    assert "- [x] My code follows the repository's style guidelines" in checklist
    assert "- [x] New and existing tests pass locally" in checklist
    # found only what the base has as well: said so, and not ticked
    as_on_base = report._replace(checks=[
        c._replace(summary="prettier --check: 1 file(s) unformatted at the base already: no new finding")
        if c.name == "format" else c for c in report.checks
    ])
    assert "- [ ] My code follows the repository's style guidelines" in sdk_body.checklist(as_on_base)
    assert "- Prettier (`npm run prettier`), on the touched files: ran, failed as on the base: nothing new (" in "\n".join(
        sdk_body.tested(as_on_base)
    )
    # passed without running anything (no test beside the touched files): not ticked
    nothing = report._replace(checks=[c._replace(command="") if c.name == "tests" else c for c in report.checks])
    assert "- [ ] New and existing tests pass locally" in sdk_body.checklist(nothing)
    tested = sdk_body.tested(report)
    assert sum(line.startswith("- ") and ": ran, passed (" in line for line in tested) == 6
    # --no-verify: every CI step named, none said to have run
    skipped = "\n".join(sdk_body.tested(None))
    assert "were not run with this PR (`--no-verify`)" in skipped and "ran, " not in skipped
    assert "`npm run build`" in skipped and "`git diff --exit-code`" in skipped


@pytest.mark.slow
def test_prettier_counts_only_files_the_base_has_formatted(sdk_checkout: Path) -> None:  # noqa: F811
    types = sdk_checkout / "src/types.ts"
    types.write_text(types.read_text().replace("export type", "export   type", 1))
    commit_all(sdk_checkout, "a file Prettier would reformat, at the base")
    assert invoke("apply", "--repo", sdk_checkout).exit_code == 0
    _install(sdk_checkout)
    check = _checks(invoke("verify", "--repo", sdk_checkout, "--json"))["format"]
    assert (check["outcome"], check["summary"]) == (
        "passed", "prettier --check: 1 file(s) unformatted at the base already: no new finding",
    )
    # a touched file the base has formatted, now unformatted: a new finding
    app = sdk_checkout / "src/app.ts"
    app.write_text(app.read_text().replace("export class", "export   class", 1))
    result = invoke("verify", "--repo", sdk_checkout, "--json")
    assert result.exit_code == 4
    check = _checks(result)["format"]
    assert check["outcome"] == "failed" and "[warn] src/app.ts" in check["output"]
