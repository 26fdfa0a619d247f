"""Tests for bot.store: schema, migrations, compare-and-set, reads, concurrency.

Most tests run twice, on SQLite and on PostgreSQL (the ``backend`` fixture of
tests/conftest.py starts a private PostgreSQL server for the session and
gives every test a fresh database); the PRAGMA/file tests are SQLite-only,
the restart/outage/pool tests PostgreSQL-only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bot.store as storage
from bot.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    ChallengeClosedError,
    ChannelBusyError,
    DatabaseBusyError,
    DatabaseUnavailableError,
    GameOverError,
    MatchOutcome,
    Migration,
    NotFoundError,
    Owed,
    StaleVersionError,
    StorageError,
    Store,
    database,
    open_store,
    ratings,
)
from bot.store.drivers.sqlite import split_sql
from engine.ratings import Rating, rate_match
from tests.narrowing import found, present

WORKER = Path(__file__).with_name("storage_worker.py")
T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
GUILD = 111
CHANNEL = 222
ALICE, BOB, CAROL, DAVE = 1001, 1002, 1003, 1004


class FakeClock:
    """A settable clock for deterministic timestamps."""

    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def rating_of(store: Store, user_id: int, scope: int = 0) -> storage.PlayerRating | None:
    """A player's ratings row in a scope (None if unrated there)."""
    stats = await store.ratings.player_stats(user_id, scope)
    return stats.stats if stats else None


async def rating_history(store: Store, user_id: int, scope: int = 0) -> list[SimpleNamespace]:
    """A player's rating changes in a scope, oldest first (the rating_history rows)."""
    rows = await store.db.fetchall(
        "SELECT * FROM rating_history WHERE scope = ? AND user_id = ? ORDER BY id", (scope, user_id)
    )
    return [SimpleNamespace(**{key: r[key] for key in r.keys()}) for r in rows]


async def pending_challenges(store: Store, channel_id: int | None = None, *, user_id: int | None = None) -> list[int]:
    """Ids of the pending challenges in a channel and/or of a user, oldest first."""
    rows = await store.db.fetchall("SELECT * FROM challenges WHERE status = 'pending' ORDER BY created_at, id")
    return [
        r["id"]
        for r in rows
        if (channel_id is None or r["channel_id"] == channel_id)
        and (user_id is None or user_id in (r["challenger"], r["challenged"]))
    ]


