"""`verify` and `pr` on an MCP Apps SDK checkout, with the real tools.

The checkout is the shape-B fixture (1.x, whose imports resolve against
tools/node_modules) committed in a git repository, with a tsconfig.json and
a bun test of our own, and tools/node_modules linked in as its
node_modules: Prettier, tsc and the SDK's dependencies. Bun comes from PATH
(a folder holding only a link to tools' Bun), as the SDK's CI has it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from .gitrepo import BOT, commit_all, git
from .node_tools import BIN, NODE_MODULES, require
from .sdk_support import SDK_FIXTURES
from .support import invoke

# Written for these tests: the options of the SDK's tsconfig that matter
# for its sources (declarations only, strict, bundler resolution).
TSCONFIG = {
    "compilerOptions": {
        "target": "ES2020",
        "module": "ESNext",
        "lib": ["ES2020", "DOM"],
        "declaration": True,
        "emitDeclarationOnly": True,
        "outDir": "./dist",
        "moduleResolution": "bundler",
        "strict": True,
        "skipLibCheck": True,
    },
    "include": ["src/**/*.ts"],
    "exclude": ["src/generated/schema.test.ts"],
}
APP_TEST = """import { expect, test } from "bun:test";
import { App } from "./app";

test("sendStateChanged sends ui/notifications/state-changed with its params", async () => {
  const app = new App({ name: "probe", version: "1.0.0" });
  const sent: unknown[] = [];
  (app as unknown as { notification(n: unknown): Promise<void> }).notification = async (n) => {
    sent.push(n);
  };
  await app.sendStateChanged({ state: { tab: "details", itemId: "42" } });
  expect(sent).toEqual([{ method: "ui/notifications/state-changed", params: { state: { tab: "details", itemId: "42" } } }]);
});
"""


def _bun_on_path(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "path-bin"
    folder.mkdir()
    os.symlink(require(BIN / "bun", "Bun"), folder / "bun")
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


@pytest.fixture
def sdk_checkout(tmp_path: Path, monkeypatch) -> Path:
    """The unpatched SDK-shaped checkout, committed, without node_modules."""
    require(BIN / "prettier", "Prettier")
    require(BIN / "tsc", "TypeScript")
    repo = tmp_path / "ext-apps"
    shutil.copytree(SDK_FIXTURES / "shape-b" / "input", repo)
    # the fixture's App and AppBridge are outlines that the bridge tests do
    # not run on (tests/test_sdk_behaviour.py runs those on the released
    # SDK); without the file the bridge-test step is skipped
    (repo / "src/app-bridge.test.ts").unlink()
    (repo / "tsconfig.json").write_text(json.dumps(TSCONFIG, indent=2) + "\n")
    (repo / "src/app.test.ts").write_text(APP_TEST)
    (repo / ".gitignore").write_text("node_modules/\n")
    (repo / "package-lock.json").write_text("{}\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Dev")
    git(repo, "config", "user.email", "dev@example.com")
    commit_all(repo, "sdk-shaped fixture")
    monkeypatch.setenv("MESH_CODEMOD_CACHE", str(tmp_path / "cache"))
    _bun_on_path(tmp_path, monkeypatch)
    return repo


def _install(repo: Path) -> None:
    os.symlink(NODE_MODULES, repo / "node_modules")


def _checks(result) -> dict[str, dict]:
    return {c["check"]: c for c in json.loads(result.stdout)["checks"]}


@pytest.mark.slow
def test_verify_passes_on_the_output_with_the_sdks_own_checks(sdk_checkout: Path) -> None:
    # applied before node_modules is there, so the generated files come
    # from the pinned toolchain (or, without it, the generator's style)
    assert invoke("apply", "--repo", sdk_checkout).exit_code == 0
    _install(sdk_checkout)
    result = invoke("verify", "--repo", sdk_checkout, "--json")
    assert result.exit_code == 0, result.output
    checks = _checks(result)
    # the fixture's generator (tsx and a script it lacks) fails on the base
    # as well, so the generated files were not compared: not run, never
    # passed; it declares no build script
    assert {name: c["outcome"] for name, c in checks.items()} == {
        "parse": "passed", "format": "passed", "typecheck": "passed", "tests": "passed",
        "build": "not run", "generated": "not run",
    }
    assert "fails on the base as well, so the generated files were not compared here" in checks["generated"]["summary"]
    assert checks["format"]["command"].startswith("node_modules/.bin/prettier --check src/")
    assert "specification/draft/apps.mdx" not in checks["format"]["command"]
    # the checkout's tsc, the patched tree and the base in one process
    assert checks["typecheck"]["command"] == "tsc --noEmit --emitDeclarationOnly false -p tsconfig.json (and the base, in one process)"
    assert "no new errors; 0 already in the unpatched tree" in checks["typecheck"]["summary"]
    assert checks["tests"]["command"] == "bun test ./src/app.test.ts ./src/generated/schema.test.ts"
    assert checks["tests"]["summary"].startswith("bun test: 1 passed in 2 file(s)")


@pytest.mark.slow
def test_a_planted_type_error_fails_with_exit_4(sdk_checkout: Path) -> None:
    assert invoke("apply", "--repo", sdk_checkout).exit_code == 0
    _install(sdk_checkout)
    app = sdk_checkout / "src/app.ts"
    app.write_text(app.read_text() + '\nexport const planted: number = "not a number";\n')
    result = invoke("verify", "--repo", sdk_checkout, "--json")
    assert result.exit_code == 4, result.output
    check = _checks(result)["typecheck"]
    assert check["outcome"] == "failed"
    assert "1 new error(s)" in check["summary"]
    assert "error TS2322: Type 'string' is not assignable to type 'number'." in check["output"]


@pytest.mark.slow
def test_a_file_prettier_would_reformat_fails(sdk_checkout: Path) -> None:
    assert invoke("apply", "--repo", sdk_checkout).exit_code == 0
    _install(sdk_checkout)
    types = sdk_checkout / "src/types.ts"
    types.write_text(types.read_text().replace("export type", "export   type", 1))
    result = invoke("verify", "--repo", sdk_checkout, "--json")
    assert result.exit_code == 4
    check = _checks(result)["format"]
    assert check["outcome"] == "failed" and "src/types.ts" in check["output"]


def test_without_node_modules_or_bun_each_check_is_not_available(sdk_checkout: Path, monkeypatch) -> None:
    assert invoke("apply", "--repo", sdk_checkout).exit_code == 0
    result = invoke("verify", "--repo", sdk_checkout, "--json")
    assert result.exit_code == 0, result.output
    outcomes = {name: c["outcome"] for name, c in _checks(result).items()}
    assert outcomes == {
        "parse": "passed", "format": "not available", "typecheck": "not available", "tests": "not available",
        "build": "not run", "generated": "not available",
    }
    # the checkout's own node_modules/.bin/bun is never run: Bun is the one on PATH
    _install(sdk_checkout)
    # no folder on PATH that holds a bun, whatever this machine has installed
    no_bun = [p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "bun").exists()]
    monkeypatch.setenv("PATH", os.pathsep.join(no_bun))
    tests = _checks(invoke("verify", "--repo", sdk_checkout, "--json"))["tests"]
    assert (tests["outcome"], tests["summary"]) == ("not available", "bun not found on PATH")


def _with_remote(sdk_checkout: Path, tmp_path: Path) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(sdk_checkout), str(remote))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(remote), str(work))
    git(work, "config", "user.name", "Dev")
    git(work, "config", "user.email", "dev@example.com")
    _install(work)
    return remote, work


@pytest.mark.slow
def test_pr_on_an_sdk_checkout_creates_then_pushes_nothing_then_refuses_a_reviewers_commit(
    sdk_checkout: Path, tmp_path: Path
) -> None:
    remote, work = _with_remote(sdk_checkout, tmp_path)
    branch = "codemod/app-state"
    args = ("pr", "--repo", work, "--branch", branch, "--push", "origin", "--author", BOT)
    first = invoke(*args, "--json", "--body-out", tmp_path / "pr.md")
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert report["local"]["action"] == "created" and report["push"]["pushed"] is True
    assert [c["group"] for c in report["commits"]] == ["spec", "types-and-schemas", "exports", "bridge-and-app"]
    assert {c["check"]: c["outcome"] for c in report["verify"]["checks"]} == {
        "parse": "passed", "format": "passed", "typecheck": "passed", "tests": "passed",
        "build": "not run", "generated": "not run",
    }
    tip = git(remote, "rev-parse", f"refs/heads/{branch}").strip()
    assert tip == report["tip"]
    assert "ui/notifications/state-changed" in git(remote, "show", f"{tip}:specification/draft/apps.mdx")
    assert git(remote, "show", f"{tip}:specification/2026-01-26/apps.mdx") == git(
        remote, "show", "main:specification/2026-01-26/apps.mdx"
    )
    body = (tmp_path / "pr.md").read_text()
    assert "### The change (this revision's shape B)" in body and "### The SEP text" not in body
    tested = body[body.index("## How Has This Been Tested?"):body.index("## Breaking Changes")]
    assert "The SDK's CI steps, run by `mesh-codemod verify` on the branch's tree" in tested
    assert "- Prettier (`npm run prettier`), on the touched files: ran, passed (prettier --check:" in tested
    assert "- `tsc --noEmit`: ran, passed" in tested and "- `npm test` (`bun test`)" in tested
    assert "- `npm run build`: not run: the checkout declares no `build` script" in tested
    # the fixture's generator (a script it lacks) fails on the base as well: not run, never "passed"
    assert "then `git diff --exit-code`: not run: npm run generate:schemas fails on the base as well" in tested
    assert "- [x] New and existing tests pass locally" in body

    objects, refs = git(remote, "count-objects", "-v"), git(remote, "for-each-ref")
    second = json.loads(invoke(*args, "--json").stdout)
    assert second["tip"] == tip and second["local"]["action"] == "unchanged"
    assert second["push"] == {"remote": "origin", "lease": tip, "pushed": False}
    assert (git(remote, "count-objects", "-v"), git(remote, "for-each-ref")) == (objects, refs)

    reviewer = tmp_path / "reviewer"
    git(tmp_path, "clone", "-q", "-b", branch, str(remote), str(reviewer))
    (reviewer / "src/app.ts").write_text((reviewer / "src/app.ts").read_text() + "// reviewed\n")
    fixup = commit_all(reviewer, "fix: a reviewer's change", env={
        "GIT_AUTHOR_NAME": "Rita Reviewer", "GIT_AUTHOR_EMAIL": "rita@example.com",
    })
    git(reviewer, "push", "-q", "origin", branch)
    # left alone with a green run by default (issue 20); refused on request
    assert invoke(*args).exit_code == 0
    refused = invoke(*args, "--fail-on-blocked")
    assert refused.exit_code == 3, refused.output
    assert fixup[:12] in refused.stderr and "Rita Reviewer" in refused.stderr
    assert git(remote, "rev-parse", f"refs/heads/{branch}").strip() == fixup


@pytest.mark.slow
def test_the_publish_side_refuses_an_sdk_branch_built_with_the_sdks_own_tools(sdk_checkout: Path, tmp_path: Path) -> None:
    """SPEC 8: the SDK's PRs are made locally with `pr`; the publishing job
    refuses an SDK checkout, however honest the build job's artifact (here
    built with node_modules installed: Prettier, the schema generator), and
    pushes nothing."""
    remote, work = _with_remote(sdk_checkout, tmp_path)
    artifact = tmp_path / "artifact"
    built = invoke("pr", "--repo", work, "--branch", "codemod/app-state", "--author", BOT, "--no-verify",
                   "--artifact", artifact)
    assert built.exit_code == 0, built.output
    publisher = tmp_path / "publisher"
    git(tmp_path, "clone", "-q", str(remote), str(publisher))
    result = invoke("publish", "--repo", publisher, "--artifact", artifact, "--branch", "codemod/app-state",
                    "--target", "origin/main", "--push", "origin", "--author", BOT)
    assert result.exit_code == 3 and "publishes only the host target" in result.output, result.output
    assert git(remote, "for-each-ref", "refs/heads/codemod/app-state") == ""