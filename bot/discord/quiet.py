"""Quiet moments: work no player waits for waits for the bot to keep up.

A saturated bot's boards already queue for the drawing workers. Work nobody
waits on (a finished game's analysis, crediting an outage to every game's
clock), started then, only makes every one of them later: on the load bench,
an analysis in the idle class still took some 7% of the cores, and crediting
100,000 games' clocks at once made the boards of the first ten seconds half
as slow again. Such work waits until the drawing workers have had room for
every board for a moment (:data:`QUIET_SECONDS`), or for its patience,
however busy the bot is.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

QUIET_SECONDS = 1.0
"""Work waiting for a quiet moment starts once the drawing workers have had room for every board this long."""
POLL_SECONDS = 0.5
"""How often work waiting for a quiet moment looks whether it has come."""


async def until_quiet(
    since: float,
    patience: float,
    *,
    kept_up_for: Callable[[], float],
    clock: Callable[[], float] = time.monotonic,
    quiet: float = QUIET_SECONDS,
    poll: float = POLL_SECONDS,
) -> None:
    """Until the bot has kept up with its boards for ``quiet`` seconds (``kept_up_for``:
    the drawing workers', passed in, so that this module stands below the boards),
    or ``patience`` seconds have passed since ``since`` (both by ``clock``)."""
    while kept_up_for() < quiet and clock() - since < patience:
        await asyncio.sleep(poll)
