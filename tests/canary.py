"""Canaries for the PR path's token: stand-in tools that write down the
environment they were started with, and a git that notes, call by call,
whether its environment holds the token (tests/test_pr_path.py,
tests/workflow_canary.py)."""

from __future__ import annotations

import json
import re
import shutil
import stat
from pathlib import Path

from codemods.plan import environment

from .gitrepo import commit_all, git
from .support import ROOT

FAKES = ROOT / "tests" / "fake_tools"
TOKEN = "ghs_canaryTOKEN0123456789abcdef"
BASIC = environment.basic_credential(TOKEN)


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def verify_shaped(work: Path) -> None:
    """Give the fixture checkout what verify runs: a `check` script, a
    `knip` script, a lint configuration, ignored node_modules folders;
    pushed to its origin."""
    manifest = work / "apps/mesh/package.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "scripts": {"check": "tsc --noEmit", "test": "bun test"}}, indent=2) + "\n")
    root = json.loads((work / "package.json").read_text())
    (work / "package.json").write_text(json.dumps({**root, "scripts": {"knip": "knip"}}, indent=2) + "\n")
    (work / ".oxlintrc.json").write_text("{}\n")
    (work / ".gitignore").write_text("node_modules/\n")
    commit_all(work, "scripts")
    git(work, "push", "-q", "origin", "main")
    (work / "apps/mesh/node_modules").mkdir(parents=True)


def install(repo: Path, logs: Path, path_dir: Path) -> None:
    """Stand-ins that write their environment to ``logs`` and then behave
    as tests/fake_tools: the checkout's Biome and oxlint, the Bun on PATH
    (it runs the `check` script and the tests), a Bun in node_modules that
    must never run, and a git on PATH that logs each call's subcommand and
    whether its environment holds the token."""
    logs.mkdir(parents=True)
    bin_dir = repo / "node_modules" / ".bin"
    for name in ("biome", "oxlint"):
        executable(bin_dir / name, f'#!/usr/bin/env bash\nenv > "{logs}/{name}.$$.env"\nexec "{FAKES / name}" "$@"\n')
    executable(path_dir / "bun", f'#!/usr/bin/env bash\nenv > "{logs}/bun-$1.$$.env"\nexec "{FAKES / "bun"}" "$@"\n')
    executable(bin_dir / "bun", f'#!/usr/bin/env bash\ntouch "{logs}/POISONED-BUN-RAN"\nexit 1\n')
    real_git = shutil.which("git")
    executable(path_dir / "git", f"""#!/usr/bin/env bash
sub=""; skip=""
for a in "$@"; do
  if [ -n "$skip" ]; then skip=""; continue; fi
  case "$a" in -c|-C) skip=1 ;; -*) ;; *) sub="$a"; break ;; esac
done
if env | grep -q -e '{TOKEN}' -e '{BASIC}'; then mark=token; else mark=clean; fi
echo "$sub $mark" >> "{logs}/git.log"
exec "{real_git}" "$@"
""")


def git_calls(logs: Path) -> list[tuple[str, str]]:
    """(subcommand, "token" | "clean") for each git call, in order."""
    log = logs / "git.log"
    return [tuple(line.split()) for line in log.read_text().splitlines()] if log.exists() else []


def leaks(logs: Path, *files: Path) -> list[str]:
    """Every recorded environment and every given file that holds the token,
    its basic credential or git's environment-level config."""
    found = []
    for env_file in sorted(logs.glob("*.env")):
        text = env_file.read_text()
        if TOKEN in text or BASIC in text or re.search(r"^GIT_CONFIG_(COUNT|KEY_|VALUE_|PARAMETERS)", text, re.M):
            found.append(env_file.name)
    for path in files:
        if path.exists() and (TOKEN in path.read_text() or BASIC in path.read_text()):
            found.append(str(path))
    return found


def recorded_tools(logs: Path) -> set[str]:
    return {p.name.split(".")[0] for p in logs.glob("*.env")}
