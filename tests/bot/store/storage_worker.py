"""Child process used by the storage concurrency tests (not a test module).

DB is anything :func:`bot.store.open_store` accepts: a SQLite path or a
``postgresql://`` URL, so every mode runs against both backends.

Usage::

    python storage_worker.py hammer DB GAME_ID ATTEMPTS WORKER START_AT
        Wait until the Unix time START_AT (so the workers overlap), then read
        the game's version, pause briefly, and try to append one action with
        that expected version, ATTEMPTS times.  Prints one JSON line at the end:
        {"ok": successes, "stale": conflicts}.

    python storage_worker.py stream DB GAME_ID
        Append batches of 3 actions forever (single writer), printing the new
        version after every commit (one flushed line each).  Meant to be
        killed with SIGKILL.

    python storage_worker.py sweep DB NOW WORKER START_AT
        Wait until START_AT, then do what the scheduler does at Unix time NOW:
        claim due reminders, time out overdue games (compare-and-set), expire
        challenges.  Prints {"reminded": [...], "timed_out": [...],
        "expired": [...]} with the ids this process handled.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from datetime import UTC, datetime

from bot.store import GameOverError, Owed, StaleVersionError, open_store


async def hammer(db: str, game_id: int, attempts: int, worker: int, start_at: float) -> None:
    """Race other processes on the same game with compare-and-set appends."""
    ok = stale = 0
    rng = random.Random(worker)
    async with await open_store(db) as store:
        await asyncio.sleep(max(0.0, start_at - time.time()))
        for i in range(attempts):
            game = await store.games.get(game_id)
            await asyncio.sleep(rng.random() * 0.002)  # widen the read-to-write window
            try:
                await store.games.append(
                    game_id,
                    game.version,
                    [{"kind": "note", "worker": worker, "i": i}],
                    actor=None,
                )
                ok += 1
            except StaleVersionError:
                stale += 1
    print(json.dumps({"ok": ok, "stale": stale}), flush=True)


async def stream(db: str, game_id: int) -> None:
    """Append 3-action batches forever, acknowledging each commit on stdout."""
    async with await open_store(db) as store:
        version = (await store.games.get(game_id)).version
        i = 0
        while True:
            batch = [
                {"kind": "roll", "player": i % 2, "dice": [1 + i % 6, 1 + (i * 5) % 6]},
                {"kind": "play", "player": i % 2, "play": "13/7 8/7"},
                {"kind": "note", "i": i, "pad": "x" * 200},
            ]
            result = await store.games.append(game_id, version, batch, updates={"score0": i, "score1": i % 7})
            version = result.version
            sys.stdout.write(f"{version}\n")
            sys.stdout.flush()
            i += 1


async def sweep(db: str, now_ts: float, worker: int, start_at: float) -> None:
    """One scheduler pass racing the other processes' passes."""
    now = datetime.fromtimestamp(now_ts, UTC)
    rng = random.Random(worker)
    reminded: list[int] = []
    timed_out: list[int] = []
    async with await open_store(db) as store:
        await asyncio.sleep(max(0.0, start_at - time.time()))
        for game in await store.schedule.due_reminders(now):
            await asyncio.sleep(rng.random() * 0.002)
            owed = Owed("reminder", game.guild_id, game.channel_id, game_id=game.id, version=game.version)
            if await store.schedule.claim_reminder(game.id, game.version, owed) is not None:
                reminded.append(game.id)
        for game in await store.schedule.due_deadlines(now):
            await asyncio.sleep(rng.random() * 0.002)
            try:
                await store.games.append(
                    game.id,
                    game.version,
                    [{"kind": "timeout", "worker": worker}],
                    actor=None,
                    updates={"status": "abandoned"},
                )
            except (StaleVersionError, GameOverError):
                continue
            timed_out.append(game.id)
        expired = [c.id for c in await store.schedule.expire_challenges(now)]
    print(json.dumps({"reminded": reminded, "timed_out": timed_out, "expired": expired}), flush=True)


def main(argv: list[str]) -> None:
    """Dispatch on the mode in ``argv[1]``."""
    mode = argv[1]
    if mode == "hammer":
        asyncio.run(hammer(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), float(argv[6])))
    elif mode == "stream":
        asyncio.run(stream(argv[2], int(argv[3])))
    elif mode == "sweep":
        asyncio.run(sweep(argv[2], float(argv[3]), int(argv[4]), float(argv[5])))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv)
