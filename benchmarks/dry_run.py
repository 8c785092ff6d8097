"""Time `mesh-codemod apply --dry-run` as whole processes (not a test).

Beside it, the baseline: the bare interpreter importing the parser
(`python -c "import tree_sitter_typescript"`). The goal is a dry run that
costs no more than 2.5 times the baseline.

    .venv/bin/python benchmarks/dry_run.py [--runs 21] [--repo REAL_CHECKOUT]

Without --repo it times the bundled fixture; with it, also that checkout
(read only: a dry run writes nothing).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "host" / "newest" / "input"
GOAL = 2.5


def timed(command: list[str], runs: int) -> list[float]:
    subprocess.run(command, capture_output=True)  # warm the file cache
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True)
        samples.append(time.perf_counter() - start)
        if result.returncode not in (0, 1):
            sys.exit(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.decode()[-500:]}")
    return samples


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

    baseline = statistics.median(timed([python, "-c", "import tree_sitter_typescript"], args.runs))
    print(f"baseline  python -c 'import tree_sitter_typescript'  median {baseline * 1000:6.1f} ms")
    worst = 0.0
    for repo in [FIXTURE, *args.repo]:
        median = statistics.median(timed([tool, "apply", "--repo", str(repo), "--dry-run"], args.runs))
        ratio = median / baseline
        worst = max(worst, ratio)
        print(f"dry run   {repo}  median {median * 1000:6.1f} ms  ratio {ratio:4.2f}")
    print(f"goal <= {GOAL}x: {'met' if worst <= GOAL else 'NOT met'} (worst ratio {worst:.2f}, {args.runs} runs each)")


if __name__ == "__main__":
    main()
