"""Clean stops on SIGTERM, SIGINT and SIGHUP (``systemctl stop``, ``docker stop``, Ctrl-C).

The first signal logs one line and runs the bot's stop: no new work is taken,
what is in flight finishes (or goes back to the outbox, which keeps it for the
next start) and the gateway closes with a normal close frame. If that takes
longer than :data:`STOP_SECONDS`, a watchdog thread ends the process anyway:
a supervisor's kill after its own timeout would lose nothing either, but it
would be an unclean exit. A second signal only logs.

Exit codes, for a supervisor (systemd's ``RestartPreventExitStatus=``):

- 0: stopped on request; 1: crashed (worth a restart);
- 2 (``EXIT_CONFIG`` in ``bot/__main__.py``): a setting is wrong, 3 (``EXIT_LOGIN``):
  the token is rejected: a restart cannot fix either (:data:`NO_RESTART`), and each
  start spends one of Discord's daily session starts;
- 4 (``EXIT_NETWORK``): Discord could not be reached (worth a restart, after a delay).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
from collections.abc import Awaitable, Callable

log = logging.getLogger("bot.ops")

NO_RESTART = (2, 3)
"""Exit codes a restart cannot fix: a wrong setting, a rejected token."""

SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
STOP_SECONDS = 10.0
"""From the signal to the end of the process, at most."""


class Stopping:
    """Runs ``stop`` once on the first of :data:`SIGNALS`; ends the process after ``bound`` seconds regardless.

    :param stop: the clean stop (the bot's).
    :param exit: how the watchdog ends the process (tests pass their own).
    """

    def __init__(
        self,
        stop: Callable[[], Awaitable[None]],
        *,
        bound: float = STOP_SECONDS,
        exit: Callable[[int], None] = os._exit,
    ) -> None:
        self.stop = stop
        self.bound = bound
        self.exit = exit
        self.signal_name: str | None = None
        """The signal that asked for the stop (None: nobody asked)."""
        self._task: asyncio.Task[None] | None = None
        self._watchdog: threading.Timer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def asked(self) -> bool:
        return self.signal_name is not None

    def install(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = loop or asyncio.get_running_loop()
        for sig in SIGNALS:
            self._loop.add_signal_handler(sig, self.on_signal, sig)

    def uninstall(self) -> None:
        """Take the signal handlers off. A watchdog already running stays: the loop's own
        shutdown (its executor's threads, the workers) is part of the bounded stop."""
        if self._loop is not None and not self._loop.is_closed():
            for sig in SIGNALS:
                self._loop.remove_signal_handler(sig)

    def on_signal(self, sig: int) -> None:
        name = signal.Signals(sig).name
        if self.asked:
            log.info("already stopping (%s again)", name)
            return
        self.signal_name = name
        log.info("stopping (%s)", name)
        self._watchdog = threading.Timer(self.bound, self._too_long)
        self._watchdog.daemon = True
        self._watchdog.start()
        self._task = asyncio.get_running_loop().create_task(self._stop(), name="bg-stop")

    async def _stop(self) -> None:
        try:
            await self.stop()
        except Exception:
            log.exception("could not stop cleanly")

    def _too_long(self) -> None:
        log.warning("still stopping after %.0f s: exiting now (what is owed waits in the outbox)", self.bound)
        for handler in logging.getLogger().handlers:
            handler.flush()
        self.exit(0)