@pytest.fixture
async def store(backend: str, clock: FakeClock, request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """A fresh store: in-memory SQLite, or a new PostgreSQL database."""
    url = ":memory:" if backend == "sqlite" else request.getfixturevalue("db_url")
    s = await open_store(url, clock=clock)
    try:
        yield s
    finally:
        await s.close()


class RawDb:
    """Direct access to a test database, bypassing the store (autocommit)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.pg = url.startswith("postgresql://")

    async def execute(self, sql: str, *params: object) -> None:
        await self.fetch(sql, *params)

    async def fetch(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        if self.pg:
            import asyncpg

            from bot.store.drivers.postgres import to_pg

            conn = await asyncpg.connect(self.url)
            try:
                if not params and ";" in sql.strip().rstrip(";"):
                    await conn.execute(sql)  # a script
                    return []
                return [tuple(r) for r in await conn.fetch(to_pg(sql), *params)]
            finally:
                await conn.close()
        con = sqlite3.connect(self.url, isolation_level=None)
        try:
            return [tuple(r) for r in con.execute(sql, params).fetchall()]
        finally:
            con.close()

    async def fetchval(self, sql: str, *params: object) -> Any:
        if self.pg and not params:
            import asyncpg

            conn = await asyncpg.connect(self.url)
            try:
                return await conn.fetchval(sql)
            finally:
                await conn.close()
        rows = await self.fetch(sql, *params)
        return rows[0][0] if rows else None

    @property
    def integrity_error(self) -> type[BaseException]:
        if self.pg:
            import asyncpg

            return asyncpg.IntegrityConstraintViolationError
        return sqlite3.IntegrityError


@pytest.fixture
async def file_store(tmp_path: Path, clock: FakeClock) -> AsyncIterator[Store]:
    s = await open_store(tmp_path / "db" / "bg.sqlite3", clock=clock)
    try:
        yield s
    finally:
        await s.close()


async def new_game(store: Store, channel: int = CHANNEL, p0: int = ALICE, p1: int = BOB, **kw: object):
    return await store.games.create(guild_id=GUILD, channel_id=channel, player0=p0, player1=p1, **kw)  # type: ignore[arg-type]


def reminder_owed(game) -> Owed:
    return Owed(
        "reminder",
        game.guild_id,
        game.channel_id,
        game_id=game.id,
        version=game.version,
        payload={"user_id": game.player0, "text": "your move"},
    )


def roll(player: int, d1: int, d2: int) -> dict[str, object]:
    return {"kind": "roll", "player": player, "dice": [d1, d2]}


# --------------------------------------------------------------------------
# Opening, pragmas, migrations
# --------------------------------------------------------------------------


@contextlib.contextmanager
def another_process_writing(path: Path) -> Iterator[sqlite3.Connection]:
    """Another connection holding the database's write lock (``BEGIN IMMEDIATE``) until the block ends."""
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        blocker.execute("BEGIN IMMEDIATE")
        yield blocker
        blocker.execute("ROLLBACK")
    finally:
        blocker.close()


async def test_a_read_sees_every_write_issued_before_it(tmp_path: Path) -> None:
    """Reads use their own connection; they still wait for writes this process issued first
    (here one waiting on the writer thread for another process's lock)."""
    path = tmp_path / "bg.sqlite3"
    async with await open_store(path) as s:
        game = await new_game(s)
        with another_process_writing(path):
            write = asyncio.ensure_future(s.outbox.delivered([], game_id=game.id, board=(CHANNEL, 777), version=0))
            await asyncio.sleep(0)  # the write is issued (waiting for the lock on the writer thread)
            read = asyncio.ensure_future(s.games.get(game.id))
            await asyncio.sleep(0.1)
            assert not write.done() and not read.done()  # the read waits for the write ...
        assert (await read).board_message_id == 777  # ... and sees it
        await write


async def test_only_quick_transactions_run_on_the_loop(tmp_path: Path) -> None:
    """A game's action or a delivered board (``quick``) runs on the loop's own thread;
    any other transaction (a sweep, a clean-up: many rows, or cold ones) on the writer
    thread, so its reads from disk never hold the loop up."""
    import threading

    async def where(tx: object) -> int:
        return threading.get_ident()

    async with await open_store(tmp_path / "bg.sqlite3") as s:
        assert await s.db.transact(where, quick=True) == threading.get_ident()
        assert await s.db.transact(where) != threading.get_ident()


async def test_a_write_waiting_for_another_process_leaves_the_loop_free(tmp_path: Path) -> None:
    """The loop's attempt at the write lock does not wait: while another process holds
    it, the transaction waits on the writer thread, the loop goes on, and the writes
    issued meanwhile follow it in order."""
    path = tmp_path / "bg.sqlite3"
    async with await open_store(path) as s:
        game = await new_game(s)
        with another_process_writing(path):
            first = asyncio.ensure_future(s.games.append(game.id, 0, [roll(0, 1, 2)]))
            await asyncio.sleep(0)
            second = asyncio.ensure_future(s.games.append(game.id, 1, [roll(1, 3, 4)]))
            ticks = 0
            started = time.monotonic()
            while time.monotonic() - started < 0.2:  # the loop turns meanwhile
                await asyncio.sleep(0.01)
                ticks += 1
            assert ticks >= 10
            assert not first.done() and not second.done()
        assert (await first).version == 1
        assert (await second).version == 2  # in order, after the first
        assert (await s.games.append(game.id, 2, [roll(0, 5, 6)])).version == 3  # and the loop's own again


async def test_checkpoints_keep_the_wal_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writing connection never checkpoints (that would be on the loop); the driver's
    own checkpoints, every ``CHECKPOINT_EVERY`` commits, copy the WAL into the database."""
    from bot.store.drivers import sqlite as driver

    monkeypatch.setattr(driver, "CHECKPOINT_EVERY", 20)
    path = tmp_path / "bg.sqlite3"

    async with await open_store(path) as s:
        game = await new_game(s)
        for version in range(200):
            await s.games.append(game.id, version, [roll(version % 2, 1 + version % 6, 1 + version % 5)])
        checkpoint = s.db.driver._checkpoint  # type: ignore[attr-defined]
        assert checkpoint is not None
        await asyncio.wrap_future(checkpoint)
        await s.games.append(game.id, 200, [roll(0, 1, 2)])  # a write after the checkpoint starts the WAL over
        probe = sqlite3.connect(path, isolation_level=None)
        try:
            _, frames, _ = probe.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        finally:
            probe.close()
        # 200 actions wrote several hundred frames (SQLite's own checkpoints would start over at 1,000);
        # what is left are the commits since the last checkpoint began: on a busy machine the one
        # asked for at commit 180 may still be running at 200, which then asks for none
        assert frames <= 2 * driver.CHECKPOINT_EVERY, frames
        assert tuple(await found(s.db.transact(lambda tx: tx.fetchone("PRAGMA wal_autocheckpoint")))) == (0,)


async def test_a_checkpoint_asked_for_while_closing_opens_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last transaction, waiting on the writer thread when the store closes, asks
    for a checkpoint that runs after the close: it must not open a connection again."""
    from bot.store.drivers import sqlite as driver

    monkeypatch.setattr(driver, "CHECKPOINT_EVERY", 1)
    path = tmp_path / "bg.sqlite3"
    s = await open_store(path)
    sqlite_driver = s.db.driver
    game = await new_game(s)
    with another_process_writing(path):
        append = asyncio.ensure_future(s.games.append(game.id, 0, [roll(0, 1, 2)]))
        # waiting for the lock on the writer thread (after any checkpoint gave up): under load the
        # append may take a while to get there, and a close before it would refuse it instead
        for _ in range(200):
            await asyncio.sleep(0.05)
            job = sqlite_driver._last_write  # type: ignore[attr-defined]
            if job is not None and job.running():
                break
        await asyncio.sleep(0.3)
        closing = asyncio.ensure_future(s.close())
        await asyncio.sleep(0.05)
    assert (await append).version == 1
    await closing
    checkpoint = sqlite_driver._checkpoint  # type: ignore[attr-defined]
    assert checkpoint is not None
    await asyncio.wrap_future(checkpoint)
    assert sqlite_driver._checkpointer is None  # type: ignore[attr-defined]


async def test_a_lingering_reader_holds_up_a_checkpoint_briefly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint waits for readers holding the write lock, so it gives up after
    ``CHECKPOINT_WAIT_MS`` (the busy timeout's 5 s would hold every write that long);
    the WAL is copied later."""
    from bot.store.drivers import sqlite as driver

    monkeypatch.setattr(driver, "CHECKPOINT_EVERY", 5)
    path = tmp_path / "bg.sqlite3"
    async with await open_store(path) as s:
        game = await new_game(s)
        for version in range(3):
            await s.games.append(game.id, version, [roll(version % 2, 1, 2)])
        reader = sqlite3.connect(path, isolation_level=None)
        try:
            reader.execute("BEGIN")
            reader.execute("SELECT COUNT(*) FROM actions").fetchone()  # a snapshot in the WAL
            for version in range(3, 6):
                await s.games.append(game.id, version, [roll(version % 2, 1, 2)])
            checkpoint = s.db.driver._checkpoint  # type: ignore[attr-defined]
            assert checkpoint is not None
            started = time.monotonic()
            await asyncio.wrap_future(checkpoint)
            assert time.monotonic() - started < 1.0
            assert (await s.games.append(game.id, 6, [roll(0, 1, 2)])).version == 7
        finally:
            reader.close()


async def test_open_creates_folder_file_and_sets_pragmas(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dir" / "bg.sqlite3"
    async with await open_store(path) as s:
        assert path.exists()
        assert await s.schema_version() == SCHEMA_VERSION

        async def pragmas(writer):  # on the writing connection
            return [
                (await writer.fetchone(f"PRAGMA {name}"))[0]
                for name in ("journal_mode", "foreign_keys", "busy_timeout", "synchronous")
            ]

        # synchronous 1 = NORMAL; busy_timeout: the writer thread waits for the lock ...
        assert await s.db.transact(pragmas) == ["wal", 1, 5000, 1]
        # ... the loop's attempt (a quick transaction) does not
        assert await s.db.transact(pragmas, quick=True) == ["wal", 1, 0, 1]
        # plain reads go to a second, read-only connection
        assert (await s.db.fetchone("PRAGMA query_only"))[0] == 1  # type: ignore[index]
        assert (await s.db.fetchone("PRAGMA busy_timeout"))[0] == 5000  # type: ignore[index]
        assert await s.integrity_check() == "ok"
    with pytest.raises(StorageError, match="closed"):
        await s.games.get(1)
    await s.close()  # idempotent


def test_split_sql_keeps_triggers_whole() -> None:
    statements = split_sql(MIGRATIONS[0].sql)
    trigger = [s for s in statements if "CREATE TRIGGER" in s]
    assert len(trigger) == 1 and trigger[0].endswith("END;")
    assert all(sqlite3.complete_statement(s) for s in statements)


def test_migrations_are_numbered_in_order() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1))
    assert SCHEMA_VERSION >= 2


def test_every_migration_has_a_postgres_variant() -> None:
    assert all(m.pg_sql for m in MIGRATIONS)
    assert "AUTOINCREMENT" not in "".join(m.pg_sql or "" for m in MIGRATIONS)


async def _raw_schema_version(db: RawDb) -> int:
    if db.pg:
        return int(await db.fetchval("SELECT version FROM schema_version"))
    return int(await db.fetchval("PRAGMA user_version"))


async def _seed_old_database(url: str, version: int) -> None:
    """Insert rows valid at schema ``version``, bypassing the store."""
    db = RawDb(url)
    assert await _raw_schema_version(db) == version
    if version >= 1:
        await db.execute("INSERT INTO players (user_id, display_name) VALUES (?, ?)", ALICE, "Alice")
        await db.execute("INSERT INTO players (user_id, display_name) VALUES (?, ?)", BOB, "Bob")
        await db.execute(
            """
            INSERT INTO games (id, guild_id, channel_id, player0, player1, settings, version,
                               match_length)
            VALUES (1, ?, ?, ?, ?, '{"cube": true}', 2, 5)
            """,
            GUILD,
            CHANNEL,
            ALICE,
            BOB,
        )
        for seq, kind, action in (
            (1, "roll", roll(0, 3, 1)),
            (2, "play", {"kind": "play", "player": 0, "play": "8/5 6/5"}),
        ):
            await db.execute(
                "INSERT INTO actions (game_id, seq, actor, kind, action) VALUES (1, ?, ?, ?, ?)",
                seq,
                ALICE,
                kind,
                json.dumps(action),
            )
        await db.execute(
            """
            INSERT INTO challenges (id, guild_id, channel_id, challenger, challenged)
            VALUES (7, ?, 999, ?, ?)
            """,
            GUILD,
            ALICE,
            BOB,
        )
        if db.pg:  # explicit ids do not move identity sequences
            await db.execute(
                "SELECT setval(pg_get_serial_sequence('games', 'id'), 1), "
                "setval(pg_get_serial_sequence('challenges', 'id'), 7)"
            )
    if version >= 2:
        await db.execute(
            "INSERT INTO ratings (scope, user_id, rating, experience, games, wins) VALUES (0, ?, 1600, 40, 8, 6)",
            ALICE,
        )


@pytest.mark.parametrize("start", range(SCHEMA_VERSION))
async def test_migrate_from_every_earlier_version_keeps_data(db_url: str, start: int) -> None:
    old = await open_store(db_url, migrate_to=start)
    assert await old.schema_version() == start
    await old.close()
    await _seed_old_database(db_url, start)

    async with await open_store(db_url) as s:
        assert await s.schema_version() == SCHEMA_VERSION
        assert await s.integrity_check() == "ok"
        # The newest schema is fully usable.
        game = await s.games.create(guild_id=GUILD, channel_id=555, player0=CAROL, player1=DAVE)
        await s.games.append(game.id, 0, [roll(1, 6, 6)])
        assert (await s.players.get(CAROL)).prefs == {}  # type: ignore[union-attr]
        if start >= 1:
            old_game = await s.games.get(1)
            assert old_game.settings == {"cube": True}
            assert old_game.version == 2 and old_game.match_length == 5
            assert [a.kind for a in await s.games.actions(1)] == ["roll", "play"]
            assert (await s.players.get(ALICE)).display_name == "Alice"  # type: ignore[union-attr]
            assert (await s.challenges.get(7)).status == "pending"
            # Old data works with new operations.
            await s.games.append(1, 2, [roll(1, 5, 2)])
            assert (await s.games.get(1)).version == 3
        if start >= 2:
            alice = await rating_of(s, ALICE)
            assert alice is not None and alice.rating == 1600 and alice.wins == 6


async def test_open_existing_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()
    async with await open_store(path) as s:
        assert await s.schema_version() == SCHEMA_VERSION
        game = await new_game(s)
        assert (await s.games.append(game.id, 0, [roll(0, 2, 1)])).version == 1


_PG_SCHEMA_SQL = """
SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
       || ' ' || COALESCE(column_default, '') || ' ' || COALESCE(is_identity, '')
    FROM information_schema.columns WHERE table_schema = 'public'
UNION ALL
SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
UNION ALL
SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    FROM pg_constraint WHERE connamespace = 'public'::regnamespace
UNION ALL
SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
"""


async def _schema(url: str) -> list[tuple[object, ...]]:
    db = RawDb(url)
    if db.pg:
        import asyncpg

        conn = await asyncpg.connect(url)
        try:
            return sorted(tuple(r) for r in await conn.fetch(_PG_SCHEMA_SQL))
        finally:
            await conn.close()
    return sorted(await db.fetch("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"))


async def test_schema_with_all_migrations_matches_fresh(db_url: str, new_db_url) -> None:
    """Stepwise migration (one open per version) yields the same schema as a fresh one."""
    stepped = db_url
    for k in range(SCHEMA_VERSION + 1):
        await (await open_store(stepped, migrate_to=k)).close()
    fresh = new_db_url()
    await (await open_store(fresh)).close()
    assert await _schema(stepped) == await _schema(fresh)


async def test_postgres_schema_has_the_sqlite_tables_columns_and_indexes(tmp_path: Path, pg_server) -> None:
    """The two dialects' migrations describe the same tables, columns and index names."""
    lite = tmp_path / "bg.sqlite3"
    await (await open_store(lite)).close()
    name, url = pg_server.create_database()
    try:
        await (await open_store(url)).close()
        con = sqlite3.connect(lite)
        try:
            tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            lite_cols = {
                (t, r[1]) for t in tables if not t.startswith("sqlite_") for r in con.execute(f"PRAGMA table_info({t})")
            }
            lite_idx = {
                r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
            }
        finally:
            con.close()
        pg = RawDb(url)
        pg_cols = set(
            await pg.fetch(
                "SELECT table_name::text, column_name::text FROM information_schema.columns "
                "WHERE table_schema = 'public' AND table_name <> ?",
                "schema_version",
            )
        )
        pg_idx = {
            r[0]
            for r in await pg.fetch("SELECT indexname::text FROM pg_indexes WHERE schemaname = ?", "public")
            if not r[0].endswith(("_pkey", "_key"))
        }
        assert pg_cols == lite_cols
        assert pg_idx == lite_idx
    finally:
        pg_server.drop_database(name)


async def test_failed_migration_rolls_back(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    await (await open_store(db_url)).close()
    bad = Migration(
        SCHEMA_VERSION + 1,
        "bad",
        "CREATE TABLE half_done (x);\nINSERT INTO no_such_table VALUES (1);",
        "CREATE TABLE half_done (x integer);\nINSERT INTO no_such_table VALUES (1);",
    )
    monkeypatch.setattr(database, "MIGRATIONS", MIGRATIONS + (bad,))
    db = RawDb(db_url)
    if db.pg:
        import asyncpg

        with pytest.raises(asyncpg.UndefinedTableError):
            await open_store(db_url)
        assert await _raw_schema_version(db) == SCHEMA_VERSION
        assert await db.fetchval("SELECT to_regclass('half_done') IS NULL") is True
    else:
        with pytest.raises(sqlite3.OperationalError):
            await open_store(db_url)
        assert await _raw_schema_version(db) == SCHEMA_VERSION
        assert await db.fetchval("SELECT COUNT(*) FROM sqlite_master WHERE name = 'half_done'") == 0


async def test_newer_database_is_refused(db_url: str) -> None:
    await (await open_store(db_url)).close()
    db = RawDb(db_url)
    if db.pg:
        await db.execute(f"UPDATE schema_version SET version = {SCHEMA_VERSION + 5}")
    else:
        await db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    with pytest.raises(StorageError, match="newer"):
        await open_store(db_url)


async def test_processes_migrate_one_database_at_once(db_url: str) -> None:
    """Several stores opening a fresh database together migrate it exactly once."""
    stores = await asyncio.gather(*(open_store(db_url) for _ in range(4)))
    try:
        assert [await s.schema_version() for s in stores] == [SCHEMA_VERSION] * 4
        game = await new_game(stores[0])
        assert (await stores[3].games.get(game.id)).version == 0
    finally:
        for s in stores:
            await s.close()


# --------------------------------------------------------------------------
# Games and the one-active-game-per-channel rule
# --------------------------------------------------------------------------


async def test_create_game_defaults(store: Store, clock: FakeClock) -> None:
    deadline = T0 + timedelta(days=3)
    game = await new_game(store, settings={"cube": True, "jacoby": False}, match_length=7, turn_deadline=deadline)
    assert game.status == "active" and game.is_active and game.match_length == 7
    assert game.version == 0 and (game.score0, game.score1) == (0, 0)
    assert game.players == (ALICE, BOB) and game.guild_id == GUILD and game.channel_id == CHANNEL
    assert game.settings == {"cube": True, "jacoby": False}
    assert game.turn_deadline == deadline and game.created_at == T0
    assert game.result is None and game.winner is None and game.finished_at is None
    assert game.seat_of(BOB) == 1 and game.seat_of(CAROL) is None and game.opponent_of(ALICE) == BOB
    assert await store.games.get(game.id) == game
    assert await store.games.active_in(CHANNEL) == game
    assert (await store.players.get(ALICE)) is not None  # player rows created on demand


async def test_second_active_game_in_channel_is_refused(store: Store) -> None:
    first = await new_game(store)
    with pytest.raises(ChannelBusyError) as info:
        await new_game(store, p0=CAROL, p1=DAVE)
    assert "already a game in progress" in str(info.value)
    assert info.value.channel_id == CHANNEL
    # Another channel (or thread) is fine.
    await new_game(store, channel=CHANNEL + 1, p0=CAROL, p1=DAVE)
    # Once the first game ends the channel is free again.
    await store.games.append(first.id, 0, [{"kind": "abandon"}], updates={"status": "abandoned"})
    again = await new_game(store, p0=CAROL, p1=DAVE)
    assert (await store.games.active_in(CHANNEL)) == again


async def test_partial_unique_index_guards_the_table(store_factory) -> None:
    s = await store_factory()
    await new_game(s)
    await s.players.upsert(CAROL, "Carol")
    await s.players.upsert(DAVE, "Dave")
    db = RawDb(s.path)
    with pytest.raises(db.integrity_error):
        await db.execute(
            "INSERT INTO games (channel_id, player0, player1, status) VALUES (?, ?, ?, 'active')",
            CHANNEL,
            CAROL,
            DAVE,
        )
    await db.execute(
        "INSERT INTO games (channel_id, player0, player1, status) VALUES (?, ?, ?, 'finished')",
        CHANNEL,
        ALICE,
        BOB,
    )


async def test_racing_create_game_in_one_channel_has_one_winner(store_factory) -> None:
    """Two connections creating a game in the same channel at once: one game, one ChannelBusyError."""
    a, b = await store_factory(), await store_factory()
    for channel in range(10, 20):
        results = await asyncio.gather(
            new_game(a, channel=channel),
            new_game(b, channel=channel, p0=CAROL, p1=DAVE),
            return_exceptions=True,
        )
        assert sorted(type(r).__name__ for r in results) == ["ChannelBusyError", "GameRow"], results


async def test_get_missing_game(store: Store) -> None:
    with pytest.raises(NotFoundError, match="does not exist"):
        await store.games.get(42)
    assert await store.games.active_in(CHANNEL) is None
    with pytest.raises(NotFoundError):
        await store.games.append(42, 0, [{"kind": "roll"}])


# --------------------------------------------------------------------------
# Compare-and-set appends
# --------------------------------------------------------------------------


async def test_append_actions_sequence_actor_and_columns(store: Store, clock: FakeClock) -> None:
    game = await new_game(store)
    clock.advance(minutes=1)
    res = await store.games.append(
        game.id,
        0,
        [roll(0, 6, 5), {"kind": "play", "player": 0, "play": "24/18 18/13"}],
    )
    assert res.version == 2 and res.game.updated_at == T0 + timedelta(minutes=1)
    assert [(a.seq, a.actor, a.kind, a.dice, a.play) for a in res.actions] == [
        (1, ALICE, "roll", (6, 5), None),
        (2, ALICE, "play", None, "24/18 18/13"),
    ]
    res = await store.games.append(
        game.id,
        2,
        [
            roll(1, 3, 3),
            {"kind": "note", "text": "no seat"},
        ],
    )
    assert [(a.seq, a.actor) for a in res.actions] == [(3, BOB), (4, None)]
    res = await store.games.append(game.id, 4, [{"kind": "timeout", "player": 1}], actor=None)
    assert [(a.seq, a.actor) for a in res.actions] == [(5, None)]
    res = await store.games.append(game.id, 5, [{"kind": "double", "player": 0}], actor=CAROL)
    assert res.actions[0].actor == CAROL
    log = await store.games.actions(game.id)
    assert [a.seq for a in log] == [1, 2, 3, 4, 5, 6]
    assert log[0].action == roll(0, 6, 5)  # given back exactly
    assert [a.seq for a in await store.games.actions(game.id, after_seq=4)] == [5, 6]
    assert (await store.games.get(game.id)).version == 6
    snap_game, snap_log = await store.games.with_actions(game.id)
    assert snap_game.version == len(snap_log) == 6 and snap_log == log
    with pytest.raises(NotFoundError):
        await store.games.with_actions(999)


async def test_stale_version_writes_nothing(store: Store) -> None:
    game = await new_game(store)
    await store.games.append(game.id, 0, [roll(0, 4, 2)], updates={"score0": 1})
    before = await store.games.get(game.id)
    for wrong in (0, 2, 7):
        with pytest.raises(StaleVersionError) as info:
            await store.games.append(
                game.id, wrong, [roll(1, 1, 1), roll(0, 2, 2)], updates={"score0": 9, "status": "finished"}
            )
        assert str(info.value) == "the game has moved on"
        assert (info.value.expected, info.value.actual) == (wrong, 1)
    assert await store.games.get(game.id) == before
    assert len(await store.games.actions(game.id)) == 1


async def test_updates_are_applied_with_the_action(store: Store, clock: FakeClock) -> None:
    game = await new_game(store, reminder_at=T0 + timedelta(hours=1), turn_deadline=T0 + timedelta(hours=2))
    assert await store.schedule.claim_reminder(game.id, 0, reminder_owed(game)) is not None
    deadline = T0 + timedelta(days=1)
    res = await store.games.append(
        game.id,
        0,
        [roll(0, 2, 1)],
        updates={
            "turn_deadline": deadline,
            "reminder_at": deadline - timedelta(hours=6),
            "score0": 2,
            "score1": 1,
            "settings": {"cube": False},
        },
    )
    g = res.game
    assert (g.score0, g.score1, g.settings) == (2, 1, {"cube": False})
    assert g.turn_deadline == deadline and g.reminder_at == deadline - timedelta(hours=6)
    assert g.reminder_sent is False  # a new deadline re-arms the reminder
    # Naive datetimes are UTC.
    res = await store.games.append(game.id, 1, [roll(1, 6, 1)], updates={"turn_deadline": datetime(2025, 2, 1)})
    assert res.game.turn_deadline == datetime(2025, 2, 1, tzinfo=UTC)


async def test_bad_input_is_rejected_before_writing(store: Store) -> None:
    game = await new_game(store)
    with pytest.raises(ValueError, match="cannot update"):
        await store.games.append(game.id, 0, [roll(0, 1, 2)], updates={"version": 99})
    with pytest.raises(ValueError, match="status"):
        await store.games.append(game.id, 0, [roll(0, 1, 2)], updates={"status": "paused"})
    with pytest.raises(ValueError, match="kind"):
        await store.games.append(game.id, 0, [{"player": 0}])
    with pytest.raises(ValueError):
        await store.games.append(game.id, 0, [])
    with pytest.raises(TypeError):
        await store.games.append(game.id, 0, [{"kind": "x", "when": object()}])
    assert (await store.games.get(game.id)).version == 0
    assert await store.games.actions(game.id) == []


_channels = iter(range(10_000, 10**9))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(-2, 2), st.integers(1, 3)), min_size=1, max_size=12))
def test_property_cas_keeps_version_equal_to_log_length(backend: str, request, ops: list[tuple[int, int]]) -> None:
    """Any mix of fresh and stale appends: version == log length, seqs contiguous."""
    url = ":memory:" if backend == "sqlite" else request.getfixturevalue("db_url")

    async def run() -> None:
        async with await open_store(url, max_size=1) as s:
            game = await new_game(s, channel=next(_channels))
            version = 0
            for offset, size in ops:
                expected = max(0, version + offset)
                batch = [roll(i % 2, 1 + i % 6, 6 - i % 6) for i in range(size)]
                if expected == version:
                    assert (await s.games.append(game.id, expected, batch)).version == version + size
                    version += size
                else:
                    with pytest.raises(StaleVersionError):
                        await s.games.append(game.id, expected, batch)
            log = await s.games.actions(game.id)
            assert (await s.games.get(game.id)).version == version == len(log)
            assert [a.seq for a in log] == list(range(1, version + 1))

    asyncio.run(run())


