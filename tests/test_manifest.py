"""package.json as every part of the tool reads it (codemods.manifest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.plan.formatting import _version
from codemods.recipes.manifest import package_version, read_manifest
from codemods.recipes.base import Bridge
from codemods.recipes.host.bridge_mode import SDK_PACKAGE, choose_bridge


@pytest.mark.parametrize(
    ("text", "manifest", "version"),
    [
        ('{"name": "x", "version": "1.2.3", "engines": {"version": "9"}}', {"name": "x", "version": "1.2.3", "engines": {"version": "9"}}, "1.2.3"),
        ('{"name": "x"}', {"name": "x"}, ""),
        ('{"version": 3}', {"version": 3}, ""),
        ("[1, 2]", {}, ""),
        ("{not json", {}, ""),
        (None, {}, ""),
    ],
)
def test_read_manifest_and_version(tmp_path: Path, text: str | None, manifest: dict, version: str) -> None:
    if text is not None:
        (tmp_path / "package.json").write_text(text)
    assert read_manifest(tmp_path) == manifest
    assert package_version(tmp_path) == version
    assert _version(tmp_path / "package.json") == version


def test_bridge_mode_names_an_unknown_installed_version_with_a_question_mark(tmp_path: Path) -> None:
    package = tmp_path / SDK_PACKAGE
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "@modelcontextprotocol/ext-apps"}')
    choice = choose_bridge(tmp_path, Bridge.AUTO)
    assert choice.mode is Bridge.COMPAT
    assert choice.reason.startswith("installed @modelcontextprotocol/ext-apps ? (")
    assert "declares no state-changed API" in choice.reason
