"""Members: notification preferences, the daily digest's schedule, and vacations.

Preferences are the JSON of ``players.prefs``; ``players.digest_at`` is when a
member's next digest is due, claimed with a compare-and-set so one process
sends it. A vacation is per server: while it lasts the member's move clocks
wait; the turns it held up are listed on it, so an early return gives the
unused time back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.store import outbox
from bot.store.database import Database, Tx
from bot.store.outbox import Owed
from bot.store.players import touch
from bot.store.rows import Row, dump_json, from_ts, load_json, req_ts, to_ts


@dataclass(frozen=True, slots=True)
class VacationRow:
    id: int
    guild_id: int
    user_id: int
    starts_at: datetime
    ends_at: datetime
    paused: tuple[tuple[int, int, float], ...]
    """(game id, version, seconds added) for each turn it held up."""

    @classmethod
    def from_row(cls, row: Row) -> VacationRow:
        return cls(
            id=row["id"],
            guild_id=row["guild_id"],
            user_id=row["user_id"],
            starts_at=req_ts(row["starts_at"]),
            ends_at=req_ts(row["ends_at"]),
            paused=tuple((int(g), int(v), float(s)) for g, v, s in load_json(row["paused"]) or []),
        )


DIGEST_SENT = "digest_sent"
"""In a member's prefs: when their last digest was written (epoch seconds)."""


class MemberStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- preferences and digests -------------------------------------------------------------

    async def prefs(self, user_id: int) -> dict[str, Any]:
        row = await self.db.fetchone("SELECT prefs FROM players WHERE user_id = ?", (user_id,))
        return (load_json(row["prefs"]) or {}) if row else {}

    async def set_prefs(
        self, user_id: int, prefs: dict[str, Any], digest_at: datetime | None, *, digest_gap: float = 0.0
    ) -> None:
        """A member's preferences and next digest; ``digest_gap`` (seconds): that digest comes
        no sooner than this long after the last one sent (kept as ``digest_sent`` in the prefs)."""
        now = self.db.now()

        async def transaction(tx: Tx) -> None:
            await touch(tx, user_id, now)
            row = await tx.fetchone("SELECT prefs FROM players WHERE user_id = ?", (user_id,))
            sent = ((load_json(row["prefs"]) if row else None) or {}).get(DIGEST_SENT)
            kept = dict(prefs)
            at = to_ts(digest_at)
            if sent is not None:
                kept[DIGEST_SENT] = sent
                if at is not None:
                    at = max(at, float(sent) + digest_gap)
            await tx.execute(
                "UPDATE players SET prefs = ?, digest_at = ?, updated_at = ? WHERE user_id = ?",
                (dump_json(kept), at, now, user_id),
            )

        await self.db.transact(transaction)

    async def due_digests(self, now: datetime, limit: int = 50) -> list[tuple[int, datetime, dict[str, Any]]]:
        """Members whose digest is due: (user id, when it was due, preferences), oldest first."""
        rows = await self.db.fetchall(
            """
            SELECT user_id, digest_at, prefs FROM players
            WHERE digest_at IS NOT NULL AND digest_at <= ?
            ORDER BY digest_at LIMIT ?
            """,
            (to_ts(now), limit),
        )
        return [(r["user_id"], req_ts(r["digest_at"]), load_json(r["prefs"]) or {}) for r in rows]

    async def claim_digest(
        self, user_id: int, due: datetime, following: datetime | None, owed: Owed | None = None
    ) -> bool:
        """Move a member's digest from ``due`` to ``following`` and write the digest
        ``owed`` to the outbox, in one transaction; True if this caller did."""
        now = self.db.now()

        async def transaction(tx: Tx) -> bool:
            changed = await tx.execute(
                "UPDATE players SET digest_at = ? WHERE user_id = ? AND digest_at = ?",
                (to_ts(following), user_id, to_ts(due)),
            )
            if changed == 1 and owed is not None:
                await outbox.add(tx, owed, now)
                row = await tx.fetchone("SELECT prefs FROM players WHERE user_id = ?", (user_id,))
                prefs = (load_json(row["prefs"]) if row else None) or {}
                prefs[DIGEST_SENT] = now  # the next one waits a while, whatever the settings become
                await tx.execute("UPDATE players SET prefs = ? WHERE user_id = ?", (dump_json(prefs), user_id))
            return changed == 1

        return await self.db.transact(transaction)

    async def away(self, guild_id: int, user_id: int, now: datetime) -> VacationRow | None:
        """The member's vacation in this server under way at ``now``, if any."""
        row = await self.db.fetchone(
            """
            SELECT * FROM vacations WHERE guild_id = ? AND user_id = ? AND starts_at <= ? AND ends_at > ?
            ORDER BY id DESC LIMIT 1
            """,
            (guild_id, user_id, to_ts(now), to_ts(now)),
        )
        return VacationRow.from_row(row) if row else None

    # -- vacations -----------------------------------------------------------------------------

    async def start_vacation(self, guild_id: int, user_id: int, starts: datetime, ends: datetime) -> VacationRow:
        now = self.db.now()

        async def transaction(tx: Tx) -> int:
            return await tx.insert_id(
                """
                INSERT INTO vacations (guild_id, user_id, starts_at, ends_at, paused, created_at)
                VALUES (?, ?, ?, ?, '[]', ?)
                """,
                (guild_id, user_id, to_ts(starts), to_ts(ends), now),
            )

        vacation_id = await self.db.transact(transaction)
        return VacationRow(vacation_id, guild_id, user_id, starts, ends, ())

    async def current(self, now: datetime) -> list[VacationRow]:
        """Every vacation under way at ``now``."""
        rows = await self.db.fetchall(
            "SELECT * FROM vacations WHERE starts_at <= ? AND ends_at > ? ORDER BY id", (to_ts(now), to_ts(now))
        )
        return [VacationRow.from_row(r) for r in rows]

    async def taken(self, guild_id: int, user_id: int, since: datetime, until: datetime) -> list[VacationRow]:
        """A member's vacations in a server overlapping ``[since, until)`` (for the yearly allowance)."""
        rows = await self.db.fetchall(
            """
            SELECT * FROM vacations WHERE guild_id = ? AND user_id = ? AND ends_at > ? AND starts_at < ?
            ORDER BY starts_at
            """,
            (guild_id, user_id, to_ts(since), to_ts(until)),
        )
        return [VacationRow.from_row(r) for r in rows]

    async def pause_turn(
        self,
        vacation_id: int,
        game_id: int,
        version: int,
        deadline: datetime,
        reminder_at: datetime | None,
        added: float,
    ) -> bool:
        """Move a turn's deadline (and its reminder, if not sent) on, and note it on the
        vacation, in one transaction; False if the game moved on meanwhile."""

        async def transaction(tx: Tx) -> bool:
            changed = await tx.execute(
                """
                UPDATE games SET turn_deadline = ?,
                       reminder_at = CASE WHEN reminder_sent = 0 THEN ? ELSE reminder_at END
                WHERE id = ? AND version = ? AND status = 'active'
                """,
                (to_ts(deadline), to_ts(reminder_at), game_id, version),
            )
            if changed != 1:
                return False
            row = await tx.fetchone("SELECT paused FROM vacations WHERE id = ?", (vacation_id,))
            paused = (load_json(row["paused"]) if row else None) or []
            paused.append([game_id, version, added])
            await tx.execute("UPDATE vacations SET paused = ? WHERE id = ?", (dump_json(paused), vacation_id))
            return True

        return await self.db.transact(transaction)

    async def end_vacation(self, vacation_id: int, at: datetime, give_back: float) -> list[int]:
        """End a vacation at ``at``: each turn it held up that is still the same turn
        gets ``give_back`` seconds (at most what it was given) taken off its deadline
        again. Returns the games whose deadlines moved back."""

        async def transaction(tx: Tx) -> list[int]:
            row = await tx.fetchone("SELECT * FROM vacations WHERE id = ?", (vacation_id,))
            if row is None:
                return []
            vacation = VacationRow.from_row(row)
            moved = []
            for game_id, version, added in vacation.paused:
                back = min(added, give_back)
                changed = await tx.execute(
                    """
                    UPDATE games SET turn_deadline = turn_deadline - ?,
                           reminder_at = CASE WHEN reminder_sent = 0 AND reminder_at IS NOT NULL
                                              THEN reminder_at - ? ELSE reminder_at END
                    WHERE id = ? AND version = ? AND status = 'active' AND turn_deadline IS NOT NULL
                    """,
                    (back, back, game_id, version),
                )
                if changed == 1:
                    moved.append(game_id)
            await tx.execute("UPDATE vacations SET ends_at = ? WHERE id = ?", (to_ts(at), vacation_id))
            return moved

        return await self.db.transact(transaction)


__all__ = ["MemberStore", "VacationRow", "from_ts"]