async def test_locked_database_gives_busy_error_sqlite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 50)
    path = tmp_path / "bg.sqlite3"
    async with await open_store(path) as s:
        game = await new_game(s)
        with another_process_writing(path):
            with pytest.raises(DatabaseBusyError, match="busy"):
                await s.games.append(game.id, 0, [roll(0, 1, 1)])
            assert (await s.games.get(game.id)).version == 0  # reads still work under WAL
        assert (await s.games.append(game.id, 0, [roll(0, 1, 1)])).version == 1


async def test_locked_game_row_gives_busy_error_postgres(pg_server, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row lock held longer than the busy timeout (lock_timeout) -> DatabaseBusyError."""
    import asyncpg

    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 200)
    name, url = pg_server.create_database()
    try:
        async with await open_store(url) as s:
            game = await new_game(s)
            blocker = await asyncpg.connect(url)
            try:
                await blocker.execute("BEGIN")
                await blocker.execute("SELECT * FROM games WHERE id = $1 FOR UPDATE", game.id)
                with pytest.raises(DatabaseBusyError, match="busy"):
                    await s.games.append(game.id, 0, [roll(0, 1, 1)])
                assert (await s.games.get(game.id)).version == 0  # reads are not blocked
                await blocker.execute("ROLLBACK")
            finally:
                await blocker.close()
            assert (await s.games.append(game.id, 0, [roll(0, 1, 1)])).version == 1
    finally:
        pg_server.drop_database(name)


async def test_actions_are_append_only(store_factory) -> None:
    s = await store_factory()
    game = await new_game(s)
    await s.games.append(game.id, 0, [roll(0, 1, 2)])
    db = RawDb(s.path)
    with pytest.raises(db.integrity_error, match="append-only"):
        await db.execute("UPDATE actions SET kind = ? WHERE seq = ?", "x", 1)


async def test_finished_game_refuses_actions(store: Store, clock: FakeClock) -> None:
    game = await new_game(store, turn_deadline=T0 + timedelta(days=1), reminder_at=T0)
    clock.advance(hours=3)
    res = await store.games.append(
        game.id, 0, [{"kind": "resign", "player": 1}], updates={"status": "finished", "result": {"winner": 0}}
    )
    g = res.game
    assert g.status == "finished" and g.finished_at == clock.now and g.result == {"winner": 0}
    assert g.turn_deadline is None and g.reminder_at is None
    assert await store.games.active_in(CHANNEL) is None
    with pytest.raises(GameOverError, match="already over"):
        await store.games.append(game.id, 1, [roll(0, 1, 1)])


# --------------------------------------------------------------------------
# Finishing with ratings in the same transaction
# --------------------------------------------------------------------------


async def test_outcome_updates_ratings_in_guild_and_global(store: Store, clock: FakeClock) -> None:
    await store.players.upsert(ALICE, "Alice")
    game = await new_game(store, match_length=5)
    await store.games.append(game.id, 0, [roll(0, 6, 6)])
    res = await store.games.append(
        game.id,
        1,
        [{"kind": "resign", "player": 1, "points": 5}],
        updates={"score0": 5, "score1": 2, "result": {"winner": 0, "points": 5, "kind": "resign"}},
        outcome=MatchOutcome(winner=ALICE, loser=BOB, winner_points=5, loser_points=2, winner_gammons=1),
    )
    g = res.game
    assert g.status == "finished" and g.winner == ALICE and g.result == {"winner": 0, "points": 5, "kind": "resign"}
    exp_w, exp_l = rate_match(Rating(), Rating(), 5)
    assert {(c.scope, c.user_id): round(c.delta, 2) for c in res.rating_changes} == {
        (GUILD, ALICE): 22.36,
        (GUILD, BOB): -22.36,
        (0, ALICE): 22.36,
        (0, BOB): -22.36,
    }
    for scope in (GUILD, 0):
        a = await rating_of(store, ALICE, scope)
        b = await rating_of(store, BOB, scope)
        assert a is not None and b is not None
        assert a.rating == pytest.approx(exp_w.rating) and a.experience == 5
        assert (a.games, a.wins, a.losses, a.gammons, a.points_won, a.points_lost) == (1, 1, 0, 1, 5, 2)
        assert (b.games, b.wins, b.losses, b.points_won, b.points_lost) == (1, 0, 1, 2, 5)
        assert b.rating == pytest.approx(exp_l.rating) and b.best_rating == 1500
        assert a.best_rating == pytest.approx(exp_w.rating)
        assert a.display_name == "Alice"
    history = await rating_history(store, BOB, GUILD)
    assert len(history) == 1 and history[0].game_id == game.id and not history[0].won

    # A second match uses the stored ratings and experience (and a money game counts as 1 point).
    game2 = await new_game(store, channel=CHANNEL + 1)
    res2 = await store.games.append(
        game2.id, 0, [{"kind": "resign", "player": 0}], outcome=MatchOutcome(winner=BOB, loser=ALICE, winner_points=2)
    )
    w, l = rate_match(exp_l, exp_w, 0)
    bob = await rating_of(store, BOB, GUILD)
    assert bob is not None and bob.rating == pytest.approx(w.rating) and bob.experience == 6
    assert [c.user_id for c in res2.rating_changes if c.won] == [BOB, BOB]


async def test_outcome_in_dm_only_rates_globally(store: Store) -> None:
    game = await store.games.create(guild_id=0, channel_id=9, player0=ALICE, player1=BOB)
    res = await store.games.append(game.id, 0, [{"kind": "resign", "player": 0}], outcome=MatchOutcome(BOB, ALICE))
    assert {c.scope for c in res.rating_changes} == {0}
    assert len(res.rating_changes) == 2


async def test_unrated_and_abandoned_outcomes(store: Store) -> None:
    game = await new_game(store)
    res = await store.games.append(
        game.id,
        0,
        [{"kind": "timeout", "player": 1}],
        actor=None,
        updates={"status": "abandoned"},
        outcome=MatchOutcome(winner=ALICE, loser=BOB, rated=False),
    )
    assert res.game.status == "abandoned" and res.game.winner == ALICE and res.rating_changes == []
    assert res.game.result == {"winner": ALICE, "loser": BOB, "winner_points": 1, "loser_points": 0}
    assert await rating_of(store, ALICE) is None


async def test_outcome_failure_rolls_back_the_action(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    game = await new_game(store)
    with pytest.raises(ValueError, match="two players"):
        await store.games.append(game.id, 0, [{"kind": "resign"}], outcome=MatchOutcome(winner=ALICE, loser=CAROL))

    async def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(ratings, "apply_outcome", boom)
    with pytest.raises(RuntimeError):
        await store.games.append(game.id, 0, [{"kind": "resign"}], outcome=MatchOutcome(winner=ALICE, loser=BOB))
    g = await store.games.get(game.id)
    assert g.version == 0 and g.status == "active" and await store.games.actions(game.id) == []
    # The connection is still usable after the rollback.
    assert (await store.games.append(game.id, 0, [roll(0, 1, 2)])).version == 1


# --------------------------------------------------------------------------
# Reads: player games, scheduler queries, board message
# --------------------------------------------------------------------------


async def test_player_game_queries(store: Store, clock: FakeClock) -> None:
    g1 = await new_game(store, channel=1)
    g2 = await new_game(store, channel=2, p0=CAROL, p1=ALICE)
    await store.games.create(guild_id=GUILD + 1, channel_id=3, player0=ALICE, player1=DAVE)
    await new_game(store, channel=4, p0=CAROL, p1=DAVE)
    assert [g.id for g in await store.games.active_for(ALICE, GUILD)] == [g1.id, g2.id]
    assert len(await store.games.active_for(ALICE)) == 3

    for i, g in enumerate((g1, g2)):
        clock.advance(hours=1)
        await store.games.append(g.id, 0, [{"kind": "resign", "player": 1}], updates={"status": "finished"})
    history = await store.games.finished_for(ALICE, GUILD)
    assert [g.id for g in history] == [g2.id, g1.id]  # newest first
    assert [g.id for g in await store.games.finished_for(ALICE, GUILD, offset=1, limit=1)] == [g1.id]
    assert [g.id for g in await store.games.finished_for(ALICE, opponent=BOB)] == [g1.id]
    assert await store.games.finished_for(DAVE) == []
    assert [g.channel_id for g in await store.games.active_for(ALICE)] == [3]


async def test_waiting_games_come_a_page_at_a_time_longest_untouched_first(store: Store, clock: FakeClock) -> None:
    games = []
    for channel in range(1, 8):
        games.append(await new_game(store, channel=channel, p0=ALICE if channel % 2 else BOB, p1=CAROL))
        clock.advance(minutes=1)
    await new_game(store, channel=20, p0=ALICE, p1=BOB)  # not CAROL's
    finished = games.pop(3)
    await store.games.append(finished.id, 0, [{"kind": "resign", "player": 1}], updates={"status": "finished"})
    for g in games[:2]:  # touched last: they go to the end
        clock.advance(minutes=1)
        await store.games.append(g.id, 0, [roll(0, 3, 1)])
    expected = [g.id for g in games[2:] + games[:2]]
    seen, after, pages = [], None, 0
    while True:
        page = await store.games.waiting_page(CAROL, after=after, limit=2)
        pages += 1
        seen += [game_id for game_id, _, _ in page]
        assert all(guild == GUILD for _, guild, _ in page)
        if len(page) < 2:
            break
        after = page[-1][2]
    assert seen == expected and pages == 4
    # games touched at the same instant: the id breaks the tie, none skipped nor read twice
    for g in games[2:]:
        await store.games.append(g.id, 0, [roll(0, 3, 1)])
    first = await store.games.waiting_page(CAROL, limit=2)
    rest = await store.games.waiting_page(CAROL, after=first[-1][2], limit=10)
    assert sorted(x[0] for x in first + rest) == sorted(expected) and len(first + rest) == len(expected)
    # only the games waiting for CAROL (seat 1): the turn kept in the row, unknown ones included
    await store.games.append(games[2].id, 1, [roll(1, 2, 1)], updates={"turn": 1})
    await store.games.append(games[3].id, 1, [roll(1, 2, 1)], updates={"turn": 0})
    mine = [x[0] for x in await store.games.waiting_page(CAROL, limit=10, their_turn=True)]
    assert games[2].id in mine and games[3].id not in mine and len(mine) == len(expected) - 1
    paged, after = [], None  # and page by page: the next page keeps the filter
    while page := await store.games.waiting_page(CAROL, after=after, limit=2, their_turn=True):
        paged += [x[0] for x in page]
        after = page[-1][2]
    assert paged == mine


async def test_deadlines_and_reminders(store: Store, clock: FakeClock) -> None:
    g1 = await new_game(store, channel=1, turn_deadline=T0 + timedelta(hours=10), reminder_at=T0 + timedelta(hours=4))
    g2 = await new_game(store, channel=2, turn_deadline=T0 + timedelta(hours=5), reminder_at=T0 + timedelta(hours=2))
    await new_game(store, channel=3)  # no deadline
    assert await store.schedule.next_wakeup() == T0 + timedelta(hours=2)
    assert await store.schedule.due_deadlines(T0) == []
    assert [g.id for g in await store.schedule.due_reminders(T0 + timedelta(hours=4))] == [g2.id, g1.id]

    assert await store.schedule.claim_reminder(g2.id, 0, reminder_owed(g2)) is not None
    assert await store.schedule.claim_reminder(g2.id, 0, reminder_owed(g2)) is None  # already sent
    assert await store.schedule.claim_reminder(g1.id, 5, reminder_owed(g1)) is None  # stale version
    assert [e.game_id for e in await store.outbox.owed(kinds=("reminder",))] == [g2.id]  # owed once
    assert [g.id for g in await store.schedule.due_reminders(T0 + timedelta(hours=4))] == [g1.id]

    clock.now = T0 + timedelta(hours=6)
    assert [g.id for g in await store.schedule.due_deadlines()] == [g2.id]  # default now = clock
    assert [g.id for g in await store.schedule.due_deadlines(T0 + timedelta(days=1))] == [g2.id, g1.id]
    # Moving on re-arms: new deadline clears reminder_sent.
    await store.games.append(
        g2.id,
        0,
        [roll(0, 1, 1)],
        updates={"turn_deadline": T0 + timedelta(days=2), "reminder_at": T0 + timedelta(days=1)},
    )
    assert [g.id for g in await store.schedule.due_reminders(T0 + timedelta(days=1))] == [g1.id, g2.id]
    assert [g.id for g in await store.schedule.due_deadlines()] == []


async def test_board_message(store: Store) -> None:
    game = await new_game(store)
    await store.outbox.delivered([], game_id=game.id, board=(777, 888), version=0)
    g = await store.games.get(game.id)
    assert (g.board_channel_id, g.board_message_id, g.board_version, g.version) == (777, 888, 0, 0)


# --------------------------------------------------------------------------
# Challenges
# --------------------------------------------------------------------------


async def test_challenge_lifecycle(store: Store, clock: FakeClock) -> None:
    c1 = await store.challenges.create(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=ALICE,
        challenged=BOB,
        settings={"cube": True},
        match_length=5,
        expires_at=T0 + timedelta(minutes=10),
    )
    c2 = await store.challenges.create(
        guild_id=GUILD, channel_id=CHANNEL, challenger=CAROL, challenged=None, expires_at=T0 + timedelta(hours=1)
    )
    assert c1.status == "pending" and c1.settings == {"cube": True} and c1.match_length == 5
    assert await store.challenges.get(c1.id) == c1
    assert await pending_challenges(store, CHANNEL) == [c1.id, c2.id]
    assert await pending_challenges(store, user_id=BOB) == [c1.id]
    await store.challenges.set_message(c1.id, 4242)
    assert (await store.challenges.get(c1.id)).message_id == 4242

    declined = await store.challenges.set_status(c2.id, "declined")
    assert declined.status == "declined"
    with pytest.raises(ChallengeClosedError, match="already declined"):
        await store.challenges.set_status(c2.id, "accepted")
    with pytest.raises(NotFoundError):
        await store.challenges.get(999)

    assert await store.schedule.expire_challenges(T0 + timedelta(minutes=9)) == []
    clock.advance(minutes=11)
    expired = await store.schedule.expire_challenges()
    assert [(c.id, c.status) for c in expired] == [(c1.id, "expired")]
    assert await pending_challenges(store, CHANNEL) == []
    assert await store.schedule.expire_challenges() == []


async def test_accepting_a_challenge_creates_the_game_atomically(store: Store) -> None:
    ch = await store.challenges.create(guild_id=GUILD, channel_id=CHANNEL, challenger=ALICE, challenged=BOB)
    game = await new_game(store, p0=BOB, p1=ALICE, challenge_id=ch.id)
    accepted = await store.challenges.get(ch.id)
    assert accepted.status == "accepted" and accepted.game_id == game.id
    # Accepting twice fails and creates nothing.
    with pytest.raises(ChallengeClosedError):
        await new_game(store, channel=CHANNEL + 1, challenge_id=ch.id)
    assert await store.games.active_in(CHANNEL + 1) is None
    # A busy channel leaves the challenge pending.
    ch2 = await store.challenges.create(guild_id=GUILD, channel_id=CHANNEL, challenger=CAROL, challenged=DAVE)
    with pytest.raises(ChannelBusyError):
        await new_game(store, p0=CAROL, p1=DAVE, challenge_id=ch2.id)
    assert (await store.challenges.get(ch2.id)).status == "pending"


# --------------------------------------------------------------------------
# Players, settings, leaderboard, stats
# --------------------------------------------------------------------------


async def test_players(store: Store, clock: FakeClock) -> None:
    p = await store.players.upsert(ALICE, "Alice", is_bot=False)
    assert (p.display_name, p.is_bot, p.prefs) == ("Alice", False, {})
    clock.advance(days=1)
    p = await store.players.upsert(ALICE, "Alice the Great")
    assert p.display_name == "Alice the Great" and p.created_at == T0 and p.updated_at == clock.now
    assert p.prefs == {}
    assert await store.players.get(CAROL) is None


async def _play_match(store: Store, channel: int, winner: int, loser: int, length: int, points: int) -> None:
    game = await new_game(store, channel=channel, p0=winner, p1=loser, match_length=length)
    await store.games.append(
        game.id,
        0,
        [{"kind": "resign", "player": 1}],
        outcome=MatchOutcome(winner=winner, loser=loser, winner_points=points, loser_points=0),
    )


async def test_leaderboard_paging_orders_and_stats(store: Store) -> None:
    for uid, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")):
        await store.players.upsert(uid, name)
    await _play_match(store, 1, ALICE, BOB, 7, 7)
    await _play_match(store, 2, ALICE, CAROL, 7, 7)
    await _play_match(store, 3, DAVE, BOB, 1, 1)
    await _play_match(store, 4, CAROL, DAVE, 0, 4)  # money game, 4 points with the cube
    await store.games.create(guild_id=GUILD + 1, channel_id=5, player0=DAVE, player1=ALICE)

    page = await store.ratings.leaderboard(GUILD, limit=2)
    assert page.total == 4 and len(page.entries) == 2
    assert [(e.rank, e.stats.display_name) for e in page.entries] == [(1, "Alice"), (2, "Dave")]
    page2 = await store.ratings.leaderboard(GUILD, offset=2, limit=2)
    assert [(e.rank, e.stats.display_name) for e in page2.entries] == [(3, "Carol"), (4, "Bob")]
    assert page2.offset + len(page2.entries) == page2.total
    ratings = [e.stats.rating for e in page.entries + page2.entries]
    assert ratings == sorted(ratings, reverse=True)

    by_points = await store.ratings.leaderboard(GUILD, order="points")
    assert [(e.stats.display_name, e.stats.points_won) for e in by_points.entries][:2] == [("Alice", 14), ("Carol", 4)]
    assert (await store.ratings.leaderboard(GUILD, min_games=2)).total == 4
    assert (await store.ratings.leaderboard(GUILD, min_games=3)).total == 0
    assert (await store.ratings.leaderboard(0)).total == 4  # global mirrors the only guild
    assert (await store.ratings.leaderboard(GUILD + 1)).total == 0
    with pytest.raises(ValueError):
        await store.ratings.leaderboard(GUILD, order="luck")  # type: ignore[arg-type]

    stats = await store.ratings.player_stats(BOB, GUILD)
    assert stats is not None and stats.rank == 4 and stats.ranked_players == 4
    assert stats.stats.games == 2 and stats.stats.wins == 0 and stats.stats.net_points == -8
    assert (await store.ratings.player_stats(ALICE, GUILD)).rank == 1  # type: ignore[union-attr]
    assert await store.ratings.player_stats(ALICE, GUILD + 1) is None


async def test_every_members_rank_is_their_place_on_the_pages(store: Store) -> None:
    """Ranks and pages agree, ties included (the same rating, the same games), on
    every page of both orders: the standings are read in index order."""
    rng = random.Random(5)
    rows = []
    for i in range(60):
        games = rng.choice([0, 1, 1, 2, 3])
        rows.append(
            (
                GUILD,
                5_000 + i,
                rng.choice([1450.0, 1500.0, 1500.0, 1537.5, 1600.0]),
                games,
                rng.randrange(0, 4) if games else 0,
            )
        )

    async def write(tx) -> None:
        await tx.executemany("INSERT INTO players (user_id) VALUES (?)", [(r[1],) for r in rows])
        await tx.executemany(
            "INSERT INTO ratings (scope, user_id, rating, games, points_won) VALUES (?, ?, ?, ?, ?)", rows
        )

    await store.db.transact(write)
    for order in ("rating", "points"):
        seen = []
        for offset in range(0, 60, 7):
            page = await store.ratings.leaderboard(GUILD, order=order, offset=offset, limit=7)
            assert page.total == sum(1 for r in rows if r[3] > 0)
            seen += [(e.rank, e.stats.user_id) for e in page.entries]
        assert [rank for rank, _ in seen] == list(range(1, len(seen) + 1))
        assert len({uid for _, uid in seen}) == len(seen) == page.total
        by_id = {r[1]: r for r in rows}
        keys = [(-by_id[u][4] if order == "points" else 0, -by_id[u][2], -by_id[u][3], u) for _, u in seen]
        assert keys == sorted(keys)
        if order == "rating":
            for rank, uid in seen:
                stats = await store.ratings.player_stats(uid, GUILD)
                assert stats is not None and stats.rank == rank and stats.ranked_players == page.total


async def test_a_members_history_pages_are_the_newest_games_first_whichever_seat(store: Store) -> None:
    """Each seat's games come from their own index; merged, every page (any server,
    any opponent, any offset) is what sorting all the member's games would give."""
    rng = random.Random(8)
    people = [ALICE, BOB, 7001, 7002]
    rows = []
    for i in range(80):
        p0, p1 = rng.sample(people, 2)
        status = rng.choice(["finished", "finished", "abandoned", "active"])
        finished = None if status == "active" else float(rng.randrange(20))  # ties on purpose
        rows.append((i + 1, rng.choice([GUILD, GUILD + 1]), 50_000 + i, p0, p1, status, finished))

    async def write(tx) -> None:
        await tx.executemany("INSERT INTO players (user_id) VALUES (?) ON CONFLICT DO NOTHING", [(p,) for p in people])
        await tx.executemany(
            "INSERT INTO games (id, guild_id, channel_id, player0, player1, status, finished_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    await store.db.transact(write)
    for guild in (None, GUILD, GUILD + 1):
        for opponent in (None, BOB, 7002):
            mine = [
                r
                for r in rows
                if ALICE in (r[3], r[4])
                and r[5] != "active"
                and (guild is None or r[1] == guild)
                and (opponent is None or opponent in (r[3], r[4]))
            ]
            expected = [r[0] for r in sorted(mine, key=lambda r: (-present(r[6]), -r[0]))]
            for offset, limit in ((0, 10), (0, 100), (3, 4), (len(expected), 5)):
                got = await store.games.finished_for(ALICE, guild, offset=offset, limit=limit, opponent=opponent)
                assert [g.id for g in got] == expected[offset : offset + limit], (guild, opponent, offset, limit)


async def test_dice_stats_from_actions(store: Store) -> None:
    game = await new_game(store)
    await store.games.append(
        game.id, 0, [roll(0, 6, 5), roll(1, 2, 2), roll(0, 5, 6), roll(0, 3, 3), {"kind": "play", "player": 0}]
    )
    alice = await store.stats.dice_stats(ALICE)
    assert alice.counts == {(6, 5): 2, (3, 3): 1}
    assert (alice.rolls, alice.doubles, alice.pips) == (3, 1, 11 + 11 + 12)
    assert (await store.stats.dice_stats(BOB, GUILD)).counts == {(2, 2): 1}
    assert (await store.stats.dice_stats(BOB, GUILD + 1)).rolls == 0


async def test_dice_stats_count_finished_games_once_and_live_games_from_their_logs(store: Store) -> None:
    """The finished games' rolls are counted when each ends, the live ones' read from
    their logs: together always what a count of the whole log says."""
    rng = random.Random(11)

    async def logged(user: int, guild: int | None) -> dict[tuple[int, int], int]:
        rows = await store.db.fetchall(
            "SELECT a.die1, a.die2, g.guild_id FROM actions a JOIN games g ON g.id = a.game_id"
            " WHERE a.actor = ? AND a.die1 IS NOT NULL",
            (user,),
        )
        counts: dict[tuple[int, int], int] = {}
        for r in rows:
            if guild is None or r["guild_id"] == guild:
                key = (max(r["die1"], r["die2"]), min(r["die1"], r["die2"]))
                counts[key] = counts.get(key, 0) + 1
        return counts

    for i in range(6):
        guild = GUILD + i % 2
        game = await store.games.create(guild_id=guild, channel_id=900 + i, player0=ALICE, player1=BOB)
        rolls = [roll(rng.randrange(2), rng.randint(1, 6), rng.randint(1, 6)) for _ in range(rng.randint(1, 12))]
        await store.games.append(game.id, 0, rolls)
        if i % 3 == 0:  # finished
            await store.games.append(
                game.id, len(rolls), [{"kind": "resign", "player": 0}], outcome=MatchOutcome(BOB, ALICE)
            )
        elif i % 3 == 1:  # abandoned
            await store.games.append(game.id, len(rolls), [{"kind": "abandon"}], updates={"status": "abandoned"})
        for user in (ALICE, BOB):
            for where in (None, GUILD, GUILD + 1):
                assert (await store.stats.dice_stats(user, where)).counts == await logged(user, where), (i, user, where)
    kept = await store.db.fetchone("SELECT SUM(n) FROM dice_counts")
    assert kept is not None and kept[0] > 0  # the finished ones are counted, not recounted


# --------------------------------------------------------------------------
# Concurrency
# --------------------------------------------------------------------------


async def test_two_tasks_race_on_one_store(store: Store) -> None:
    game = await new_game(store)
    for version in range(5):
        results = await asyncio.gather(
            store.games.append(game.id, version, [roll(0, 1, 2)]),
            store.games.append(game.id, version, [roll(1, 3, 4)]),
            return_exceptions=True,
        )
        assert sum(isinstance(r, StaleVersionError) for r in results) == 1
        assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert [a.seq for a in await store.games.actions(game.id)] == [1, 2, 3, 4, 5]


async def test_two_connections_race_on_one_database(store_factory) -> None:
    a, b = await store_factory(), await store_factory()
    game = await new_game(a)
    for version in range(10):
        results = await asyncio.gather(
            a.games.append(game.id, version, [roll(0, 1, 2)]),
            b.games.append(game.id, version, [roll(1, 3, 4)]),
            return_exceptions=True,
        )
        kinds = sorted(type(r).__name__ for r in results)
        assert kinds == ["AppendResult", "StaleVersionError"], results
    assert (await b.games.get(game.id)).version == 10
    assert [x.seq for x in await a.games.actions(game.id)] == list(range(1, 11))


async def test_many_tasks_race_on_one_pool(store_factory) -> None:
    """Eight tasks, one store (a pool of 4 on PostgreSQL): one winner per version."""
    s = await store_factory(max_size=4)
    game = await new_game(s)
    for version in range(6):
        results = await asyncio.gather(
            *(s.games.append(game.id, version, [{"kind": "note", "t": t}], actor=None) for t in range(8)),
            return_exceptions=True,
        )
        assert sum(not isinstance(r, BaseException) for r in results) == 1, results
        assert sum(isinstance(r, StaleVersionError) for r in results) == 7, results
    assert (await s.games.get(game.id)).version == 6


async def test_matches_finishing_at_once_lose_no_rating_update(store_factory) -> None:
    """Two connections finish matches of the same two players at once: both count."""
    a, b = await store_factory(), await store_factory()
    games = [await new_game(a, channel=c) for c in (1, 2, 3, 4)]
    results = await asyncio.gather(
        *(
            store.games.append(g.id, 0, [{"kind": "resign", "player": 1}], outcome=MatchOutcome(ALICE, BOB))
            for store, g in zip((a, b, a, b), games)
        )
    )
    assert all(r.game.status == "finished" for r in results)
    for scope in (GUILD, 0):
        alice = await rating_of(a, ALICE, scope)
        bob = await rating_of(b, BOB, scope)
        assert alice is not None and bob is not None
        assert (alice.games, alice.wins, bob.games, bob.wins) == (4, 4, 4, 0)
        assert len(await rating_history(a, ALICE, scope)) == 4
        assert alice.rating > 1500 > bob.rating
        # Each match was rated from the previous one's result (no lost update).
        history = await rating_history(a, ALICE, scope)
        assert all(h1.rating_after == h2.rating_before for h1, h2 in zip(history, history[1:]))


async def test_challenge_answered_twice_at_once(store_factory) -> None:
    """Two connections accept one challenge at once: one game, one ChallengeClosedError."""
    a, b = await store_factory(), await store_factory()
    for round_ in range(5):
        ch = await a.challenges.create(guild_id=GUILD, channel_id=round_, challenger=ALICE, challenged=None)
        results = await asyncio.gather(
            new_game(a, channel=100 + round_, p0=BOB, p1=ALICE, challenge_id=ch.id),
            new_game(b, channel=200 + round_, p0=CAROL, p1=ALICE, challenge_id=ch.id),
            return_exceptions=True,
        )
        assert sorted(type(r).__name__ for r in results) == ["ChallengeClosedError", "GameRow"], results
        won = next(r for r in results if not isinstance(r, BaseException))
        assert (await b.challenges.get(ch.id)).game_id == won.id


@pytest.mark.parametrize("delay", [0, 0.0005, 0.001, 0.002, 0.003, 0.004, 0.006, 0.05])
async def test_cancelled_append_leaves_no_open_transaction(store: Store, delay: float) -> None:
    """Cancel at various points of a 50-action append: all or nothing, connection usable."""
    game = await new_game(store)
    task = asyncio.create_task(store.games.append(game.id, 0, [roll(0, 1, 2)] * 50))
    await asyncio.sleep(delay)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    version = (await store.games.get(game.id)).version
    assert version in (0, 50)  # all or nothing
    assert len(await store.games.actions(game.id)) == version
    assert (await store.games.append(game.id, version, [roll(1, 5, 5)])).version == version + 1


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_child_env(),
    )


