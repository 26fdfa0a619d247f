"""The lock files pin every dependency pyproject.toml names, with hashes.

`make run` and `make test` install only from requirements/*.txt with
``--require-hashes``; these checks catch a dependency added to pyproject.toml
without `make lock`, or a lock edited by hand into something unhashed.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
LOCKS = {
    "base.txt": (),
    "run.txt": ("ai",),
    "test.txt": ("test",),
}
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def _pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _pins(lock: str) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) for every pinned line of a lock file."""
    pins: dict[str, tuple[str, int]] = {}
    current: str | None = None
    for line in (ROOT / "requirements" / lock).read_text().splitlines():
        match = _PIN.match(line)
        if match:
            current = canonicalize_name(match.group(1))
            pins[current] = (match.group(2), 0)
        elif current and line.strip().startswith("--hash=sha256:"):
            version, hashes = pins[current]
            pins[current] = (version, hashes + 1)
        elif not line.startswith(" "):
            current = None
    return pins


def _wanted(extras: tuple[str, ...]) -> list[Requirement]:
    project = _pyproject()
    wanted = [Requirement(r) for r in project["dependencies"]]
    for extra in extras:
        wanted += [Requirement(r) for r in project["optional-dependencies"][extra]]
    return wanted


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_every_dependency_is_pinned_within_its_range(lock: str) -> None:
    pins = _pins(lock)
    for requirement in _wanted(LOCKS[lock]):
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in requirements/{lock}: run `make lock`"
        version, _ = pins[name]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"requirements/{lock} pins {name}=={version}, outside {requirement.specifier}: run `make lock`"
        )


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_every_pin_has_a_hash(lock: str) -> None:
    pins = _pins(lock)
    assert pins
    unhashed = [name for name, (_, hashes) in pins.items() if hashes == 0]
    assert not unhashed, f"requirements/{lock} pins without a hash: {unhashed}"


def test_the_installed_environment_is_the_locked_one() -> None:
    """What the tests run on is what test.txt pins (the lock was installed, not pyproject's ranges)."""
    for name, (version, _) in _pins("test.txt").items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # a platform-conditional pin (uvloop on Windows)
        assert installed == version, f"{name} {installed} is installed, the lock says {version}"


def test_license_metadata_agrees() -> None:
    assert _pyproject()["license"] == "GPL-3.0-or-later"
    assert "GNU GENERAL PUBLIC LICENSE" in (ROOT / "LICENSE").read_text()[:200]
    assert "Version 3" in (ROOT / "LICENSE").read_text()[:200]
