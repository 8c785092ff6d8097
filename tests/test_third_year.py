"""The job's third year (issue 41, items 1, 2 and 6): blocked with the way
out, at once; imports by module, not spelling; the titles and the job
summary. The job's days run the example workflow job by job
(tests/workflow_run.py) with the stateful `gh` stand-in, and a `bun` whose
install puts an SDK double where bun would."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from .canary import executable
from .gitrepo import BOT, bun_lock, commit_all, git, with_remote
from .support import invoke
from .team_action import read_state, run_action, gh_state

SRC = "apps/mesh/src/mcp-apps"
BRIDGE = f"{SRC}/use-app-bridge.ts"
BRANCH = "codemod/app-state"
SDK = "@modelcontextprotocol/ext-apps"
GUARD = "if (this.bridge !== bridge) return;"


def _feature_merged(tmp: Path, version: str = "1.7.1") -> tuple[Path, Path]:
    """A remote whose main has the feature (compat mode, 1.x form), its
    bun.lock resolving the SDK at ``version``."""
    remote, work = with_remote(tmp, bun_lock(version))
    result = invoke("apply", "--repo", work, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    commit_all(work, "feat(mcp-apps): deep-link app state (mesh-codemod)")
    git(work, "push", "-q", "origin", "main")
    return remote, work


def _sdk_double(folder: Path, version: str, context_type: str = "unknown") -> Path:
    """An installed SDK as its declarations show it: `onappstatechange` on
    the bridge, and `McpUiHostContext.appState` typed ``context_type``."""
    (folder / "dist/src").mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps({"name": SDK, "version": version}))
    (folder / "dist/src/app-bridge.d.ts").write_text(
        "export declare class AppBridge {\n  set onsizechange(cb: unknown);\n"
        "  set onappstatechange(cb: ((params: { state: unknown }) => void) | undefined);\n}\n"
    )
    (folder / "dist/src/spec.types.d.ts").write_text(
        f"export interface McpUiHostContext {{\n  theme?: string;\n  appState?: {context_type};\n}}\n"
    )
    return folder


def _installing(tmp: Path, double: Path) -> None:
    """The runner's `bun`: `bun install` puts ``double`` where bun's
    isolated layout links the app's SDK (node_modules is never committed)."""
    executable(tmp / "gh-bin" / "gh", (Path(__file__).parent / "fake_tools" / "gh").read_text())
    executable(tmp / "gh-bin" / "bun", (
        "#!/usr/bin/env bash\n"
        'if [ "$1" = install ]; then\n'
        f"  mkdir -p apps/mesh/node_modules/@modelcontextprotocol && cp -r '{double}' apps/mesh/node_modules/{SDK}\n"
        "  echo node_modules >> .git/info/exclude\n"
        "fi\n"
        "exit 0\n"
    ))


