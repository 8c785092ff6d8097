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

from types import MappingProxyType

CREATED = MappingProxyType(
    {
        "app-state-module": MappingProxyType(
            {
                "0.1.0, compat mode": "6f8e055d42c78f9eff3309e46dfd3e7d3260936aee73d2b1c8cc2b60a705d229",
                "0.1.0, sdk mode": "f27c054c4db4c118931675ea798a3f5f740d766d10219e6105084636a86b49c0",
                "0.2.0 and 0.3.0, compat mode": "ae4c49ad3448c7b073fac1fa6ba4f86c3eb0285228e663c2ac81580c3e4e86fb",
                "0.2.0 and 0.3.0, sdk mode": "2446765dd4d17032024dcc78fc4a287fc2c3ada77acf44d696f3d8bc7aa00f87",
                "0.3.0, compat mode, 2.x form": "ab6270c5e15aac4e2c8705e1bbc8d32a9bdada911e337a47cbd2d93ad33bb856",
            }
        ),
        "app-state-tests": MappingProxyType(
            {
                "0.1.0": "ff8ec261b2012b07bb274265071def21b31ffc17d1eb489d2896b29ba2e38c9a",
                "0.2.0 and 0.3.0": "1e7c724da35cacfa355aaa805b048722fb82da3d3f97067345d8137bff65e5ba",
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
