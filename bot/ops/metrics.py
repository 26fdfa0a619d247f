"""The bot's metrics in Prometheus' format (``/metrics`` of :mod:`bot.ops.health`).

A registry of its own (prometheus-client's global one would carry whatever
else the process imports). What changes on every interaction is counted by
the caller, once, with a label child looked up and cached here; what is a
level (the outbox, the drawing queue, the cached games, the gateway's
latency) is read when Prometheus scrapes, from callables the bot hands in, so
it costs nothing in between.

Every name starts with ``bg_``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger("bot.ops")

LATENCY_BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
"""Seconds: fine below Discord's 3-s deadline for a first answer."""
LAG_PROBE_SECONDS = 0.5
RECEIVED_KEPT = 10_000
"""Interactions waiting for their first answer that are remembered (one never
answered is forgotten after this many more)."""


class Levels(Collector):
    """Gauges read at scrape time from the callables registered with :meth:`Metrics.level`."""

    def __init__(self) -> None:
        self.levels: list[tuple[str, str, Callable[[], float | Iterable[tuple[str, float]]], str | None]] = []

    def collect(self) -> Iterator[GaugeMetricFamily]:
        for name, help_text, read, label in self.levels:
            try:
                value = read()
            except Exception:  # a probe must not fail the scrape
                log.debug("could not read %s", name, exc_info=True)
                continue
            if label is None:
                yield GaugeMetricFamily(name, help_text, value=float(value))  # type: ignore[arg-type]
            else:
                family = GaugeMetricFamily(name, help_text, labels=[label])
                for key, number in value:  # type: ignore[union-attr]
                    family.add_metric([str(key)], float(number))
                yield family


class Metrics:
    """The bot's metrics. Make one per bot process (tests make their own)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.interactions = Counter(
            "bg_interactions", "Interactions received, by command family.", ["family"], registry=r
        )
        self.first_answer = Histogram(
            "bg_first_answer_seconds",
            "From an interaction's arrival to its first answer sent, by command family.",
            ["family"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.board = Histogram(
            "bg_board_seconds",
            "From a click to its new board posted (drawing included).",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.database_errors = Counter(
            "bg_database_errors", "Interactions answered 'try again' because the database failed.", registry=r
        )
        self.log_errors = Counter("bg_log_errors", "Records logged at ERROR or above.", registry=r)
        self._levels = Levels()
        r.register(self._levels)
        self._async_levels: list[tuple[str, Callable[[], Awaitable[float]]]] = []
        self._async_values: dict[str, float] = {}
        self._lag = 0.0
        self.level("bg_loop_lag_seconds", "The event loop's largest delay since the last scrape.", self._take_lag)
        self._families: dict[str, tuple[Any, Any]] = {}
        self._received: dict[int, tuple[float, Any]] = {}
        self._lag_task: asyncio.Task[None] | None = None

    # -- levels ------------------------------------------------------------------------------

    def level(
        self,
        name: str,
        help_text: str,
        read: Callable[[], float | Iterable[tuple[str, float]]],
        label: str | None = None,
    ) -> None:
        """A gauge read at scrape time: ``read()`` gives its value, or (label value, value) pairs."""
        self._levels.levels.append((name, help_text, read, label))

    def slow_level(self, name: str, help_text: str, read: Callable[[], Awaitable[float]]) -> None:
        """A gauge that needs the database: read before each scrape (:meth:`render`)."""
        self._async_levels.append((name, read))
        self.level(name, help_text, lambda: self._async_values[name])

    async def render(self) -> bytes:
        """The text exposition: slow levels read first (each bounded to 1 s)."""
        for name, read in self._async_levels:
            try:
                async with asyncio.timeout(1.0):
                    self._async_values[name] = await read()
            except Exception:
                self._async_values.pop(name, None)
                log.debug("could not read %s", name, exc_info=True)
        return generate_latest(self.registry)

    # -- per interaction ---------------------------------------------------------------------

    def _children(self, family: str) -> tuple[Any, Any]:
        children = self._families.get(family)
        if children is None:
            children = self._families[family] = (
                self.interactions.labels(family),
                self.first_answer.labels(family),
            )
        return children

    def received(self, interaction_id: int, family: str) -> None:
        """An interaction arrived (its first answer is timed from now)."""
        counter, histogram = self._children(family)
        counter.inc()
        received = self._received
        received[interaction_id] = (time.monotonic(), histogram)
        if len(received) > RECEIVED_KEPT:
            for key in list(received)[: RECEIVED_KEPT // 10]:
                del received[key]

    def answered(self, interaction_id: int) -> None:
        """Its first answer went out."""
        got = self._received.pop(interaction_id, None)
        if got is not None:
            got[1].observe(time.monotonic() - got[0])

    def board_posted(self, asked_at: float) -> None:
        """A board went up for a click made at ``asked_at`` (Unix seconds)."""
        self.board.observe(max(0.0, time.time() - asked_at))

    # -- the loop's lag ----------------------------------------------------------------------

    def _take_lag(self) -> float:
        lag, self._lag = self._lag, 0.0
        return lag

    def start(self) -> None:
        """Start the lag probe (call on the running loop)."""
        if self._lag_task is None:
            self._lag_task = asyncio.get_running_loop().create_task(self._probe_lag(), name="bg-loop-lag")

    async def _probe_lag(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            await asyncio.sleep(LAG_PROBE_SECONDS)
            self._lag = max(self._lag, loop.time() - asked - LAG_PROBE_SECONDS)

    async def close(self) -> None:
        task, self._lag_task = self._lag_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class ErrorCounter(logging.Handler):
    """Counts records at ERROR and above into ``bg_log_errors_total``."""

    def __init__(self, metrics: Metrics) -> None:
        super().__init__(logging.ERROR)
        self.counter = metrics.log_errors

    def emit(self, record: logging.LogRecord) -> None:
        self.counter.inc()
