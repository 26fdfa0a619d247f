"""The background task behind reminders, timeouts and expired challenges.

It asks :class:`~bot.core.deadlines.Deadlines` to do what is due (each writes
the message it owes to the outbox, which the Discord layer's dispatcher
posts), then sleeps until the next wake-up time, but never longer than
:data:`MAX_SLEEP` seconds, so a deadline set by another process (or after a
restart) is seen within a minute. Processing is idempotent, so running it
again after a crash is safe.

It works only while its gate is open (:meth:`Scheduler.open`): the Discord
layer opens it once the bot is connected, downtime is credited to the clocks
and every board owed from before is delivered, and closes it while Discord
is out of reach, so nobody is forfeited for the bot's absence.

Several processes (``SHARD_COUNT``/``SHARD_IDS``, one database): every process
runs a scheduler. Each reminder is claimed and each timeout is a
compare-and-set forfeit in the database, so whichever process gets a due game
first fires it and the others skip it: every notice goes out exactly once.
With its shard ``(shard_count, shard_ids)`` a process claims only its own
guilds' work first, and takes over another shard's once it is a few minutes
overdue (that process may be down).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from bot.core.deadlines import Deadlines
from bot.core.model import Notice, SavingPausedError
from bot.store import Shard, StorageFullError

log = logging.getLogger(__name__)

MAX_SLEEP = 60.0
MIN_SLEEP = 1.0
BATCH_PAUSE = 0.05
"""Between two passes while more is due than one pass does (a batch at a time)."""

Job = Callable[[datetime, "Shard | None"], Awaitable[object]]
"""A feature's own due work: ``(now, shard)``; it writes what it owes to the outbox."""
Wakeup = Callable[["Shard | None"], Awaitable["datetime | None"]]
"""When a feature's next work falls due (None: nothing waiting)."""


class Scheduler:
    def __init__(
        self,
        deadlines: Deadlines,
        *,
        shard: Shard | None = None,
        max_sleep: float = MAX_SLEEP,
        min_sleep: float = MIN_SLEEP,
        gated: bool = True,
    ) -> None:
        self.deadlines = deadlines
        self.gate = asyncio.Event()
        """Open while the bot can reach the players (see the module's docstring)."""
        if not gated:
            self.gate.set()
        self.shard: Shard | None = (shard[0], tuple(sorted(shard[1]))) if shard is not None else None
        """This process's ``(shard_count, shard_ids)``, or None when it serves every guild."""
        self.max_sleep = max_sleep
        self.min_sleep = min_sleep
        self.jobs: list[tuple[str, Job, Wakeup | None]] = []
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if not self.running:
            self._task = asyncio.create_task(self._run(), name="bg-scheduler")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def add_job(self, name: str, run: Job, wakeup: Wakeup | None = None) -> None:
        """A feature's own due work (a daily puzzle, a tournament's round deadline):
        ``run(now, shard)`` on every pass after the deadlines, behind the same gate;
        ``wakeup(shard)`` tells when it next falls due (else it runs at least a minute
        apart). A job that fails is logged and tried again on the next pass."""
        self.jobs.append((name, run, wakeup))

    def open(self) -> None:
        self.gate.set()

    def close(self) -> None:
        self.gate.clear()

    async def _run(self) -> None:
        while True:
            await self.gate.wait()
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except (SavingPausedError, StorageFullError):
                pass  # the disk is full: the store logged it once; the next pass tries again
            except Exception:
                log.exception("the scheduler failed; trying again shortly")
            if self.deadlines.more_due:
                await asyncio.sleep(BATCH_PAUSE)  # the next batch, after the clicks waiting behind this one
                continue
            await asyncio.sleep(await self.delay())

    async def delay(self) -> float:
        """Seconds until the next thing is due, between MIN_SLEEP and MAX_SLEEP."""
        try:
            wakeup = await self.deadlines.next_wakeup(shard=self.shard)
        except Exception:
            log.exception("could not read the next wake-up time")
            return self.max_sleep
        for name, _, job_wakeup in self.jobs:
            if job_wakeup is None:
                continue
            try:
                due = await job_wakeup(self.shard)
            except Exception:
                log.exception("could not read when %s falls due", name)
                continue
            if due is not None and (wakeup is None or due < wakeup):
                wakeup = due
        if wakeup is None:
            return self.max_sleep
        seconds = (wakeup - self.deadlines.clock()).total_seconds()
        return min(max(seconds, self.min_sleep), self.max_sleep)

    async def run_once(self, now: datetime | None = None) -> list[Notice]:
        """Do everything due at ``now`` (default: the clock), the deadlines' and each
        job's; returns the deadlines' notices."""
        notices = await self.deadlines.process_due(now, shard=self.shard)
        for name, run, _ in self.jobs:
            try:
                await run(now or self.deadlines.clock(), self.shard)
            except (SavingPausedError, StorageFullError):
                pass  # the disk is full: logged once by the store
            except Exception:
                log.exception("the scheduled work %s failed; it runs again on the next pass", name)
        return notices
