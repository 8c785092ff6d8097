"""What `mesh-codemod publish` spends refusing a hostile artifact (not a test).

SPEC 8: sizes and times of refusals are measured here, not asserted in
tests. The build job's artifact is one file, its manifest; publish refuses
anything else unread, and bounds the manifest in size and depth before it
parses it. Each case runs `publish --artifact` in a fresh process on a
clone of a remote holding the bundled fixture (with a bun.lock) and reports
its exit code, wall time and peak memory (the process and the git it
waited for, from wait4). Cases:

- honest: the build job's artifact as `pr --artifact --no-verify` writes
  it (the rebuild and nothing pushed: the baseline);
- tree bomb: a 19 KB-class git bundle beside the manifest whose tip's tree
  nests ten trees of ten entries nine deep (10^9 paths), which 0.6.0
  listed in full (40 to 88 s and 5.2 GB on the issue's machine);
- nested manifest: 64 KiB of brackets inside the manifest;
- oversized manifest: one byte over the 64 KiB limit.

    .venv/bin/python benchmarks/publish_refusals.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.gitrepo import BOT, git, with_remote  # noqa: E402

BRANCH = "codemod/app-state"


def tree_bomb(work: Path, into: Path) -> None:
    """A bundle of one commit whose tree holds 10^9 paths in a few KB."""
    def write_tree(entries: str) -> str:
        return subprocess.run(["git", "-C", str(work), "mktree"], input=entries, capture_output=True, text=True,
                              check=True).stdout.strip()

    blob = subprocess.run(["git", "-C", str(work), "hash-object", "-w", "--stdin"], input="x\n", capture_output=True,
                          text=True, check=True).stdout.strip()
    tree = write_tree("".join(f"100644 blob {blob}\tf{i}\n" for i in range(10)))
    for _ in range(8):
        tree = write_tree("".join(f"040000 tree {tree}\td{i}\n" for i in range(10)))
    commit = git(work, "commit-tree", tree, "-m", "bomb", "-p", "HEAD").strip()
    git(work, "update-ref", "refs/heads/bomb", commit)
    git(work, "bundle", "create", "-q", str(into / "branch.bundle"), "refs/heads/bomb", "^HEAD")


def run(clone: Path, artifact: Path) -> tuple[int, float, float]:
    tool = str(Path(sys.executable).with_name("mesh-codemod"))
    command = [tool, "publish", "--repo", str(clone), "--artifact", str(artifact), "--branch", BRANCH,
               "--target", "origin/main", "--author", BOT]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    return os.waitstatus_to_exitcode(status), seconds, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="publish-refusals-") as name:
        scratch = Path(name)
        remote, work = with_remote(scratch)
        honest = scratch / "honest"
        subprocess.run([str(Path(sys.executable).with_name("mesh-codemod")), "pr", "--repo", str(work), "--branch",
                        BRANCH, "--author", BOT, "--no-verify", "--artifact", str(honest)], check=True,
                       capture_output=True)
        clone = scratch / "publisher"
        git(scratch, "clone", "-q", str(remote), str(clone))
        manifest = json.loads((honest / "manifest.json").read_text())
        cases: dict[str, Path] = {"honest": honest}
        cases["tree bomb"] = shutil.copytree(honest, scratch / "bomb")
        tree_bomb(work, cases["tree bomb"])
        cases["nested manifest"] = scratch / "nested"
        cases["nested manifest"].mkdir()
        text = json.dumps({**manifest, "choice": None})
        room = 64 * 1024 - len(text)
        (cases["nested manifest"] / "manifest.json").write_text(text.replace("null", "[" * (room // 2) + "]" * (room // 2)))
        cases["oversized manifest"] = scratch / "oversized"
        cases["oversized manifest"].mkdir()
        (cases["oversized manifest"] / "manifest.json").write_text(text + " " * (64 * 1024 + 1 - len(text)))
        bundle = cases["tree bomb"] / "branch.bundle"
        print(f"tree-bomb bundle: {bundle.stat().st_size} bytes; runs per case: {args.runs}")
        print(f"{'case':<20} {'exit':>4} {'median s':>9} {'peak MiB':>9}")
        for case, artifact in cases.items():
            results = [run(clone, artifact) for _ in range(args.runs)]
            exits = {r[0] for r in results}
            print(f"{case:<20} {'/'.join(map(str, sorted(exits))):>4} {statistics.median(r[1] for r in results):9.2f} "
                  f"{max(r[2] for r in results):9.1f}")


if __name__ == "__main__":
    main()
