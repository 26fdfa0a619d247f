"""The engine's examples in its docstrings run: the front door (``engine/__init__.py``)
is what a newcomer reads first, so it must say what the code does."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engine


def _modules_with_examples() -> list[str]:
    names = ["engine"] + [m.name for m in pkgutil.walk_packages(engine.__path__, "engine.")]
    found = []
    for name in names:
        if name.endswith("__main__"):
            continue
        module = importlib.import_module(name)
        if doctest.DocTestFinder().find(module) and any(t.examples for t in doctest.DocTestFinder().find(module)):
            found.append(name)
    return found


MODULES = _modules_with_examples()


def test_the_front_door_has_examples() -> None:
    assert "engine" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
