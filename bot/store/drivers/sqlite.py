"""SQLite driver: write transactions on a writer thread, reads through aiosqlite.

* A write transaction is one function call on the driver's writer thread
  (:meth:`SqliteDriver.transact`): ``BEGIN IMMEDIATE``, the statements,
  ``COMMIT``, with no trip back to the event loop in between. Under load every
  such trip waits for a turn of a busy loop, and a transaction holds the
  database's write lock across all of its trips: run on the loop, a
  five-statement append took the lock for tens of milliseconds and every
  action in the bot queued behind it. The single thread also serialises the
  transactions of one process; ``BEGIN IMMEDIATE`` with ``busy_timeout``
  serialises processes (a lock wait blocks the writer thread, not the loop).
* Reads outside a transaction go to a second, read-only connection through
  aiosqlite (WAL lets it read while a write is under way): one trip each.
* The journal is WAL with ``synchronous=NORMAL``: a committed transaction
  survives the process being killed (only a power cut can lose the last few).
* The schema version is ``PRAGMA user_version``.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.store.errors import ConstraintError, DatabaseBusyError, StorageError
from bot.store.schema import Migration

T = TypeVar("T")


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
    """The statements of one write transaction, run at once on the writer thread.

    The methods are coroutines only to share the store's transaction code
    with PostgreSQL: they never suspend, so :func:`run_to_end` runs a whole
    transaction body on the writer thread without an event loop.
    """

    dialect = "sqlite"
    for_update = ""
    skip_locked = ""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; return the number of rows it changed."""
        try:
            return self.conn.execute(sql, params).rowcount
        except sqlite3.IntegrityError as exc:
            raise _constraint(exc) from exc

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:
            self.conn.executemany(sql, rows)
        except sqlite3.IntegrityError as exc:
            raise _constraint(exc) from exc

    async def insert_id(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run an INSERT into a table with an ``id`` key; return the new id."""
        try:
            rowid = self.conn.execute(sql, params).lastrowid
        except sqlite3.IntegrityError as exc:
            raise _constraint(exc) from exc
        assert rowid is not None
        return int(rowid)

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        return self.conn.execute(sql, params).fetchone()

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return self.conn.execute(sql, params).fetchall()


class SqliteReadTx:
    """Read statements of one snapshot on the reading connection (aiosqlite, a trip each)."""

    dialect = "sqlite"
    for_update = ""
    skip_locked = ""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        """The first row (the statements asked this way select at most one)."""
        return next(iter(await self.conn.execute_fetchall(sql, params)), None)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return list(await self.conn.execute_fetchall(sql, params))


def run_to_end(body: Awaitable[T]) -> T:
    """The result of a coroutine that never suspends, run without an event loop."""
    coroutine = body.__await__()
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("a SQLite transaction body awaited something other than its statements")


class SqliteDriver:
    """A writer thread with its own connection, and an aiosqlite connection for reads."""

    backend = "sqlite"
    dialect = "sqlite"

    def __init__(
        self,
        writer: sqlite3.Connection,
        thread: ThreadPoolExecutor,
        reader: aiosqlite.Connection,
        path: str,
        scratch: str | None = None,
    ) -> None:
        self._writer: sqlite3.Connection | None = writer
        self._thread = thread
        self._reader: aiosqlite.Connection | None = reader
        self._read_lock = asyncio.Lock()
        self._last_write: Future[Any] | None = None
        self._scratch = scratch
        self.path = path

    @classmethod
    async def connect(cls, path: str, *, busy_timeout_ms: int) -> SqliteDriver:
        """Open (creating folder and file if needed) and set the pragmas."""
        scratch: str | None = None
        if path == ":memory:":
            # A private database both connections see: a file of our own, removed on close
            # (shared-cache memory databases lock whole tables instead of using WAL).
            scratch = tempfile.mkdtemp(prefix="bg-sqlite-")
            path = str(Path(scratch) / "private.sqlite3")
        elif not path.startswith("file:"):
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        uri = path.startswith("file:")
        thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-writer")
        loop = asyncio.get_running_loop()
        try:
            writer = await loop.run_in_executor(thread, _open_writer, path, uri, busy_timeout_ms)
        except BaseException:
            thread.shutdown(wait=False)
            raise
        try:
            reader = await aiosqlite.connect(path, isolation_level=None, uri=uri)
            reader.row_factory = sqlite3.Row
            await reader.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            await reader.execute("PRAGMA query_only = ON")
        except BaseException:
            await loop.run_in_executor(thread, writer.close)
            thread.shutdown(wait=False)
            raise
        return cls(writer, thread, reader, path, scratch)

    async def close(self) -> None:
        """Close the connections and the writer thread (idempotent)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            await asyncio.get_running_loop().run_in_executor(self._thread, writer.close)
            self._thread.shutdown(wait=False)
        async with self._read_lock:
            reader, self._reader = self._reader, None
            if reader is not None:
                await reader.close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    @property
    def _read_db(self) -> aiosqlite.Connection:
        if self._reader is None:
            raise StorageError("the database is closed")
        return self._reader

    # ------------------------------------------------------------ transactions

    async def transact(self, body: Callable[[SqliteTx], Awaitable[T]]) -> T:
        """Run ``body`` inside ``BEGIN IMMEDIATE`` ... ``COMMIT`` on the writer thread
        (rolled back if it raises); the connection is left outside any transaction.

        A cancelled caller does not cancel a transaction that has started: it
        runs to its end, committed or rolled back as a whole.
        """
        if self._writer is None:
            raise StorageError("the database is closed")
        job = self._last_write = self._thread.submit(self._transact, body)
        return await asyncio.wrap_future(job)

    async def _after_writes(self) -> None:
        """Until the writes this process has issued are done, so that a read sees
        them (the writer thread runs its jobs in order: an empty one marks the end)."""
        job = self._last_write
        if job is not None and not job.done():
            await asyncio.get_running_loop().run_in_executor(self._thread, _nothing)

    def _transact(self, body: Callable[[SqliteTx], Awaitable[T]]) -> T:
        conn = self._writer
        if conn is None:
            raise StorageError("the database is closed")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise _wrap_operational(exc) from exc
        try:
            result = run_to_end(body(SqliteTx(conn)))
        except BaseException:
            _rollback(conn)
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            _rollback(conn)
            raise _wrap_operational(exc) from exc
        return result

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[SqliteReadTx]:
        """Read-only statements that all see one consistent state (and every write issued before)."""
        await self._after_writes()
        async with self._read_lock:
            conn = self._read_db
            try:
                await conn.execute("BEGIN")
                yield SqliteReadTx(conn)
            except sqlite3.OperationalError as exc:
                raise _wrap_operational(exc) from exc
            finally:
                try:
                    await asyncio.shield(conn.execute("ROLLBACK"))
                except sqlite3.OperationalError:
                    pass

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """One read statement, one trip, that sees every write issued before it. It
        waits for an open snapshot only: aiosqlite runs the connection's calls in
        order, so one queued now comes before any snapshot's ``BEGIN`` (which is
        queued in the step that takes the lock)."""
        await self._after_writes()
        if self._read_lock.locked():
            async with self._read_lock:
                return await self._read(sql, params)
        return await self._read(sql, params)

    async def _read(self, sql: str, params: Sequence[Any]) -> list[sqlite3.Row]:
        try:
            return list(await self._read_db.execute_fetchall(sql, params))
        except sqlite3.OperationalError as exc:
            raise _wrap_operational(exc) from exc

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
        """Apply the migrations after the database's version up to ``target``, each in its own transaction."""
        newest = migrations[-1].version if migrations else 0
        while True:
            async def step(tx: SqliteTx) -> bool:
                row = await tx.fetchone("PRAGMA user_version")
                current = int(row[0]) if row else 0
                if current > newest:
                    raise StorageError(
                        f"database schema {current} is newer than this bot ({newest}); upgrade the bot"
                    )
                migration = next((m for m in migrations if m.version > current), None)
                if migration is None or migration.version > target:
                    return True
                for statement in split_sql(migration.sql):
                    await tx.execute(statement)
                await tx.execute(f"PRAGMA user_version = {int(migration.version)}")
                return False

            if await self.transact(step):
                return

    async def integrity_check(self) -> str:
        """Run ``PRAGMA integrity_check`` and return its first line ('ok' if fine)."""
        row = await self.fetchone("PRAGMA integrity_check")
        return str(row[0]) if row else "no result"


def _nothing() -> None:
    pass


def _open_writer(path: str, uri: bool, busy_timeout_ms: int) -> sqlite3.Connection:
    """The writing connection (on the writer thread), in WAL with the store's pragmas."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, uri=uri)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        _enable_wal(conn, busy_timeout_ms)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        conn.close()
        raise
    return conn


def _enable_wal(conn: sqlite3.Connection, busy_timeout_ms: int) -> None:
    """Switch to WAL. Processes opening a new file together can see "database
    is locked" here, which the busy timeout does not cover: try again a while."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    delay = 0.01
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is open, ignoring 'no transaction' errors."""
    try:
        conn.execute("ROLLBACK")
    except sqlite3.OperationalError:
        pass


def _wrap_operational(exc: sqlite3.OperationalError) -> StorageError:
    message = str(exc).lower()
    if "locked" in message or "busy" in message:
        return DatabaseBusyError()
    return StorageError()


def _constraint(exc: sqlite3.IntegrityError) -> ConstraintError:
    """SQLite names a broken unique key as ``UNIQUE constraint failed: t.a, t.b``."""
    _, found, key = str(exc).partition("UNIQUE constraint failed: ")
    if not found:
        return ConstraintError()
    names = [name.strip().split(".", 1) for name in key.split(",")]
    tables = {parts[0] for parts in names if len(parts) == 2}
    if len(tables) != 1:
        return ConstraintError()
    return ConstraintError(table=tables.pop(), columns=tuple(parts[1] for parts in names))
