"""The metrics' own CPU per interaction (``HEALTH_PORT`` set), measured directly.

The end-to-end load bench (``python -m bench.e2e_load --env HEALTH_PORT=9102`` against
the same without) compares the bot's CPU per interaction with metrics on and off,
but on a shared machine its runs vary by more than the microseconds measured
here. This times what metrics add to each interaction: the family lookup and the
count at arrival, the wrapped callback (:class:`bot.discord.instruments.AnswerTimer`)
and its histogram, and a board's histogram. Prints microseconds per interaction
and their share of the bot's CPU per interaction (``--bot-ms``, from the load bench).

    python -m bench.metrics_cost [--bot-ms 6.35]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any, cast

from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot.discord.instruments import AnswerTimer, FamilyOf
from bot.ops.metrics import Metrics

N = 50_000


class FakeTree:
    def walk_commands(self) -> list[Any]:
        return []


class Adapter:
    async def create_interaction_response(self, interaction_id: int, token: str, **kwargs: Any) -> None:
        return None


async def run(timed: bool) -> float:
    adapter = Adapter()
    async_context.set(cast(AsyncWebhookAdapter, adapter))  # what AnswerTimer wraps: only its callback is used
    metrics = Metrics()
    family_of = FamilyOf(FakeTree())  # type: ignore[arg-type]
    timer = AnswerTimer(metrics)
    if timed:
        timer.install()
    clicks: list[dict[str, Any]] = [
        {"id": str(n), "type": 3, "data": {"custom_id": f"bg:roll:{n}:3"}} for n in range(N)
    ]
    start = time.process_time()
    for data in clicks:
        if timed:
            metrics.received(int(data["id"]), family_of(data))
        await adapter.create_interaction_response(int(data["id"]), "token")
        if timed:
            metrics.board_posted(time.time() - 0.2)
    used = time.process_time() - start
    timer.uninstall()
    return used / N * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot-ms", type=float, default=6.35, help="the bot's CPU per interaction, metrics off (ms)")
    args = parser.parse_args()
    off, on = [], []
    for _ in range(5):  # alternated, the least of each: the machine's other work only adds
        off.append(asyncio.run(run(False)))
        on.append(asyncio.run(run(True)))
    added = min(on) - min(off)
    print(f"per interaction: {min(off):.1f} us without metrics, {min(on):.1f} us with them")
    print(
        f"metrics add {added:.1f} us per interaction: {added / (args.bot_ms * 1000) * 100:.2f}% of the bot's {args.bot_ms} ms"
    )


if __name__ == "__main__":
    main()
