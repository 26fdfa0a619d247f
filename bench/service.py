"""Benchmark of the game service: SQLite and PostgreSQL, one and two processes.

    .venv/bin/python -m bench.service [--games 200] [--actions 2000] [--backends sqlite,postgres]
                                      [--processes 1,2] [--pg-url URL]
        The comparison (the default, run by ``make bench``): for each backend
        and process count, N processes (as N bot processes on one database)
        each create ``--games`` games of their own, then all at once drive
        ``--actions`` actions each.  Prints one table: actions per second
        (all processes together), p50 and p99 latency of one service call.
        PostgreSQL is a throw-away server started for the run (initdb in a
        temporary folder, like the tests' ``pg_server`` fixture), unless
        ``--pg-url`` names a database to use; SQLite is a temporary file.

    .venv/bin/python -m bench.service --detail [--db PATH_OR_URL] [--games 1000] [--actions 5000]
                                      [--finish 200] [--concurrency 1] [--profile]
        The detailed single-process report (SQLite unless ``--db`` is a
        ``postgresql://`` URL):

        1. Creates ``--games`` active games (challenge + accept through the service).
        2. Drives ``--actions`` actions (rolls, plays chosen from
           ``view.legal_play_texts()``, now and then a double and a take or pass)
           across random games, each with the version a button would carry; a
           finished game is replaced by a new one in its channel.  Prints actions per
           second and the p50 / p99 latency of one service call.
        3. Plays ``--finish`` further games to the end and measures how much the file
           grows per finished game (SQLite only); the size per 10,000 finished games
           is an extrapolation of that.

Targets on a 2-core machine (one SQLite process): >= 500 actions/s, p99 <= 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import os
import pstats
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bot.core import ChallengeOptions, GameService, GameState, PlayerRef
from bot.store import open_store, parse_database_url
from engine import Phase, SeededDice

ROOT = Path(__file__).resolve().parents[1]

GUILD = 1


def players(i: int) -> tuple[PlayerRef, PlayerRef]:
    return PlayerRef(10_000 + 2 * i, f"player{2 * i}"), PlayerRef(10_001 + 2 * i, f"player{2 * i + 1}")


async def new_game(service: GameService, channel: int, i: int) -> GameState:
    a, b = players(i)
    ch = await service.challenges.create(GUILD, channel, a, b, ChallengeOptions(stake=1 + i % 5))
    return (await service.challenges.accept(ch.id, b.user_id)).state


async def act(service: GameService, state: GameState, rng: random.Random):
    """One action by whoever must act; returns the coroutine's result."""
    player = state.to_act()
    assert player is not None
    game, gid, uid, ver = state.game, state.id, player.user_id, state.version
    if game.phase is Phase.ROLL:
        if game.cube_value < 4 and game.can_double(game.turn) and rng.random() < 0.03:
            return await service.double(gid, uid, version=ver)
        return await service.roll(gid, uid, version=ver)
    if game.phase is Phase.PLAY:
        return await service.play(gid, uid, rng.choice(state.legal_play_texts()), version=ver)
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


