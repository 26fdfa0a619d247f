"""Benchmark of kibitzer polls in the core (no Discord): what they add to a game's turn.

    .venv/bin/python bench/kibitzers.py [--games 50] [--onlookers 10] [--turns 6] [--db PATH]

Starts ``--games`` games on a temporary SQLite store (or ``--db``); on each of
``--turns`` decisions of every game, ``--onlookers`` members answer the poll
(:meth:`bot.core.kibitzers.Kibitzers.vote`), then the player acts and the poll
is revealed (:meth:`~bot.core.kibitzers.Kibitzers.reveal_after`: the player's
choice, the net's verdict at 0-ply in a worker thread, the reveal owed to the
outbox). Prints the p50 / p99 of one answer, of one reveal, and the cost of
working out a board's poll (:func:`~bot.core.kibitzers.poll_of`, done for every
board drawn).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core import GameService  # noqa: E402
from bot.core.advice import Advice  # noqa: E402
from bot.core.kibitzers import Kibitzers, poll_of  # noqa: E402
from bot.core.model import ChallengeOptions, PlayerRef  # noqa: E402
from bot.store import open_store  # noqa: E402
from engine import Phase, SeededDice  # noqa: E402

GUILD = 1


def quantiles(values: list[float]) -> str:
    values = sorted(values)
    if not values:
        return "-"
    p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
    return f"p50 {statistics.median(values) * 1000:7.2f} ms · p99 {p99 * 1000:7.2f} ms · n {len(values)}"


async def run(args: argparse.Namespace) -> None:
    folder = tempfile.mkdtemp(prefix="bg-kibitz-")
    store = await open_store(args.db or str(Path(folder) / "bg.sqlite3"))
    service = GameService(store, dice=SeededDice(args.seed))
    advice = Advice(service)
    kibitzers = Kibitzers(store, service.clock, service.lookups.get_game, service.deliveries, advice=lambda: advice)
    rng = random.Random(args.seed)
    games = []
    for number in range(args.games):
        a, b = PlayerRef(10_000 + 2 * number, f"a{number}"), PlayerRef(10_001 + 2 * number, f"b{number}")
        challenge = await service.challenges.create(GUILD, 1000 + number, a, b, ChallengeOptions())
        games.append((await service.challenges.accept(challenge.id, b.user_id)).state.id)
    votes: list[float] = []
    reveals: list[float] = []
    polls: list[float] = []
    onlookers = [1_000_000 + i for i in range(args.onlookers)]
    for _ in range(args.turns):
        for game_id in games:
            state = await service.lookups.get_game(game_id)
            # the next decision a poll can ask: roll past a position with nothing to ask
            for _ in range(6):
                started = time.perf_counter()
                poll = poll_of(state)
                polls.append(time.perf_counter() - started)
                if poll is not None or not state.is_active:
                    break
                actor = state.to_act()
                assert actor is not None
                if state.game.phase is Phase.ROLL:
                    state = (await service.roll(game_id, actor.user_id)).state
                elif state.game.phase is Phase.PLAY:
                    state = (await service.play(game_id, actor.user_id, state.legal_play_texts()[0])).state
                else:
                    break
            if poll is None:
                continue
            for member in onlookers:
                started = time.perf_counter()
                await kibitzers.vote(state, state.version, member, rng.choice(poll.answers))
                votes.append(time.perf_counter() - started)
            actor = state.to_act()
            assert actor is not None
            if poll.kind == "play":
                state = (await service.play(game_id, actor.user_id, rng.choice(poll.answers))).state
            elif poll.kind == "cube":
                state = (await service.roll(game_id, actor.user_id)).state
            else:
                state = (await service.take(game_id, actor.user_id)).state
            started = time.perf_counter()
            await kibitzers.reveal_after(state)
            reveals.append(time.perf_counter() - started)
    print(f"{args.games} games, {args.onlookers} onlookers, {args.turns} decisions each ({store.backend})")
    print(f"  a board's poll worked out: {quantiles(polls)}")
    print(f"  one answer stored:         {quantiles(votes)}")
    print(f"  one reveal (net, 0-ply):   {quantiles(reveals)}")
    await advice.close()
    await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--onlookers", type=int, default=10)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--db", default=None)
    parser.add_argument("--seed", type=int, default=7)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
