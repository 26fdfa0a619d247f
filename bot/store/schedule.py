"""Due work: turn deadlines, reminders and challenge expiries, and which
bot process does them.

With several bot processes each running some of Discord's shards, the
process that serves a guild claims its due work; another shard's work is
taken over once it is :data:`ORPHAN_AFTER` overdue (its process may be down).
Claims are compare-and-set, so each piece of work is done once.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from bot.store.database import Database, Tx
from bot.store.rows import ChallengeRow, GameRow, from_ts, to_ts

Shard = tuple[int, tuple[int, ...]]
"""(shard count, shard ids): the Discord shards one bot process serves."""

ORPHAN_AFTER: Final = 300.0
"""Seconds after which due work of other shards is taken over (their process may be down)."""

SHARD_SQL: Final = "(guild_id / 4194304) % ?"
""":func:`shard_of` in SQL (``guild_id >> 22`` is ``guild_id / 2**22`` for ids, which are positive)."""


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard that receives a guild's events, as Discord assigns them:
    ``(guild_id >> 22) % shard_count`` (direct messages, guild 0, go to shard 0)."""
    return (guild_id >> 22) % shard_count


def serves(shard: Shard | None, guild_id: int | None) -> bool:
    """Whether a process running ``shard`` (None: all of them) receives this guild's events."""
    return shard is None or shard_of(guild_id or 0, shard[0]) in shard[1]


def shard_clause(shard: Shard | None, column: str, ts: float) -> tuple[str, tuple[float | int, ...]]:
    """SQL keeping rows of guilds on ``shard``, and rows of other shards overdue
    by :data:`ORPHAN_AFTER` on ``column`` (claims keep the work to once)."""
    if shard is None:
        return "", ()
    count, ids = shard
    if count < 1 or not ids:
        raise ValueError("a shard filter needs a shard count and at least one shard id")
    marks = ", ".join("?" for _ in ids)
    return (
        f" AND (({SHARD_SQL}) IN ({marks}) OR {column} <= ?)",
        (count, *ids, ts - ORPHAN_AFTER),
    )


class DueWork:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def claim_reminder(self, game_id: int, version: int) -> bool:
        """Atomically mark the current turn's reminder as sent.

        Returns True if this caller should send the reminder: the game is
        still active at ``version`` and no reminder was sent for this turn.
        Does not change the version.
        """

        async def transaction(tx: Tx) -> bool:
            claimed = await tx.execute(
                """
                UPDATE games SET reminder_sent = 1
                WHERE id = ? AND version = ? AND status = 'active' AND reminder_sent = 0
                """,
                (game_id, version),
            )
            return claimed == 1
        return await self.db.transact(transaction)

    async def due_deadlines(
        self, now: datetime | None = None, *, limit: int = 100, shard: Shard | None = None
    ) -> list[GameRow]:
        """Active games whose turn deadline is at or before ``now``, oldest first
        (only guilds on ``shard`` when given, see :func:`shard_clause`)."""
        ts = to_ts(now) if now is not None else self.db.now()
        where, params = shard_clause(shard, "turn_deadline", ts)
        rows = await self.db.fetchall(
            """
            SELECT * FROM games
            WHERE status = 'active' AND turn_deadline IS NOT NULL AND turn_deadline <= ?
            """ + where + """
            ORDER BY turn_deadline LIMIT ?
            """,
            (ts, *params, limit),
        )
        return [GameRow.from_row(r) for r in rows]

    async def due_reminders(
        self, now: datetime | None = None, *, limit: int = 100, shard: Shard | None = None
    ) -> list[GameRow]:
        """Active games whose reminder time passed and whose reminder isn't sent
        (only guilds on ``shard`` when given, see :func:`shard_clause`)."""
        ts = to_ts(now) if now is not None else self.db.now()
        where, params = shard_clause(shard, "reminder_at", ts)
        rows = await self.db.fetchall(
            """
            SELECT * FROM games
            WHERE status = 'active' AND reminder_sent = 0
              AND reminder_at IS NOT NULL AND reminder_at <= ?
            """ + where + """
            ORDER BY reminder_at LIMIT ?
            """,
            (ts, *params, limit),
        )
        return [GameRow.from_row(r) for r in rows]

    async def next_wakeup(self, *, shard: Shard | None = None) -> datetime | None:
        """Earliest pending deadline, reminder or challenge expiry (for a scheduler sleep);
        with ``shard``, other shards' times count :data:`ORPHAN_AFTER` later."""
        if shard is None:
            return await self._earliest_due("", ())
        count, ids = shard
        marks = ", ".join("?" for _ in ids)
        own = await self._earliest_due(f" AND ({SHARD_SQL}) IN ({marks})", (count, *ids))
        anyone = await self._earliest_due("", ())
        if anyone is not None:
            anyone += timedelta(seconds=ORPHAN_AFTER)
        candidates = [t for t in (own, anyone) if t is not None]
        return min(candidates) if candidates else None

    async def _earliest_due(self, where: str, params: tuple[int, ...]) -> datetime | None:
        row = await self.db.fetchone(
            """
            SELECT MIN(t) FROM (
                SELECT MIN(turn_deadline) AS t FROM games
                    WHERE status = 'active' AND turn_deadline IS NOT NULL""" + where + """
                UNION ALL
                SELECT MIN(reminder_at) FROM games
                    WHERE status = 'active' AND reminder_sent = 0 AND reminder_at IS NOT NULL""" + where + """
                UNION ALL
                SELECT MIN(expires_at) FROM challenges
                    WHERE status = 'pending' AND expires_at IS NOT NULL""" + where + """
            ) AS due
            """,
            params * 3,
        )
        return from_ts(row[0]) if row else None

    async def expire_challenges(
        self, now: datetime | None = None, *, shard: Shard | None = None, limit: int | None = None
    ) -> list[ChallengeRow]:
        """Mark overdue pending challenges 'expired', the longest overdue first,
        at most ``limit`` of them (the rest stay for the next call); return those rows.

        Each challenge is returned by exactly one caller, even with several
        bot processes expiring at once (on PostgreSQL rows another process is
        expiring are skipped, ``FOR UPDATE SKIP LOCKED``).
        """
        if limit is not None and limit < 1:
            raise ValueError("expire at least one challenge a call")
        ts = to_ts(now) if now is not None else self.db.now()
        stamp = self.db.now()
        where, params = shard_clause(shard, "expires_at", ts)

        async def transaction(tx: Tx) -> list[ChallengeRow]:
            rows = await tx.fetchall(
                """
                SELECT id FROM challenges
                WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ?
                """ + where + """
                ORDER BY expires_at, id
                """
                + (" LIMIT ?" if limit is not None else "")
                + tx.skip_locked,
                (ts, *params, *([limit] if limit is not None else [])),
            )
            ids = [r["id"] for r in rows]
            result: list[ChallengeRow] = []
            for cid in ids:
                changed = await tx.execute(
                    "UPDATE challenges SET status = 'expired', updated_at = ? WHERE id = ? AND status = 'pending'",
                    (stamp, cid),
                )
                if changed != 1:
                    continue
                row = await tx.fetchone("SELECT * FROM challenges WHERE id = ?", (cid,))
                assert row is not None
                result.append(ChallengeRow.from_row(row))
            return result

        result = await self.db.transact(transaction)
        return result
