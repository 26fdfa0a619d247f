"""SQLite driver: write transactions in one call, reads through aiosqlite.

* A write transaction is one synchronous call (:meth:`SqliteDriver.transact`):
  ``BEGIN IMMEDIATE``, the statements, ``COMMIT``, with no trip back to the
  event loop in between (a transaction holding the write lock across trips of
  a busy loop held up every action in the bot for tens of milliseconds).
* A ``quick`` transaction (a game's action, a delivered board, a challenge
  or a game created: a few statements on rows found by their keys) is made on the event loop itself when the
  write lock is free at once, which is always so for a single bot process: a
  game's action costs some 0.1 ms there. Handed to a writer thread, the same
  transaction cost the process several times that (waking the thread, the
  thread taking the GIL back after each statement, the result's trip back to
  the loop): a fifth of a core at 400 actions a second, and 30% of the bot's
  CPU per interaction. Any other transaction runs on the writer thread: on a
  store larger than memory, a sweep's or a clean-up's reads from disk held the
  loop up for seconds when run there.
* When another process holds the lock (``BEGIN IMMEDIATE`` answers "busy" at
  once: the loop's attempt does not wait), the transaction goes to the writer
  thread, which waits up to ``busy_timeout``, so a lock wait never blocks the
  loop; the transactions issued meanwhile follow it there, in order.
* Checkpoints (copying the WAL into the database, with its fsyncs) are not
  left to the commit that crosses the WAL's threshold, on the loop: every
  :data:`CHECKPOINT_EVERY` commits one runs on the writer thread, on a
  connection of its own (see :meth:`SqliteDriver._checkpoint_on_thread`).
* Reads outside a transaction go to a second, read-only connection through
  aiosqlite (WAL lets it read while a write is under way): one trip each.
* The journal is WAL with ``synchronous=NORMAL``: a committed transaction
  survives the process being killed (only a power cut can lose the last few).
* The schema version is ``PRAGMA user_version``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
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

from bot.store.backup import BackupError, snapshot_before_migration
from bot.store.drivers import Tx
from bot.store.errors import ConstraintError, DatabaseBusyError, StorageError, StorageFullError
from bot.store.schema import Migration

T = TypeVar("T")

log = logging.getLogger(__name__)

CHECKPOINT_EVERY = 200
"""Commits between two checkpoints. A game's action writes a few pages, so the
WAL is copied back every thousand pages or so, SQLite's own default."""
LOW_DISK_BYTES = 1 << 30
"""Free space beside the store under which a warning is logged (``LOW_DISK_MB``)."""
FULL_QUIET_SECONDS = 60.0
"""A full store is said to work again after a write this long after the last that failed
(on a nearly full disk, small writes go on fitting between failures: one line, not a flurry)."""
DISK_CHECK_SECONDS = 60.0
"""Seconds between two looks at the free space (on a commit)."""
CHECKPOINT_WAIT_MS = 50
"""How long a checkpoint waits for the write lock, then for readers to leave the
WAL, holding that lock: the longest it can hold up the bot's writes."""


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
    """The statements of one write transaction, run in one call.

    The methods are coroutines only to share the store's transaction code
    with PostgreSQL: they never suspend, so :func:`run_to_end` runs a whole
    transaction body in one call, on the loop or the writer thread.
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
        return done.value
    coroutine.close()
    raise RuntimeError("a SQLite transaction body awaited something other than its statements")


class _Busy(Exception):
    """The write lock is held by another connection (the loop's attempt does not wait)."""


class SqliteDriver:
    """A writing connection (used on the loop, or on the writer thread while
    another process holds the lock), and an aiosqlite connection for reads."""

    backend = "sqlite"
    dialect = "sqlite"

    def __init__(
        self,
        writer: sqlite3.Connection,
        thread: ThreadPoolExecutor,
        reader: aiosqlite.Connection,
        path: str,
        scratch: str | None = None,
        *,
        uri: bool,
        busy_timeout_ms: int,
        checkpoints: bool = True,
        snapshot_before_migration: bool = True,
        low_disk_bytes: int = LOW_DISK_BYTES,
    ) -> None:
        self._writer: sqlite3.Connection | None = writer
        self._thread = thread
        self._reader: aiosqlite.Connection | None = reader
        self._read_lock = asyncio.Lock()
        self._last_write: Future[Any] | None = None
        """The newest transaction handed to the writer thread (while it runs, the next ones follow it)."""
        self._scratch = scratch
        self._uri = uri
        self._busy_timeout_ms = busy_timeout_ms
        self._commits = 0
        """Commits since the last checkpoint was asked for."""
        self._checkpoint: Future[None] | None = None
        self._checkpointer: sqlite3.Connection | None = None
        """The checkpoints' connection (opened and used on the writer thread)."""
        self.path = path
        self.checkpoints = checkpoints
        """Whether the driver checkpoints the WAL itself (off: a tool such as Litestream does)."""
        self.snapshot_before_migration = snapshot_before_migration and scratch is None and not uri
        self.low_disk_bytes = low_disk_bytes
        """Free space beside the store under which a warning is logged (0: never)."""
        self.full = False
        """Whether writes fail for want of room (logged once, until one succeeds :data:`FULL_QUIET_SECONDS`
        after the last failure)."""
        self._full_at = 0.0
        self._low_disk = False
        self._next_disk_check = 0.0
        """Whether a store about to be migrated is first copied beside itself (:mod:`bot.store.backup`)."""

    @classmethod
    async def connect(
        cls,
        path: str,
        *,
        busy_timeout_ms: int,
        checkpoints: bool = True,
        snapshot_before_migration: bool = True,
        low_disk_bytes: int = LOW_DISK_BYTES,
    ) -> SqliteDriver:
        """Open (creating folder and file if needed) and set the pragmas."""
        scratch: str | None = None
        if path == ":memory:":
            # A private database both connections see: a file of our own, removed on close
            # (shared-cache memory databases lock whole tables instead of using WAL).
            scratch = tempfile.mkdtemp(prefix="bg-sqlite-")
            path = str(Path(scratch) / "private.sqlite3")
        elif not path.startswith("file:"):
            # Readable by the bot's user only: games, members' settings. SQLite gives its
            # -wal and -shm files the database file's permissions.
            Path(path).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):
                os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
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
        return cls(
            writer,
            thread,
            reader,
            path,
            scratch,
            uri=uri,
            busy_timeout_ms=busy_timeout_ms,
            checkpoints=checkpoints,
            snapshot_before_migration=snapshot_before_migration,
            low_disk_bytes=low_disk_bytes,
        )

    async def close(self) -> None:
        """Close the connections and the writer thread (idempotent)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            await asyncio.get_running_loop().run_in_executor(self._thread, self._close_on_thread, writer)
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

    async def transact(self, body: Callable[[Tx], Awaitable[T]], *, quick: bool = False) -> T:
        """Run ``body`` inside ``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back if it
        raises); the connection is left outside any transaction.

        A ``quick`` one runs on the loop if the write lock is free and no
        transaction waits on the writer thread; any other, on that thread, after
        the ones waiting there. A cancelled caller does not cancel a transaction
        that has started: it runs to its end, committed or rolled back as a whole.
        """
        conn = self._writer
        if conn is None:
            raise StorageError("the database is closed")
        try:
            waiting = self._last_write
            if quick and (waiting is None or waiting.done()):
                try:
                    return self._transact_here(conn, body)
                except _Busy:
                    pass  # another process writes: wait for it on the thread
            return await self._transact_on_thread(body)
        except StorageFullError:
            self._full_at = time.monotonic()
            if not self.full:
                self.full = True
                log.error(
                    "database full: %s cannot grow (disk full?); writes fail, and players are told to try "
                    "again later, until space is freed",
                    self.path,
                )
            raise

    async def _transact_on_thread(self, body: Callable[[SqliteTx], Awaitable[T]]) -> T:
        job = self._last_write = self._thread.submit(self._transact, body)
        return await asyncio.wrap_future(job)

    def _transact_here(self, conn: sqlite3.Connection, body: Callable[[SqliteTx], Awaitable[T]]) -> T:
        """The transaction on the calling thread (the loop's), if the lock is free at once
        (the writing connection's ``busy_timeout`` is 0 outside :meth:`_transact`)."""
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                raise _Busy from exc
            raise _wrap_operational(exc) from exc
        result = _body_and_commit(conn, body)
        self._committed()
        return result

    def _committed(self) -> None:
        """Count a commit; every :data:`CHECKPOINT_EVERY`, ask for a checkpoint
        (unless one is under way). Called on the loop or on the writer thread,
        never on both at once (a transaction goes to the loop only when none is
        left on the thread)."""
        self._commits += 1
        if self.full and time.monotonic() - self._full_at >= FULL_QUIET_SECONDS:
            self.full = False
            log.warning("database writes work again: %s has room", self.path)
        if self.low_disk_bytes and time.monotonic() >= self._next_disk_check:
            self._check_disk()
        if (
            self.checkpoints
            and self._commits >= CHECKPOINT_EVERY
            and (self._checkpoint is None or self._checkpoint.done())
        ):
            self._commits = 0
            self._checkpoint = self._thread.submit(self._checkpoint_on_thread)

    def _check_disk(self) -> None:
        """Warn once when the free space beside the store falls under :attr:`low_disk_bytes`
        (and say when it is back); a look at most every :data:`DISK_CHECK_SECONDS`."""
        self._next_disk_check = time.monotonic() + DISK_CHECK_SECONDS
        try:
            free = shutil.disk_usage(Path(self.path).parent).free
        except OSError:
            return
        low = free < self.low_disk_bytes
        if low and not self._low_disk:
            log.warning(
                "low disk space: %d MiB free beside %s (warning under %d MiB); the bot stops saving games when it is full",
                free >> 20,
                self.path,
                self.low_disk_bytes >> 20,
            )
        elif self._low_disk and not low:
            log.info("disk space is back: %d MiB free beside %s", free >> 20, self.path)
        self._low_disk = low

    async def _after_writes(self) -> None:
        """Until the writes this process has issued are done, so that a read sees
        them (the writer thread runs its jobs in order: an empty one marks the end)."""
        job = self._last_write
        if job is not None and not job.done():
            await asyncio.get_running_loop().run_in_executor(self._thread, _nothing)

    def _transact(self, body: Callable[[SqliteTx], Awaitable[T]]) -> T:
        """The transaction on the writer thread, waiting up to ``busy_timeout`` for the lock."""
        conn = self._writer
        if conn is None:
            raise StorageError("the database is closed")
        conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
        try:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise _wrap_operational(exc) from exc
            result = _body_and_commit(conn, body)
        finally:
            conn.execute("PRAGMA busy_timeout = 0")
        self._committed()
        return result

    def _checkpoint_on_thread(self) -> None:
        """Copy the WAL into the database, and have the next write start it over.

        First ``PASSIVE``, the bulk of the copying and syncing, while the loop
        goes on writing; then ``RESTART``, which copies the last few frames
        holding the write lock (the loop's writes meanwhile wait on this thread,
        queued behind it) and waits for readers to leave the WAL, for at most
        :data:`CHECKPOINT_WAIT_MS`. Without the second, commits arriving during
        every checkpoint left the WAL never wholly copied when a write began,
        and it grew without end. Best effort: a checkpoint that fails or gives
        up leaves the WAL to the next one."""
        if self._writer is None:
            return  # asked for by a last transaction, behind the driver's closing
        try:
            conn = self._checkpointer
            if conn is None:
                conn = self._checkpointer = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False, uri=self._uri
                )
                conn.execute(f"PRAGMA busy_timeout = {int(CHECKPOINT_WAIT_MS)}")
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
            if busy:
                log.info("checkpoint: the WAL is still in use; it restarts after a later one")
        except sqlite3.Error as exc:
            log.warning("checkpoint failed: %s", exc)

    def _close_on_thread(self, writer: sqlite3.Connection) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None
        writer.close()

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
        """Apply migrations up to ``target``, each in its own transaction; a store
        that has a schema already is first copied beside itself as
        ``<store>.pre-migration-<version>`` (unless :attr:`snapshot_before_migration` is off)."""
        newest = len(migrations)
        start = await self.schema_version()
        if self.snapshot_before_migration and 1 <= start < target:
            snapshot = await self._on_thread(self._snapshot, start)
            log.info("database at schema %s copied to %s before migrating it", start, snapshot)
        while True:

            async def step(tx: SqliteTx) -> bool:
                row = await tx.fetchone("PRAGMA user_version")
                current = int(row[0]) if row else 0
                if current > newest:
                    raise StorageError(f"database schema {current} is newer than this bot ({newest}); upgrade the bot")
                if current >= target:
                    return True
                migration = migrations[current]
                for statement in split_sql(migration.sql):
                    await tx.execute(statement)
                await tx.execute(f"PRAGMA user_version = {int(migration.version)}")
                return False

            # on the thread: a migration may take long, and is never the loop's to wait for
            if await self._transact_on_thread(step):
                return

    def _snapshot(self, version: int) -> Path:
        """The pre-migration copy, on the writer thread (outside any transaction)."""
        conn = self._writer
        if conn is None:
            raise StorageError("the database is closed")
        try:
            return snapshot_before_migration(conn, self.path, version)
        except BackupError as exc:
            raise StorageError(
                f"could not copy the store before migrating it ({exc}); free some disk space, "
                "or set SNAPSHOT_BEFORE_MIGRATION=0 to migrate without a copy"
            ) from exc

    async def _on_thread(self, call: Callable[..., T], *args: Any) -> T:
        job = self._last_write = self._thread.submit(call, *args)
        return await asyncio.wrap_future(job)

    async def integrity_check(self) -> str:
        """Run ``PRAGMA integrity_check`` and return its first line ('ok' if fine)."""
        row = await self.fetchone("PRAGMA integrity_check")
        return str(row[0]) if row else "no result"


def _nothing() -> None:
    pass


def _body_and_commit(conn: sqlite3.Connection, body: Callable[[SqliteTx], Awaitable[T]]) -> T:
    """Run ``body`` in the transaction just begun and commit (roll back if either fails)."""
    try:
        result = run_to_end(body(SqliteTx(conn)))
    except sqlite3.OperationalError as exc:
        _rollback(conn)
        if _is_full(exc):
            raise StorageFullError() from exc
        raise  # a mistake in the SQL (a migration's, say): as SQLite words it
    except BaseException:
        _rollback(conn)
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        _rollback(conn)
        raise _wrap_operational(exc) from exc
    return result


def _open_writer(path: str, uri: bool, busy_timeout_ms: int) -> sqlite3.Connection:
    """The writing connection (on the writer thread), in WAL with the store's pragmas."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, uri=uri)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        _enable_wal(conn, busy_timeout_ms)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        # the driver's checkpoints run on its thread, and the loop's attempts at the lock don't wait
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        conn.execute("PRAGMA busy_timeout = 0")
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


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    message = str(exc).lower()
    return "locked" in message or "busy" in message


def _wrap_operational(exc: sqlite3.OperationalError) -> StorageError:
    if _is_busy(exc):
        return DatabaseBusyError()
    if _is_full(exc):
        return StorageFullError()
    return StorageError()


def _is_full(exc: sqlite3.OperationalError) -> bool:
    """SQLITE_FULL: the disk is full, or the file reached ``max_page_count``."""
    return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "is full" in str(exc)


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
