"""Draw the tournament pictures in docs/ from tournaments the core really runs.

Each tournament is created, joined, started and played (the matches opened as
the Discord layer would, decided by forfeits, the better seed mostly winning)
on a throwaway SQLite database, then drawn exactly as the bot draws it
(:func:`bot.discord.tourneys.picture_of`)::

    .venv/bin/python -m scripts.tournament_pictures            # docs/bracket-4.png, -16, -64, docs/standings-swiss.png
    .venv/bin/python -m scripts.tournament_pictures --out /tmp
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from itertools import count
from pathlib import Path

from bot.core import GameService, PlayerRef
from bot.core.tournaments import ROUND_KIND, TournamentOptions, TournamentView
from bot.discord.tourneys import picture_of
from bot.store import open_store
from engine import SeededDice

NAMES = [
    "Alice",
    "Bob",
    "Carmen",
    "Dmitri",
    "Eve",
    "Farid",
    "Gwendolyn Fairweather",
    "Héctor",
    "Ingrid",
    "Jamal",
    "Kenji",
    "Lena",
    "Mateo",
    "Nadia",
    "Oskar",
    "Priya",
    "Quentin",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zoë",
]


def people(n: int) -> list[PlayerRef]:
    return [
        PlayerRef(1000 + i, NAMES[i % len(NAMES)] + (f" {i // len(NAMES) + 1}" if i >= len(NAMES) else ""))
        for i in range(n)
    ]


async def open_matches(service: GameService, threads: count) -> None:
    deliveries = service.deliveries
    for delivery in await deliveries.owed(service.clock(), limit=500):
        if delivery.kind == ROUND_KIND:
            for match in delivery.data["matches"]:
                thread = await service.tournaments.set_thread(match.pairing_id, next(threads))
                outcome = await service.tournaments.open_match(match, thread)
                if outcome is not None:
                    await deliveries.delivered(outcome.owed)
        await deliveries.delivered(delivery.entries)


async def play(
    service: GameService, view: TournamentView, rounds: float, rng: random.Random, threads: count
) -> TournamentView:
    """Decide whole rounds (and, for a fraction, that share of the next round's tables)."""
    seeds = {e.player.user_id: e.seed or 0 for e in view.entrants}
    whole, part = int(rounds), rounds - int(rounds)
    for number in range(whole + (1 if part else 0)):
        await open_matches(service, threads)
        view = await service.tournaments.get(view.id)
        tables = [t for t in view.round_tables() if not t.decided and t.game_id is not None]
        if number == whole:
            tables = tables[: round(len(tables) * part)]
        for table in tables:
            assert table.a is not None and table.b is not None and table.game_id is not None
            better, worse = sorted((table.a, table.b), key=lambda p: seeds[p.user_id])
            loser = worse if rng.random() < 0.7 else better
            assert loser is not None
            await service.forfeit(table.game_id, loser.user_id)
    await open_matches(service, threads)
    return await service.tournaments.get(view.id)


async def tournament(
    service: GameService, name: str, n: int, fmt: str = "knockout", **options: object
) -> TournamentView:
    organiser = PlayerRef(1, "Olga")
    made = await service.tournaments.create(555, 4242, organiser, name, TournamentOptions(format=fmt, **options))  # type: ignore[arg-type]
    for player in people(n):
        await service.tournaments.join(made.id, player)
    return await service.tournaments.start(made.id, organiser)


async def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = await open_store(str(Path(folder) / "t.sqlite3"))
        service = GameService(store, dice=SeededDice(1))
        threads = count(900_000)
        rng = random.Random(20)
        cases = [
            ("bracket-4.png", await tournament(service, "Friday Night Cup", 4, match_length=5), 2),
            ("bracket-16.png", await tournament(service, "Spring Open", 16, match_length=7), 2.5),
            ("bracket-64.png", await tournament(service, "Grand Knockout", 64, match_length=3), 2.5),
            ("standings-swiss.png", await tournament(service, "Autumn Swiss", 13, "swiss", swiss_rounds=4), 2.5),
        ]
        for filename, view, rounds in cases:
            view = await play(service, view, rounds, rng, threads)
            picture = picture_of(view)
            assert picture is not None
            (out / filename).write_bytes(picture.draw())
            print(
                f"{out / filename}: {view.name}, {view.field_size} players, {view.status}, round {view.round} of {view.rounds}"
            )
        await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "docs")
    asyncio.run(main(parser.parse_args().out))
