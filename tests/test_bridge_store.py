"""The generated bridge store, run by Bun with the released ext-apps AppBridge.

The codemod (compat mode) is applied to a copy of the newest fixture's input;
its use-app-bridge.ts, app-state.ts and host-styles.ts run under
tests/bridge/bridge-store.test.ts with the real AppBridge and
PostMessageTransport from tools/package-lock.json, and only the DOM faked.
The browser test (tests/test_browser.py) shows the same rules end to end;
this one also pins the order of events that a browser run does not control,
such as a theme change after the URL has taken the app's own report.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from .node_tools import BIN, TOOLS, require
from .support import FIXTURES, ROOT, invoke

TEST = ROOT / "tests" / "bridge" / "bridge-store.test.ts"
MODULES = ("use-app-bridge.ts", "app-state.ts", "host-styles.ts")


def test_bridge_store_rules_under_bun(tmp_path: Path) -> None:
    bun = require(BIN / "bun", "Bun")
    tree = tmp_path / "mesh"
    shutil.copytree(FIXTURES / "newest" / "input", tree)
    result = invoke("apply", "--repo", tree, "--bridge", "compat")
    assert result.exit_code == 0, result.output

    work = Path(tempfile.mkdtemp(prefix=".bun-bridge-", dir=TOOLS))  # inside tools/ so that the packages resolve
    try:
        for name in MODULES:
            shutil.copy(tree / "apps/mesh/src/mcp-apps" / name, work / name)
        # Before 0.5.0 the store was a private class of the module: the
        # test's copy exports it where the module does not.
        copy = work / "use-app-bridge.ts"
        if "export class BridgeStore" not in copy.read_text():
            with copy.open("a") as module:
                module.write("\nexport { BridgeStore };\n")
        shutil.copy(TEST, work / TEST.name)
        run = subprocess.run(
            [str(bun), "test", f"./{TEST.name}"], cwd=work, capture_output=True, text=True, timeout=300
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert " 0 fail" in output and " 10 pass" in output, output
