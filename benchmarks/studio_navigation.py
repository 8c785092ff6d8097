"""Run benchmarks/studio_navigation.ts on the tool's output (not a test).

Makes each release's output on the bundled fixture (fixtures/host/newest/
input, compat mode): this checkout's, and that of each commit given with
--ref (its own tool on its own fixture, from `git archive`), then times
them side by side in one bun process (see the .ts file for what is
measured and the goals). --src LABEL=PATH adds a tree made otherwise (its
apps/mesh/src, e.g. a patched mesh checkout's).

    .venv/bin/python benchmarks/studio_navigation.py [--ref COMMIT ...] [--src LABEL=PATH ...]

For 0.6.0 beside this checkout: --ref ff89fe8 (main at 0.6.0).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = "fixtures/host/newest/input"
BUN = ROOT / "tools" / "node_modules" / ".bin" / "bun"


def output(code: Path, into: Path) -> Path:
    """The output of the tool whose source is ``code`` on its own fixture."""
    shutil.copytree(code / FIXTURE, into)
    result = subprocess.run(
        [sys.executable, "-m", "codemods", "apply", "--repo", str(into), "--bridge", "compat"],
        cwd=code, capture_output=True, text=True,
    )
    if result.returncode != 0:
        sys.exit(f"the tool at {code} failed:\n{result.stdout}{result.stderr}")
    return into / "apps" / "mesh" / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", action="append", default=[], help="a commit whose tool's output to time too")
    parser.add_argument("--src", action="append", default=[], help="LABEL=PATH of another tree's apps/mesh/src")
    args = parser.parse_args()
    if not BUN.exists():
        sys.exit(f"bun not found at {BUN} (scripts/setup --node)")
    with tempfile.TemporaryDirectory(prefix="studio-navigation-") as scratch:
        trees = []
        for ref in args.ref:
            code = Path(scratch) / f"code-{ref}"
            code.mkdir()
            archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(code)], input=archive, check=True)
            trees.append(f"{ref}={output(code, Path(scratch) / f'out-{ref}')}")
        trees.append(f"this checkout={output(ROOT, Path(scratch) / 'out-this')}")
        trees += args.src
        bench = [str(BUN), "--no-install", str(ROOT / "benchmarks" / "studio_navigation.ts"), *trees]
        sys.exit(subprocess.run(bench, cwd=ROOT).returncode)


if __name__ == "__main__":
    main()
