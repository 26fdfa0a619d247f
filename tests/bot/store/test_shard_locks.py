"""Shards that cannot collide: one process per shard (PostgreSQL advisory locks),
one SHARD_COUNT at a time, and the shards nobody runs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.store import ShardCountMismatchError, ShardsTakenError, open_store
from bot.store.shards import LIVE_HEARTBEAT, UnrunShard, claim_shards, unrun_shards

NOW = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture
def pg_url(pg_server) -> Iterator[str]:
    name, url = pg_server.create_database()
    try:
        yield url
    finally:
        pg_server.drop_database(name)


async def test_a_second_process_for_a_shard_exits_or_waits_for_the_first(pg_url: str, caplog) -> None:
    first = await open_store(pg_url, run_shards=True, shard=(2, (0,)))
    try:
        with pytest.raises(ShardsTakenError, match="shard 0 is already run by another process"):
            await open_store(pg_url, run_shards=True, shard=(2, (0, 1)), shard_wait=False)
        with pytest.raises(ShardsTakenError, match="shard 0 "):
            await open_store(pg_url, run_shards=True, shard_count=2, shard_wait=False)  # all shards: 0 and 1
        # the other shard is free: a process for it starts (the refused one let shard 1 go again)
        other = await open_store(pg_url, run_shards=True, shard=(2, (1,)), shard_wait=False)
        await other.close()

        caplog.set_level(logging.WARNING, logger="bot.store.shards")
        second = await open_store(pg_url)  # the store alone (tools, tests) claims nothing
        waiting = asyncio.create_task(claim_shards(second.db, (2, (0, 1)), poll=0.05, log_every=60))
        await asyncio.sleep(0.5)
        assert not waiting.done()
        assert [r.getMessage() for r in caplog.records if "waiting for it to stop" in r.getMessage()] == [
            "shard 0 is run by another process: waiting for it to stop (0 s so far)"
        ]
    finally:
        await first.close()
    locks = await asyncio.wait_for(waiting, timeout=10)  # the first is gone: the second starts
    assert locks is not None and locks.shard_ids == (0, 1)
    with pytest.raises(ShardsTakenError, match="shard 0, 1 "):
        await open_store(pg_url, run_shards=True, shard=(2, (0, 1)), shard_wait=False)
    await locks.close()
    await second.close()


async def test_a_process_under_another_shard_count_refuses_to_start(pg_url: str) -> None:
    store = await open_store(pg_url, clock=lambda: NOW)
    try:
        await store.schedule.beat((2, (0, 1)), NOW, stale_after=90)
        with pytest.raises(ShardCountMismatchError, match="SHARD_COUNT=2"):
            await claim_shards(store.db, (4, (1,)), wait=False)
        with pytest.raises(ShardCountMismatchError, match="one process for every shard"):
            await claim_shards(store.db, None, shard_count=4, wait=False)  # writes its beats as one shard
        same = await claim_shards(store.db, (2, (0,)), wait=False)  # its own count: fine
        assert same is not None
        await same.close()
        # once the other count's heartbeats are old (all its processes stopped), the new count starts
        stale = NOW + timedelta(seconds=LIVE_HEARTBEAT + 1)
        store.db.clock = lambda: stale
        locks = await claim_shards(store.db, (4, (1,)), wait=False)
        assert locks is not None
        await locks.close()
    finally:
        await store.close()


def test_the_bot_exits_with_one_line_when_its_shard_is_taken(tmp_path: Path, monkeypatch, capsys) -> None:
    import bot.__main__ as entry

    async def taken(settings: object) -> None:
        raise ShardsTakenError("shard 1 is already run by another process")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(entry, "run", taken)
    monkeypatch.setattr(entry, "setup_logging", lambda settings: None)  # the root logger stays the suite's
    assert entry.main([], {"DISCORD_TOKEN": "t"}) == entry.EXIT_CONFIG
    assert capsys.readouterr().err == "bot: shard 1 is already run by another process\n"


async def test_sqlite_claims_nothing(tmp_path: Path) -> None:
    store = await open_store(tmp_path / "bg.sqlite3", run_shards=True, shard=(2, (0,)))
    try:
        assert store.shard_locks is None
    finally:
        await store.close()


async def test_the_shards_nobody_runs(db_url: str) -> None:
    store = await open_store(db_url, clock=lambda: NOW)
    try:
        assert await unrun_shards(store.db) == []  # no process ever ran
        old = NOW - timedelta(minutes=10)
        await store.schedule.beat((2, (0, 1)), old, stale_after=90)  # an earlier count: not looked at
        await store.schedule.beat((3, (0,)), NOW, stale_after=90)
        await store.schedule.beat((3, (1,)), old, stale_after=90)
        assert await unrun_shards(store.db) == [
            UnrunShard(3, 1, old.timestamp()),
            UnrunShard(3, 2, None),
        ]
        await store.schedule.beat((3, (1, 2)), NOW, stale_after=90)
        assert await unrun_shards(store.db) == []
    finally:
        await store.close()


async def test_locks_lost_with_their_connection_are_taken_again_or_the_clash_is_logged(
    pg_url: str, pg_server, caplog
) -> None:
    caplog.set_level(logging.INFO, logger="bot.store.shards")
    store = await open_store(pg_url)
    locks = await claim_shards(store.db, (2, (0,)), check_every=0.05)
    assert locks is not None and locks.held

    async def cut() -> None:  # as a server restart or a network cut would
        await pg_server.admin(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = 0 AND granted"
        )

    try:
        await cut()
        for _ in range(200):
            await asyncio.sleep(0.05)
            if locks.held and any("held again" in r.getMessage() for r in caplog.records):
                break
        assert locks.held
        with pytest.raises(ShardsTakenError):
            await claim_shards(store.db, (2, (0,)), wait=False)

        # lost again, and another process takes the shard first: two run it, and the log says so
        locks.check_every = 3600.0
        await asyncio.sleep(0.1)  # the watch sleeps now
        await cut()
        rival = await asyncio.wait_for(claim_shards(store.db, (2, (0,)), poll=0.01), timeout=10)
        assert await locks.check() is False and await locks.check() is False
        assert not locks.held
        assert [r.levelname for r in caplog.records if "two processes run it now" in r.getMessage()] == ["ERROR"]
        assert rival is not None
        await rival.close()
    finally:
        await locks.close()
        await store.close()
