"""PostgreSQL driver (asyncpg): a connection pool shared by the store's tasks.

* Write transactions are ``BEGIN`` (READ COMMITTED) on a pooled connection;
  the queries that decide something lock the rows they read with
  ``SELECT ... FOR UPDATE`` (the game row for a compare-and-set append, the
  challenge row when answering it, the ratings rows when a match ends), so
  racing writers in any number of processes queue on the row and the loser
  sees the winner's version (and gets ``StaleVersionError``).
* ``?`` placeholders of the shared queries become ``$1..$n``; an INSERT that
  needs the new id gets ``RETURNING id``.
* The schema version lives in a one-row ``schema_version`` table; migrations
  run under an advisory lock so processes that start together migrate once.
* Losing the server (restart, crash, network) raises
  :class:`~bot.store.errors.DatabaseUnavailableError`; dead pooled connections
  are thrown away and replaced, so the store works again as soon as the
  server is back.  A transaction whose connection fails at ``BEGIN`` is
  retried on a fresh connection (nothing was sent yet); a read is retried
  once; a write that fails after ``BEGIN`` is not retried.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any, Final, TypeVar

import asyncpg
from asyncpg import exceptions as pgx

from bot.store.drivers import Tx
from bot.store.drivers.url import redact
from bot.store.errors import (
    ConstraintError,
    DatabaseBusyError,
    DatabaseUnavailableError,
    StorageError,
    StorageFullError,
)
from bot.store.schema import Migration

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_MIN_SIZE: Final = 1
DEFAULT_MAX_SIZE: Final = 10
CONNECT_TIMEOUT: Final = 5.0
"""Seconds to wait for a new connection before calling the database unavailable."""
ACQUIRE_TIMEOUT: Final = 10.0
"""Seconds to wait for a free pooled connection before calling the database busy."""
MIGRATION_LOCK: Final = 0x6267_6D69  # "bgmi": advisory lock key for migrations
FULL_LOG_EVERY: Final = 600.0
"""Seconds between two "database full" log lines while the server's disk stays full."""
_full_logged_at = -FULL_LOG_EVERY

_CONNECTION_ERRORS: Final = (
    pgx.PostgresConnectionError,  # class 08 (incl. ConnectionDoesNotExistError)
    pgx.AdminShutdownError,
    pgx.CrashShutdownError,
    pgx.CannotConnectNowError,
    pgx.TooManyConnectionsError,
    OSError,  # refused, reset, broken pipe, DNS
    ConnectionError,
    pgx.InternalClientError,  # protocol state broken by a connection dying mid-operation
)


def is_connection_error(exc: BaseException) -> bool:
    """True for errors that mean "the server or the connection is gone"."""
    if isinstance(exc, _CONNECTION_ERRORS):
        return True
    if isinstance(exc, pgx.InterfaceError):
        text = str(exc).lower()
        return "closed" in text or "terminat" in text
    return False


def translate(exc: BaseException) -> BaseException:
    """Map a driver error to a storage error (others come back unchanged)."""
    if is_connection_error(exc):
        return DatabaseUnavailableError()
    if isinstance(exc, (pgx.DeadlockDetectedError, pgx.SerializationError, pgx.LockNotAvailableError)):
        return DatabaseBusyError()
    if isinstance(exc, pgx.QueryCanceledError):
        return DatabaseBusyError()
    if isinstance(exc, pgx.DiskFullError):
        global _full_logged_at
        if time.monotonic() - _full_logged_at >= FULL_LOG_EVERY:  # a line now and then, not one per click
            _full_logged_at = time.monotonic()
            log.error("database full: the PostgreSQL server's disk is full, writes fail until space is freed")
        return StorageFullError()
    if isinstance(exc, asyncio.TimeoutError):
        return DatabaseBusyError()
    return exc


@functools.lru_cache(maxsize=512)
def to_pg(sql: str) -> str:
    """Rewrite ``?`` placeholders to ``$1, $2, ...`` (outside quoted text)."""
    out: list[str] = []
    n = 0
    quote: str | None = None
    for ch in sql:
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in ("'", '"'):
            quote = ch
        elif ch == "?":
            n += 1
            out.append(f"${n}")
            continue
        out.append(ch)
    return "".join(out)


_KEY = re.compile(r"Key \((?P<columns>[^)]*)\)=")


def _constraint(exc: pgx.IntegrityConstraintViolationError) -> ConstraintError:
    """PostgreSQL names a broken unique key in the detail: ``Key (a, b)=(1, 2) already exists.``"""
    match = _KEY.match(getattr(exc, "detail", None) or "")
    if not isinstance(exc, pgx.UniqueViolationError) or match is None:
        return ConstraintError()
    columns = tuple(c.strip() for c in match["columns"].split(","))
    return ConstraintError(table=getattr(exc, "table_name", None), columns=columns)


