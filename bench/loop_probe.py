"""The bot's real entry point with a probe on its event loop (for ``bench/loop_stall.py``).

    LOOP_PROBE_FILE=stalls.txt python tests/e2e/launcher.py bench/loop_probe.py:main

Runs ``bot.__main__:main`` unchanged, except that once the bot has set itself up a
task wakes every :data:`PERIOD` seconds and writes a line ``<monotonic time>
<seconds late>`` to ``LOOP_PROBE_FILE`` whenever it woke more than
:data:`REPORT_OVER` late: the event loop was held that long by something else.
``time.monotonic`` is one clock for every process of the machine, so the bench
can tell which stalls fell inside its storm.
"""

from __future__ import annotations

import asyncio
import os
import time

PERIOD = 0.005
REPORT_OVER = 0.010


async def probe(path: str) -> None:
    with open(path, "a", buffering=1, encoding="ascii") as out:
        out.write(f"{time.monotonic():.6f} 0.000000\n")  # the probe runs
        while True:
            start = time.monotonic()
            await asyncio.sleep(PERIOD)
            late = time.monotonic() - start - PERIOD
            if late > REPORT_OVER:
                out.write(f"{time.monotonic():.6f} {late:.6f}\n")


def main() -> int:
    from bot.__main__ import main as bot_main
    from bot.discord.client import BackgammonBot

    path = os.environ["LOOP_PROBE_FILE"]
    setup_hook = BackgammonBot.setup_hook
    tasks: set[asyncio.Task[None]] = set()

    async def probed_setup_hook(self: BackgammonBot) -> None:
        await setup_hook(self)
        tasks.add(asyncio.get_running_loop().create_task(probe(path), name="loop-probe"))

    BackgammonBot.setup_hook = probed_setup_hook  # type: ignore[method-assign]
    return bot_main()
