"""What an online backup costs the bot: moves while ``python -m bot backup`` copies the store.

    .venv/bin/python -m bench.backup [--store bench/.stores/big.sqlite] [--seconds 5] [--games 20]

On a copy of the store (the original is never written), the service plays random
legal moves in ``--games`` games, one after another as fast as it can, first for
``--seconds`` alone, then while ``python -m bot backup`` (another process, as an
operator's cron would run it) copies the store; it prints the backup's time and
rate, and the moves' rate and latency (p50, p99, max) with and without it. The
backup is then checked: integrity, schema, and every game the store held when
it began.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot.core import ChallengeOptions, GameService, PlayerRef
from bot.store import open_store
from engine import Phase, SeededDice

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent


async def _step(service: GameService, state, rng: random.Random):
    player = state.to_act()
    game = state.game
    if game.phase is Phase.ROLL:
        return (await service.roll(state.id, player.user_id, version=state.version)).state
    if game.phase is Phase.PLAY:
        play = rng.choice(state.legal_play_texts())
        return (await service.play(state.id, player.user_id, play, version=state.version)).state
    if game.phase is Phase.DOUBLED:
        return (await service.take(state.id, player.user_id, version=state.version)).state
    return (await service.accept_resignation(state.id, player.user_id, version=state.version)).state


async def _play(
    service: GameService, states: list, rng: random.Random, until: float, channel: list[int]
) -> list[float]:
    latencies = []
    n = 0
    while time.monotonic() < until:
        n = (n + 1) % len(states)
        state = states[n]
        started = time.perf_counter()
        if not state.is_active:
            channel[0] += 1
            challenge = await service.challenges.create(
                9, channel[0], PlayerRef(1, "A"), PlayerRef(2, "B"), ChallengeOptions()
            )
            state = (await service.challenges.accept(challenge.id, 2)).state
        else:
            state = await _step(service, state, rng)
        latencies.append(time.perf_counter() - started)
        states[n] = state
        await asyncio.sleep(0)
    return latencies


def _figures(name: str, latencies: list[float], seconds: float) -> str:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"{name:16} {len(latencies) / seconds:7.0f} moves/s   p50 {statistics.median(ordered) * 1000:6.2f} ms   "
        f"p99 {p99 * 1000:6.2f} ms   max {ordered[-1] * 1000:7.2f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=HERE / ".stores" / "big.sqlite")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bg-backup-bench-"))
    try:
        db = work / "bg.sqlite3"
        if args.store.exists():
            source = sqlite3.connect(args.store)
            target = sqlite3.connect(db)
            source.backup(target)
            source.close()
            target.close()
        store = await open_store(db)
        service = GameService(store, dice=SeededDice(3))
        size = os.path.getsize(db)
        rng = random.Random(1)
        channel = [10_000_000]
        states = []
        for _ in range(args.games):
            channel[0] += 1
            challenge = await service.challenges.create(
                9, channel[0], PlayerRef(1, "A"), PlayerRef(2, "B"), ChallengeOptions()
            )
            states.append((await service.challenges.accept(challenge.id, 2)).state)
        alone = await _play(service, states, rng, time.monotonic() + args.seconds, channel)
        before = {r["id"]: r["version"] for r in await store.db.fetchall("SELECT id, version FROM games")}
        env = dict(os.environ, DATABASE_PATH=str(db), PYTHONPATH=str(ROOT))
        started = time.monotonic()
        backup = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "backup", str(work / "copy.sqlite3"),
            cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        during: list[float] = []
        while backup.returncode is None:
            during += await _play(service, states, rng, time.monotonic() + 0.2, channel)
            try:
                await asyncio.wait_for(backup.wait(), timeout=0.001)
            except TimeoutError:
                pass
        took = time.monotonic() - started
        out, err = await backup.communicate()
        await store.close()
        assert backup.returncode == 0, err.decode()
        copy = sqlite3.connect(work / "copy.sqlite3")
        copied = {i: v for i, v in copy.execute("SELECT id, version FROM games")}
        whole = all(copied.get(i, -1) >= v for i, v in before.items())
        check = copy.execute("PRAGMA integrity_check").fetchone()[0]
        copy.close()
        print(f"store: {size / 2**20:.0f} MiB, {len(before)} games")
        print(
            f"backup: {took:.2f} s ({size / 2**20 / took:.0f} MiB/s, the process's start included); {out.decode().strip()}"
        )
        print(f"backup check: integrity {check}, every game committed before it began: {whole}")
        print(_figures("moves alone", alone, args.seconds))
        print(_figures("during backup", during, took))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
