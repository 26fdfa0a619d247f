"""Narrowing for tests: what a lookup the test knows succeeds returned (a None fails the test)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


def present(value: T | None) -> T:
    """``value``, asserted not None."""
    assert value is not None
    return value


async def found(lookup: Awaitable[T | None]) -> T:
    """What ``lookup`` returns, asserted not None."""
    return present(await lookup)
