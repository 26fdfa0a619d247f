"""Due work: turn deadlines, reminders and challenge expiries, and which
bot process does them; heartbeats, so downtime is not counted against them.

With several bot processes each running some of Discord's shards, the
process that serves a guild claims its due work; another shard's work is
taken over once it is :data:`~bot.store.shards.ORPHAN_AFTER` overdue (its
process may be down). Claims are compare-and-set, so each piece of work is
done once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.store import outbox
from bot.store.database import Database, Tx
from bot.store.outbox import Owed
from bot.store.rows import ChallengeRow, GameRow, from_ts, to_ts
from bot.store.shards import ORPHAN_AFTER, SHARD_SQL, Shard, deadline_clause, run_clause, shard_clause

CREDIT_BATCH = 2000
"""Games credited for an outage per transaction (:meth:`ScheduleStore.credit_games`): clicks
go on between the batches. On a store larger than memory a batch holds the write
lock for 60-250 ms under load, so the bot credits in its quiet moments
(:meth:`bot.core.deadlines.Deadlines.settle_outages`)."""


def _owed_credits(shard: Shard | None) -> tuple[str, tuple[int, ...]]:
    """The condition (and its parameters) on ``clock_credits`` for the outages owed to
    the games of ``shard``: its own, or any left under another shard count."""
    count, ids = shard if shard is not None else (1, (0,))
    marks = ", ".join("?" for _ in ids)
    return f"(shard_count = ? AND shard_id IN ({marks})) OR shard_count <> ?", (count, *ids, count)


class ScheduleStore:
    """What falls due: turn deadlines and reminders, challenge expiries, and the
    heartbeats that credit an outage to the games' clocks."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def postpone_reminder(self, game_id: int, version: int, at: datetime) -> bool:
        """Move the current turn's reminder (not yet sent) to ``at``; False if the game moved on."""
        changed = await self.db.transact(
            lambda tx: tx.execute(
                """
            UPDATE games SET reminder_at = ?
            WHERE id = ? AND version = ? AND status = 'active' AND reminder_sent = 0
            """,
                (to_ts(at), game_id, version),
            )
        )
        return changed == 1

    async def claim_reminder(self, game_id: int, version: int, owed: Owed | None) -> int | None:
        """Atomically mark the current turn's reminder as sent, and write the
        reminder message ``owed`` to the outbox in the same transaction.

        ``owed`` None claims it without a message (returns 0).
        Returns the outbox entry's id if this caller claimed the reminder: the
        game is still active at ``version`` and no reminder was claimed for
        this turn; else None. Does not change the version.
        """
        now = self.db.now()

        async def transaction(tx: Tx) -> int | None:
            claimed = await tx.execute(
                """
                UPDATE games SET reminder_sent = 1
                WHERE id = ? AND version = ? AND status = 'active' AND reminder_sent = 0
                """,
                (game_id, version),
            )
            if claimed != 1:
                return None
            if owed is None:  # the member turned reminders off: claimed, nothing to post
                return 0
            return await outbox.add(tx, owed, now)

        return await self.db.transact(transaction)

    async def due_deadlines(
        self, now: datetime | None = None, *, limit: int = 100, shard: Shard | None = None
    ) -> list[GameRow]:
        """Active games whose turn deadline is at or before ``now``, oldest first
        (only guilds on ``shard`` when given, and other shards' only while they are
        run, see :func:`deadline_clause`)."""
        ts = to_ts(now) if now is not None else self.db.now()
        where, params = deadline_clause(shard, ts)
        rows = await self.db.fetchall(
            """
            SELECT * FROM games
            WHERE status = 'active' AND turn_deadline IS NOT NULL AND turn_deadline <= ?
            """
            + where
            + """
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
            """
            + where
            + """
            ORDER BY reminder_at LIMIT ?
            """,
            (ts, *params, limit),
        )
        return [GameRow.from_row(r) for r in rows]

    async def next_wakeup(self, *, shard: Shard | None = None) -> datetime | None:
        """Earliest pending deadline, reminder or challenge expiry (for a scheduler sleep);
        with ``shard``, other shards' times count :data:`ORPHAN_AFTER` later, and
        their deadlines only while they are run (:func:`deadline_clause`)."""
        if shard is None:
            return await self._earliest_due("", ())
        count, ids = shard
        marks = ", ".join("?" for _ in ids)
        own = await self._earliest_due(f" AND ({SHARD_SQL}) IN ({marks})", (count, *ids))
        run_where, run_params = run_clause(count, self.db.now())
        anyone = await self._earliest_due("", (), run_where, run_params)
        if anyone is not None:
            anyone += timedelta(seconds=ORPHAN_AFTER)
        candidates = [t for t in (own, anyone) if t is not None]
        return min(candidates) if candidates else None

    async def _earliest_due(
        self,
        where: str,
        params: tuple[int, ...],
        deadline_where: str = "",
        deadline_params: tuple[float | int, ...] = (),
    ) -> datetime | None:
        row = await self.db.fetchone(
            """
            SELECT MIN(t) FROM (
                SELECT MIN(turn_deadline) AS t FROM games
                    WHERE status = 'active' AND turn_deadline IS NOT NULL"""
            + where
            + deadline_where
            + """
                UNION ALL
                SELECT MIN(reminder_at) FROM games
                    WHERE status = 'active' AND reminder_sent = 0 AND reminder_at IS NOT NULL"""
            + where
            + """
                UNION ALL
                SELECT MIN(expires_at) FROM challenges
                    WHERE status = 'pending' AND expires_at IS NOT NULL"""
            + where
            + """
            ) AS due
            """,
            (*params, *deadline_params, *params, *params),
        )
        return from_ts(row[0]) if row else None

    async def expire_challenges(
        self, now: datetime | None = None, *, shard: Shard | None = None, limit: int | None = None
    ) -> list[ChallengeRow]:
        """Mark overdue pending challenges 'expired', the longest overdue first,
        at most ``limit`` of them (the rest stay for the next call); return those rows.

        Each expiry owes its channel a word (an outbox entry of kind
        ``challenge_expired``, written in the same transaction).
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
                """
                + where
                + """
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
                challenge = ChallengeRow.from_row(row)
                await outbox.add(
                    tx, Owed("challenge_expired", challenge.guild_id, challenge.channel_id, challenge_id=cid), stamp
                )
                result.append(challenge)
            return result

        result = await self.db.transact(transaction)
        return result

    # -- downtime ------------------------------------------------------------------------

    async def credit_owed(self, shard: Shard | None) -> bool:
        """Whether an outage is still owed to the games of ``shard`` (one
        :meth:`credit_games` would take: its own, or one left under another shard count)."""
        owed, params = _owed_credits(shard)
        return await self.db.fetchone(f"SELECT 1 FROM clock_credits WHERE {owed} LIMIT 1", params) is not None

    async def credit_games(self, shard: Shard | None, *, batch: int = CREDIT_BATCH) -> int | None:
        """Credit the oldest outage still owed to the games of ``shard`` (written
        by :meth:`beat`) to the next ``batch`` active games by id, in one
        transaction with its cursor: their turn deadlines and reminders, still
        ahead when the outage began, move on by its length, unless the game was
        acted on since the bot came back (its clocks are new). The outage is
        done with once its cursor has passed every active game.

        An outage owed under another shard count (a crash mid-way, then a
        restart with more or fewer shards) is nobody's now: any process finishes
        it, by the shards it was written for.

        Returns the games looked at (0: an outage was done with), None when no
        outage is owed."""
        condition, params = _owed_credits(shard)

        async def transaction(tx: Tx) -> int | None:
            owed = await tx.fetchone(
                f"SELECT * FROM clock_credits WHERE {condition} ORDER BY id LIMIT 1" + tx.for_update, params
            )
            if owed is None:
                return None
            after = owed["games_after"]
            counted = await tx.fetchone(
                """
                SELECT count(*), max(id) FROM
                    (SELECT id FROM games WHERE status = 'active' AND id > ? ORDER BY id LIMIT ?) AS next_games
                """,
                (after, batch),
            )
            assert counted is not None  # an aggregate without GROUP BY always gives one row
            found, last = counted
            if not found:
                await tx.execute("DELETE FROM clock_credits WHERE id = ?", (owed["id"],))
                return 0
            gap = owed["gap"]
            await tx.execute(
                f"""
                UPDATE games SET turn_deadline = turn_deadline + ?,
                       reminder_at = CASE WHEN reminder_at IS NULL THEN NULL ELSE reminder_at + ? END
                WHERE status = 'active' AND id > ? AND id <= ? AND turn_deadline IS NOT NULL
                      AND turn_deadline > ? AND updated_at <= ? AND ({SHARD_SQL}) = ?
                """,
                (gap, gap, after, last, owed["since"], owed["started_at"], owed["shard_count"], owed["shard_id"]),
            )
            if found < batch:
                await tx.execute("DELETE FROM clock_credits WHERE id = ?", (owed["id"],))
            else:
                await tx.execute("UPDATE clock_credits SET games_after = ? WHERE id = ?", (last, owed["id"]))
            return int(found)

        return await self.db.transact(transaction)

    async def beat(
        self, shard: Shard | None, now: datetime | None = None, *, stale_after: float, credit: bool = True
    ) -> float:
        """Record that the bot is connected to Discord for ``shard`` (None: all guilds).

        With ``credit`` (coming back: at start-up, after a lost connection), if
        a shard's last beat is more than ``stale_after`` seconds old, the bot
        was down (or cut off from Discord) for the gap: every pending
        challenge's expiry, and every tournament's sign-up close and round
        deadline, still ahead at the last beat, move later by the gap, in one
        transaction with the beat; the active games' turn deadlines and
        reminders are owed the same (a ``clock_credits`` row, written in that
        transaction too) and move a batch at a time (:meth:`credit_games`).
        Returns the longest gap credited (0.0 if none)."""
        ts = to_ts(now) if now is not None else self.db.now()
        count, ids = shard if shard is not None else (1, (0,))

        async def transaction(tx: Tx) -> float:
            credited = 0.0
            for shard_id in ids:
                row = await tx.fetchone(
                    "SELECT seen_at FROM heartbeats WHERE shard_count = ? AND shard_id = ?" + tx.for_update,
                    (count, shard_id),
                )
                if row is None:
                    await tx.execute(
                        "INSERT INTO heartbeats (shard_count, shard_id, seen_at) VALUES (?, ?, ?)",
                        (count, shard_id, ts),
                    )
                    continue
                last = row["seen_at"]
                gap = ts - last
                if credit and gap > stale_after:
                    mine = f"({SHARD_SQL}) = ?"
                    # the games' clocks: a batch at a time (credit_games), not in this transaction
                    await tx.execute(
                        """
                        INSERT INTO clock_credits (shard_count, shard_id, gap, since, started_at, games_after)
                        VALUES (?, ?, ?, ?, ?, 0)
                        """,
                        (count, shard_id, gap, last, ts),
                    )
                    await tx.execute(
                        f"""
                        UPDATE challenges SET expires_at = expires_at + ?
                        WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at > ? AND {mine}
                        """,
                        (gap, last, count, shard_id),
                    )
                    await tx.execute(
                        f"""
                        UPDATE tournaments SET starts_at = starts_at + ?
                        WHERE status = 'signup' AND starts_at IS NOT NULL AND starts_at > ? AND {mine}
                        """,
                        (gap, last, count, shard_id),
                    )
                    await tx.execute(
                        f"""
                        UPDATE tournaments SET round_deadline = round_deadline + ?
                        WHERE status = 'running' AND round_deadline IS NOT NULL AND round_deadline > ? AND {mine}
                        """,
                        (gap, last, count, shard_id),
                    )
                    credited = max(credited, gap)
                if ts > last:
                    await tx.execute(
                        "UPDATE heartbeats SET seen_at = ? WHERE shard_count = ? AND shard_id = ?",
                        (ts, count, shard_id),
                    )
            return credited

        return await self.db.transact(transaction)