async def test_processes_hammering_one_game(db_url: str) -> None:
    async with await open_store(db_url) as s:
        game = await new_game(s)
    workers, attempts = 3, 60
    start_at = time.time() + 1.5  # all workers start together once imported
    procs = [_spawn("hammer", db_url, str(game.id), str(attempts), str(w), str(start_at)) for w in range(workers)]
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    assert all(r["ok"] + r["stale"] == attempts for r in reports)
    successes = sum(r["ok"] for r in reports)
    assert sum(r["stale"] for r in reports) > 0  # the race really happened
    async with await open_store(db_url) as s:
        log = await s.games.actions(game.id)
        assert (await s.games.get(game.id)).version == successes == len(log)
        assert [a.seq for a in log] == list(range(1, successes + 1))
        assert len({(a.action["worker"], a.action["i"]) for a in log}) == successes  # no duplicates
        assert await s.integrity_check() == "ok"


async def test_processes_fire_each_reminder_timeout_and_expiry_once(db_url: str) -> None:
    """Three scheduler processes sweep together: every reminder, timeout and expiry happens once."""
    n = 12
    async with await open_store(db_url, clock=FakeClock()) as s:
        reminders = [
            (await new_game(s, channel=c, reminder_at=T0, turn_deadline=T0 + timedelta(days=9))).id
            for c in range(1, n + 1)
        ]
        timeouts = [(await new_game(s, channel=c, turn_deadline=T0)).id for c in range(100, 100 + n)]
        challenges = [
            (
                await s.challenges.create(guild_id=GUILD, channel_id=c, challenger=ALICE, challenged=BOB, expires_at=T0)
            ).id
            for c in range(200, 200 + n)
        ]
    start_at = time.time() + 1.5
    procs = [_spawn("sweep", db_url, str(_to_unix(T0 + timedelta(hours=1))), str(w), str(start_at)) for w in range(3)]
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    for key, expected in (("reminded", reminders), ("timed_out", timeouts), ("expired", challenges)):
        fired = [i for r in reports for i in r[key]]
        assert sorted(fired) == sorted(expected), (key, reports)  # each exactly once
    async with await open_store(db_url) as s:
        for gid in timeouts:
            g = await s.games.get(gid)
            assert g.status == "abandoned" and g.version == 1
        for gid in reminders:
            assert (await s.games.get(gid)).reminder_sent is True


