"""Time `mesh-codemod verify` on a cold cache beside one `bun run check` (not a test).

verify type-checks the patched tree and compares its errors with the
unpatched tree's. With nothing cached (a fresh CI runner), the goal is a
verify that costs no more than 1.25 times one `bun run check` of the same
package on the same machine. The commands run in turns, one of each per
round, so that load from other processes falls on both alike; each verify
gets an empty cache of its own (MESH_CODEMOD_CACHE).

    .venv/bin/python benchmarks/verify.py --repo INSTALLED_MESH [--runs 3] [--warm]

INSTALLED_MESH: a mesh checkout with its dependencies installed (`bun
install --ignore-scripts`), the tool's edits applied in the working tree
and its HEAD at the unpatched commit (verify's baseline). `bun` comes from
PATH, as verify's does. --warm also times a verify whose baseline is cached.
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

GOAL = 1.25
PACKAGE = "apps/mesh"


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--warm", action="store_true", help="also time verify with the baseline cached")
    args = parser.parse_args()

    repo = args.repo.resolve()
    bun = shutil.which("bun") or sys.exit("bun is not on PATH")
    tool = str(Path(sys.executable).with_name("mesh-codemod"))
    check = [bun, "run", "check"]
    times: dict[str, list[float]] = {"check": [], "cold": [], "warm": []}
    durations: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="verify-bench-") as scratch:
        warm_cache = Path(scratch) / "warm"
        for round_ in range(args.runs):
            seconds, result = run(check, repo / PACKAGE)
            times["check"].append(seconds)
            cold_cache = Path(scratch) / f"cold-{round_}"
            env = {**os.environ, "MESH_CODEMOD_CACHE": str(cold_cache)}
            seconds, result = run([tool, "verify", "--repo", str(repo), "--json"], repo, env)
            if result.returncode not in (0, 4):
                sys.exit(f"verify failed ({result.returncode}): {result.stderr[-800:]}")
            times["cold"].append(seconds)
            report = json.loads(result.stdout)
            durations.append({c["check"]: c["seconds"] for c in report["checks"]})
            if args.warm:
                env["MESH_CODEMOD_CACHE"] = str(warm_cache)
                if round_ == 0:
                    run([tool, "verify", "--repo", str(repo), "--json"], repo, env)  # fills the cache
                seconds, _ = run([tool, "verify", "--repo", str(repo), "--json"], repo, env)
                times["warm"].append(seconds)
            print(f"round {round_ + 1}: check {times['check'][-1]:6.1f} s   verify (cold) {times['cold'][-1]:6.1f} s"
                  + (f"   verify (warm) {times['warm'][-1]:6.1f} s" if args.warm else ""), flush=True)

    check_median = statistics.median(times["check"])
    cold_median = statistics.median(times["cold"])
    ratio = cold_median / check_median
    print(f"bun run check ({PACKAGE})  median {check_median:6.1f} s")
    print(f"verify, cold cache         median {cold_median:6.1f} s  ratio {ratio:4.2f}")
    if args.warm:
        warm_median = statistics.median(times["warm"])
        print(f"verify, baseline cached    median {warm_median:6.1f} s  ratio {warm_median / check_median:4.2f}")
    names = durations[0].keys()
    print("verify's checks (median s): " + ", ".join(
        f"{name} {statistics.median(d[name] for d in durations):.1f}" for name in names
    ))
    print(f"goal <= {GOAL}x: {'met' if ratio <= GOAL else 'NOT met'} ({args.runs} runs each)")


if __name__ == "__main__":
    main()
