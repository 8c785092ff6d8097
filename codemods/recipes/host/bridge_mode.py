"""Choose the bridge mode from the SDK the checkout has installed."""

from __future__ import annotations

from pathlib import Path

from ..base import Bridge, ModeChoice

SDK_PACKAGE = Path("node_modules/@modelcontextprotocol/ext-apps")
# Where a mesh checkout's package manager puts the SDK (bun's isolated
# layout links it under the app; a hoisted install puts it at the root).
SDK_LOCATIONS = (Path("apps/mesh") / SDK_PACKAGE, SDK_PACKAGE)
SDK_SETTER = "onappstatechange"


def choose_bridge(repo: Path, requested: Bridge) -> ModeChoice:
    """``auto`` picks ``sdk`` when the installed SDK declares the
    ``onappstatechange`` setter, else ``compat``; the reason says why."""
    if requested is not Bridge.AUTO:
        return ModeChoice(requested, f"--bridge {requested.value} was given")
    for location in SDK_LOCATIONS:
        package = repo / location
        if not (package / "package.json").is_file():
            continue
        from ...manifest import package_version  # only a checkout with the SDK installed needs it

        version = package_version(package) or "?"
        declarations = sorted((package / "dist").rglob("app-bridge.d.ts")) or sorted(package.rglob("*.d.ts"))
        for declaration in declarations:
            try:
                if SDK_SETTER in declaration.read_text(encoding="utf-8", errors="replace"):
                    return ModeChoice(
                        Bridge.SDK,
                        f"installed @modelcontextprotocol/ext-apps {version} declares {SDK_SETTER}",
                    )
            except OSError:
                continue
        return ModeChoice(
            Bridge.COMPAT,
            f"installed @modelcontextprotocol/ext-apps {version} has no {SDK_SETTER}",
        )
    return ModeChoice(
        Bridge.COMPAT,
        "no installed @modelcontextprotocol/ext-apps found (run `bun install` to detect it)",
    )