def _rowcount(status: str | None) -> int:
    """The row count of a command tag ("UPDATE 1", "INSERT 0 3")."""
    if not status:
        return 0
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PostgresTx:
    """The statements of one transaction (or one snapshot) on PostgreSQL."""

    dialect = "postgresql"
    for_update = " FOR UPDATE"
    skip_locked = " FOR UPDATE SKIP LOCKED"

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; return the number of rows it changed."""
        try:
            if params:
                return _rowcount(await self.conn.execute(to_pg(sql), *params))
            return _rowcount(await self.conn.execute(sql))
        except pgx.IntegrityConstraintViolationError as exc:
            raise _constraint(exc) from exc

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:
            await self.conn.executemany(to_pg(sql), list(rows))
        except pgx.IntegrityConstraintViolationError as exc:
            raise _constraint(exc) from exc

    async def insert_id(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run an INSERT into a table with an ``id`` key; return the new id."""
        try:
            value = await self.conn.fetchval(to_pg(sql.rstrip().rstrip(";")) + " RETURNING id", *params)
        except pgx.IntegrityConstraintViolationError as exc:
            raise _constraint(exc) from exc
        return int(value)

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> asyncpg.Record | None:
        return await self.conn.fetchrow(to_pg(sql), *params)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[asyncpg.Record]:
        return list(await self.conn.fetch(to_pg(sql), *params))


