"""GitHub Actions workflow files (`.github/workflows/*.yml`) read as data,
by PyYAML's safe loader: for the checks (what a pull request's CI runs)
and the publishing side alike. A file too large or not a YAML mapping is a
problem to report, never an exception."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import yaml

WORKFLOWS = ".github/workflows"
# far more than any workflow holds; a larger file is not read
MAX_BYTES = 1_000_000


class Workflow(NamedTuple):
    """One workflow file: its name in the folder, its top-level mapping
    (empty when it could not be read) and why not ("" when it was)."""

    name: str
    data: dict
    problem: str = ""


def load(text: str) -> dict:
    """The workflow's top-level mapping. YAML 1.1 reads a bare ``on`` key as
    ``True``: it is given back under ``"on"``. Raises ValueError for text
    that is not YAML or not a mapping."""
    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as err:
        raise ValueError(f"not YAML: {str(err).splitlines()[0]}") from None
    except RecursionError:
        raise ValueError("nested too deeply") from None
    if not isinstance(data, dict):
        raise ValueError("not a mapping")
    if True in data and "on" not in data:
        return {"on" if key is True else key: value for key, value in data.items()}
    return data


def read(path: Path) -> Workflow:
    """The workflow at ``path``, or why it cannot be read."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return Workflow(path.name, {}, f"larger than {MAX_BYTES} bytes")
        return Workflow(path.name, load(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        return Workflow(path.name, {}, str(err))


def workflows(root: Path) -> list[Workflow]:
    """The checkout's workflow files, by name."""
    folder = root / WORKFLOWS
    if not folder.is_dir():
        return []
    return [
        read(path) for path in sorted(folder.iterdir()) if path.suffix in (".yml", ".yaml") and path.is_file()
    ]
