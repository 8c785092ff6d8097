"""Break each migration rule in turn, refresh the expected fixtures
(UPDATE_FIXTURES=1), and print the tests that still fail: every rule must be
held by a test of behaviour, not only by committed bytes (issue 14).

Usage: .venv/bin/python tests/migration_rule_breaks.py [rule-prefix ...]
(from the checkout's root; it restores the recipes and fixtures after each
break, and needs a clean fixtures/ tree).
"""
import subprocess
import sys
from pathlib import Path

W = Path(__file__).resolve().parent.parent
BREAKS = {
 "R1 a handler's other forms become it (migration)": ("codemods/recipes/host/bridge_store.py",
    "return wanted._replace(earlier=tuple(others), alike=REGISTRATIONS)", "return wanted._replace(alike=REGISTRATIONS)"),
 "R2 only an unchanged earlier form is replaced (edited -> refuse)": ("codemods/engine/statement_edits.py",
    "            if self.same_code(node, earlier.snippet, earlier.names, comments=True):\n                self._replace_statement(node, earlier, wanted)",
    "            if True:\n                self._replace_statement(node, earlier, wanted)"),
 "R3 what only the old wiring imported is removed": ("codemods/recipes/host/bridge_store.py",
    "    still_used = ed.drop_unused_imports(\n", "    still_used = [] and ed.drop_unused_imports(\n"),
 "R4 an import still used elsewhere is not removed (refuse)": ("codemods/engine/import_edits.py",
    "            gone = [s for s in specifiers if self.item_key(s) in names and not used(self.item_key(s))]",
    "            gone = [s for s in specifiers if self.item_key(s) in names]"),
 "R5 a created file of another wiring is migrated": ("codemods/recipes/host/__init__.py",
    "            wirings=module_wirings,", "            wirings=None,"),
 "R6 a created file of an earlier release is upgraded": ("codemods/plan/steps.py",
    "    for release in new_file.releases():", "    for release in new_file.releases()[:1]:"),
 "R7 an edited created file is merged or left alone": ("codemods/plan/steps.py",
    "    result = _merged(path, current, written, wanted, style)", "    result = wanted, [], [FormChange('upgrade', 'the file', '?', now)]"),
 "R8 the notice of an edited created file shows in --check/status": ("codemods/plan/runner.py",
    "        if r.status in (Status.APPLIED, Status.ALREADY)", "        if r.status in (Status.APPLIED,)"),
 "R11 the compat form follows the SDK major version": ("codemods/recipes/host/bridge_mode.py",
    "            if major is not None and major >= 2:\n                return FORM_2X, f\"{where} asks for", "            if False:\n                return FORM_2X, f\"{where} asks for"),
 "R12 a change over time is one commit of its own": ("codemods/deliver/build.py",
    "        if full.form_changes:", "        if False:"),
 "R13 a migration is reported as such (from, to, why)": ("codemods/plan/runner.py",
    "                form_changes=tuple(form_changes) if status is Status.APPLIED else (), why=ctx.why,", "                form_changes=(), why=ctx.why,"),
}
only = sys.argv[1:]
for name, (path, old, new) in BREAKS.items():
    if only and not any(name.startswith(o) for o in only):
        continue
    f = W / path
    text = f.read_text()
    assert text.count(old) == 1, (name, old)
    f.write_text(text.replace(old, new))
    try:
        subprocess.run([".venv/bin/python", "-m", "pytest", "-q", "tests/test_fixtures.py"], cwd=W, capture_output=True, env={"UPDATE_FIXTURES": "1", "PATH": "/usr/bin:/bin"})
        r = subprocess.run([".venv/bin/python", "-m", "pytest", "-q", "-p", "no:randomly", "tests/test_fixtures.py", "tests/test_change_over_time.py", "tests/test_upgrade_merge.py", "tests/test_cli.py"], cwd=W, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
        failed = sorted({l.split(" - ")[0].replace("FAILED ", "") for l in r.stdout.splitlines() if l.startswith("FAILED")})
        print(f"{name}: {len(failed)} failed")
        for t in failed[:6]:
            print("   ", t)
        if len(failed) > 6: print(f"    ... and {len(failed) - 6} more")
    finally:
        f.write_text(text)
        subprocess.run(["git", "checkout", "-q", "--", "fixtures"], cwd=W)
        subprocess.run(["git", "clean", "-qfd", "fixtures"], cwd=W)
    sys.stdout.flush()
