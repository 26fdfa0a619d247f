"""A dict that keeps only its most recently used entries (the active games a
process holds in memory: a busy week touches many more than are played at once)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most ``size`` entries; reading or writing one makes it the newest, and
    writing past the size drops the oldest (``evicted(key)`` is told)."""

    def __init__(self, size: int, evicted: Callable[[K], None] = lambda key: None) -> None:
        if size < 1:
            raise ValueError(f"a cache holds at least one entry, not {size}")
        self.size = size
        self.evicted = evicted
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            oldest, _ = self._items.popitem(last=False)
            self.evicted(oldest)

    def pop(self, key: K, default: V | None = None) -> V | None:
        return self._items.pop(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __delitem__(self, key: K) -> None:
        del self._items[key]
