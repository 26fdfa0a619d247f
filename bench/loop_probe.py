"""The bot's real entry point with a probe on its event loop (for ``bench/loop_stall.py``).

    LOOP_PROBE_FILE=stalls.txt python -m tests.e2e.launcher bench.loop_probe:main

Runs ``bot.__main__:main`` unchanged, except that once the bot has set itself up a
task wakes every :data:`PERIOD` seconds and writes a line ``<monotonic time>
<seconds late>`` to ``LOOP_PROBE_FILE`` whenever it woke more than
:data:`REPORT_OVER` late: the event loop was held that long by something else.
``time.monotonic`` is one clock for every process of the machine, so the bench
can tell which stalls fell inside its storm.

With ``LOOP_PROBE_STACKS=1`` a watchdog thread also writes (as ``#`` lines) where
the loop's thread was when it had not woken the probe for :data:`STACK_AFTER`
seconds: what to look at when a stall is found.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
import traceback

PERIOD = 0.005
REPORT_OVER = 0.010
STACK_AFTER = 0.040


async def probe(path: str, beat: list[float]) -> None:
    with open(path, "a", buffering=1, encoding="utf-8") as out:
        out.write(f"{time.monotonic():.6f} 0.000000\n")  # the probe runs
        while True:
            start = time.monotonic()
            beat[0] = start
            await asyncio.sleep(PERIOD)
            late = time.monotonic() - start - PERIOD
            if late > REPORT_OVER:
                out.write(f"{time.monotonic():.6f} {late:.6f}\n")


def watchdog(path: str, beat: list[float], loop_thread: int) -> None:
    """Where the loop's thread is while it does not wake the probe (one stack a stall)."""
    reported = 0.0
    with open(path, "a", buffering=1, encoding="utf-8") as out:
        while True:
            time.sleep(STACK_AFTER / 4)
            last = beat[0]
            if last and last != reported and time.monotonic() - last > STACK_AFTER:
                reported = last
                frame = sys._current_frames().get(loop_thread)
                stack = "".join(traceback.format_stack(frame, limit=12)) if frame else "?"
                out.write("".join(f"# {line}\n" for line in stack.splitlines()) + "# --\n")


def main() -> int:
    from bot.__main__ import main as bot_main
    from bot.discord.client import BackgammonBot

    path = os.environ["LOOP_PROBE_FILE"]
    setup_hook = BackgammonBot.setup_hook
    tasks: set[asyncio.Task[None]] = set()
    beat = [0.0]

    async def probed_setup_hook(self: BackgammonBot) -> None:
        await setup_hook(self)
        tasks.add(asyncio.get_running_loop().create_task(probe(path, beat), name="loop-probe"))
        if os.environ.get("LOOP_PROBE_STACKS") == "1":
            threading.Thread(target=watchdog, args=(path + ".stacks", beat, threading.get_ident()), daemon=True).start()

    BackgammonBot.setup_hook = probed_setup_hook  # type: ignore[method-assign]
    return bot_main()
