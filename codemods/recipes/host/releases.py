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
                "0.1.0, compat mode": "495c5e2c5d6e0c50b2467351f87748102addd72658b14a22e0c42b3db843f39c",
                "0.1.0, sdk mode": "77b69205a04ae22d71c92476c1c89cb96de911df9b85bbbf1e02a5c1387fe72e",
                "0.2.0 and 0.3.0, compat mode": "b46681d28a2bfb88e3ab5ad718bb66140eba1e4c8e616fce001c00cdd34bd921",
                "0.2.0 and 0.3.0, sdk mode": "c96918f97c85ccb39481404db07de381f89aa061fee35dce15e59319d24e095a",
                "0.3.0, compat mode, 2.x form": "c7c33dfd558d1335f7c8b5caa9b1782372b0252d72a2b48c98eb8df56c0d9368",
                "0.4.0, compat mode": "e8e20802916cf11339c4533e1a2f2c4dc81b3e2e6b567513259da310f889e53f",
                "0.4.0, sdk mode": "2643d40b85ac58b6875beddabf199b083b07dfd8b5895ea7cd8bf35c4b76cfb6",
                "0.4.0, compat mode, 2.x form": "95ead8ccb4d25ed60be08bc1caced8f9d3f76aa092023994e13838f5eb49afb8",
            }
        ),
        "app-state-tests": MappingProxyType(
            {
                "0.1.0": "fcc4a97a8b5a9e3b70d06e65aef4d44b0332c1988f7bbd87b3987d5dce8c321c",
                "0.2.0 and 0.3.0": "a8522fd7e8d9b529c04be9fbf550cb94f568fb8ecb5cfd4e465ff2f6ee118bf9",
                "0.4.0": "e1b53d1d53585e736acc2c3598a76c73f12fea44a3b49257f2ef2b18d59e0cf1",
            }
        ),
        "app-state-hook": MappingProxyType({"0.5.0": "41e0eeb98fe0006c982cc24fcca330153cbd7445d9f5e63f3ebf7ad3756ea8bd"}),
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