async def run(args: argparse.Namespace, db: str) -> None:
    store = await open_store(db)
    service = GameService(store, dice=SeededDice(args.seed))
    rng = random.Random(args.seed)

    t0 = time.perf_counter()
    views: dict[int, GameState] = {}
    for i in range(args.games):
        views[i] = await new_game(service, 1_000_000 + i, i)
    setup = time.perf_counter() - t0
    print(f"setup: {args.games} games (challenge + accept) in {setup:.2f} s ({2 * args.games / setup:.0f} calls/s)")

    latencies: list[float] = []
    finished = 0
    counter = [args.games]
    lock_free = list(views)  # channels not being acted on right now

    async def worker(n: int) -> None:
        nonlocal finished
        for _ in range(n):
            slot = lock_free.pop(rng.randrange(len(lock_free)))
            state = views[slot]
            start = time.perf_counter()
            out = await act(service, state, rng)
            latencies.append(time.perf_counter() - start)
            state = out.state
            if not state.is_active:
                finished += 1
                counter[0] += 1
                state = await new_game(service, state.channel_id, counter[0])
            views[slot] = state
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
    print(
        f"stream: {len(lat)} actions over {args.games} active games, concurrency {args.concurrency}, "
        f"{finished} games finished on the way"
    )
    print(f"  throughput: {len(lat) / wall:.0f} actions/s  (wall {wall:.2f} s)")
    print(
        f"  latency per action: p50 {p50:.2f} ms, p99 {p99:.2f} ms, mean {statistics.fmean(lat) * 1000:.2f} ms, "
        f"max {lat[-1] * 1000:.2f} ms"
    )
    ok = len(lat) / wall >= 500 and p99 <= 20
    print(f"  target >= 500 actions/s and p99 <= 20 ms: {'met' if ok else 'MISSED'}")

    if profiler:
        stats = pstats.Stats(profiler)
        stats.sort_stats("cumulative").print_stats(35)
        stats.sort_stats("tottime").print_stats(20)

    # file growth per finished game
    if args.finish <= 0 or store.backend != "sqlite":
        await store.close()
        return
    before = file_size(Path(db))
    done = 0
    actions = 0
    for j in range(args.finish):
        state = await new_game(service, 2_000_000 + j, 500_000 + j)
        while state.is_active:
            state = (await act(service, state, rng)).state
            actions += 1
        done += 1
    after = file_size(Path(db))
    per_game = (after - before) / done
    print(
        f"size: {done} more games played to the end ({actions / done:.0f} actions each on average); "
        f"file grew {(after - before) / 1e6:.2f} MB = {per_game / 1024:.1f} KiB per finished game"
    )
    print(
        f"  database size per 10,000 finished games: {per_game * 10_000 / 1e6:.0f} MB "
        f"(extrapolated from {done} games; file now {after / 1e6:.1f} MB)"
    )
    await store.close()


# --------------------------------------------------------------------------
# The comparison: backends x processes
# --------------------------------------------------------------------------


