"""What the health check reads (``python -m bot check``): a few counts, without migrating.

The database is opened as it is: a check must never change the schema (the bot
migrates at its next start), and it must answer for a schema newer than the
code too. A SQLite file that does not exist is not created.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from bot.store.database import BUSY_TIMEOUT_MS, Driver
from bot.store.drivers.postgres import PostgresDriver
from bot.store.drivers.sqlite import SqliteDriver
from bot.store.drivers.url import parse_database_url
from bot.store.errors import StorageError
from bot.store.schema import SCHEMA_VERSION
from bot.store.shards import Shard


@dataclass(frozen=True, slots=True)
class Health:
    schema_version: int
    backend: str
    sqlite_path: str | None = None
    heartbeats: dict[int, float] = field(default_factory=dict)
    """shard id -> its last beat (Unix seconds), for this process's shard count."""
    outbox_owed: int = 0
    outbox_oldest: float | None = None
    """When the oldest entry owed was written (Unix seconds)."""
    credits_owed: int = 0
    credits_oldest: float | None = None
    """When the oldest outage still owed to the games' clocks ended (Unix seconds)."""


async def read_health(url_or_path: str | os.PathLike[str], shard: Shard | None) -> Health:
    """The figures of :class:`Health` for ``shard`` (None: an unsharded process).

    :raises StorageError: the database cannot be opened or read.
    """
    where = parse_database_url(url_or_path)
    driver: Driver
    if where.backend == "postgresql":
        driver = await PostgresDriver.connect(where.location, min_size=1, max_size=1, lock_timeout_ms=BUSY_TIMEOUT_MS)
    else:
        if where.location != ":memory:" and not where.location.startswith("file:"):
            if not Path(where.location).is_file():
                raise StorageError(f"no database at {where.location}")
        driver = await SqliteDriver.connect(where.location, busy_timeout_ms=BUSY_TIMEOUT_MS)
    try:
        version = await driver.schema_version()
        sqlite_path = where.location if where.backend == "sqlite" else None
        if version > SCHEMA_VERSION or version < 14:  # 14: clock_credits, the newest table read here
            return Health(version, where.backend, sqlite_path)
        count, ids = shard if shard is not None else (1, (0,))
        marks = ", ".join("?" for _ in ids)
        beats = await driver.fetchall(
            f"SELECT shard_id, seen_at FROM heartbeats WHERE shard_count = ? AND shard_id IN ({marks})", (count, *ids)
        )
        outbox = await driver.fetchone("SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM outbox")
        credits = await driver.fetchone(
            f"""SELECT COUNT(*) AS n, MIN(started_at) AS oldest FROM clock_credits
            WHERE (shard_count = ? AND shard_id IN ({marks})) OR shard_count <> ?""",
            (count, *ids, count),
        )
        assert outbox is not None and credits is not None
        return Health(
            version,
            where.backend,
            sqlite_path,
            heartbeats={int(row["shard_id"]): float(row["seen_at"]) for row in beats},
            outbox_owed=int(outbox["n"]),
            outbox_oldest=None if outbox["oldest"] is None else float(outbox["oldest"]),
            credits_owed=int(credits["n"]),
            credits_oldest=None if credits["oldest"] is None else float(credits["oldest"]),
        )
    finally:
        await driver.close()
