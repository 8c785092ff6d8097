"""Time `mesh-codemod pr --artifact` on a small and a large tree (not a test).

A run's cost must follow the files it touches, not the size of the tree
(SPEC 5a, "The second year"). Two git repositories are made from the
bundled fixture (fixtures/host/newest/input) with filler files added (small
TypeScript modules in nested folders) to about 2,000 and 35,000 files, one
commit each; `pr --artifact --no-verify` (the build job without mesh's
checks, which need node_modules) runs on each in turns, each run into a
fresh artifact folder, and the medians are compared. The goal: the large
tree within 1.3 times the small one.

    .venv/bin/python benchmarks/pr_artifact.py [--runs 5] [--small 2000] [--large 35000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "host" / "newest" / "input"
GOAL = 1.3
ENV = {
    "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "PATH": "/usr/bin:/bin", "HOME": "/nonexistent",
}


def make_tree(folder: Path, files: int) -> Path:
    """The fixture plus filler modules up to ``files`` files, committed."""
    shutil.copytree(FIXTURE, folder)
    present = sum(1 for p in folder.rglob("*") if p.is_file())
    for index in range(max(0, files - present)):
        path = folder / "packages" / f"pkg{index // 1000:02d}" / "src" / f"area{index // 50 % 20:02d}" / f"module{index}.ts"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"// filler module {index}\nexport function value{index}(x: number): number {{\n  return x + {index};\n}}\n"
        )
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True, env=ENV)
    subprocess.run(["git", "-C", str(folder), "add", "-A"], check=True, env=ENV)
    subprocess.run(["git", "-C", str(folder), "commit", "-q", "--no-gpg-sign", "-m", "base"], check=True, env=ENV)
    return folder


def time_pr(repo: Path, scratch: Path, run: int) -> float:
    tool = str(Path(sys.executable).with_name("mesh-codemod"))
    artifact = scratch / f"artifact-{repo.name}-{run}"
    artifact.mkdir()
    command = [
        tool, "pr", "--repo", str(repo), "--branch", f"bench/{run}", "--author", "Bench Bot <bot@example.com>",
        "--artifact", str(artifact), "--no-verify", "--json",
    ]
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"pr failed on {repo.name}: {result.stderr[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--small", type=int, default=2000)
    parser.add_argument("--large", type=int, default=35000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pr-bench-") as name:
        scratch = Path(name)
        trees = {"small": make_tree(scratch / "small", args.small), "large": make_tree(scratch / "large", args.large)}
        counts = {
            key: len(subprocess.run(["git", "-C", str(t), "ls-files"], capture_output=True, text=True).stdout.splitlines())
            for key, t in trees.items()
        }
        times: dict[str, list[float]] = {"small": [], "large": []}
        for run in range(args.runs):
            for key, tree in trees.items():
                times[key].append(time_pr(tree, scratch, run))
    small, large = statistics.median(times["small"]), statistics.median(times["large"])
    print(f"| tree | files | median of {args.runs} | ratio |")
    print("| --- | --- | --- | --- |")
    print(f"| small | {counts['small']:,} | {small:.2f} s | 1.00 |")
    print(f"| large | {counts['large']:,} | {large:.2f} s | {large / small:.2f} |")
    print(f"goal: at most {GOAL} ({'met' if large / small <= GOAL else 'NOT met'})")


if __name__ == "__main__":
    main()
