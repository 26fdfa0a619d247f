"""The SQLite -> PostgreSQL copy: every table copied or skipped on purpose, no password in argv."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from bot.store import open_store
from bot.store.copy import IDENTITY_TABLES, SKIPPED, TABLES, copy_sqlite_to_postgres, main
from tests.bot.core.helpers import ALICE, BOB, CAROL, GUILD, FakeClock, open_env, play_out, random_step, start_game

COPIED = {table for table, _ in TABLES}


@pytest.fixture
def pg_url(pg_server) -> Iterator[str]:
    name, url = pg_server.create_database()
    try:
        yield url
    finally:
        pg_server.drop_database(name)


def test_copied_and_skipped_are_apart() -> None:
    assert not COPIED & set(SKIPPED)
    assert len(COPIED) == len(TABLES)
    assert set(IDENTITY_TABLES) <= COPIED
    assert all(reason.strip() for reason in SKIPPED.values())


async def test_every_sqlite_table_is_copied_or_skipped(tmp_path: Path) -> None:
    path = tmp_path / "bg.sqlite3"
    await (await open_store(path)).close()
    conn = sqlite3.connect(path)
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert tables - COPIED - set(SKIPPED) == set(), "name each new table in copy.TABLES or copy.SKIPPED"
    assert COPIED <= tables


async def test_every_postgresql_table_is_copied_or_skipped_and_identities_move(pg_url: str) -> None:
    await (await open_store(pg_url)).close()
    conn = await asyncpg.connect(pg_url)
    try:
        tables = {
            r["table_name"]
            for r in await conn.fetch(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            )
        }
        identities = {
            r["table_name"]
            for r in await conn.fetch(
                "SELECT table_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND is_identity = 'YES'"
            )
        }
    finally:
        await conn.close()
    assert tables - COPIED - set(SKIPPED) == set(), "name each new table in copy.TABLES or copy.SKIPPED"
    assert COPIED <= tables
    assert identities == set(IDENTITY_TABLES)


async def test_a_copied_store_plays_on_with_its_histories_leaderboards_and_deadlines(
    tmp_path: Path, pg_url: str
) -> None:
    clock = FakeClock()
    lite = str(tmp_path / "bg.sqlite3")
    env = await open_env(lite, clock=clock)
    rng = random.Random(3)
    finished = await play_out(env.service, await start_game(env.service, channel=101), rng)
    assert not finished.is_active
    await play_out(env.service, await start_game(env.service, channel=102, b=CAROL), rng)
    playing = await start_game(env.service, channel=103)
    playing = (await random_step(env.service, playing, rng)).state
    # an outage written down and not yet credited to the games' clocks
    await env.store.schedule.beat(None, clock.now, stale_after=90)
    clock.advance(minutes=10)
    assert await env.store.schedule.beat(None, clock.now, stale_after=90) == 600
    assert await env.store.schedule.credit_owed(None)
    lite_history = await env.service.archive.history(GUILD, ALICE.user_id)
    lite_board = await env.service.lookups.leaderboard(GUILD)
    summaries = await env.store.db.fetchone("SELECT count(*) FROM game_summaries")
    assert summaries is not None and summaries[0] == 2
    await env.store.close()

    report = await copy_sqlite_to_postgres(lite, pg_url)
    assert report.ok, report.summary()
    assert report.rows["game_summaries"] == 2 and report.rows["clock_credits"] == 1

    lite_env = await open_env(lite, clock=clock)
    pg_env = await open_env(pg_url, clock=clock)
    try:
        # the summaries came along: nothing is rebuilt on first look
        assert await pg_env.service.archive.history(GUILD, ALICE.user_id) == lite_history
        assert await pg_env.service.lookups.leaderboard(GUILD) == lite_board
        # the owed outage came along: both stores move the deadline the same way
        for one in (lite_env, pg_env):
            while await one.store.schedule.credit_games(None) is not None:
                pass
        deadlines = []
        for one in (lite_env, pg_env):
            row = await one.store.games.get(playing.id)
            deadlines.append(row.turn_deadline)
        assert deadlines[0] is not None and deadlines[0] == deadlines[1]
        assert deadlines[1] > clock.now
        # and the game goes on in PostgreSQL
        state = await pg_env.service.lookups.get_game(playing.id)
        after = (await random_step(pg_env.service, state, rng)).state
        assert after.version == state.version + 1
        again = await start_game(pg_env.service, channel=104, a=BOB, b=CAROL)
        assert again.id > playing.id
    finally:
        await lite_env.store.close()
        await pg_env.store.close()


def test_the_command_refuses_a_password_on_the_command_line(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    code = main([str(tmp_path / "bg.sqlite3"), "postgresql://bg:hunter2@db:5432/bg"])
    err = capsys.readouterr().err
    assert code == 2 and "PGPASSWORD" in err and "hunter2" not in err
    with pytest.raises(SystemExit):
        main([str(tmp_path / "bg.sqlite3")])  # no target, and no DATABASE_URL
    assert "DATABASE_URL" in capsys.readouterr().err


def test_the_target_can_come_from_the_environment(tmp_path: Path, pg_url: str, monkeypatch, capsys) -> None:
    import asyncio

    lite = str(tmp_path / "bg.sqlite3")

    async def seed() -> None:
        async with await open_store(lite) as store:
            await store.games.create(guild_id=GUILD, channel_id=5, player0=ALICE.user_id, player1=BOB.user_id)

    asyncio.run(seed())
    monkeypatch.setenv("DATABASE_URL", pg_url)
    assert main([lite]) == 0
    assert "every row matches" in capsys.readouterr().out


async def test_the_documented_pg_dump_and_pg_restore_drill(pg_server, pg_url: str, tmp_path: Path) -> None:
    """docs/backups.md: ``pg_dump -Fc``, then ``pg_restore --no-owner`` into a new database, opens
    at the current schema with every row (skips without the client programs)."""
    import subprocess

    from bot.store import SCHEMA_VERSION

    dump_bin, restore_bin = pg_server.bin_dir / "pg_dump", pg_server.bin_dir / "pg_restore"
    if not dump_bin.exists() or not restore_bin.exists():
        pytest.skip("pg_dump / pg_restore are not installed")
    env = await open_env(pg_url)
    rng = random.Random(2)
    try:
        state = await start_game(env.service, channel=101)
        for _ in range(6):
            state = (await random_step(env.service, state, rng)).state
        await start_game(env.service, channel=102, b=CAROL)
    finally:
        await env.store.close()
    dump = tmp_path / "bg.dump"
    subprocess.run([str(dump_bin), "-Fc", "-f", str(dump), pg_url], check=True, capture_output=True, timeout=120)
    name, restored = pg_server.create_database()
    try:
        subprocess.run(
            [str(restore_bin), "--no-owner", "-d", restored, str(dump)], check=True, capture_output=True, timeout=120
        )
        counts = {}
        for url in (pg_url, restored):
            conn = await asyncpg.connect(url)
            try:
                counts[url] = {t: await conn.fetchval(f"SELECT count(*) FROM {t}") for t in sorted(COPIED)}
            finally:
                await conn.close()
        assert counts[pg_url] == counts[restored] and counts[restored]["actions"] > 0
        back = await open_env(restored)
        try:
            assert await back.store.schema_version() == SCHEMA_VERSION
            fresh = await start_game(back.service, channel=103, a=BOB, b=CAROL)  # identities restored too
            assert fresh.id == 3
        finally:
            await back.store.close()
    finally:
        pg_server.drop_database(name)
