"""What earlier releases of mesh-codemod wrote into the files it creates.

Each created file's text as a release wrote it (in mesh's layout: its
biome.json, LF line endings), by digest (codemods.engine.history.text_digest),
labelled with the release and the wiring it was written for. A file with one
of these digests was not edited since, so the current release may replace it;
any other content was edited by someone and is left alone.

The transformed files keep their earlier forms beside the current snippets,
in each recipe (``form(...)``). Release 0.1.0 is this project's output at
commit 06262f7, recorded as fixtures/host/release-0.1.0/input; 0.2.0 is the
output of the commit before 0.3.0 (b7ac437). 0.3.0 is the output of
commit 5e4dc06, recorded as fixtures/host/release-0.3.0-*/input; for the
1.x compat form, sdk mode and the tests it wrote the bytes 0.2.0 wrote, so
their labels name both releases; its 2.x compat form has a digest of its
own.
"""

from __future__ import annotations

from types import MappingProxyType

CREATED = MappingProxyType(
    {
        "app-state-module": MappingProxyType(
            {
                "0.1.0, compat mode": "92be615a21d6a9401fd2d77e8fcf9275fb14f8006cf78eb826803785667c879c",
                "0.1.0, sdk mode": "72ebe27a44554a7963a9cc2a2be8d297b90cd6ffc54047be5911f3ea5f05616c",
                "0.2.0 and 0.3.0, compat mode": "479252f3f8d6fc13587a5885fc719a7fc314c043a1e16be51b10739c5d0e6a4a",
                "0.2.0 and 0.3.0, sdk mode": "16c00c9e565650176b117392edbb82a21ac133756658eef7c316f73c36027b69",
                "0.3.0, compat mode, 2.x form": "4efc8ffb91d588739dda34cd23f5c09bb8705ac1570e38dd5ec22c6a918370cf",
            }
        ),
        "app-state-tests": MappingProxyType(
            {
                "0.1.0": "d218d53dc89ea0432ef879ff1dd4dbe83e8caeafc01ccfd0b03792d5d95768a4",
                "0.2.0 and 0.3.0": "6b8e59924b89b0660bdeb8ccbef9dedbcc5d1f65fd2e9655301bd7398fd1c45b",
            }
        ),
    }
)
