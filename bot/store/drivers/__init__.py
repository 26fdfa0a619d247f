"""Database drivers: the one set of queries of :mod:`bot.store` runs on SQLite
(:mod:`.sqlite`, the embedded default) or PostgreSQL (:mod:`.postgres`, an
asyncpg pool, for several bot processes sharing one database). :mod:`.url`
picks one from a ``DATABASE_URL``. Each driver turns its library's errors into
:mod:`bot.store.errors`, so nothing above it imports sqlite3 or asyncpg. The
statements of a transaction every driver hands its body are :class:`Tx`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from bot.store.rows import Row


class ReadTx(Protocol):
    """The read statements of one snapshot, in the shared (``?``-placeholder) SQL."""

    dialect: str
    for_update: str
    """`` FOR UPDATE`` on PostgreSQL, empty on SQLite (BEGIN IMMEDIATE locks everything)."""
    skip_locked: str
    """`` FOR UPDATE SKIP LOCKED`` on PostgreSQL, empty on SQLite."""

    async def fetchone(self, sql: str, params: Sequence[object] = ()) -> Row | None: ...
    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]: ...


class Tx(ReadTx, Protocol):
    """The statements of one transaction, in the shared (``?``-placeholder) SQL."""

    async def execute(self, sql: str, params: Sequence[object] = ()) -> int: ...
    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None: ...
    async def insert_id(self, sql: str, params: Sequence[object] = ()) -> int: ...
