"""The outbox: messages the players are owed, kept until they are delivered.

A change that players must see (a new board, a reminder, a forfeit, a
challenge expiring) writes what it owes with :func:`add`, inside the very
transaction that makes the change: a crash can lose the post, never the debt.
Whoever delivers it (the command's own answer, or the dispatcher after a
restart) deletes the entry with :meth:`OutboxStore.delivered`, which also
records the game's new board message, in one transaction. An entry that could
not be delivered waits for its ``next_attempt_at`` (back-off).

Boards of one game supersede each other: the newest shows the game as it
stands, so older owed boards are settled by its delivery.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.store.database import Database, Tx
from bot.store.rows import Row, dump_json, load_json, req_ts, to_ts
from bot.store.shards import Shard, shard_clause

OwedKind = str
"""``board``, ``reminder``, ``challenge_expired``, ``notice`` (a line of text), or a
feature's own kind (its wording and its delivery registered by the feature)."""


@dataclass(frozen=True, slots=True)
class Owed:
    """A message a change owes, written in the change's transaction (:func:`add`).

    ``version``: for a board, the game's version it must show at least.
    ``payload``: what the deliverer needs to word it (JSON).
    """

    kind: OwedKind
    guild_id: int
    channel_id: int
    game_id: int | None = None
    challenge_id: int | None = None
    version: int | None = None
    payload: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """An owed message as stored."""

    id: int
    kind: OwedKind
    guild_id: int
    channel_id: int
    game_id: int | None
    challenge_id: int | None
    version: int | None
    payload: dict[str, Any]
    created_at: datetime
    attempts: int
    next_attempt_at: datetime

    @classmethod
    def from_row(cls, row: Row) -> OutboxEntry:
        return cls(
            id=row["id"],
            kind=row["kind"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            game_id=row["game_id"],
            challenge_id=row["challenge_id"],
            version=row["version"],
            payload=load_json(row["payload"]) or {},
            created_at=req_ts(row["created_at"]),
            attempts=row["attempts"],
            next_attempt_at=req_ts(row["next_attempt_at"]),
        )


async def add(tx: Tx, owed: Owed, now: float) -> int:
    """Write ``owed`` in the caller's transaction; returns its id."""
    if not owed.kind or not isinstance(owed.kind, str):
        raise ValueError(f"an outbox entry needs a kind, not {owed.kind!r}")
    return await tx.insert_id(
        """
        INSERT INTO outbox (guild_id, channel_id, game_id, challenge_id, version, kind, payload,
                            created_at, next_attempt_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        (
            owed.guild_id,
            owed.channel_id,
            owed.game_id,
            owed.challenge_id,
            owed.version,
            owed.kind,
            dump_json(dict(owed.payload)),
            now,
            now,
        ),
    )


class OutboxStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def owed(
        self,
        now: datetime | None = None,
        *,
        shard: Shard | None = None,
        kinds: Sequence[OwedKind] | None = None,
        not_kinds: Sequence[OwedKind] = (),
        limit: int = 100,
    ) -> list[OutboxEntry]:
        """Entries due for an attempt at ``now`` (of ``kinds`` if given, none of
        ``not_kinds``), oldest first (only guilds on ``shard``, and other shards'
        once they are long overdue)."""
        ts = to_ts(now) if now is not None else self.db.now()
        where, shard_params = shard_clause(shard, "created_at", ts)
        params: tuple[object, ...] = shard_params
        if kinds is not None:
            where += f" AND kind IN ({', '.join('?' for _ in kinds)})"
            params = (*params, *kinds)
        if not_kinds:
            where += f" AND kind NOT IN ({', '.join('?' for _ in not_kinds)})"
            params = (*params, *not_kinds)
        rows = await self.db.fetchall(
            "SELECT * FROM outbox WHERE next_attempt_at <= ?" + where + " ORDER BY id LIMIT ?",
            (ts, *params, limit),
        )
        return [OutboxEntry.from_row(r) for r in rows]

    async def count(self) -> int:
        """Entries owed (the health server's gauge)."""
        row = await self.db.fetchone("SELECT COUNT(*) AS n FROM outbox")
        return int(row["n"]) if row is not None else 0

    async def for_game(self, game_id: int) -> list[OutboxEntry]:
        """Every entry a game still owes, oldest first."""
        rows = await self.db.fetchall("SELECT * FROM outbox WHERE game_id = ? ORDER BY id", (game_id,))
        return [OutboxEntry.from_row(r) for r in rows]

    async def next_attempt(self, *, shard: Shard | None = None) -> datetime | None:
        """When the earliest entry falls due (None: nothing is owed)."""
        where, params = shard_clause(shard, "created_at", self.db.now())
        row = await self.db.fetchone("SELECT MIN(next_attempt_at) FROM outbox WHERE 1 = 1" + where, params)
        return req_ts(row[0]) if row and row[0] is not None else None

    async def delivered(
        self,
        entry_ids: Sequence[int],
        *,
        game_id: int | None = None,
        board: tuple[int, int] | None = None,
        version: int | None = None,
    ) -> None:
        """Settle ``entry_ids`` (delivered, or superseded by what was delivered);
        with ``board`` and ``version``, the message now showing ``game_id`` at
        ``version`` becomes its board, unless a newer board is already recorded,
        and every board the game owed up to ``version`` is settled by it."""
        if board is not None and (game_id is None or version is None):
            raise ValueError("a board message needs its game and the version it shows")

        async def transaction(tx: Tx) -> None:
            if entry_ids:
                marks = ", ".join("?" for _ in entry_ids)
                await tx.execute(f"DELETE FROM outbox WHERE id IN ({marks})", tuple(entry_ids))
            if game_id is not None and board is not None:
                await tx.execute(
                    "DELETE FROM outbox WHERE game_id = ? AND kind = 'board' AND version <= ?", (game_id, version)
                )
                await tx.execute(
                    """
                    UPDATE games SET board_channel_id = ?, board_message_id = ?, board_version = ?
                    WHERE id = ? AND (board_version IS NULL OR board_version <= ?)
                    """,
                    (board[0], board[1], version, game_id, version),
                )

        await self.db.transact(transaction, quick=True)

    async def retry_later(self, entry_id: int, at: datetime) -> None:
        """Count a failed attempt; try again at ``at``."""

        async def transaction(tx: Tx) -> None:
            await tx.execute(
                "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ?",
                (to_ts(at), entry_id),
            )

        await self.db.transact(transaction)
