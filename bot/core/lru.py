"""The one bounded cache: a dict that keeps only its most recently used entries.

A process remembers many things for a while (the active games it holds, board
messages, pending challenges, members' preferences, replays drawn): a busy
week touches many more than are in use at once, so each such memory is an
:class:`Lru` with a size, and where it matters a total weight (bytes) or a
time to live.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most ``size`` entries; reading or writing one makes it the newest, and
    writing past the size drops the oldest (``evicted(key)`` is told).

    :param weight: an entry's weight (its bytes, say): the oldest entries are also
        dropped while the weights add up to more than ``max_weight``.
    :param ttl: seconds an entry is kept after it was written (by ``clock``):
        an older one reads as absent, and is dropped.
    """

    def __init__(
        self,
        size: int,
        evicted: Callable[[K], None] = lambda key: None,
        *,
        weight: Callable[[V], int] | None = None,
        max_weight: int | None = None,
        ttl: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if size < 1:
            raise ValueError(f"a cache holds at least one entry, not {size}")
        if (weight is None) != (max_weight is None):
            raise ValueError("a weight and a max_weight go together")
        self.size = size
        self.evicted = evicted
        self.weight = weight
        self.max_weight = max_weight
        self.ttl = ttl
        self.clock = clock
        self._items: OrderedDict[K, V] = OrderedDict()
        self._written: dict[K, float] = {}
        """When each entry was written (with a ``ttl`` only)."""
        self.total_weight = 0

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is None:
            return None
        if self.ttl is not None and self.clock() - self._written[key] >= self.ttl:
            self._drop(key)
            return None
        self._items.move_to_end(key)
        return value

    def __getitem__(self, key: K) -> V:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._drop(key)
        self._items[key] = value
        if self.ttl is not None:
            self._written[key] = self.clock()
        if self.weight is not None:
            self.total_weight += self.weight(value)
        while len(self._items) > self.size or (self.max_weight is not None and self.total_weight > self.max_weight):
            oldest = next(iter(self._items))
            self._drop(oldest)
            self.evicted(oldest)
        if self.ttl is not None:
            self._expire()

    def _expire(self) -> None:
        """Drop the oldest entries past their time (each write drops a few, so that
        memory a quiet process no longer reads is let go too)."""
        assert self.ttl is not None
        now = self.clock()
        for key in list(islice(self._items, 2)):
            if now - self._written[key] < self.ttl:
                break
            self._drop(key)
            self.evicted(key)

    def _drop(self, key: K) -> V | None:
        value = self._items.pop(key, None)
        if value is not None:
            self._written.pop(key, None)
            if self.weight is not None:
                self.total_weight -= self.weight(value)
        return value

    def pop(self, key: K, default: V | None = None) -> V | None:
        value = self._drop(key)
        return default if value is None else value

    def values(self) -> Iterator[V]:
        """The entries, the oldest first (without making them the newest)."""
        return iter(list(self._items.values()))

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __delitem__(self, key: K) -> None:
        if key not in self._items:
            raise KeyError(key)
        self._drop(key)
