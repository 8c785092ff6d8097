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
2.x compat form has a digest of its own. ``RECORDED`` names the fixture file
each digest is computed from (tests/test_recognition.py checks them).
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

CREATED = MappingProxyType(
    {
        "app-state-module": MappingProxyType(
            {
                "0.1.0, compat mode": "e916adb9b0ffdf68e3f970cf0029d6b52c763f306b07369ce0232cec809022f7",
                "0.1.0, sdk mode": "7e4e3dea91070a6e4bb1244127904e80077800a1578d51512e1a04e081cbda30",
                "0.2.0 and 0.3.0, compat mode": "7f80818284bd7e5b3eced53d0a2e1780d969b54bb1d45a924116814d5af6eacf",
                "0.2.0 and 0.3.0, sdk mode": "b62dd790241710c0316a49994f0ba8d71340f4b54d4289d97436224442a76767",
                "0.3.0, compat mode, 2.x form": "b7e1b6e72cc94be8a8f906573a555235fff12be61a2715fd60bcf5adbabbd2c1",
            }
        ),
        "app-state-tests": MappingProxyType(
            {
                "0.1.0": "95e0b4af2ee61f2635a00a7941a6064fca31c250abb8f607d338cbed45dc39c3",
                "0.2.0 and 0.3.0": "abfae3148259e17db435d6a4ce599e05085a30fa06261ca55d8015a404d1b05c",
            }
        ),
    }
)

_MODULE = "apps/mesh/src/mcp-apps/app-state.ts"
_TESTS = "apps/mesh/src/mcp-apps/app-state.test.ts"
RECORDED = MappingProxyType(
    {
        ("app-state-module", "0.1.0, compat mode"): f"fixtures/host/partial/input/{_MODULE}",
        ("app-state-module", "0.1.0, sdk mode"): f"fixtures/host/release-0.1.0-sdk/input/{_MODULE}",
        ("app-state-module", "0.2.0 and 0.3.0, compat mode"): f"fixtures/host/release-0.3.0-compat/input/{_MODULE}",
        ("app-state-module", "0.2.0 and 0.3.0, sdk mode"): f"fixtures/host/release-0.3.0-sdk/input/{_MODULE}",
        ("app-state-module", "0.3.0, compat mode, 2.x form"): f"fixtures/host/release-0.3.0-compat-2x/input/{_MODULE}",
        ("app-state-tests", "0.1.0"): f"fixtures/host/release-0.1.0-sdk/input/{_TESTS}",
        ("app-state-tests", "0.2.0 and 0.3.0"): f"fixtures/host/edited-created-file/input/{_TESTS}",
    }
)

# The full text of each created file as earlier releases wrote it (the base
# of the three-way merge that upgrades a file the team edited since), in
# earlier/<step>/<name>.ts, by label, newest first. Written by
# scripts/earlier_outputs from the fixtures that record them (SOURCES: the
# commit and path of each); 0.4.0's output is the expected tree of the
# newest fixtures at the last commit of 0.4.0.
EARLIER = Path(__file__).with_name("earlier")
TEXTS = MappingProxyType(
    {
        "app-state-module": MappingProxyType(
            {
                "0.4.0, compat mode, 1.x form": "0.4.0-compat-1x",
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
    }
)
_LAST_OF_0_4_0 = "8d68a54"
SOURCES = MappingProxyType(
    {
        **{(step, TEXTS[step][label]): ("HEAD", path) for (step, label), path in RECORDED.items()},
        ("app-state-module", "0.4.0-compat-1x"): (_LAST_OF_0_4_0, f"fixtures/host/newest/expected-compat/{_MODULE}"),
        ("app-state-module", "0.4.0-compat-2x"): (_LAST_OF_0_4_0, f"fixtures/host/newest-sdk-2x/expected-compat/{_MODULE}"),
        ("app-state-module", "0.4.0-sdk"): (_LAST_OF_0_4_0, f"fixtures/host/newest/expected-sdk/{_MODULE}"),
        ("app-state-tests", "0.4.0"): (_LAST_OF_0_4_0, f"fixtures/host/newest/expected-sdk/{_TESTS}"),
    }
)


def texts(step: str) -> dict[str, str]:
    """Each earlier release's text of the file ``step`` creates, by label,
    newest first."""
    return {
        label: (EARLIER / step / f"{name}.ts").read_text(encoding="utf-8") for label, name in TEXTS.get(step, {}).items()
    }
