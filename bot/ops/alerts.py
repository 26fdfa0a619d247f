"""Alerts to a Discord webhook in a staff channel (``ALERT_WEBHOOK_URL``).

Each ERROR record becomes a short summary (the logger, the message, the
exception's last line; every secret replaced), posted in the background:
:meth:`AlertHandler.emit` only appends to a queue, so logging never waits for
the webhook, however slowly it answers. The same message (by logger and
template) is posted once per :data:`WINDOW`; its repeats in that window are
counted and posted as one line when it ends ("... 99 more times"). At most
:data:`MAX_POSTS` posts go out per window, whatever happens; the rest are
counted into the next. What ``python -m bot check`` finds wrong goes the same
way (:meth:`Alerts.watch`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

import aiohttp

log = logging.getLogger("bot.ops")

WINDOW = 60.0
"""Seconds: one post per distinct message, and the repeats' count after it."""
MAX_POSTS = 10
"""Posts per window in all."""
POST_TIMEOUT = 10.0
MAX_CONTENT = 1900
"""Below Discord's 2,000 characters, with room for the count."""
QUEUED = 1000
"""Summaries waiting to be judged, at most (a flood beyond drops the rest, counted)."""
WATCH_EVERY = 300.0


@dataclass(slots=True)
class _Seen:
    first: float
    repeats: int = 0
    summary: str = ""


class Alerts:
    """Posts summaries to the webhook; make one per process, :meth:`start` it on the loop."""

    def __init__(
        self,
        url: str,
        secrets: Iterable[str] = (),
        *,
        window: float = WINDOW,
        max_posts: int = MAX_POSTS,
        name: str = "backgammon bot",
    ) -> None:
        self.url = url
        self.secrets = sorted({s for s in (url, *secrets) if s}, key=len, reverse=True)
        self.window = window
        self.max_posts = max_posts
        self.name = name
        self._queue: collections.deque[tuple[float, tuple[str, str], str]] = collections.deque(maxlen=QUEUED)
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._seen: dict[tuple[str, str], _Seen] = {}
        self._posted: list[float] = []
        self._held = 0
        """Summaries over :data:`MAX_POSTS`, counted into the next post."""
        self._tasks: list[asyncio.Task[None]] = []
        self._session: aiohttp.ClientSession | None = None
        self.posts = 0
        self.failures = 0

    def hide(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "[redacted]")
        return text

    # -- from any thread -------------------------------------------------------------------

    def tell(self, key: tuple[str, str], summary: str) -> None:
        """Queue a summary (cheap, thread-safe: a deque append and a wake-up)."""
        self._queue.append((time.monotonic(), key, summary))
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._wake.set()
        else:
            loop.call_soon_threadsafe(self._wake.set)

    # -- on the loop -----------------------------------------------------------------------

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._tasks.append(self._loop.create_task(self._run(), name="bg-alerts"))

    def watch(self, findings: Callable[[], Awaitable[list[tuple[str, str]]]], every: float = WATCH_EVERY) -> None:
        """Every ``every`` seconds, alert what ``findings()`` returns: (check name, line) pairs."""

        async def watching() -> None:
            while True:
                await asyncio.sleep(every)
                try:
                    for name, line in await findings():
                        self.tell(("check", name), f"**check** {line}")
                except Exception:
                    log.warning("the periodic health check failed", exc_info=True)

        assert self._loop is not None, "start() first"
        self._tasks.append(self._loop.create_task(watching(), name="bg-alerts-watch"))

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _run(self) -> None:
        while True:
            if not self._queue:
                self._wake.clear()
                due = self._next_due()
                try:
                    async with asyncio.timeout(None if due is None else max(0.0, due - time.monotonic())):
                        await self._wake.wait()
                except TimeoutError:
                    pass
            while self._queue:
                at, key, summary = self._queue.popleft()
                seen = self._seen.get(key)
                if seen is not None and at - seen.first < self.window:
                    seen.repeats += 1
                    continue
                if seen is not None:
                    await self._flush_counts(at)
                self._seen[key] = _Seen(at, summary=summary)
                await self._post(summary)
            await self._flush_counts(time.monotonic())

    def _next_due(self) -> float | None:
        """When the first window ends (its repeats are posted, or it is forgotten)."""
        if not self._seen:
            return None
        return min(s.first for s in self._seen.values()) + self.window

    async def _flush_counts(self, now: float) -> None:
        for key, seen in list(self._seen.items()):
            if now - seen.first >= self.window:
                del self._seen[key]
                if seen.repeats:
                    times = "time" if seen.repeats == 1 else "times"
                    await self._post(
                        f"{seen.summary[:300]}\n... and {seen.repeats} more {times} in {self.window:.0f} s"
                    )

    async def send(self, content: str) -> None:
        """Post now (``python -m bot check`` from cron), within the same rate limit."""
        await self._post(content)

    async def _post(self, content: str) -> None:
        now = time.monotonic()
        self._posted = [t for t in self._posted if now - t < self.window]
        if len(self._posted) >= self.max_posts:
            self._held += 1
            return
        self._posted.append(now)
        if self._held:
            content = f"{content}\n({self._held} more alerts held back by the rate limit)"
            self._held = 0
        body = {
            "content": self.hide(content)[:MAX_CONTENT],
            "username": self.name,
            "allowed_mentions": {"parse": []},
        }
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=POST_TIMEOUT))
        try:
            async with self._session.post(self.url, json=body) as response:
                if response.status >= 300:
                    self.failures += 1
                    log.warning("the alert webhook answered %d", response.status)  # no URL: it holds a token
                else:
                    self.posts += 1
        except (aiohttp.ClientError, TimeoutError) as error:
            self.failures += 1
            log.warning("could not post to the alert webhook (%s)", type(error).__name__)


class AlertHandler(logging.Handler):
    """Sends each ERROR record's summary to :class:`Alerts` (records of this module
    itself are left out: a failing webhook must not alert about itself)."""

    def __init__(self, alerts: Alerts, level: int = logging.ERROR) -> None:
        super().__init__(level)
        self.alerts = alerts

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == log.name:
            return
        try:
            message = record.getMessage()
            summary = f"**{record.levelname}** `{record.name}`: {message}"
            if record.exc_info and record.exc_info[1] is not None:
                error = record.exc_info[1]
                summary += f"\n`{type(error).__name__}: {str(error)[:500]}`"
            self.alerts.tell((record.name, str(record.msg)), self.alerts.hide(summary))
        except Exception:
            self.handleError(record)
