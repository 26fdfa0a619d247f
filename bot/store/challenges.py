"""Challenges: an invitation to play, pending until answered or expired."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from bot.store import players
from bot.store.database import Database, Tx
from bot.store.errors import ChallengeClosedError, ChallengeLimitError, NotFoundError
from bot.store.rows import ChallengeRow, ChallengeStatus, Row, dump_json, load_json, to_ts


async def require_pending(tx: Tx, challenge_id: int) -> None:
    """Lock a challenge and check it can still be answered.

    :raises NotFoundError: there is no such challenge.
    :raises ChallengeClosedError: it was answered, withdrawn or expired.
    """
    row = await tx.fetchone("SELECT status FROM challenges WHERE id = ?" + tx.for_update, (challenge_id,))
    if row is None:
        raise NotFoundError(f"Challenge #{challenge_id} does not exist.")
    if row["status"] != "pending":
        raise ChallengeClosedError(f"This challenge was already {row['status']}.", status=row["status"])


async def mark_accepted(tx: Tx, challenge_id: int, game_id: int, now: float) -> None:
    """Link a pending challenge to the game it started (after :func:`require_pending`)."""
    await tx.execute(
        """
        UPDATE challenges SET status = 'accepted', game_id = ?, updated_at = ?
        WHERE id = ? AND status = 'pending'
        """,
        (game_id, now, challenge_id),
    )


async def _waiting(tx: Tx, side: str, user_id: int, now: float) -> int:
    """Challenges made (``side`` "challenger") or received ("challenged") by a member
    that still wait for an answer: pending and not yet past their expiry."""
    column = "challenger" if side == "challenger" else "challenged"
    row = await tx.fetchone(
        f"""
        SELECT COUNT(*) FROM challenges
        WHERE {column} = ? AND status = 'pending' AND (expires_at IS NULL OR expires_at > ?)
        """,
        (user_id, now),
    )
    return int(row[0]) if row else 0


class ChallengeStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger: int,
        challenged: int | None,
        settings: Mapping[str, Any] | None = None,
        match_length: int = 0,
        expires_at: datetime | None = None,
        message_id: int | None = None,
        max_by_challenger: int | None = None,
        max_for_challenged: int | None = None,
        rematch_of: int | None = None,
    ) -> ChallengeRow:
        """Create a pending challenge (``challenged`` None = open to anyone).

        With ``max_by_challenger`` (``max_for_challenged``), the challenge is
        refused with :class:`ChallengeLimitError` when the challenger already
        made (the target already received) that many challenges still waiting
        for an answer. The count is taken in the creating transaction, with
        both players' rows locked, so racing processes can't exceed it. With
        ``rematch_of`` (a rematch of that game), refused the same way
        (``side="rematch"``) while another rematch of it waits for an answer.
        """
        if match_length < 0:
            raise ValueError("match_length must be >= 0")
        now = self.db.now()
        payload = dump_json(dict(settings or {}))
        limits = ((max_by_challenger, "challenger", challenger), (max_for_challenged, "challenged", challenged))

        async def transaction(tx: Tx) -> Row | None:
            people = sorted({challenger, *([challenged] if challenged is not None else [])})
            for person in people:  # in id order, as the lock below: no deadlock between two challenges
                await players.touch(tx, person, now)
            if rematch_of is not None or any(limit is not None for limit, _, _ in limits):
                # PostgreSQL: a racing challenge by or to the same member waits here, then counts ours.
                # SQLite: BEGIN IMMEDIATE already serialises every write.
                marks = ", ".join("?" for _ in people)
                await tx.fetchall(
                    f"SELECT user_id FROM players WHERE user_id IN ({marks}) ORDER BY user_id" + tx.for_update,
                    tuple(people),
                )
                for limit, side, user_id in limits:
                    if limit is None or user_id is None:
                        continue
                    if await _waiting(tx, side, user_id, now) >= limit:
                        raise ChallengeLimitError(side=side, limit=limit)
                if rematch_of is not None and challenged is not None:
                    waiting = await tx.fetchall(
                        """
                        SELECT settings FROM challenges
                        WHERE status = 'pending' AND (expires_at IS NULL OR expires_at > ?)
                          AND ((challenger = ? AND challenged = ?) OR (challenger = ? AND challenged = ?))
                        """,
                        (now, challenger, challenged, challenged, challenger),
                    )
                    if any((load_json(r["settings"]) or {}).get("rematch_of") == rematch_of for r in waiting):
                        raise ChallengeLimitError(side="rematch", limit=1)
            challenge_id = await tx.insert_id(
                """
                INSERT INTO challenges (guild_id, channel_id, challenger, challenged, settings,
                                        match_length, message_id, created_at, updated_at,
                                        expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                (
                    guild_id,
                    channel_id,
                    challenger,
                    challenged,
                    payload,
                    match_length,
                    message_id,
                    now,
                    now,
                    to_ts(expires_at),
                ),
            )
            return await tx.fetchone("SELECT * FROM challenges WHERE id = ?", (challenge_id,))

        row = await self.db.transact(transaction, quick=True)  # a few rows, by their keys
        assert row is not None
        return ChallengeRow.from_row(row)

    async def get(self, challenge_id: int) -> ChallengeRow:
        """A challenge as stored now; :class:`NotFoundError` if there is none."""
        row = await self.db.fetchone("SELECT * FROM challenges WHERE id = ?", (challenge_id,))
        if row is None:
            raise NotFoundError(f"Challenge #{challenge_id} does not exist.")
        return ChallengeRow.from_row(row)

    async def set_status(
        self, challenge_id: int, status: ChallengeStatus, *, game_id: int | None = None
    ) -> ChallengeRow:
        """Move a *pending* challenge to ``status``.

        :raises ChallengeClosedError: it is not pending any more (someone answered first).
        :raises NotFoundError: there is no such challenge.

        To accept and start the game atomically use
        ``games.create(..., challenge_id=...)`` instead.
        """
        if status not in ("accepted", "declined", "cancelled", "expired"):
            raise ValueError(f"bad challenge status {status!r}")
        now = self.db.now()

        async def transaction(tx: Tx) -> Row | None:
            await require_pending(tx, challenge_id)
            await tx.execute(
                """
                UPDATE challenges SET status = ?, game_id = COALESCE(?, game_id), updated_at = ?
                WHERE id = ?
                """,
                (status, game_id, now, challenge_id),
            )
            return await tx.fetchone("SELECT * FROM challenges WHERE id = ?", (challenge_id,))

        row = await self.db.transact(transaction)
        assert row is not None
        return ChallengeRow.from_row(row)

    async def set_message(self, challenge_id: int, message_id: int | None) -> None:
        """Remember the message that shows the challenge (for editing it later)."""

        async def transaction(tx: Tx) -> None:
            updated = await tx.execute("UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id))
            if updated != 1:
                raise NotFoundError(f"Challenge #{challenge_id} does not exist.")

        await self.db.transact(transaction, quick=True)
