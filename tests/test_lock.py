"""requirements/: the hash-locked installs agree with pyproject.toml.

`scripts/lock` makes them; scripts/setup, .ci/run and action.yml install
from them with --require-hashes. A requirement changed in pyproject.toml
without a refresh, a pin edited by hand, or a lock that misses what a locked
package needs fails here.
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import importlib.util
import re
from pathlib import Path
from typing import NamedTuple

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from .support import ROOT

_loader = importlib.machinery.SourceFileLoader("lock_script", str(ROOT / "scripts" / "lock"))
_spec = importlib.util.spec_from_loader("lock_script", _loader)
lock_script = importlib.util.module_from_spec(_spec)
_loader.exec_module(lock_script)

_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)\s*(?:;(?P<marker>[^\\]*))?\\?$")
_HASH = re.compile(r"^\s+--hash=sha256:[0-9a-f]{64}")


class Pin(NamedTuple):
    version: Version
    marker: Marker | None
    hashes: int


def read_lock(path: Path) -> dict[str, Pin]:
    pins: dict[str, Pin] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if _HASH.match(line):
            assert current is not None, f"{path.name}: a hash before any pin"
            pins[current] = pins[current]._replace(hashes=pins[current].hashes + 1)
            continue
        match = _PIN.match(line)
        if match:
            current = canonicalize_name(match["name"])
            marker = Marker(match["marker"].strip()) if match["marker"] else None
            assert current not in pins, f"{path.name}: {current} is pinned twice"
            pins[current] = Pin(Version(match["version"]), marker, 0)
        elif line.strip() and not line.lstrip().startswith("#"):
            pytest.fail(f"{path.name}: a line that is neither a pin, a hash nor a comment: {line!r}")
    return pins


LOCKS = {name: read_lock(path) for name, path in lock_script.LOCKS.items()}
INPUTS = lock_script.lock_inputs()


@pytest.mark.parametrize("name", sorted(lock_script.LOCKS))
def test_lock_was_made_from_this_pyproject(name: str) -> None:
    assert lock_script.recorded_digest(lock_script.LOCKS[name]) == lock_script.inputs_digest(), (
        f"pyproject.toml changed since requirements/{name}.txt was made: run scripts/lock"
    )


GROUPS = {"runtime": ("build", "dependencies"), "test": ("build", "dependencies", "test")}


def lock_problems(pins: dict[str, Pin], groups: tuple[str, ...]) -> list[str]:
    """What is wrong with a lock for the requirements of ``groups``: a
    requirement not pinned, pinned outside its range, or a pin without hash."""
    problems = [f"{package}=={pin.version} has no hash" for package, pin in pins.items() if pin.hashes == 0]
    for group in groups:
        for text in INPUTS[group]:
            requirement = Requirement(text)
            pin = pins.get(canonicalize_name(requirement.name))
            if pin is None:
                problems.append(f"{requirement.name} ({group}) is not pinned")
            elif not requirement.specifier.contains(pin.version, prereleases=True):
                problems.append(f"{requirement.name}=={pin.version} is outside {requirement}")
    return problems


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_every_requirement_is_pinned_within_its_range_with_hashes(name: str) -> None:
    assert lock_problems(LOCKS[name], GROUPS[name]) == [], f"requirements/{name}.txt: run scripts/lock"


def test_the_runtime_lock_holds_no_test_tool() -> None:
    test_only = {canonicalize_name(Requirement(t).name) for t in INPUTS["test"]}
    assert not test_only & set(LOCKS["runtime"]), "the Action would install test tools"


def _applies(pin: Pin) -> bool:
    return pin.marker is None or pin.marker.evaluate()


def test_what_is_installed_is_what_the_test_lock_pins() -> None:
    """scripts/setup installed the test lock: each pin that applies to this
    Python is what is installed, and what each needs is pinned too."""
    pins = LOCKS["test"]
    for package, pin in pins.items():
        if not _applies(pin):
            continue
        try:
            distribution = importlib.metadata.distribution(package)
        except importlib.metadata.PackageNotFoundError:
            pytest.fail(f"{package}=={pin.version} is locked but not installed: run scripts/setup")
        assert Version(distribution.version) == pin.version, (
            f"{package} {distribution.version} is installed, the lock says {pin.version}"
        )
        for text in distribution.requires or []:
            requirement = Requirement(text)
            if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
                continue
            needed = pins.get(canonicalize_name(requirement.name))
            assert needed is not None, f"{package} needs {requirement}, which requirements/test.txt does not pin"
            assert requirement.specifier.contains(needed.version, prereleases=True), (
                f"{package} needs {requirement}; the lock pins {needed.version}"
            )


def test_a_changed_pin_is_caught(tmp_path: Path) -> None:
    """A pin moved outside its range, or a dropped hash, is a problem."""
    text = lock_script.LOCKS["test"].read_text(encoding="utf-8")
    assert lock_problems(read_lock(lock_script.LOCKS["test"]), GROUPS["test"]) == []
    moved = tmp_path / "moved.txt"
    moved.write_text(re.sub(r"^zizmor==\S+ ", "zizmor==0.0.1 ", text, flags=re.M), encoding="utf-8")
    wanted = next(Requirement(t) for t in INPUTS["test"] if Requirement(t).name == "zizmor")
    pinned = read_lock(lock_script.LOCKS["test"])["zizmor"].version
    assert lock_problems(read_lock(moved), GROUPS["test"]) == [f"zizmor==0.0.1 is outside {wanted}"]
    unhashed = tmp_path / "unhashed.txt"
    unhashed.write_text(re.sub(r"^(zizmor==\S+) \\\n(?:\s+--hash=\S+(?: \\)?\n)+", r"\1\n", text, flags=re.M), encoding="utf-8")
    assert lock_problems(read_lock(unhashed), GROUPS["test"]) == [f"zizmor=={pinned} has no hash"]
