"""SQLite driver (aiosqlite): one connection per store, ``BEGIN IMMEDIATE`` writes.

* Write transactions use ``BEGIN IMMEDIATE`` so that two connections (or two
  processes) never deadlock on a lock upgrade; ``busy_timeout`` makes the
  loser wait instead of failing.
* One driver holds one connection; an :class:`asyncio.Lock` keeps the tasks
  that share it from interleaving their transactions.
* The journal is WAL with ``synchronous=NORMAL``: a committed transaction
  survives the process being killed (only a power cut can lose the last few).
* The schema version is ``PRAGMA user_version``.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite

from bot.db.errors import DatabaseBusyError, StorageError

if TYPE_CHECKING:
    from bot.storage import Migration


def split_sql(script: str) -> list[str]:
    """Split a SQL script into complete statements (triggers stay whole)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        raise ValueError(f"incomplete SQL statement: {buffer.strip()[:80]!r}")
    return statements


class SqliteTx:
    """The statements of one transaction (or one snapshot) on SQLite."""

    dialect = "sqlite"
    for_update = ""
    skip_locked = ""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; return the number of rows it changed."""
        cur = await self.conn.execute(sql, params)
        count = cur.rowcount
        await cur.close()
        return count

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.conn.executemany(sql, rows)

    async def insert_id(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run an INSERT into a table with an ``id`` key; return the new id."""
        cur = await self.conn.execute(sql, params)
        rowid = cur.lastrowid
        await cur.close()
        assert rowid is not None
        return int(rowid)

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        cur = await self.conn.execute(sql, params)
        row = await cur.fetchone()
        await cur.close()
        return row

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return list(await self.conn.execute_fetchall(sql, params))


class SqliteDriver:
    """One aiosqlite connection, serialised by an asyncio lock."""

    backend = "sqlite"
    dialect = "sqlite"

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self._conn: aiosqlite.Connection | None = conn
        self._lock = asyncio.Lock()
        self.path = path

    @classmethod
    async def connect(cls, path: str, *, busy_timeout_ms: int) -> SqliteDriver:
        """Open (creating folder and file if needed) and set the pragmas."""
        if path != ":memory:" and not path.startswith("file:"):
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(path, isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            await _enable_wal(conn, busy_timeout_ms)
            await conn.execute("PRAGMA synchronous = NORMAL")
            await conn.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path)

    async def close(self) -> None:
        """Close the connection (idempotent)."""
        async with self._lock:
            if self._conn is not None:
                conn, self._conn = self._conn, None
                await conn.close()

    @property
    def _db(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise StorageError("the database is closed")
        return self._conn

    # ------------------------------------------------------------ transactions

    @asynccontextmanager
    async def write(self) -> AsyncIterator[SqliteTx]:
        """Run the body inside ``BEGIN IMMEDIATE`` ... ``COMMIT`` (rollback on error).

        Cancellation-safe: aiosqlite runs statements in order on its own
        thread, so a cancelled task's statements still execute; whatever
        happens, the connection is left outside any transaction.
        """
        async with self._lock:
            conn = self._db
            try:
                await conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise _wrap_operational(exc) from exc
            except BaseException:  # cancelled: BEGIN may still run
                await asyncio.shield(_rollback(conn))
                raise
            try:
                yield SqliteTx(conn)
            except BaseException:
                await asyncio.shield(_rollback(conn))
                raise
            commit = asyncio.ensure_future(conn.execute("COMMIT"))
            try:
                await asyncio.shield(commit)
            except asyncio.CancelledError:
                # The COMMIT is queued and will run; wait for it so the
                # connection is clean before releasing the lock.
                try:
                    await commit
                except sqlite3.Error:
                    await _rollback(conn)
                raise
            except sqlite3.OperationalError as exc:
                await asyncio.shield(_rollback(conn))
                raise _wrap_operational(exc) from exc

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[SqliteTx]:
        """Read-only statements that all see one consistent state."""
        async with self._lock:
            conn = self._db
            try:
                await conn.execute("BEGIN")
                yield SqliteTx(conn)
            except sqlite3.OperationalError as exc:
                raise _wrap_operational(exc) from exc
            finally:
                await asyncio.shield(_rollback(conn))

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        async with self._lock:
            try:
                rows = await self._db.execute_fetchall(sql, params)
            except sqlite3.OperationalError as exc:
                raise _wrap_operational(exc) from exc
        return list(rows)

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    # ------------------------------------------------------------ schema

    async def schema_version(self) -> int:
        """Return ``PRAGMA user_version``."""
        row = await self.fetchone("PRAGMA user_version")
        assert row is not None
        return int(row[0])

    async def migrate(self, migrations: Sequence[Migration], target: int) -> None:
        """Apply migrations up to ``target``, each in its own transaction."""
        newest = len(migrations)
        while True:
            async with self.write() as tx:
                row = await tx.fetchone("PRAGMA user_version")
                current = int(row[0]) if row else 0
                if current > newest:
                    raise StorageError(
                        f"database schema {current} is newer than this bot ({newest}); upgrade the bot"
                    )
                if current >= target:
                    return
                migration = migrations[current]
                for statement in split_sql(migration.sql):
                    await tx.execute(statement)
                await tx.execute(f"PRAGMA user_version = {int(migration.version)}")

    async def integrity_check(self) -> str:
        """Run ``PRAGMA integrity_check`` and return its first line ('ok' if fine)."""
        row = await self.fetchone("PRAGMA integrity_check")
        return str(row[0]) if row else "no result"


async def _enable_wal(conn: aiosqlite.Connection, busy_timeout_ms: int) -> None:
    """Switch to WAL. Processes opening a new file together can see "database
    is locked" here, which the busy timeout does not cover: try again a while."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    delay = 0.01
    while True:
        try:
            await conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.2)


async def _rollback(conn: aiosqlite.Connection) -> None:
    """Roll back if a transaction is open, ignoring 'no transaction' errors."""
    try:
        await conn.execute("ROLLBACK")
    except sqlite3.OperationalError:
        pass


def _wrap_operational(exc: sqlite3.OperationalError) -> StorageError:
    message = str(exc).lower()
    if "locked" in message or "busy" in message:
        return DatabaseBusyError()
    return StorageError()
