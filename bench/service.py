"""Benchmark of the game service on a real SQLite file.

    .venv/bin/python bench/service.py [--games 1000] [--actions 5000] [--finish 200]
                                      [--concurrency 1] [--profile]

1. Creates ``--games`` active games (challenge + accept through the service).
2. Drives ``--actions`` actions (rolls, plays chosen from
   ``view.legal_play_texts()``, now and then a double and a take or pass)
   across random games, each with the version a button would carry; a
   finished game is replaced by a new one in its channel.  Prints actions per
   second and the p50 / p99 latency of one service call.
3. Plays ``--finish`` further games to the end and measures how much the file
   grows per finished game; the size per 10,000 finished games is an
   extrapolation of that.

Targets on a 2-core machine: >= 500 actions/s, p99 <= 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.service import ChallengeOptions, GameService, GameView, PlayerRef  # noqa: E402
from bot.storage import Store  # noqa: E402
from engine import Phase, SeededDice  # noqa: E402

GUILD = 1


def players(i: int) -> tuple[PlayerRef, PlayerRef]:
    return PlayerRef(10_000 + 2 * i, f"player{2 * i}"), PlayerRef(10_001 + 2 * i, f"player{2 * i + 1}")


async def new_game(service: GameService, channel: int, i: int) -> GameView:
    a, b = players(i)
    ch = await service.challenge(GUILD, channel, a, b, ChallengeOptions(stake=1 + i % 5))
    return (await service.accept(ch.id, b.user_id)).view


async def act(service: GameService, view: GameView, rng: random.Random):
    """One action by whoever must act; returns the coroutine's result."""
    player = view.to_act()
    assert player is not None
    game, gid, uid, ver = view.game, view.id, player.user_id, view.version
    if game.phase is Phase.ROLL:
        if game.cube_value < 4 and game.can_double(game.turn) and rng.random() < 0.03:
            return await service.double(gid, uid, version=ver)
        return await service.roll(gid, uid, version=ver)
    if game.phase is Phase.PLAY:
        return await service.play(gid, uid, rng.choice(view.legal_play_texts()), version=ver)
    if game.phase is Phase.DOUBLED:
        if rng.random() < 0.15:
            return await service.pass_double(gid, uid, version=ver)
        return await service.take(gid, uid, version=ver)
    if game.phase is Phase.RESIGNATION:
        return await service.accept_resignation(gid, uid, version=ver)
    raise AssertionError(game.phase)


def file_size(path: Path) -> int:
    """Main file size after folding the WAL back in (so pages are counted once)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return path.stat().st_size


async def run(args: argparse.Namespace, db: Path) -> None:
    store = await Store.open(db)
    service = GameService(store, dice=SeededDice(args.seed))
    rng = random.Random(args.seed)

    t0 = time.perf_counter()
    views: dict[int, GameView] = {}
    for i in range(args.games):
        views[i] = await new_game(service, 1_000_000 + i, i)
    setup = time.perf_counter() - t0
    print(f"setup: {args.games} games (challenge + accept) in {setup:.2f} s "
          f"({2 * args.games / setup:.0f} calls/s)")

    latencies: list[float] = []
    finished = 0
    counter = [args.games]
    lock_free = list(views)  # channels not being acted on right now

    async def worker(n: int) -> None:
        nonlocal finished
        for _ in range(n):
            slot = lock_free.pop(rng.randrange(len(lock_free)))
            view = views[slot]
            start = time.perf_counter()
            out = await act(service, view, rng)
            latencies.append(time.perf_counter() - start)
            view = out.view
            if not view.is_active:
                finished += 1
                counter[0] += 1
                view = await new_game(service, view.channel_id, counter[0])
            views[slot] = view
            lock_free.append(slot)

    per = [args.actions // args.concurrency] * args.concurrency
    per[0] += args.actions - sum(per)
    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    t0 = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in per))
    wall = time.perf_counter() - t0
    if profiler:
        profiler.disable()
    lat = sorted(latencies)
    p50 = statistics.median(lat) * 1000
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
    print(f"stream: {len(lat)} actions over {args.games} active games, concurrency {args.concurrency}, "
          f"{finished} games finished on the way")
    print(f"  throughput: {len(lat) / wall:.0f} actions/s  (wall {wall:.2f} s)")
    print(f"  latency per action: p50 {p50:.2f} ms, p99 {p99:.2f} ms, mean {statistics.fmean(lat) * 1000:.2f} ms, "
          f"max {lat[-1] * 1000:.2f} ms")
    ok = len(lat) / wall >= 500 and p99 <= 20
    print(f"  target >= 500 actions/s and p99 <= 20 ms: {'met' if ok else 'MISSED'}")

    if profiler:
        stats = pstats.Stats(profiler)
        stats.sort_stats("cumulative").print_stats(35)
        stats.sort_stats("tottime").print_stats(20)

    # file growth per finished game
    if args.finish <= 0:
        await store.close()
        return
    before = file_size(db)
    done = 0
    actions = 0
    for j in range(args.finish):
        view = await new_game(service, 2_000_000 + j, 500_000 + j)
        while view.is_active:
            view = (await act(service, view, rng)).view
            actions += 1
        done += 1
    after = file_size(db)
    per_game = (after - before) / done
    print(f"size: {done} more games played to the end ({actions / done:.0f} actions each on average); "
          f"file grew {(after - before) / 1e6:.2f} MB = {per_game / 1024:.1f} KiB per finished game")
    print(f"  database size per 10,000 finished games: {per_game * 10_000 / 1e6:.0f} MB "
          f"(extrapolated from {done} games; file now {after / 1e6:.1f} MB)")
    await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="active games to create")
    parser.add_argument("--actions", type=int, default=5000, help="actions to drive")
    parser.add_argument("--finish", type=int, default=200, help="games to play to the end for the size figure")
    parser.add_argument("--concurrency", type=int, default=1, help="tasks acting at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", type=Path, help="database file (default: a temporary one)")
    parser.add_argument("--profile", action="store_true", help="cProfile the action stream")
    args = parser.parse_args()
    if args.db:
        if args.db.exists():
            raise SystemExit(f"{args.db} exists; give a new file")
        asyncio.run(run(args, args.db))
        return
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(args, Path(tmp) / "bench.sqlite3"))
    os.sys.stdout.flush()


if __name__ == "__main__":
    main()
