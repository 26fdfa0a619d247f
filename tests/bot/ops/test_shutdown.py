"""The stop on a signal: once, logged, bounded."""

from __future__ import annotations

import asyncio
import logging
import os
import signal

from bot.ops.shutdown import Stopping


async def test_first_signal_stops_once_and_logs(caplog) -> None:
    stops = []

    async def stop() -> None:
        stops.append(1)

    stopping = Stopping(stop, exit=lambda code: None)
    stopping.install()
    try:
        with caplog.at_level(logging.INFO, logger="bot.ops"):
            os.kill(os.getpid(), signal.SIGHUP)
            await asyncio.sleep(0.05)
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(0.05)
    finally:
        stopping.uninstall()
        if stopping._watchdog is not None:
            stopping._watchdog.cancel()  # this test's process goes on
    assert stops == [1]
    assert stopping.signal_name == "SIGHUP"
    messages = [r.getMessage() for r in caplog.records]
    assert messages == ["stopping (SIGHUP)", "already stopping (SIGTERM again)"]


async def test_a_stop_that_hangs_ends_the_process_at_the_bound() -> None:
    exits: list[int] = []
    hung = asyncio.Event()

    async def stop() -> None:
        await hung.wait()

    stopping = Stopping(stop, bound=0.1, exit=exits.append)
    stopping.install()
    try:
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(0.4)
    finally:
        hung.set()
        stopping.uninstall()
    assert exits == [0]