def _to_unix(value: datetime) -> float:
    return value.timestamp()


@pytest.mark.parametrize("acks_before_kill", [3, 40])
async def test_sigkill_mid_stream_loses_no_acknowledged_append(db_url: str, acks_before_kill: int) -> None:
    async with await open_store(db_url) as s:
        game = await new_game(s)
    proc = _spawn("stream", db_url, str(game.id))
    acked: list[int] = []
    try:
        assert proc.stdout is not None
        while len(acked) < acks_before_kill:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else "child died"
            acked.append(int(line))
        proc.send_signal(signal.SIGKILL)  # while it is still appending
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    assert proc.returncode == -signal.SIGKILL
    assert acked == [3 * (i + 1) for i in range(len(acked))]

    if not db_url.startswith("postgresql://"):
        con = sqlite3.connect(db_url)
        try:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            con.close()
    async with await open_store(db_url) as s:
        g = await s.games.get(game.id)
        log = await s.games.actions(game.id)
        assert g.version == len(log) and g.version % 3 == 0  # no half-applied batch
        assert [a.seq for a in log] == list(range(1, g.version + 1))
        assert g.version >= acked[-1]  # every acknowledged append survived
        assert g.score0 == g.version // 3 - 1  # row update is part of the same commit


# --------------------------------------------------------------------------
# DATABASE_URL, pools, outages (PostgreSQL)
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "backend", "location"),
    [
        ("data/backgammon.sqlite3", "sqlite", "data/backgammon.sqlite3"),
        (":memory:", "sqlite", ":memory:"),
        ("sqlite:///data/bg.sqlite3", "sqlite", "data/bg.sqlite3"),
        ("sqlite:////var/lib/bg.sqlite3", "sqlite", "/var/lib/bg.sqlite3"),
        ("sqlite:///:memory:", "sqlite", ":memory:"),
        ("postgresql://bg@db:5432/bg", "postgresql", "postgresql://bg@db:5432/bg"),
        ("postgres://bg:pw@db/bg?sslmode=require", "postgresql", "postgres://bg:pw@db/bg?sslmode=require"),
    ],
)
def test_parse_database_url(given: str, backend: str, location: str) -> None:
    target = storage.parse_database_url(given)
    assert (target.backend, target.location) == (backend, location)


