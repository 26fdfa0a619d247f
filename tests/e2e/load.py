"""Many games at once: simulated players in many channels, and the figures.

Used by ``tests/e2e/test_e2e_load.py`` (a few dozen games) and by
``bench/e2e_load.py`` (200 games).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.fake_discord import FakeDiscord, Interaction
from tests.e2e.players import GameDriver, private_answer


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def first_response_ms(interactions: list[Interaction]) -> list[float]:
    return [i.first_response_latency * 1000 for i in interactions if i.first_response_latency is not None]


def board_ms(interactions: list[Interaction]) -> list[float]:
    return [i.board_latency * 1000 for i in interactions if i.board_latency is not None]


@dataclass
class LoadResult:
    games: int
    finished: int
    seconds: float
    actions: list[tuple[str, Interaction]]
    """Every interaction with what it was (``challenge``, ``accept``, ``play``, ``roll``, ...)."""
    missed: int
    unexpected_private: list[str]
    errors: list[str] = field(default_factory=list)

    @property
    def interactions(self) -> list[Interaction]:
        return [inter for _, inter in self.actions]

    @property
    def first_response_ms(self) -> list[float]:
        return first_response_ms(self.interactions)

    @property
    def board_ms(self) -> list[float]:
        return board_ms(self.interactions)

    def by_kind(self) -> dict[str, dict[str, Any]]:
        """Count, p50/p99 first response and p50/p99 board image (ms) of each kind of
        interaction, in the order the kinds first occur: it shows which step makes the tail."""
        grouped: dict[str, list[Interaction]] = {}
        for kind, inter in self.actions:
            grouped.setdefault(kind, []).append(inter)
        table = {}
        for kind, inters in grouped.items():
            first, board = first_response_ms(inters), board_ms(inters)
            row: dict[str, Any] = {
                "n": len(inters),
                "first_p50": round(percentile(first, 50), 1),
                "first_p99": round(percentile(first, 99), 1),
            }
            if board:
                row.update(board_p50=round(percentile(board, 50), 1), board_p99=round(percentile(board, 99), 1))
            table[kind] = row
        return table

    def figures(self) -> dict[str, Any]:
        first, board = self.first_response_ms, self.board_ms
        return {
            "games": self.games,
            "finished": self.finished,
            "interactions": len(self.interactions),
            "seconds": round(self.seconds, 2),
            "interactions_per_s": round(len(self.interactions) / self.seconds, 1) if self.seconds else 0.0,
            "first_response_ms": {
                "p50": round(percentile(first, 50), 1),
                "p99": round(percentile(first, 99), 1),
                "max": round(max(first, default=float("nan")), 1),
                "n": len(first),
            },
            "board_ms": {
                "p50": round(percentile(board, 50), 1),
                "p99": round(percentile(board, 99), 1),
                "max": round(max(board, default=float("nan")), 1),
                "n": len(board),
            },
            "missed_deadlines": self.missed,
            "unexpected_private_answers": len(self.unexpected_private),
            "errors": len(self.errors),
            "by_kind": self.by_kind(),
        }

    def summary(self) -> str:
        f = self.figures()
        return (
            f"{f['games']} games ({f['finished']} finished), {f['interactions']} interactions in {f['seconds']} s "
            f"= {f['interactions_per_s']} interactions/s\n"
            f"first response: p50 {f['first_response_ms']['p50']} ms, p99 {f['first_response_ms']['p99']} ms, "
            f"max {f['first_response_ms']['max']} ms (n={f['first_response_ms']['n']})\n"
            f"board image:    p50 {f['board_ms']['p50']} ms, p99 {f['board_ms']['p99']} ms, "
            f"max {f['board_ms']['max']} ms (n={f['board_ms']['n']})\n"
            f"missed deadlines: {f['missed_deadlines']}, unexpected private answers: {f['unexpected_private_answers']}, "
            f"errors: {f['errors']}\n"
            + "\n".join(
                f"  {kind:<12} n={row['n']:<4} first p50 {row['first_p50']:>6} p99 {row['first_p99']:>6} ms"
                + (f" | board p50 {row['board_p50']:>6} p99 {row['board_p99']:>6} ms" if "board_p50" in row else "")
                for kind, row in f["by_kind"].items()
            )
        )


async def run_games(
    fake: FakeDiscord,
    games: int,
    *,
    plays_before_double: int | None = None,
    timeout: float = 30.0,
    stagger: float = 0.0,
    think: tuple[float, float] = (0.0, 0.0),
    full: bool = False,
) -> LoadResult:
    """``games`` games at once, each in its own channel between two new users. Short games
    (the default) end by double/pass after ``plays_before_double`` (2) plays; ``full`` games
    are played to the end, a double taken every ``plays_before_double`` (20) plays.
    Players act at once, or after a time drawn from ``think`` (seconds, uniform; seeded per game)."""
    if plays_before_double is None:
        plays_before_double = 20 if full else 2
    drivers = []
    for n in range(games):
        channel = fake.add_channel(f"load-{n}")
        a, b = fake.add_user(f"load{n}a"), fake.add_user(f"load{n}b")
        drivers.append(
            GameDriver(
                fake,
                channel,
                a,
                b,
                plays_before_double=plays_before_double,
                timeout=timeout,
                think=think,
                rng=random.Random(n),
                full=full,
            )
        )
    await asyncio.sleep(0.2)  # CHANNEL_CREATEs reach the bot
    errors: list[str] = []

    async def one(index: int, driver: GameDriver) -> bool:
        if stagger:
            await asyncio.sleep(stagger * index)
        try:
            await driver.start()
            await driver.play_out()
            return True
        except Exception as error:  # noqa: BLE001 - collected and reported
            errors.append(f"game in {driver.channel['name']}: {type(error).__name__}: {str(error)[:2000]}")
            return False

    started = time.monotonic()
    done = await asyncio.gather(*(one(i, d) for i, d in enumerate(drivers)))
    seconds = time.monotonic() - started
    actions = [action for d in drivers for action in d.actions]
    private = []
    for _, inter in actions:
        for message_id in inter.messages:
            message = fake.messages.get(message_id)
            if message is not None and private_answer(message):
                private.append(message["content"])
    return LoadResult(games, sum(done), seconds, actions, len(fake.missed_deadlines()), private, errors)


def spread(values: list[float]) -> str:
    if len(values) < 2:
        return ""
    return f"mean {statistics.mean(values):.1f} ms, stdev {statistics.stdev(values):.1f} ms"
