"""One open database: a driver, a clock, transactions and reads.

Every repository of the store (players, games, challenges, ratings, the
schedule, statistics) works through one :class:`Database`. Writes are whole
transactions (:meth:`Database.transact`): ``BEGIN IMMEDIATE`` on SQLite (on
the driver's writer thread), ``BEGIN`` with ``SELECT ... FOR UPDATE`` on the
rows a decision rests on for PostgreSQL, so racing writers in any number of
processes have exactly one winner. The queries are written once, with ``?``
placeholders and portable SQL; the drivers run them.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from pathlib import Path
from typing import Final, Protocol, TypeVar

from bot.store.drivers import ReadTx, Tx
from bot.store.drivers.postgres import DEFAULT_MAX_SIZE, DEFAULT_MIN_SIZE, PostgresDriver
from bot.store.drivers.sqlite import SqliteDriver
from bot.store.drivers.url import parse_database_url
from bot.store.errors import StorageError
from bot.store.rows import Row, to_ts, utcnow
from bot.store.schema import MIGRATIONS, Migration

T = TypeVar("T")

DEFAULT_DB_PATH: Final = Path("data") / "backgammon.sqlite3"
BUSY_TIMEOUT_MS: Final = 5000


class Driver(Protocol):
    """What :class:`Database` needs from a backend (:mod:`bot.store.drivers`)."""

    backend: str
    dialect: str

    async def close(self) -> None: ...
    async def transact(self, body: Callable[[Tx], Awaitable[T]], *, quick: bool = False) -> T: ...
    def snapshot(self) -> AbstractAsyncContextManager[ReadTx]: ...
    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]: ...
    async def fetchone(self, sql: str, params: Sequence[object] = ()) -> Row | None: ...
    async def schema_version(self) -> int: ...
    async def migrate(self, migrations: Sequence[Migration], target: int) -> None: ...
    async def integrity_check(self) -> str: ...


class Database:
    """An open, migrated database. Make one with :meth:`open`."""

    def __init__(self, driver: Driver, path: str, clock: Callable[[], datetime] = utcnow) -> None:
        self._driver: Driver | None = driver
        self.backend: str = driver.backend
        """``"sqlite"`` or ``"postgresql"``."""
        self.path = path
        """The SQLite path, or the PostgreSQL URL."""
        self.clock = clock

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str] = DEFAULT_DB_PATH,
        *,
        clock: Callable[[], datetime] = utcnow,
        migrate_to: int | None = None,
        min_size: int | None = None,
        max_size: int | None = None,
        checkpoints: bool = True,
        snapshot_before_migration: bool = True,
        low_disk_bytes: int | None = None,
    ) -> Database:
        """Open and migrate the database a path or ``DATABASE_URL`` names.

        A plain path or ``sqlite:///path`` opens SQLite, creating the folder and
        file if needed (``":memory:"`` gives a private database).
        ``postgresql://user:password@host:port/dbname`` opens a PostgreSQL pool
        of ``min_size``..``max_size`` connections (default 1..10).
        ``migrate_to`` stops at an earlier schema version (tests of old databases).
        SQLite only: ``checkpoints`` off leaves the WAL's checkpoints to another
        tool (Litestream); ``snapshot_before_migration`` off migrates a store
        without first copying it beside itself (``<store>.pre-migration-<version>``);
        under ``low_disk_bytes`` free beside it a warning is logged (0: never).

        :raises DatabaseUnavailableError: the PostgreSQL server cannot be reached.
        """
        newest = MIGRATIONS[-1].version if MIGRATIONS else 0
        target = newest if migrate_to is None else migrate_to
        if not 0 <= target <= newest:
            raise ValueError(f"migrate_to must be in 0..{newest}")
        where = parse_database_url(path)
        driver: Driver
        if where.backend == "postgresql":
            driver = await PostgresDriver.connect(
                where.location,
                min_size=DEFAULT_MIN_SIZE if min_size is None else min_size,
                max_size=DEFAULT_MAX_SIZE if max_size is None else max_size,
                lock_timeout_ms=BUSY_TIMEOUT_MS,
            )
        else:
            driver = await SqliteDriver.connect(
                where.location,
                busy_timeout_ms=BUSY_TIMEOUT_MS,
                checkpoints=checkpoints,
                snapshot_before_migration=snapshot_before_migration,
                **({} if low_disk_bytes is None else {"low_disk_bytes": low_disk_bytes}),
            )
        try:
            await driver.migrate(MIGRATIONS, target)
        except BaseException:
            await driver.close()
            raise
        return cls(driver, where.location, clock)

    async def close(self) -> None:
        """Close the connection or pool (idempotent)."""
        driver, self._driver = self._driver, None
        if driver is not None:
            await driver.close()

    @property
    def driver(self) -> Driver:
        if self._driver is None:
            raise StorageError("the database is closed")
        return self._driver

    def now(self) -> float:
        """The clock's time as Unix seconds."""
        return to_ts(self.clock())

    async def transact(self, body: Callable[[Tx], Awaitable[T]], *, quick: bool = False) -> T:
        """Run ``body`` as one write transaction; committed when it returns,
        rolled back if it raises. The body awaits only its statements.

        ``quick``: a few statements on rows found by their keys (a game's action,
        a board delivered, a challenge or a game created), which SQLite may run
        on the event loop itself (see :mod:`bot.store.drivers.sqlite`); anything
        that may read many rows, or rows nobody touched lately, must not say so."""
        return await self.driver.transact(body, quick=quick)

    def snapshot(self) -> AbstractAsyncContextManager[ReadTx]:
        """Read statements that all see one consistent state."""
        return self.driver.snapshot()

    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        return await self.driver.fetchall(sql, params)

    async def fetchone(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        return await self.driver.fetchone(sql, params)

    async def schema_version(self) -> int:
        """The last migration applied."""
        return await self.driver.schema_version()

    async def integrity_check(self) -> str:
        """SQLite: ``PRAGMA integrity_check``'s first line; PostgreSQL: a liveness check ('ok' if fine)."""
        return await self.driver.integrity_check()