def test_parse_database_url_rejects_other_schemes_and_redacts() -> None:
    with pytest.raises(ValueError, match="unsupported"):
        storage.parse_database_url("mysql://root:secret@db/bg")
    assert storage.parse_database_url("postgresql://bg:secret@db/bg").redacted == "postgresql://bg:***@db/bg"


async def test_open_store_path_and_sqlite_url_are_the_same_database(tmp_path: Path) -> None:
    path = tmp_path / "bg.sqlite3"
    async with await open_store(path) as a:
        game = await new_game(a)
    async with await open_store(f"sqlite:///{path}") as b:
        assert b.backend == "sqlite" and (await b.games.get(game.id)).id == game.id


@pytest.fixture
def pg_url(pg_server) -> Iterator[str]:
    name, url = pg_server.create_database()
    try:
        yield url
    finally:
        pg_server.drop_database(name)


async def test_open_postgres_pool_and_schema_version_table(pg_url: str) -> None:
    async with await open_store(pg_url, min_size=2, max_size=3) as s:
        assert s.backend == "postgresql" and s.path == pg_url
        pool = s.db.driver.pool  # type: ignore[attr-defined]
        assert (pool.get_min_size(), pool.get_max_size()) == (2, 3)
        assert await s.schema_version() == SCHEMA_VERSION
        assert await RawDb(pg_url).fetch("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
        games = [await new_game(s, channel=c) for c in range(12)]
        await asyncio.gather(*(s.games.append(g.id, 0, [roll(0, 1, 2)]) for g in games))
        assert pool.get_size() <= 3
        name = pg_url.rsplit("/", 1)[1]
        conns = await RawDb(pg_url).fetchval(
            f"SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '{name}' AND application_name = 'discord-backgammon'"
        )
        assert 2 <= conns <= 3
    with pytest.raises(ValueError):
        await open_store(pg_url, min_size=4, max_size=2)


async def test_unreachable_server_is_a_typed_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there
    with pytest.raises(DatabaseUnavailableError, match="unavailable, try again in a moment") as info:
        await open_store(f"postgresql://postgres@127.0.0.1:{port}/bg")
    assert isinstance(info.value, StorageError)


async def test_outage_raises_unavailable_and_the_store_recovers(pg_server, pg_url: str) -> None:
    async with await open_store(pg_url, min_size=2, max_size=4) as s:
        game = await new_game(s)
        await s.games.append(game.id, 0, [roll(0, 1, 2)])
        pg_server.stop("fast")
        try:
            with pytest.raises(DatabaseUnavailableError, match="unavailable"):
                await s.games.get(game.id)
            with pytest.raises(DatabaseUnavailableError):
                await s.games.append(game.id, 1, [roll(1, 3, 4)])
            with pytest.raises(DatabaseUnavailableError):
                await s.games.with_actions(game.id)
            with pytest.raises(DatabaseUnavailableError):
                await s.ratings.leaderboard(GUILD)
            with pytest.raises(DatabaseUnavailableError):
                await open_store(pg_url)
        finally:
            pg_server.start()
        # The same store works again: dead pooled connections were replaced.
        assert (await s.games.append(game.id, 1, [roll(1, 3, 4)])).version == 2
        game_row, log = await s.games.with_actions(game.id)
        assert game_row.version == len(log) == 2


@pytest.mark.parametrize("mode", ["fast", "immediate"])
async def test_restart_mid_run_loses_no_acknowledged_action(pg_server, pg_url: str, mode: str) -> None:
    """``pg_ctl restart`` (clean, or crash-like ``immediate``) while appends stream in."""
    async with await open_store(pg_url, max_size=3) as s:
        game = await new_game(s)
        acked: dict[int, int] = {}  # version -> i of the acknowledged action
        outages: list[BaseException] = []
        stop = asyncio.Event()

        async def writer() -> None:
            version, i = 0, 0
            while not stop.is_set():
                try:
                    res = await s.games.append(game.id, version, [{"kind": "note", "i": i}], actor=None)
                except DatabaseUnavailableError as exc:
                    outages.append(exc)
                    await asyncio.sleep(0.02)
                    continue  # may have landed (lost during COMMIT): the next try says Stale
                except StaleVersionError:
                    try:
                        version = (await s.games.get(game.id)).version
                    except DatabaseUnavailableError as exc:
                        outages.append(exc)
                    i += 1
                    continue
                version = res.version
                acked[version] = i
                i += 1

        task = asyncio.create_task(writer())
        try:
            while len(acked) < 20:
                await asyncio.sleep(0.01)
            await asyncio.to_thread(pg_server.restart, mode)
            after = len(acked)
            deadline = time.monotonic() + 30
            while len(acked) < after + 20:
                assert time.monotonic() < deadline, f"no progress after the restart ({len(outages)} outages)"
                assert not task.done(), task.exception()
                await asyncio.sleep(0.02)
        finally:
            stop.set()
            await task  # the writer saw only typed errors (anything else re-raises here)
        assert outages, "the restart was not noticed"
        assert all(str(e) == "The database is unavailable, try again in a moment." for e in outages)

    async with await open_store(pg_url) as s:
        g, log = await s.games.with_actions(game.id)
        assert g.version == len(log) and [a.seq for a in log] == list(range(1, g.version + 1))
        by_seq = {a.seq: a.action["i"] for a in log}
        assert all(by_seq.get(v) == i for v, i in acked.items())  # every acknowledged action is there


# --------------------------------------------------------------------------
# Copying a SQLite database into PostgreSQL
# --------------------------------------------------------------------------


async def _populate(s: Store, clock: FakeClock) -> None:
    """A bit of everything: players with prefs, guild settings, finished and live games, challenges."""
    await s.players.upsert(ALICE, "Alice")
    await s.players.upsert(BOB, "Bób 🎲", is_bot=True)
    await s.db.transact(
        lambda tx: tx.execute("UPDATE players SET prefs = ? WHERE user_id = ?", ('{"dm_reminders":false}', ALICE))
    )
    await s.db.transact(
        lambda tx: tx.execute(
            "INSERT INTO guild_settings (guild_id, settings) VALUES (?, ?)", (GUILD, '{"move_days":2}')
        )
    )
    big = 1_234_567_890_123_456_789  # Discord snowflakes need BIGINT
    for c in range(3):
        await _play_match(s, c + 1, ALICE, BOB, 5, 5)
        clock.advance(minutes=7)
    live = await s.games.create(
        guild_id=big,
        channel_id=big + 1,
        player0=big + 2,
        player1=CAROL,
        settings={"cube": True},
        match_length=7,
        turn_deadline=T0 + timedelta(days=2),
        reminder_at=T0 + timedelta(days=1, seconds=0.123456),
    )
    await s.games.append(
        live.id,
        0,
        [roll(0, 6, 5), {"kind": "play", "player": 0, "play": "24/18 18/13"}],
        snapshot=(1, '{"a": "snapshot"}'),
    )
    await s.outbox.delivered([], game_id=live.id, board=(big + 3, big + 4), version=2)
    ch = await s.challenges.create(guild_id=GUILD, channel_id=9, challenger=DAVE, challenged=None, expires_at=T0)
    await s.challenges.set_message(ch.id, 42)
    await s.challenges.create(guild_id=GUILD, channel_id=10, challenger=ALICE, challenged=DAVE)


async def test_copy_sqlite_to_postgres_and_verify(tmp_path: Path, pg_url: str) -> None:
    from bot.store.copy import copy_sqlite_to_postgres, verify_copy

    clock = FakeClock()
    lite = str(tmp_path / "bg.sqlite3")
    async with await open_store(lite, clock=clock) as s:
        await _populate(s, clock)
    report = await copy_sqlite_to_postgres(lite, pg_url)
    assert report.ok, report.summary()
    assert report.rows["games"] == 4 and report.rows["actions"] == 5 and report.rows["rating_history"] == 12
    assert report.games_checked == 4 and report.actions_checked == 5 and report.rows["game_snapshots"] == 1

    async with await open_store(lite) as a, await open_store(pg_url) as b:
        assert await a.ratings.leaderboard(GUILD) == await b.ratings.leaderboard(GUILD)
        assert await a.ratings.player_stats(BOB, GUILD) == await b.ratings.player_stats(BOB, GUILD)
        assert await a.players.get(BOB) == await b.players.get(BOB)
        assert await pending_challenges(a) == await pending_challenges(b)
        assert await a.stats.dice_stats(ALICE) == await b.stats.dice_stats(ALICE)
        assert await a.schedule.next_wakeup() == await b.schedule.next_wakeup()
        # The identity sequences moved past the copied ids.
        new = await b.games.create(guild_id=GUILD, channel_id=777, player0=ALICE, player1=BOB)
        assert new.id == 5
        ch = await b.challenges.create(guild_id=GUILD, channel_id=778, challenger=ALICE, challenged=BOB)
        assert ch.id == 3
        await b.games.append(new.id, 0, [{"kind": "resign", "player": 1}], outcome=MatchOutcome(ALICE, BOB))

    # Now the copies differ: verification says so.
    changed = await verify_copy(lite, pg_url)
    assert not changed.ok and any("games" in m for m in changed.mismatches)


async def test_copy_refuses_a_non_empty_target_and_wrong_urls(tmp_path: Path, pg_url: str) -> None:
    from bot.store.copy import CopyError, copy_sqlite_to_postgres

    lite = str(tmp_path / "bg.sqlite3")
    async with await open_store(lite) as s:
        await new_game(s)
    async with await open_store(pg_url) as p:
        await p.players.upsert(ALICE, "Alice")
    with pytest.raises(CopyError, match="not empty"):
        await copy_sqlite_to_postgres(lite, pg_url)
    with pytest.raises(CopyError, match="postgresql://"):
        await copy_sqlite_to_postgres(lite, lite)
    with pytest.raises(CopyError, match="SQLite"):
        await copy_sqlite_to_postgres(pg_url, pg_url)


def test_copy_command_line(tmp_path: Path, pg_url: str) -> None:
    lite = str(tmp_path / "bg.sqlite3")

    async def seed() -> None:
        clock = FakeClock()
        async with await open_store(lite, clock=clock) as s:
            await _populate(s, clock)

    asyncio.run(seed())
    script = Path(__file__).resolve().parents[3] / "scripts" / "copy_sqlite_to_postgres.py"
    done = subprocess.run(
        [sys.executable, str(script), f"sqlite:///{lite}", pg_url], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert "every row matches" in done.stdout and "actions" in done.stdout
    again = subprocess.run(
        [sys.executable, "-m", "bot.store.copy", "--verify-only", lite, pg_url],
        capture_output=True,
        text=True,
        timeout=120,
        env=_child_env(),
    )
    assert again.returncode == 0 and "every row matches" in again.stdout, again.stderr