class PostgresDriver:
    """An asyncpg pool; every transaction takes its own pooled connection."""

    backend = "postgresql"
    dialect = "postgresql"

    def __init__(self, pool: asyncpg.Pool, dsn: str, *, max_size: int, acquire_timeout: float) -> None:
        self._pool: asyncpg.Pool | None = pool
        self.dsn = dsn
        self._max_size = max_size
        self._acquire_timeout = acquire_timeout

    @classmethod
    async def connect(
        cls,
        dsn: str,
        *,
        min_size: int = DEFAULT_MIN_SIZE,
        max_size: int = DEFAULT_MAX_SIZE,
        connect_timeout: float = CONNECT_TIMEOUT,
        acquire_timeout: float = ACQUIRE_TIMEOUT,
        lock_timeout_ms: int = 5000,
    ) -> PostgresDriver:
        """Create the pool (``min_size`` connections are opened now).

        ``lock_timeout_ms`` bounds how long a statement waits for a row lock
        (PostgreSQL's ``lock_timeout``, like SQLite's busy timeout); past it
        the store raises :class:`~bot.store.errors.DatabaseBusyError`.
        """
        if not 0 <= min_size <= max_size or max_size < 1:
            raise ValueError("need 0 <= min_size <= max_size and max_size >= 1")
        try:
            pool = await asyncpg.create_pool(
                dsn,
                min_size=min_size,
                max_size=max_size,
                timeout=connect_timeout,
                server_settings={
                    "application_name": "discord-backgammon",
                    "timezone": "UTC",
                    "lock_timeout": str(int(lock_timeout_ms)),
                },
            )
        except BaseException as exc:
            if is_connection_error(exc) or isinstance(exc, asyncio.TimeoutError):
                log.warning("cannot connect to %s: %s", redact(dsn), exc)
                raise DatabaseUnavailableError() from exc
            raise
        assert pool is not None
        return cls(pool, dsn, max_size=max_size, acquire_timeout=acquire_timeout)

    async def close(self) -> None:
        """Close the pool (idempotent); waits up to 10 s for busy connections."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        try:
            await asyncio.wait_for(pool.close(), timeout=10)
        except (TimeoutError, *_CONNECTION_ERRORS):
            pool.terminate()

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise StorageError("the database is closed")
        return self._pool

    # ------------------------------------------------------------ connections

    async def _acquire(self) -> asyncpg.Connection:
        try:
            return await self.pool.acquire(timeout=self._acquire_timeout)
        except TimeoutError as exc:
            raise DatabaseBusyError() from exc
        except Exception as exc:
            if is_connection_error(exc):
                raise DatabaseUnavailableError() from exc
            raise

    async def _release(self, conn: asyncpg.Connection, *, discard: bool = False) -> None:
        """Give a connection back (``discard``: close it first); never raises."""
        pool = self._pool
        try:
            closed = conn.is_closed()
        except pgx.InterfaceError:
            return  # the pool took it back already (the connection died)
        if (discard or pool is None) and not closed:
            conn.terminate()
        if pool is None:  # closed meanwhile
            return
        try:
            await asyncio.shield(pool.release(conn))
        except Exception:  # a broken connection (reset failed): the pool replaces it
            try:
                if not conn.is_closed():
                    conn.terminate()
            except pgx.InterfaceError:
                pass  # released already

    async def _begin(self, begin_sql: str) -> asyncpg.Connection:
        """A pooled connection inside ``begin_sql``; dead connections are replaced."""
        last: BaseException | None = None
        for _ in range(self._max_size + 1):
            conn = await self._acquire()
            try:
                await conn.execute(begin_sql)
            except BaseException as exc:
                await self._release(conn, discard=True)
                if is_connection_error(exc):
                    last = exc  # stale connection from before a restart: try another
                    continue
                mapped = translate(exc)
                if mapped is exc:
                    raise
                raise mapped from exc
            return conn
        raise DatabaseUnavailableError() from last

    @asynccontextmanager
    async def _transaction(self, begin_sql: str, *, commit: bool) -> AsyncIterator[PostgresTx]:
        conn = await self._begin(begin_sql)
        try:
            yield PostgresTx(conn)
        except asyncio.CancelledError:
            # A query may still be running; dropping the connection aborts
            # the transaction on the server.
            await self._release(conn, discard=True)
            raise
        except BaseException as exc:
            discard = True
            if not is_connection_error(exc) and not isinstance(exc, pgx.InterfaceError):
                try:
                    await asyncio.shield(conn.execute("ROLLBACK"))
                    discard = False
                except BaseException:  # noqa: BLE001 - anything: drop the connection
                    pass
            await self._release(conn, discard=discard)
            mapped = translate(exc)
            if mapped is exc:
                raise
            raise mapped from exc
        finished = asyncio.ensure_future(conn.execute("COMMIT" if commit else "ROLLBACK"))
        try:
            await asyncio.shield(finished)
        except asyncio.CancelledError:
            # COMMIT was sent: let it finish so the caller's cancellation
            # does not leave the outcome to chance.
            try:
                await finished
            except BaseException:  # noqa: BLE001
                await self._release(conn, discard=True)
                raise
            await self._release(conn)
            raise
        except BaseException as exc:
            await self._release(conn, discard=True)
            mapped = translate(exc)
            if mapped is exc:
                raise
            raise mapped from exc
        await self._release(conn)

    def write(self) -> Any:
        """``BEGIN`` ... ``COMMIT`` on one pooled connection (rollback on error)."""
        return self._transaction("BEGIN", commit=True)

    async def transact(self, body: Callable[[Tx], Awaitable[T]], *, quick: bool = False) -> T:
        """Run ``body`` inside :meth:`write` and return what it returns (``quick``
        changes nothing here: the statements are a trip each to the server)."""
        async with self.write() as tx:
            return await body(tx)

    def snapshot(self) -> Any:
        """Read-only statements that all see one consistent state."""
        return self._transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", commit=False)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[asyncpg.Record]:
        """One read statement outside any explicit transaction (retried once on a lost connection)."""
        query = to_pg(sql)
        for attempt in range(2):
            conn = await self._acquire()
            try:
                rows = await conn.fetch(query, *params)
            except asyncio.CancelledError:
                await self._release(conn, discard=True)
                raise
            except Exception as exc:
                lost = is_connection_error(exc)
                await self._release(conn, discard=lost)
                if lost and attempt == 0:
                    continue
                mapped = translate(exc)
                if mapped is exc:
                    raise
                raise mapped from exc
            await self._release(conn)
            return list(rows)
        raise AssertionError("unreachable")

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> asyncpg.Record | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    # ------------------------------------------------------------ schema

    async def schema_version(self) -> int:
        """Return the version recorded in ``schema_version`` (0 if none)."""
        row = await self.fetchone(
            "SELECT CASE WHEN to_regclass('schema_version') IS NULL THEN 0 "
            "ELSE (SELECT COALESCE(MAX(version), 0) FROM schema_version) END"
        )
        return int(row[0]) if row else 0

    async def migrate(self, migrations: Sequence[Migration], target: int) -> None:
        """Apply migrations up to ``target``, each in its own transaction.

        Each step takes a transaction-level advisory lock first, so bot
        processes started together apply every migration exactly once.
        """
        newest = len(migrations)
        while True:
            async with self.write() as tx:
                await tx.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
                await tx.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                row = await tx.fetchone("SELECT version FROM schema_version")
                if row is None:
                    await tx.execute("INSERT INTO schema_version (version) VALUES (0)")
                    current = 0
                else:
                    current = int(row[0])
                if current > newest:
                    raise StorageError(f"database schema {current} is newer than this bot ({newest}); upgrade the bot")
                if current >= target:
                    return
                migration = migrations[current]
                await tx.conn.execute(migration.pg_sql)  # a script: simple query protocol
                await tx.execute("UPDATE schema_version SET version = ?", (migration.version,))

    async def integrity_check(self) -> str:
        """'ok' if the server answers and the schema version row is sane."""
        row = await self.fetchone("SELECT COUNT(*) FROM schema_version")
        count = int(row[0]) if row else 0
        return "ok" if count == 1 else f"schema_version has {count} rows"
