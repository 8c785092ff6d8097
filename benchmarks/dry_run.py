"""Time `mesh-codemod apply --dry-run` as whole processes (not a test).

Beside it, the baseline: the bare interpreter importing the command-line
parser that serves every command (`python -c "import typer"`). A guard, not a goal to
chase (SPEC 9): the dry run on mesh HEAD stays within 4.5 times the
baseline. The commands run in turns,
one of each per round, so that load from other processes falls on all
alike. Measure on a checkout without node_modules: with the checkout's
Biome installed, the formatter pass adds its own processes.

    .venv/bin/python benchmarks/dry_run.py [--runs 21] [--repo REAL_CHECKOUT]

Without --repo it times the bundled fixture; with it, also that checkout
(read only: a dry run writes nothing).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "host" / "newest" / "input"
GOAL = 4.5


def check(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True)  # also warms the file cache
    if result.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.decode()[-500:]}")


def timed(commands: list[list[str]], runs: int) -> tuple[list[list[float]], list[list[float]]]:
    """Wall and CPU (user + system) times of each command, run in turns (one
    of each per round), so that load from other processes falls on all of
    them alike."""
    for command in commands:
        check(command)
    wall: list[list[float]] = [[] for _ in commands]
    cpu: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for index, command in enumerate(commands):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(command, capture_output=True)
            wall[index].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[index].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--repo", type=Path, action="append", default=[])
    args = parser.parse_args()

    python = sys.executable
    tool = str(Path(python).with_name("mesh-codemod"))
    # Installed packages ship compiled bytecode; make sure ours is too, even
    # where PYTHONDONTWRITEBYTECODE is set.
    subprocess.run([python, "-m", "compileall", "-q", str(ROOT / "codemods")], check=True)

    repos = [FIXTURE, *args.repo]
    commands = [[python, "-c", "import typer"]]
    commands += [[tool, "apply", "--repo", str(repo), "--dry-run"] for repo in repos]
    wall, cpu = timed(commands, args.runs)
    medians = [statistics.median(times) for times in wall]
    cpus = [statistics.median(times) for times in cpu]
    baseline = medians[0]
    print(
        f"baseline  python -c 'import typer'  median {baseline * 1000:6.1f} ms"
        f"  (cpu {cpus[0] * 1000:5.1f} ms)"
    )
    worst = 0.0
    for repo, median, cpu_median in zip(repos, medians[1:], cpus[1:]):
        ratio = median / baseline
        worst = max(worst, ratio)
        print(
            f"dry run   {repo}  median {median * 1000:6.1f} ms  ratio {ratio:4.2f}"
            f"  (cpu {cpu_median * 1000:5.1f} ms, ratio {cpu_median / cpus[0]:4.2f})"
        )
    print(f"guard <= {GOAL}x: {'met' if worst <= GOAL else 'NOT met'} (worst ratio {worst:.2f}, {args.runs} runs each)")

if __name__ == "__main__":
    main()
