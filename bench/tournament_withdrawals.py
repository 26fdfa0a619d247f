"""Random tournaments with withdrawals and deadlines: no withdrawn player is ever champion.

Each tournament (knockout, round robin or Swiss, 3 to 8 players, 1-point
matches) is played through the core on a fresh SQLite store with a fake clock:
each round, every open match is decided by a forfeit, left to its round's
deadline (the player to move has had a full turn, then times out), or
interrupted by a withdrawal; a player withdraws now and then between results.
Every tournament must finish; its champion, if any, never withdrew, and every
withdrawn player ranks after everyone who finished (round robin, Swiss).

Prints how many tournaments ran, how many had withdrawals, how many ended with
no champion, and the time taken. Exit code 1 on a broken rule.

    .venv/bin/python -m bench.tournament_withdrawals [--tournaments 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import count
from pathlib import Path

from bot.core import GameService, PlayerRef
from bot.core.tournaments import ROUND_KIND, TournamentError, TournamentOptions
from bot.store import open_store
from engine import SeededDice

GUILD = 555
CHANNEL = 4242
ORGANISER = PlayerRef(1, "Olga")
FORMATS = ("knockout", "round_robin", "swiss")


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Figures:
    tournaments: int = 0
    with_withdrawals: int = 0
    no_champion: int = 0
    broken: list[str] = field(default_factory=list)


async def deliver(service: GameService, clock: Clock, threads: count) -> None:
    """Open what the outbox owes (a thread id, then the game); settle the rest."""
    t = service.tournaments
    for _ in range(200):
        owed = await service.deliveries.owed(clock.now + timedelta(seconds=1), limit=500)
        if not owed:
            return
        for delivery in owed:
            if delivery.kind == ROUND_KIND:
                for match in delivery.data["matches"]:
                    thread = await t.set_thread(match.pairing_id, next(threads))
                    outcome = await t.open_match(match, thread)
                    if outcome is not None:
                        await service.deliveries.delivered(outcome.owed)
            await service.deliveries.delivered(delivery.entries)
    raise AssertionError("the outbox never emptied")


async def one(service: GameService, clock: Clock, rng: random.Random, threads: count, number: int) -> tuple[bool, str]:
    """A random tournament to its end; (had withdrawals, the broken rule or "")."""
    t = service.tournaments
    fmt = rng.choice(FORMATS)
    n = rng.randint(3, 8)
    options = TournamentOptions(format=fmt, match_length=1, move_days=1, round_days=2)
    made = await t.create(GUILD, CHANNEL, ORGANISER, f"Cup {number}", options)
    players = [PlayerRef(10_000 * number + i, f"P{i}") for i in range(n)]
    for player in players:
        await t.join(made.id, player)
    await t.start(made.id, ORGANISER)
    gone: set[int] = set()
    for _ in range(60):
        await deliver(service, clock, threads)
        view = await t.get(made.id)
        if view.status != "running":
            break
        for table in [x for x in view.round_tables() if not x.decided]:
            roll = rng.random()
            still = [p for p in players if p.user_id not in gone]
            if roll < 0.15 and len(still) > 1:
                quitter = rng.choice(still)
                gone.add(quitter.user_id)
                try:
                    await t.withdraw(made.id, quitter)
                except TournamentError:
                    pass
            elif roll < 0.7 and table.game_id is not None:
                loser = rng.choice([table.a, table.b])
                try:
                    await service.forfeit(table.game_id, loser.user_id)  # type: ignore[union-attr]
                except Exception:  # noqa: BLE001 - decided meanwhile (a withdrawal)
                    pass
        view = await t.get(made.id)
        if view.status == "running" and any(not x.decided for x in view.round_tables()):
            clock.now = (view.round_deadline or clock.now) + timedelta(days=1, seconds=1)  # every turn had its time
            await service.deadlines.process_due(clock.now)
            await t.run_due(clock.now)
    view = await t.get(made.id)
    if view.status != "finished":
        return bool(gone), f"#{made.id} {fmt} of {n}: still {view.status}"
    withdrawn = {s.player.user_id for s in view.standings if s.standing.withdrawn}
    if view.champion is not None and view.champion.user_id in withdrawn:
        return True, f"#{made.id} {fmt} of {n}: a withdrawn champion"
    if fmt != "knockout" and withdrawn:
        finished = [s.standing.place for s in view.standings if not s.standing.withdrawn]
        left = [s.standing.place for s in view.standings if s.standing.withdrawn]
        if finished and left and min(left) <= max(finished):
            return True, f"#{made.id} {fmt} of {n}: a withdrawn player ranked among those who finished"
    return bool(gone), "" if view.champion is not None else "-"


async def run(tournaments: int, seed: int, path: str) -> Figures:
    clock = Clock()
    store = await open_store(path, clock=clock)
    service = GameService(store, dice=SeededDice(seed), clock=clock)
    rng = random.Random(seed)
    threads = count(900_000)
    figures = Figures()
    try:
        for number in range(1, tournaments + 1):
            had, broken = await one(service, clock, rng, threads, number)
            figures.tournaments += 1
            figures.with_withdrawals += had
            if broken == "-":
                figures.no_champion += 1
            elif broken:
                figures.broken.append(broken)
    finally:
        await store.close()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        figures = asyncio.run(run(args.tournaments, args.seed, str(Path(folder) / "bench.sqlite3")))
    took = time.perf_counter() - started
    print(
        f"{figures.tournaments} tournaments, {figures.with_withdrawals} with withdrawals, "
        f"{figures.no_champion} without a champion, {len(figures.broken)} broken rules, {took:.1f} s"
    )
    for line in figures.broken:
        print("  ", line)
    return 1 if figures.broken else 0


if __name__ == "__main__":
    sys.exit(main())
