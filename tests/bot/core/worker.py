"""Child process for the service concurrency and crash tests (not a test module).

Usage::

DB is a SQLite path or a ``postgresql://`` URL (anything ``open_store`` takes).

    python tests/bot/core/worker.py race DB GAME_ID USER_ID VERSION START_AT
        Open the database, load the game, wait until Unix time START_AT, then roll
        for USER_ID with the given expected VERSION.  Prints one JSON line:
        {"result": "ok" | "stale" | "not_your_turn" | "rule" | "error", ...}.

    python tests/bot/core/worker.py sweep DB NOW START_AT
        One scheduler pass as a bot process runs it: a store and a service
        whose clock stands at Unix time NOW; at START_AT call
        ``process_due`` until nothing is left.  Prints one JSON line:
        {"notices": [[kind, game or challenge id], ...], "errors": [...]}.

    python tests/bot/core/worker.py stream DB CHANNEL SEED
        Play games through the service forever (a new game in the next channel
        when one finishes), printing "GAME_ID VERSION" after every acknowledged
        action (one flushed line each).  Meant to be killed with SIGKILL.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from datetime import UTC, datetime

from bot.core import (  # noqa: E402
    ChallengeOptions,
    GameService,
    NotYourTurnError,
    RuleError,
    StaleGameError,
)
from bot.store import open_store  # noqa: E402
from engine import SeededDice  # noqa: E402
from tests.bot.core.helpers import ALICE, BOB, random_step, start_game  # noqa: E402
from tests.narrowing import present  # noqa: E402


async def race(db: str, game_id: int, user_id: int, version: int, start_at: float) -> None:
    async with await open_store(db) as store:
        service = GameService(store)
        await service.lookups.get_game(game_id)  # warm the cache, as a running bot would be
        await asyncio.sleep(max(0.0, start_at - time.time()))
        try:
            out = await service.roll(game_id, user_id, version=version)
            result = {"result": "ok", "version": out.state.version}
        except StaleGameError as e:
            result = {"result": "stale", "message": e.message}
        except NotYourTurnError as e:
            result = {"result": "not_your_turn", "message": e.message}
        except RuleError as e:
            result = {"result": "rule", "message": e.message}
        except Exception as e:  # noqa: BLE001 - reported to the parent test
            result = {"result": "error", "message": repr(e)}
    print(json.dumps(result), flush=True)


async def sweep(db: str, now_unix: float, start_at: float) -> None:
    now = datetime.fromtimestamp(now_unix, tz=UTC)
    notices: list[list[object]] = []
    errors: list[str] = []
    async with await open_store(db, clock=lambda: now) as store:
        service = GameService(store, dice=SeededDice(int(start_at * 1000) % 997), clock=lambda: now)
        await store.schedule.next_wakeup()  # connected and warm before the start line
        await asyncio.sleep(max(0.0, start_at - time.time()))
        for _ in range(50):
            try:
                found = await service.deadlines.process_due(now)
            except Exception as e:  # noqa: BLE001 - a busy database: the scheduler tries again
                errors.append(repr(e))
                continue
            if not found:
                break
            for n in found:
                notices.append([n.kind, n.challenge.id if n.challenge is not None else present(n.state).id])
    print(json.dumps({"notices": notices, "errors": errors}), flush=True)


async def stream(db: str, channel: int, seed: int) -> None:
    rng = random.Random(seed)
    async with await open_store(db) as store:
        service = GameService(store, dice=SeededDice(seed))
        while True:
            state = await start_game(service, channel=channel, a=ALICE, b=BOB, options=ChallengeOptions())
            print(f"{state.id} {state.version}", flush=True)
            while state.is_active:
                state = (await random_step(service, state, rng)).state
                print(f"{state.id} {state.version}", flush=True)
            channel += 1


def main(argv: list[str]) -> None:
    mode = argv[1]
    if mode == "race":
        asyncio.run(race(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), float(argv[6])))
    elif mode == "sweep":
        asyncio.run(sweep(argv[2], float(argv[3]), float(argv[4])))
    elif mode == "stream":
        asyncio.run(stream(argv[2], int(argv[3]), int(argv[4])))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv)
