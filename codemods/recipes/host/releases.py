"""What earlier releases of mesh-codemod wrote into the files it creates.

Each created file's text as a release wrote it, by the digest of its
layout-free form (:func:`codemods.engine.equivalence.layout_digest`: a
reformat by the checkout's formatter, its quotes, semicolons, line width or
indentation, is still that release's output), labelled with the release and
the wiring it was written for. A file with one of these digests was not
edited since, so the current release may replace it; any other content was
edited by someone and is left alone.

The transformed files keep their earlier forms beside the current snippets,
in each recipe (``form(...)``). Release 0.1.0 is this project's output at
commit 06262f7, recorded as fixtures/host/release-0.1.0-*/input (its compat
module also as fixtures/host/partial/input); 0.2.0 is the output of the
commit before 0.3.0 (b7ac437). 0.3.0 is the output of commit 5e4dc06,
recorded as fixtures/host/release-0.3.0-*/input; for the 1.x compat form,
sdk mode and the tests it wrote the bytes 0.2.0 wrote, so their labels name
both releases (the tests as fixtures/host/edited-created-file/input); its
2.x compat form has a digest of its own. 0.4.0 is the output of commit
81b26e4, recorded as fixtures/host/release-0.4.0-*/input; 0.5.0 (commit 16bb00f)
as fixtures/host/release-0.5.0-*/input, where only the hook it created
(use-app-state-param.ts) differs from this release's created files. ``RECORDED`` names the fixture file
each digest is computed from (tests/test_recognition.py checks them).
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

CREATED = MappingProxyType(
    {
        "app-state-module": MappingProxyType(
            {
                "0.1.0, compat mode": "e4e0f43020f8a4fbc3b72f686e6a9fb8d81f8e1ad898d875845c27ca49a7bd37",
                "0.1.0, sdk mode": "d334220c8755865bfce412cdee71f89a696562742f695d395d7618123fcf267c",
                "0.2.0 and 0.3.0, compat mode": "949cf28c6ff46cdb68bc9b496b62f086cf18e4f37616581e5237f5a159a90b4f",
                "0.2.0 and 0.3.0, sdk mode": "bac6772c2525672207e1f9a6d563b23f404d9b6db7d7c5abae706d920432ef6e",
                "0.3.0, compat mode, 2.x form": "b4be5826fdfedcaed03f9a299426b8d144a09c999b083924165286f6cc19eab3",
                "0.4.0, compat mode": "d471c7fb603833fd1224aa36a9e2d8f3e9b50d5d38de9db508460f3b52d6e3e2",
                "0.4.0, sdk mode": "79e55bff7e75e573d013d9379b23d8b6dd0efdc7727ff2e2f494f7b8465162c8",
                "0.4.0, compat mode, 2.x form": "518749f1a003f4a6cd50bf5f28e6379f71d270972d092efb834639c08a33c22b",
            }
        ),
        "app-state-tests": MappingProxyType(
            {
                "0.1.0": "5627d715f2f0a4c939c58eb530694e7aa6a818a804e5d94da238a9fd52b53f9c",
                "0.2.0 and 0.3.0": "de781fe60aef42eabaff9e585db807484f23d87ee0609cb6040498828fffb621",
                "0.4.0": "7c7ee8713eba8ddcde4d1aede28a915a6cbd5a39d4d70fce766699dbda2de059",
            }
        ),
        "app-state-hook": MappingProxyType({"0.5.0": "2056c00fec2d15b5694a5969df7b401be984fcc305ba7d9331f6664e568e75d0"}),
    }
)

_MODULE = "apps/mesh/src/mcp-apps/app-state.ts"
_TESTS = "apps/mesh/src/mcp-apps/app-state.test.ts"
_HOOK = "apps/mesh/src/web/hooks/use-app-state-param.ts"
RECORDED = MappingProxyType(
    {
        ("app-state-module", "0.1.0, compat mode"): f"fixtures/host/partial/input/{_MODULE}",
        ("app-state-module", "0.1.0, sdk mode"): f"fixtures/host/release-0.1.0-sdk/input/{_MODULE}",
        ("app-state-module", "0.2.0 and 0.3.0, compat mode"): f"fixtures/host/release-0.3.0-compat/input/{_MODULE}",
        ("app-state-module", "0.2.0 and 0.3.0, sdk mode"): f"fixtures/host/release-0.3.0-sdk/input/{_MODULE}",
        ("app-state-module", "0.3.0, compat mode, 2.x form"): f"fixtures/host/release-0.3.0-compat-2x/input/{_MODULE}",
        ("app-state-tests", "0.1.0"): f"fixtures/host/release-0.1.0-sdk/input/{_TESTS}",
        ("app-state-tests", "0.2.0 and 0.3.0"): f"fixtures/host/edited-created-file/input/{_TESTS}",
        ("app-state-module", "0.4.0, compat mode"): f"fixtures/host/release-0.4.0-compat/input/{_MODULE}",
        ("app-state-module", "0.4.0, sdk mode"): f"fixtures/host/release-0.4.0-sdk/input/{_MODULE}",
        ("app-state-module", "0.4.0, compat mode, 2.x form"): f"fixtures/host/release-0.4.0-compat-2x/input/{_MODULE}",
        ("app-state-tests", "0.4.0"): f"fixtures/host/release-0.4.0-compat/input/{_TESTS}",
        ("app-state-hook", "0.5.0"): f"fixtures/host/release-0.5.0-compat/input/{_HOOK}",
    }
)

# The full text of each created file as earlier releases wrote it (the base
# of the three-way merge that upgrades a file the team edited since), in
# earlier/<step>/<name>.ts, by label, newest first. Written by
# scripts/earlier_outputs from the fixtures that record them (SOURCES: the
# commit and path of each).
EARLIER = Path(__file__).with_name("earlier")
TEXTS = MappingProxyType(
    {
        "app-state-module": MappingProxyType(
            {
                "0.4.0, compat mode": "0.4.0-compat-1x",
                "0.4.0, compat mode, 2.x form": "0.4.0-compat-2x",
                "0.4.0, sdk mode": "0.4.0-sdk",
                "0.3.0, compat mode, 2.x form": "0.3.0-compat-2x",
                "0.2.0 and 0.3.0, compat mode": "0.3.0-compat",
                "0.2.0 and 0.3.0, sdk mode": "0.3.0-sdk",
                "0.1.0, compat mode": "0.1.0-compat",
                "0.1.0, sdk mode": "0.1.0-sdk",
            }
        ),
        "app-state-tests": MappingProxyType(
            {"0.4.0": "0.4.0", "0.2.0 and 0.3.0": "0.3.0", "0.1.0": "0.1.0"}
        ),
        "app-state-hook": MappingProxyType({"0.5.0": "0.5.0"}),
    }
)
SOURCES = MappingProxyType({(step, TEXTS[step][label]): ("HEAD", path) for (step, label), path in RECORDED.items()})


def texts(step: str) -> dict[str, str]:
    """Each earlier release's text of the file ``step`` creates, by label,
    newest first."""
    return {
        label: (EARLIER / step / f"{name}.ts").read_text(encoding="utf-8") for label, name in TEXTS.get(step, {}).items()
    }