def _rendered(markdown: str) -> str:
    """What Markdown shows of text escaped for it (code spans unfenced)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("`" + BRIDGE + "`", BRIDGE)


def _install(work: Path, double: Path) -> None:
    target = work / "apps/mesh/node_modules" / SDK
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(double, target)
    (work / ".git/info/exclude").write_text("node_modules\n")


# --- item 1: blocked, with the way out, at once ----------------------------------


def test_an_sdk_typing_the_context_narrower_is_blocked_green_naming_the_skip_line(tmp_path: Path) -> None:
    """0.6.0: exit 3 every day ("use an SDK that types it `unknown`"), red,
    no way out named. Now the job is green and its summary names the step,
    the declaration and `skip = ["bridge-store"]`; that line turns it into
    nothing to do."""
    remote, work = _feature_merged(tmp_path)
    _installing(tmp_path, _sdk_double(tmp_path / "double", "1.7.1", "string"))
    state = gh_state(tmp_path)
    refs = git(remote, "for-each-ref")
    for day in ("1", "2"):
        run = run_action(tmp_path, work, day)
        assert set(run.exits.values()) == {0}, run.stderr
        said = _rendered(run.summary)
        assert "mesh-codemod: blocked" in said, said
        assert f"{BRIDGE} (bridge-store)" in said and 'skip = ["bridge-store"]' in said, said
        assert "ext-apps/dist/src/spec.types.d.ts line 3: `McpUiHostContext.appState` is declared `string`" in said
    assert git(remote, "for-each-ref") == refs and read_state(state)["pulls"] == []
    # the command line still refuses, naming the way out
    _install(work, tmp_path / "double")
    applied = invoke("apply", "--repo", work, "--check")
    assert applied.exit_code == 3 and 'skip = ["bridge-store"]' in applied.output, applied.output
    # the one line: green, nothing to do
    (work / ".mesh-codemod.toml").write_text('skip = ["bridge-store"]\n')
    commit_all(work, "chore: mesh-codemod leaves the bridge store to us")
    git(work, "push", "-q", "origin", "main")
    run = run_action(tmp_path, work, "3")
    assert set(run.exits.values()) == {0} and run.outputs["pr-action"] == "none", run
    assert "mesh-codemod: blocked" not in run.summary


def test_one_run_names_every_step_it_blocks(tmp_path: Path) -> None:
    """Two steps blocked for two reasons (a handler edited since, a search
    schema the route no longer validates with directly) are named in one
    run, each with its file, lines and step, and one `skip` line opts out
    of both (0.6.0: exit 3, naming the first kind only)."""
    remote, work = _feature_merged(tmp_path)
    bridge = work / BRIDGE
    text = bridge.read_text()
    bridge.write_text(text.replace(GUARD, "if (this.bridge !== bridge || this.disposed) return;"))
    index = work / "apps/mesh/src/web/index.tsx"
    text = index.read_text().replace("validateSearch: unifiedChatSearchSchema,", "validateSearch: adapt(chatSearch),")
    index.write_text(text.replace("unifiedChatSearchSchema", "chatSearch") + "\nfunction adapt<T>(schema: T): T {\n  return schema;\n}\n")
    commit_all(work, "refactor: the team's edits")
    git(work, "push", "-q", "origin", "main")
    # an SDK that declares the API: the handler would migrate
    _install(work, _sdk_double(tmp_path / "double", "1.8.0"))
    result = invoke("pr", "--repo", work, "--branch", BRANCH, "--author", BOT, "--no-verify", "--json",
                    "--body-out", tmp_path / "body.md")
    assert result.exit_code == 0, result.output
    steps = {s["step"]: s for s in json.loads(result.stdout)["blocked"]["steps"]}
    assert set(steps) == {"bridge-store", "search-schema"}, steps
    assert re.search(rf"{BRIDGE} lines \d+-\d+ hold compat mode", steps["bridge-store"]["reason"])
    assert steps["search-schema"]["skip"] == 'skip = ["search-schema"]'
    summary = (tmp_path / "body.md").read_text()
    assert 'skip = ["bridge-store", "search-schema"]' in summary, summary
    red = invoke("pr", "--repo", work, "--branch", BRANCH, "--author", BOT, "--no-verify", "--fail-on-blocked")
    assert red.exit_code == 3 and 'skip = ["bridge-store"]' in red.output and 'skip = ["search-schema"]' in red.output


def test_a_handler_the_teams_linter_braced_is_migrated(tmp_path: Path) -> None:
    """mesh turns on oxlint's `curly` and fixes the tree, bracing the
    generated guard. Once the installed SDK declares the API, the braced
    handler is recognised as the tool's and migrated, written braced
    (0.6.0: refused every day, "restore the written form", which would
    fail the lint). The PR is titled as the migration it is."""
    remote, work = _feature_merged(tmp_path, "1.8.0")
    bridge = work / BRIDGE
    text = bridge.read_text()
    assert text.count(GUARD) == 1
    indent = re.search(rf"\n( *){re.escape(GUARD)}", text)[1]
    bridge.write_text(text.replace(GUARD, f"if (this.bridge !== bridge) {{\n{indent}  return;\n{indent}}}"))
    (work / ".oxlintrc.json").write_text('{\n  // the team\'s rules\n  "rules": { "curly": "error" },\n}\n')
    commit_all(work, "chore: oxlint curly, fixed")
    git(work, "push", "-q", "origin", "main")
    _installing(tmp_path, _sdk_double(tmp_path / "double", "1.8.0"))
    state = gh_state(tmp_path)
    run = run_action(tmp_path, work, "1")
    assert set(run.exits.values()) == {0} and run.outputs["pr-action"] == "open", run.stderr
    [pull] = read_state(state)["pulls"]
    assert pull["title"] == "refactor(mcp-apps): migrate the state-changed wiring to sdk mode", pull["title"]
    wired = git(remote, "show", f"{BRANCH}:{BRIDGE}")
    handler = wired[wired.index("bridge.onappstatechange = (params) => {"):]
    assert handler.split("\n")[1].strip() == "if (this.bridge !== bridge) {", handler
    assert "StateChangedNotificationSchema" not in wired and ") return;" not in handler.split("};")[0]


def test_without_curly_a_braced_handler_is_still_an_edit(tmp_path: Path) -> None:
    """Where the team's linter does not ask for braces, braces someone added
    are an edit: the migration is blocked, named, not written over."""
    remote, work = _feature_merged(tmp_path, "1.8.0")
    bridge = work / BRIDGE
    bridge.write_text(bridge.read_text().replace(GUARD, "if (this.bridge !== bridge) {\n        return;\n      }"))
    commit_all(work, "style: braces")
    _install(work, _sdk_double(tmp_path / "double", "1.8.0"))
    result = invoke("pr", "--repo", work, "--branch", BRANCH, "--author", BOT, "--no-verify", "--json")
    assert result.exit_code == 0, result.output
    [step] = json.loads(result.stdout)["blocked"]["steps"]
    assert step["step"] == "bridge-store" and "changed since mesh-codemod wrote it" in step["reason"], step


def test_a_handler_edited_apart_from_the_change_is_migrated_by_a_merge(tmp_path: Path) -> None:
    """A line the team added inside the handler, away from the lines the
    migration changes, is kept by a three-way merge (`git merge-file`); an
    edit next to them is a conflict: blocked, named, green (0.6.0: both
    refused, exit 3)."""
    remote, work = _feature_merged(tmp_path, "1.8.0")
    bridge = work / BRIDGE
    text = bridge.read_text()
    team = "this.shownAppState = params.state;\n        console.debug(\"[app] state\", params.state);"
    bridge.write_text(text.replace("this.shownAppState = params.state;", team))
    commit_all(work, "chore: log the app's state")
    _install(work, _sdk_double(tmp_path / "double", "1.8.0"))
    result = invoke("pr", "--repo", work, "--branch", BRANCH, "--author", BOT, "--no-verify", "--json")
    assert result.exit_code == 0, result.output
    [commit] = json.loads(result.stdout)["commits"]
    assert commit["subject"] == "refactor(mcp-apps): migrate the state-changed wiring to sdk mode", commit
    wired = git(work, "show", f"{commit['sha']}:{BRIDGE}")
    handler = wired[wired.index("bridge.onappstatechange = (params) => {"):].split("\n    };")[0]
    assert handler.split("\n")[1:] == [
        "      if (this.bridge !== bridge) return;",
        "      this.shownAppState = params.state;",
        '      console.debug("[app] state", params.state);',
        "      this.config.onAppStateChange?.(params.state);",
    ], handler
    assert "StateChangedNotificationSchema" not in wired
    # an edit on the line next to the registration collides with the change
    bridge.write_text(text.replace(GUARD, "if (this.bridge !== bridge || this.disposed) return;"))
    commit_all(work, "fix: a disposed store hears nothing")
    result = invoke("pr", "--repo", work, "--branch", BRANCH, "--author", BOT, "--no-verify", "--json")
    assert result.exit_code == 0, result.output
    [step] = json.loads(result.stdout)["blocked"]["steps"]
    assert step["step"] == "bridge-store" and "changed since mesh-codemod wrote it" in step["reason"], step
    assert step["skip"] == 'skip = ["bridge-store"]'


# --- item 2: imports by module, not spelling -------------------------------------


def _move_web(work: Path) -> None:
    """The team moves apps/mesh/src/web into a workspace package of its
    own, whose `@/` is its own src/, importing mesh's modules through the
    app's package name (`@decocms/mesh/...`, its `exports`)."""
    (work / "packages/mesh-web").mkdir(parents=True)
    git(work, "mv", "apps/mesh/src/web", "packages/mesh-web/src")
    (work / "packages/mesh-web/package.json").write_text(
        json.dumps({"name": "@decocms/mesh-web", "private": True, "dependencies": {"@decocms/mesh": "workspace:*"}},
                   indent=2) + "\n"
    )
    (work / "packages/mesh-web/tsconfig.json").write_text(
        '{\n  // the web package\'s own alias\n  "compilerOptions": {\n    "paths": { "@/*": ["./src/*"] },\n  },\n}\n'
    )
    manifest = work / "apps/mesh/package.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "exports": {"./*": "./src/*"}}, indent=2) + "\n")
    for path in (work / "packages/mesh-web/src").rglob("*.ts*"):
        text = path.read_text().replace('"@/web/', '"@/').replace('"@/mcp-apps/', '"@decocms/mesh/mcp-apps/')
        # laid out as the team's formatter lays the longer line out
        text = text.replace(
            'import { APP_STATE_PARAM, copyAppState } from "@decocms/mesh/mcp-apps/app-state.ts";',
            'import {\n  APP_STATE_PARAM,\n  copyAppState,\n} from "@decocms/mesh/mcp-apps/app-state.ts";',
        )
        path.write_text(text)
    commit_all(work, "refactor: web/ is a workspace package")
    git(work, "push", "-q", "origin", "main")


def test_after_a_package_move_a_module_imported_by_package_name_is_the_same_module(tmp_path: Path) -> None:
    """0.6.0 (and 0.7.0): the first day blocks the render sites (their
    renderer import is not found), and the next adds a second
    `import { APP_STATE_PARAM } from "@/mcp-apps/app-state.ts"` to the
    route (a module that does not exist there). Now: nothing to do, green,
    nothing imported twice."""
    remote, work = _feature_merged(tmp_path)
    _move_web(work)
    state = gh_state(tmp_path)
    for day in ("1", "2"):
        run = run_action(tmp_path, work, day)
        assert set(run.exits.values()) == {0} and run.outputs["pr-action"] == "none", run
        assert "blocked" not in run.summary, run.summary
    assert read_state(state)["pulls"] == []
    check = invoke("apply", "--repo", work, "--check", "--json")
    assert check.exit_code == 0, check.output
    assert {s["status"] for s in json.loads(check.stdout)["steps"]} == {"already"}


def test_after_a_package_move_new_imports_merge_with_the_package_named_one(tmp_path: Path) -> None:
    """The route's search schema lost its `appState` member, and its file
    imports another name of the module through the package's name: the
    name the tool adds goes into that import (0.6.0 and 0.7.0: a second
    import, through an `@/` that means another folder there)."""
    remote, work = _feature_merged(tmp_path)
    _move_web(work)
    index = work / "packages/mesh-web/src/index.tsx"
    text = index.read_text()
    text = text.replace('import { APP_STATE_PARAM } from "@decocms/mesh/mcp-apps/app-state.ts";',
                        'import { copyAppState } from "@decocms/mesh/mcp-apps/app-state";')
    index.write_text(re.sub(r"\n *\[APP_STATE_PARAM\]: [^\n]*", "", text))
    result = invoke("apply", "--repo", work)
    assert result.exit_code == 0, result.output
    routed = index.read_text()
    assert "[APP_STATE_PARAM]: " in routed
    imports = [(" ".join(names.replace(",", " ").split()), module)
               for names, module in re.findall(r'import \{([^}]*)\} from "([^"]*app-state[^"]*)"', routed)]
    assert imports == [("copyAppState APP_STATE_PARAM", "@decocms/mesh/mcp-apps/app-state")], imports
    assert invoke("apply", "--repo", work, "--check").exit_code == 0


# --- item 6: titles and the job summary ------------------------------------------


def test_an_api_change_within_sdk_mode_is_titled_for_what_it_is(tmp_path: Path) -> None:
    """sdk mode wired with the accessor; the SDK now declares the event
    instead: the PR follows the SDK's API, and says so (not "migrate ...
    to sdk mode")."""
    remote, work = with_remote(tmp_path, bun_lock("1.8.0"))
    _install(work, _sdk_double(tmp_path / "double", "1.8.0"))
    assert invoke("apply", "--repo", work).exit_code == 0
    assert "bridge.onappstatechange = (params) => {" in (work / BRIDGE).read_text()
    commit_all(work, "feat(mcp-apps): deep-link app state (mesh-codemod)")
    git(work, "push", "-q", "origin", "main")
    shutil.rmtree(work / "apps/mesh/node_modules")
    event = _sdk_double(tmp_path / "event", "1.9.0")
    (event / "dist/src/app-bridge.d.ts").write_text(
        "export interface AppBridgeEventMap {\n  sizechange: unknown;\n  statechange: { state: unknown };\n}\n"
        "export declare class AppBridge {\n  addEventListener<K extends keyof AppBridgeEventMap>(type: K, "
        "listener: (params: AppBridgeEventMap[K]) => void): void;\n}\n"
    )
    _install(work, event)
    result = invoke("pr", "--repo", work, "--branch", BRANCH, "--author", BOT, "--no-verify", "--json",
                    "--body-out", tmp_path / "body.md")
    assert result.exit_code == 0, result.output
    [commit] = json.loads(result.stdout)["commits"]
    assert commit["subject"] == 'refactor(mcp-apps): follow the SDK\'s bridge.addEventListener("statechange")', commit
    assert "Experimental" not in (tmp_path / "body.md").read_text()


def test_a_release_that_conflicts_with_a_team_edit_is_named_a_conflict(tmp_path: Path) -> None:
    """What a created file's upgrade says when it collides with the team's
    edits is a conflict in the report, and so in the job summary (0.6.0:
    "left alone (edited)" for both)."""
    from codemods.deliver.forge import decide
    from codemods.engine.outcome import Status, StepResult
    from codemods.plan.model import Plan
    from codemods.recipes.base import Bridge, ModeChoice, Notice

    edited = f"{SRC}/app-state.ts was edited since mesh-codemod wrote it"
    results = [
        StepResult("app-state-module", f"{SRC}/app-state.ts", Status.ALREADY, notes=[Notice(
            f"{edited} (0.6.0, compat mode): the upgrade to 0.7.0 conflicts with the edits at line 12: left alone; "
            "merge them by hand")]),
        StepResult("app-state-tests", f"{SRC}/app-state.test.ts", Status.ALREADY, notes=[Notice(
            f"{SRC}/app-state.test.ts was edited since mesh-codemod wrote it: left alone; compare it with what this "
            "release writes (0.7.0) by hand")]),
    ]
    plan = Plan(tmp_path, "host", ModeChoice(Bridge.COMPAT, "given"), results, [])
    left = plan.left_alone()
    assert [item["why"] for item in left] == ["conflict", "edited"], left
    report = {"nothing_to_do": True, "commits": [], "base": "0" * 40, "left_alone": left}
    decision = decide(report, [])
    assert decision.action == "none"
    assert f"{SRC}/app-state.ts (edited, and this release conflicts with the edits: merge them by hand)" in decision.reason
    assert f"{SRC}/app-state.test.ts (edited)" in decision.reason