async def worker(db: str, index: int, games: int, actions: int, seed: int) -> None:
    """One bot process: own games, wait for "go" on stdin, drive actions, print JSON latencies."""
    store = await open_store(db)
    service = GameService(store, dice=SeededDice(seed + index))
    rng = random.Random(seed * 1000 + index)
    base = (index + 1) * 10_000_000
    views = [await new_game(service, base + i, base // 2 + i) for i in range(games)]
    counter = games
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)  # the start line: every process is set up
    latencies: list[float] = []
    t_start = time.time()
    for _ in range(actions):
        slot = rng.randrange(len(views))
        start = time.perf_counter()
        state = (await act(service, views[slot], rng)).state
        latencies.append(time.perf_counter() - start)
        if not state.is_active:
            counter += 1
            state = await new_game(service, state.channel_id, base // 2 + counter)
        views[slot] = state
    t_end = time.time()
    await store.close()
    print(json.dumps({"start": t_start, "end": t_end, "latencies": latencies}), flush=True)


def measure(db: str, processes: int, games: int, actions: int, seed: int) -> dict[str, float]:
    """Run ``processes`` workers on ``db`` at once; throughput over the common window, pooled latencies."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.service",
                "--worker",
                str(k),
                "--db",
                db,
                "--games",
                str(games),
                "--actions",
                str(actions),
                "--seed",
                str(seed),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for k in range(processes)
    ]
    try:
        for p in procs:
            assert p.stdout is not None
            line = p.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"worker failed during setup: {line}{p.communicate()[1]}")
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        results = []
        for p in procs:
            out, err = p.communicate(timeout=1800)
            if p.returncode != 0:
                raise RuntimeError(f"worker failed: {err}")
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    lat = sorted(x for r in results for x in r["latencies"])
    wall = max(r["end"] for r in results) - min(r["start"] for r in results)
    return {
        "actions": len(lat),
        "per_second": len(lat) / wall,
        "p50": statistics.median(lat) * 1000,
        "p99": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
        "wall": wall,
    }


def _load_pg_server_helper() -> Any:
    """The tests' throw-away PostgreSQL server (``tests/conftest.py``: ``PgServer``, ``find_pg_bin``)."""
    from tests import conftest

    return conftest


@contextlib.contextmanager
def postgres_databases(pg_url: str | None) -> Iterator[Any]:
    """``make()`` -> the URL of a fresh database: on ``--pg-url``'s server, or a private one."""
    if pg_url:
        import asyncpg

        async def reset(url: str) -> None:
            conn = await asyncpg.connect(url)
            try:
                await conn.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
            finally:
                await conn.close()

        def reuse() -> str:
            asyncio.run(reset(pg_url))
            return pg_url

        yield reuse
        return
    helper = _load_pg_server_helper()
    bin_dir = helper.find_pg_bin()
    if bin_dir is None:
        raise SystemExit("PostgreSQL server binaries not found (`make postgres` installs them, or set PG_BIN)")
    server = helper.PgServer(bin_dir)
    try:
        server.initdb()
        server.start()
        yield lambda: server.create_database()[1]
    finally:
        server.cleanup()


def compare(args: argparse.Namespace) -> None:
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    counts = [int(n) for n in args.processes.split(",") if n.strip()]
    print(
        f"service bench: {args.games} games and {args.actions} actions per process, "
        f"{os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    rows: list[tuple[str, int, dict[str, float]]] = []
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        fresh_pg = stack.enter_context(postgres_databases(args.pg_url)) if "postgres" in backends else None
        for backend in backends:
            for n in counts:
                if backend == "sqlite":
                    db = str(Path(tmp) / f"bench-{n}.sqlite3")
                elif backend == "postgres":
                    assert fresh_pg is not None
                    db = fresh_pg()
                else:
                    raise SystemExit(f"unknown backend {backend!r} (sqlite, postgres)")
                result = measure(db, n, args.games, args.actions, args.seed)
                rows.append((backend, n, result))
                print(
                    f"  {backend:<10} {n} process{'es' if n > 1 else '  '}: {result['per_second']:6.0f} actions/s  "
                    f"p50 {result['p50']:6.2f} ms  p99 {result['p99']:6.2f} ms",
                    flush=True,
                )
    print()
    columns = ["processes"] + [f"{b} {what}" for b in backends for what in ("actions/s", "p50 ms", "p99 ms")]
    widths = [max(len(c), 9) for c in columns]
    print("| " + " | ".join(c.rjust(w) for c, w in zip(columns, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for n in counts:
        cells = [str(n)]
        for b in backends:
            r = next(r for bb, nn, r in rows if bb == b and nn == n)
            cells += [f"{r['per_second']:.0f}", f"{r['p50']:.2f}", f"{r['p99']:.2f}"]
        print("| " + " | ".join(c.rjust(w) for c, w in zip(cells, widths)) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--detail", action="store_true", help="the detailed single-process report")
    parser.add_argument("--games", type=int, help="active games to create (per process)")
    parser.add_argument("--actions", type=int, help="actions to drive (per process)")
    parser.add_argument(
        "--finish", type=int, default=200, help="--detail: games to play to the end for the size figure"
    )
    parser.add_argument("--concurrency", type=int, default=1, help="--detail: tasks acting at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", help="--detail: database file or URL (default: a temporary SQLite file)")
    parser.add_argument("--profile", action="store_true", help="--detail: cProfile the action stream")
    parser.add_argument("--backends", default="sqlite,postgres", help="comparison: sqlite, postgres or both")
    parser.add_argument("--processes", default="1,2", help="comparison: process counts, e.g. 1,2")
    parser.add_argument(
        "--pg-url", help="comparison: use this PostgreSQL database (it is wiped!) instead of a private server"
    )
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        asyncio.run(worker(args.db, args.worker, args.games, args.actions, args.seed))
        return
    if not args.detail:
        args.games = args.games or 200
        args.actions = args.actions or 2000
        compare(args)
        return
    args.games = args.games or 1000
    args.actions = args.actions or 5000
    if args.db:
        if parse_database_url(args.db).backend == "sqlite" and Path(args.db).exists():
            raise SystemExit(f"{args.db} exists; give a new file")
        asyncio.run(run(args, args.db))
        return
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(args, str(Path(tmp) / "bench.sqlite3")))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
