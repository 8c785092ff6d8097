"""Run benchmarks/studio_navigation.ts on the tool's output (not a test).

Times, side by side in one bun process (see the .ts file for what is
measured and the goals): 0.6.0's output on the bundled fixture (the input
of fixtures/host/release-0.6.0-compat) and this checkout's output on the
same fixture (fixtures/host/newest/input, compat mode, made here). --src
LABEL=PATH adds a tree made otherwise (its apps/mesh/src, e.g. a patched
mesh checkout's).

    .venv/bin/python benchmarks/studio_navigation.py [--src LABEL=PATH ...]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from codemods import __version__

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import fixture_tree  # noqa: E402

FIXTURES = ROOT / "fixtures" / "host"
BUN = ROOT / "tools" / "node_modules" / ".bin" / "bun"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", action="append", default=[], help="LABEL=PATH of another tree's apps/mesh/src")
    args = parser.parse_args()
    if not BUN.exists():
        sys.exit(f"bun not found at {BUN} (scripts/setup --node)")
    with tempfile.TemporaryDirectory(prefix="studio-navigation-") as scratch:
        tree = Path(scratch) / "mesh"
        shutil.copytree(FIXTURES / "newest" / "input", tree)
        apply = [sys.executable, "-m", "codemods", "apply", "--repo", str(tree), "--bridge", "compat"]
        result = subprocess.run(apply, cwd=ROOT, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"the tool failed:\n{result.stdout}{result.stderr}")
        earlier = fixture_tree(FIXTURES / "release-0.6.0-compat", Path(scratch) / "0.6.0")
        trees = [
            f"0.6.0={earlier / 'apps' / 'mesh' / 'src'}",
            f"{__version__}={tree / 'apps' / 'mesh' / 'src'}",
            *args.src,
        ]
        bench = [str(BUN), "--no-install", str(ROOT / "benchmarks" / "studio_navigation.ts"), *trees]
        sys.exit(subprocess.run(bench, cwd=ROOT).returncode)


if __name__ == "__main__":
    main()
