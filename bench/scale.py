"""Scale: the bot's reads on a large store (see bench/build_store.py).

    .venv/bin/python -m bench.scale [--db bench/.stores/big.sqlite | postgresql://...] [--repeat 200]
        [--touch 20000] [--shards 2] [--only queries,memory,startup] [--json]

On a store made by ``bench/build_store.py`` (default: the SQLite one it
makes), through the same core calls the commands make:

1. **Open**: how long until the service is open on it (migrations checked).
2. **Queries**: p50 / p99 of each read a command or the scheduler makes,
   ``--repeat`` times each on varied members (the biggest server and its
   busiest members included, since those are the slow cases): the server's
   leaderboard (first page, a deep page and the points order), the global
   leaderboard, ``/bg stats`` (server and global), ``/bg history`` (own and
   someone else's), ``/bg games``, the rating chart's history, dice counts,
   a deadline sweep's reads (deadlines, reminders, expiries, next wake-up;
   with ``--shards 2`` as shard 0 of 2), and a cold game (its row and log,
   rebuilt). Target: p99 <= 20 ms each.
3. **Memory**: RSS after touching ``--touch`` active games (a busy week),
   in steps, and the longest full garbage collection after it.

Prints one table; ``--json`` prints the figures as JSON too. The store is
only read (the sweep's reads claim nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import json
import os
import random
import resource
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.__main__ import settle_memory
from bot.core import GameService

HERE = Path(__file__).resolve().parent

DEFAULT_DB = HERE / ".stores" / "big.sqlite"
TARGET_P99_MS = 20.0


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass(frozen=True, slots=True)
class Sample:
    """Who and what to ask about: the biggest server, its busiest members, random ones."""

    guild: int
    guild_members: int
    busiest: list[int]
    members: list[int]
    guilds: list[int]
    active: list[tuple[int, int, int]]
    """(game id, guild id, player 0) of each active game."""
    games: int


async def sample(service: GameService) -> Sample:
    db = service.store.db
    big = await db.fetchone(
        "SELECT scope, COUNT(*) AS n FROM ratings WHERE scope <> 0 GROUP BY scope ORDER BY n DESC LIMIT 1"
    )
    assert big is not None, "an empty store: build one with bench/build_store.py"
    guild = int(big["scope"])
    busiest = [
        int(r["user_id"])
        for r in await db.fetchall("SELECT user_id FROM ratings WHERE scope = 0 ORDER BY games DESC LIMIT 20")
    ]
    members = [
        int(r["user_id"])
        for r in await db.fetchall("SELECT user_id FROM ratings WHERE scope = ? ORDER BY user_id LIMIT 2000", (guild,))
    ]
    guilds = [int(r["scope"]) for r in await db.fetchall("SELECT DISTINCT scope FROM ratings WHERE scope <> 0")]
    active = await db.fetchall("SELECT id, guild_id, player0 FROM games WHERE status = 'active'")
    count = await db.fetchone("SELECT COUNT(*) AS n FROM games")
    return Sample(
        guild=guild,
        guild_members=int(big["n"]),
        busiest=busiest,
        members=members,
        guilds=guilds,
        active=[(int(r["id"]), int(r["guild_id"]), int(r["player0"])) for r in active],
        games=int(count["n"]) if count else 0,
    )


async def timed(calls: list[Callable[[], Awaitable[Any]]]) -> list[float]:
    out = []
    for call in calls:
        t = time.perf_counter()
        await call()
        out.append((time.perf_counter() - t) * 1000)
    return out


async def queries(service: GameService, s: Sample, repeat: int, shards: int, rng: random.Random) -> dict[str, Any]:
    sched = service.store.schedule
    mixed = [s.busiest[i % len(s.busiest)] if i % 4 == 0 else rng.choice(s.members) for i in range(repeat)]
    guild_of_active = s.active
    shard = (shards, (0,)) if shards > 1 else None
    deep = max(0, s.guild_members - 100)
    # what /bg games calls: its rows (game_list), or before that existed every game rebuilt
    listing = getattr(service, "game_list", None) or service.lookups.active_games
    cases: dict[str, list[Callable[[], Awaitable[Any]]]] = {
        "leaderboard, biggest server, page 1": [lambda: service.lookups.leaderboard(s.guild) for _ in range(repeat)],
        "leaderboard, biggest server, last page": [
            lambda: service.lookups.leaderboard(s.guild, offset=deep) for _ in range(repeat)
        ],
        "leaderboard, biggest server, by points": [
            lambda: service.lookups.leaderboard(s.guild, "points") for _ in range(repeat)
        ],
        "leaderboard, random server": [
            functools.partial(service.lookups.leaderboard, g) for g in [rng.choice(s.guilds) for _ in range(repeat)]
        ],
        "leaderboard, global": [lambda: service.lookups.leaderboard(None) for _ in range(repeat)],
        "stats, server": [functools.partial(service.lookups.stats, s.guild, u) for u in mixed],
        "stats, global": [functools.partial(service.lookups.stats, None, u) for u in mixed],
        "history, own (10)": [functools.partial(service.archive.history, s.guild, u, limit=10) for u in mixed],
        "history, another's (30)": [functools.partial(service.archive.history, s.guild, u, limit=30) for u in mixed],
        "rating chart history": [functools.partial(service.store.ratings.history, u) for u in mixed],
        "dice stats": [functools.partial(service.lookups.dice_stats, s.guild, u) for u in mixed[: max(1, repeat // 4)]],
        "/bg games": [
            functools.partial(listing, g, u) for _, g, u in (rng.choice(guild_of_active) for _ in range(repeat))
        ],
        "games waiting for a member": [functools.partial(service.lookups.waiting_for, u) for u in mixed],
        "sweep: deadlines due": [lambda: sched.due_deadlines(shard=shard) for _ in range(repeat)],
        "sweep: reminders due": [lambda: sched.due_reminders(shard=shard) for _ in range(repeat)],
        "sweep: next wake-up": [lambda: sched.next_wakeup(shard=shard) for _ in range(repeat)],
        "cold game (row + log, rebuilt)": [
            functools.partial(_cold, service, gid) for gid, _, _ in (rng.choice(guild_of_active) for _ in range(repeat))
        ],
    }
    results: dict[str, Any] = {}
    for name, calls in cases.items():
        await calls[0]()  # the first call warms the page cache, not the figure
        times = await timed(calls)
        results[name] = {"n": len(times), "p50": statistics.median(times), "p99": pct(times, 0.99), "max": max(times)}
        mark = "" if results[name]["p99"] <= TARGET_P99_MS else "  <- over 20 ms"
        print(
            f"  {name:42s} p50 {results[name]['p50']:7.2f} ms   p99 {results[name]['p99']:7.2f} ms"
            f"   max {results[name]['max']:7.2f} ms{mark}",
            flush=True,
        )
    return results


async def _cold(service: GameService, game_id: int) -> Any:
    service.cache.forget(game_id)  # as if it had been evicted
    return await service.lookups.get_game(game_id)


async def memory(service: GameService, s: Sample, touch: int, rng: random.Random) -> dict[str, Any]:
    ids = [gid for gid, _, _ in s.active]
    rng.shuffle(ids)
    ids = ids[:touch]
    steps = sorted({len(ids) * k // 5 for k in range(1, 6)})
    out: dict[str, Any] = {"before_mb": rss_mb(), "steps": []}
    t0 = time.perf_counter()
    done = 0
    for step in steps:
        for gid in ids[done:step]:
            await service.lookups.get_game(gid)
        done = step
        out["steps"].append({"touched": step, "rss_mb": rss_mb(), "s": time.perf_counter() - t0})
        print(f"  touched {step:7,d} games: RSS {rss_mb():7.0f} MB  ({time.perf_counter() - t0:.0f} s)", flush=True)
    worst = 0.0
    for _ in range(3):
        t = time.perf_counter()
        gc.collect()
        worst = max(worst, time.perf_counter() - t)
    out["full_gc_ms"] = worst * 1000
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000
    print(f"  longest full garbage collection: {worst * 1000:.0f} ms; peak RSS {out['max_rss_mb']:.0f} MB")
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    figures: dict[str, Any] = {"db": "postgresql" if args.db.startswith("postgres") else "sqlite"}
    t = time.perf_counter()
    service = await GameService.open(args.db)
    figures["open_s"] = time.perf_counter() - t
    settle_memory()  # as the bot does once started: gc.freeze and its thresholds
    try:
        s = await sample(service)
        print(
            f"store: {s.games:,} games ({len(s.active):,} active), biggest server {s.guild_members:,} members,"
            f" busiest member {s.busiest[0]}; opened in {figures['open_s'] * 1000:.0f} ms",
            flush=True,
        )
        if "queries" in args.only:
            print(f"queries ({args.repeat} each; target p99 <= {TARGET_P99_MS:.0f} ms):")
            figures["queries"] = await queries(service, s, args.repeat, args.shards, rng)
        if "memory" in args.only:
            print(f"memory (CACHED_GAMES = {service.limits.cached_games:,}):")
            figures["memory"] = await memory(service, s, args.touch, rng)
    finally:
        await service.close()
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=str(DEFAULT_DB), help="SQLite path or postgresql:// URL")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--touch", type=int, default=20_000)
    parser.add_argument("--shards", type=int, default=1)
    parser.add_argument("--only", default="queries,memory")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.db.startswith("postgres") and not Path(args.db).exists():
        raise SystemExit(f"no store at {args.db}: make one with `python -m bench.build_store`")
    figures = asyncio.run(run(args))
    over = [name for name, f in figures.get("queries", {}).items() if f["p99"] > TARGET_P99_MS]
    if args.json:
        print(json.dumps(figures, indent=1))
    print("all queries within target" if not over else f"{len(over)} queries over target: {', '.join(over)}")


if __name__ == "__main__":
    main()
