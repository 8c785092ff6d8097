"""Choose the bridge mode, and the SDK form of the wiring, from the SDK the
checkout has installed (or, without one, the version its package.json asks
for)."""

from __future__ import annotations

import re
from pathlib import Path

from ...manifest import read_manifest
from ..base import Bridge, ModeChoice

SDK_NAME = "@modelcontextprotocol/ext-apps"
SDK_PACKAGE = Path("node_modules") / SDK_NAME
# Where a mesh checkout's package manager puts the SDK (bun's isolated
# layout links it under the app; a hoisted install puts it at the root).
SDK_LOCATIONS = (Path("apps/mesh") / SDK_PACKAGE, SDK_PACKAGE)
# The package.json files that may ask for the SDK, the app's first.
MANIFESTS = (Path("apps/mesh"), Path("."))
SDK_SETTER = "onappstatechange"
# 2.x keeps the 1.x `(schema, handler)` registration as a deprecated
# overload of this type ("1.x form ... removed in 3.0").
LEGACY_SETTER = "LegacyNotificationHandlerSetter"
FORM_1X, FORM_2X = "1.x", "2.x"


def choose_bridge(repo: Path, requested: Bridge) -> ModeChoice:
    """``auto`` picks ``sdk`` when the installed SDK declares the
    ``onappstatechange`` setter, else ``compat``; the reason says why. The
    form is the one of the SDK's major version (see :func:`sdk_form`)."""
    installed = _installed(repo)
    form, form_reason = sdk_form(repo, installed)
    if requested is not Bridge.AUTO:
        return ModeChoice(requested, f"--bridge {requested.value} was given", form, form_reason)
    if installed is None:
        return ModeChoice(
            Bridge.COMPAT,
            f"no installed {SDK_NAME} found (run `bun install` to detect it)",
            form,
            form_reason,
        )
    version, declarations = installed
    if SDK_SETTER in declarations:
        return ModeChoice(Bridge.SDK, f"installed {SDK_NAME} {version} declares {SDK_SETTER}", form, form_reason)
    return ModeChoice(Bridge.COMPAT, f"installed {SDK_NAME} {version} has no {SDK_SETTER}", form, form_reason)


def sdk_form(repo: Path, installed: tuple[str, str] | None = None) -> tuple[str, str]:
    """"1.x" or "2.x", and why: the installed SDK's declarations (2.x
    declares the 1.x registration a legacy overload) and version, else the
    major version of the range the checkout's package.json asks for."""
    if installed is not None:
        version, declarations = installed
        if LEGACY_SETTER in declarations:
            return FORM_2X, f"{version} declares the 1.x registration legacy ({LEGACY_SETTER})"
        major = _major(version)
        if major is not None and major >= 2:
            return FORM_2X, f"the installed SDK is {version}"
        return FORM_1X, f"the installed SDK is {version}"
    for folder in MANIFESTS:
        manifest = read_manifest(repo / folder)
        for field in ("dependencies", "devDependencies", "peerDependencies"):
            deps = manifest.get(field)
            wanted = deps.get(SDK_NAME) if isinstance(deps, dict) else None
            if not isinstance(wanted, str):
                continue
            where = (folder / "package.json").as_posix()
            major = _major(wanted)
            if major is not None and major >= 2:
                return FORM_2X, f"{where} asks for {SDK_NAME} {wanted}"
            return FORM_1X, f"{where} asks for {SDK_NAME} {wanted}"
    return FORM_1X, f"no {SDK_NAME} installed or asked for; the 1.x form"


def _major(version: str) -> int | None:
    """The major version a version or range starts with (`^2.0.4`, `2.x`,
    `>=2`, `npm:pkg@2.0.4`)."""
    match = re.search(r"(?:^|[\s^~=>v@])(\d+)(?:\.|$|\s|x)", version.strip())
    return int(match.group(1)) if match else None


def _installed(repo: Path) -> tuple[str, str] | None:
    """The installed SDK's version and the text of its bridge declarations."""
    for location in SDK_LOCATIONS:
        package = repo / location
        if not (package / "package.json").is_file():
            continue
        from ...manifest import package_version

        version = package_version(package) or "?"
        declarations = sorted((package / "dist").rglob("app-bridge.d.ts")) or sorted(package.rglob("*.d.ts"))
        legacy = sorted((package / "dist").rglob("legacy-handlers.d.ts"))
        texts = []
        for declaration in [*declarations, *legacy]:
            try:
                texts.append(declaration.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
        return version, "\n".join(texts)
    return None
