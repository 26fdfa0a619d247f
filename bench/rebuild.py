"""Benchmark: rebuilding a long match, with and without its stored snapshot.

    .venv/bin/python -m bench.rebuild [--actions 1000] [--every 50] [--repeat 20]
                                      [--backends sqlite,postgres] [--pg-url URL]

Plays one long match (a 25-point match, provably fair dice) through the game
service until its log holds ``--actions`` actions, the service storing a
snapshot every ``--every`` actions (``Limits.snapshot_every``). Then, on each
backend, measures what a process that does not have the game in memory pays
to get it back (``service.lookups.get_game`` on a service with an empty cache:
the row, then the snapshot and the tail, or the whole log, and the rebuild),
with the snapshot and with it deleted (the whole log replayed), p50 and max
of ``--repeat`` runs; and the engine's part alone (``GameCache.rebuild``:
parse the snapshot and replay the tail, or replay the whole log). Also prints
the snapshot's size and the time to write it out (paid once every
``--every`` actions). PostgreSQL is a throw-away server (as bench/service.py),
unless ``--pg-url`` names a database to use (its schema is dropped first).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench.service import act, postgres_databases
from bot.core import ChallengeOptions, GameService, Limits, PlayerRef
from bot.store import open_store
from engine import format_snapshot
from engine.snapshot import FORMAT

A, B = PlayerRef(20_001, "Ann"), PlayerRef(20_002, "Ben")


async def long_match(service: GameService, target: int, seed: int) -> int | None:
    """A 25-point match played to ``target`` actions (None if it ended first)."""
    rng = random.Random(seed)
    challenge = await service.challenges.create(1, 900 + seed, A, B, ChallengeOptions(match_length=25))
    state = (await service.challenges.accept(challenge.id, B.user_id)).state
    while state.version < target:
        if not state.is_active:
            return None
        state = (await act(service, state, rng)).state
    return state.id


def timed(samples: list[float]) -> str:
    return f"p50 {statistics.median(samples) * 1000:7.2f} ms   max {max(samples) * 1000:7.2f} ms"


async def bench(db: str, label: str, args: argparse.Namespace) -> None:
    store = await open_store(db)
    try:
        player = GameService(store, limits=Limits(snapshot_every=args.every))
        game_id = None
        for seed in range(50):
            game_id = await long_match(player, args.actions, seed)
            if game_id is not None:
                break
        assert game_id is not None, "no match lasted that long"
        row, actions = await store.games.with_actions(game_id)
        log = [a.action for a in actions]
        snapshot = await store.games.snapshot(game_id)
        assert snapshot is not None and snapshot.format == FORMAT
        tail = log[snapshot.version :]

        async def fresh_get() -> float:
            service = GameService(store)  # nothing in memory, as another process
            start = time.perf_counter()
            state = await service.lookups.get_game(game_id)
            took = time.perf_counter() - start
            assert state.version == row.version
            return took

        with_snapshot = [await fresh_get() for _ in range(args.repeat)]
        engine_with = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            player.cache.rebuild(row.settings, tail, snapshot.state)
            engine_with.append(time.perf_counter() - start)
        engine_without = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            player.cache.rebuild(row.settings, log)
            engine_without.append(time.perf_counter() - start)
        match = player.cache.rebuild(row.settings, log)
        writes = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            format_snapshot(match)
            writes.append(time.perf_counter() - start)

        async def forget(tx) -> None:
            await tx.execute("DELETE FROM game_snapshots WHERE game_id = ?", (game_id,))

        await store.db.transact(forget)
        without_snapshot = [await fresh_get() for _ in range(args.repeat)]

        print(
            f"\n{label}: game #{game_id}, {row.version} actions, {len(match.games)} games, "
            f"snapshot at version {snapshot.version} ({len(snapshot.state):,} characters), tail {len(tail)}"
        )
        print(f"  get_game, fresh process, with snapshot     {timed(with_snapshot)}")
        print(f"  get_game, fresh process, whole log replay  {timed(without_snapshot)}")
        print(f"  rebuild (engine), snapshot + tail          {timed(engine_with)}")
        print(f"  rebuild (engine), whole log                {timed(engine_without)}")
        print(f"  writing the snapshot (every {args.every} actions)  {timed(writes)}")
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--every", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--pg-url")
    args = parser.parse_args()
    backends = args.backends.split(",")
    if "sqlite" in backends:
        with tempfile.TemporaryDirectory() as folder:
            asyncio.run(bench(str(Path(folder) / "bench.sqlite3"), "SQLite", args))
    if "postgres" in backends:
        with postgres_databases(args.pg_url) as make:
            asyncio.run(bench(make(), "PostgreSQL", args))


if __name__ == "__main__":
    main()
