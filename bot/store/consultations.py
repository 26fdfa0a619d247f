"""Consultation votes: a team's members choose its play, one decision at a time.

A vote is one decision of one game, keyed by the game's version when it was put
to the team. :meth:`ConsultationStore.open` writes it with its deadline and owes
the team's prompt; :meth:`ConsultationStore.close` claims it once, keeps what
the team played and owes the tally, both in one transaction each: a crash loses
no vote and a retry posts nothing twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.store import outbox
from bot.store.database import Database, Row, Tx
from bot.store.outbox import Owed
from bot.store.rows import dump_json, load_json
from bot.store.shards import Shard, serves

PROMPT_KIND = "consult_prompt"
"""The outbox kind of a vote's prompt in the team's thread."""
TALLY_KIND = "consult_tally"
"""The outbox kind of a closed vote's tally in the team's thread."""
REMINDER_KIND = "consult_reminder"
"""The outbox kind of the reminder of a vote nobody has answered, in the team's thread."""


@dataclass(frozen=True, slots=True)
class VoteRow:
    game_id: int
    version: int
    seat: int
    guild_id: int
    thread_id: int
    kind: str
    answers: tuple[str, ...]
    deadline: float
    chosen: str | None
    closed: bool

    @classmethod
    def from_row(cls, row: Row) -> VoteRow:
        return cls(
            int(row["game_id"]),
            int(row["version"]),
            int(row["seat"]),
            int(row["guild_id"]),
            int(row["thread_id"]),
            str(row["kind"]),
            tuple(load_json(row["answers"]) or ()),
            float(row["deadline"]),
            row["chosen"],
            row["closed_at"] is not None,
        )


@dataclass(frozen=True, slots=True)
class TeamRecord:
    """A team's finished games: won, lost, and the points each way."""

    team_id: int
    won: int
    lost: int


class ConsultationStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def open(
        self,
        *,
        game_id: int,
        version: int,
        seat: int,
        guild_id: int,
        thread_id: int,
        kind: str,
        answers: Sequence[str],
        deadline: float,
        remind_at: float | None = None,
    ) -> bool:
        """Put a decision to the team and owe its prompt; False if it was put already.
        ``remind_at``: when its thread is reminded if nobody has voted by then."""

        async def transaction(tx: Tx) -> bool:
            now = self.db.now()
            opened = await tx.execute(
                """
                INSERT INTO consultation_votes (game_id, version, seat, guild_id, thread_id, kind, answers,
                                                deadline, created_at, remind_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, version) DO NOTHING
                """,
                (game_id, version, seat, guild_id, thread_id, kind, dump_json(list(answers)), deadline, now, remind_at),
            )
            if not opened:
                return False
            payload = {"game": game_id, "version": version}
            await outbox.add(tx, Owed(PROMPT_KIND, guild_id, thread_id, game_id=game_id, payload=payload), now)
            return True

        return await self.db.transact(transaction)

    async def ballot(self, game_id: int, version: int, user_id: int, answer: str) -> bool:
        """Record (or change) a member's ballot; False if the vote is closed (too late)."""

        async def transaction(tx: Tx) -> bool:
            row = await tx.fetchone(
                "SELECT closed_at FROM consultation_votes WHERE game_id = ? AND version = ?" + tx.for_update,
                (game_id, version),
            )
            if row is None or row["closed_at"] is not None:
                return False
            await tx.execute(
                """
                INSERT INTO consultation_ballots (game_id, version, user_id, answer, answered_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (game_id, version, user_id) DO UPDATE SET answer = excluded.answer,
                                                                      answered_at = excluded.answered_at
                """,
                (game_id, version, user_id, answer, self.db.now()),
            )
            return True

        return await self.db.transact(transaction, quick=True)

    async def vote(self, game_id: int, version: int) -> VoteRow | None:
        row = await self.db.fetchone(
            "SELECT * FROM consultation_votes WHERE game_id = ? AND version = ?", (game_id, version)
        )
        return VoteRow.from_row(row) if row is not None else None

    async def ballots(self, game_id: int, version: int) -> dict[int, str]:
        """member -> answer, of one vote, in the order they were last given."""
        rows = await self.db.fetchall(
            "SELECT user_id, answer FROM consultation_ballots WHERE game_id = ? AND version = ?"
            " ORDER BY answered_at, user_id",
            (game_id, version),
        )
        return {int(r["user_id"]): str(r["answer"]) for r in rows}

    async def due(self, now: float, shard: Shard | None = None, limit: int = 100) -> list[VoteRow]:
        """Open votes whose deadline has passed, or whose game has moved on or ended."""
        rows = await self.db.fetchall(
            """
            SELECT v.* FROM consultation_votes v JOIN games g ON g.id = v.game_id
            WHERE v.closed_at IS NULL AND (v.deadline <= ? OR g.version > v.version OR g.status <> 'active')
            ORDER BY v.deadline LIMIT ?
            """,
            (now, limit),
        )
        return [v for v in map(VoteRow.from_row, rows) if serves(shard, v.guild_id)]

    async def next_deadline(self, shard: Shard | None = None) -> float | None:
        rows = await self.db.fetchall(
            "SELECT guild_id, MIN(deadline) AS due FROM consultation_votes WHERE closed_at IS NULL GROUP BY guild_id"
        )
        dues = [float(r["due"]) for r in rows if serves(shard, int(r["guild_id"]))]
        return min(dues) if dues else None

    async def reminders_due(self, now: float, shard: Shard | None = None, limit: int = 100) -> list[VoteRow]:
        """Open votes whose reminder is due (whether anyone has voted is checked as it is claimed)."""
        rows = await self.db.fetchall(
            "SELECT * FROM consultation_votes WHERE remind_at IS NOT NULL AND remind_at <= ? AND closed_at IS NULL"
            " ORDER BY remind_at LIMIT ?",
            (now, limit),
        )
        return [v for v in map(VoteRow.from_row, rows) if serves(shard, v.guild_id)]

    async def next_reminder(self, shard: Shard | None = None) -> float | None:
        rows = await self.db.fetchall(
            "SELECT guild_id, MIN(remind_at) AS due FROM consultation_votes"
            " WHERE remind_at IS NOT NULL AND closed_at IS NULL GROUP BY guild_id"
        )
        dues = [float(r["due"]) for r in rows if serves(shard, int(r["guild_id"]))]
        return min(dues) if dues else None

    async def claim_reminder(self, vote: VoteRow, payload: dict[str, object]) -> bool:
        """Claim a vote's reminder once and, if nobody has voted yet, owe it (``payload``:
        what its message needs), in one transaction: a restart neither loses nor repeats
        it. True if a reminder is owed."""

        async def transaction(tx: Tx) -> bool:
            claimed = await tx.execute(
                "UPDATE consultation_votes SET remind_at = NULL"
                " WHERE game_id = ? AND version = ? AND remind_at IS NOT NULL AND closed_at IS NULL",
                (vote.game_id, vote.version),
            )
            if not claimed:
                return False
            voted = await tx.fetchone(
                "SELECT 1 AS one FROM consultation_ballots WHERE game_id = ? AND version = ? LIMIT 1",
                (vote.game_id, vote.version),
            )
            if voted is not None:
                return False
            body = {"game": vote.game_id, "version": vote.version, **payload}
            owed = Owed(REMINDER_KIND, vote.guild_id, vote.thread_id, game_id=vote.game_id, payload=body)
            await outbox.add(tx, owed, self.db.now())
            return True

        return await self.db.transact(transaction)

    async def close(self, vote: VoteRow, chosen: str | None, tally: dict[str, object]) -> bool:
        """Claim the vote's close once: keep what the team played and owe the tally
        (``tally``: what its message says). False if it was closed already."""

        async def transaction(tx: Tx) -> bool:
            now = self.db.now()
            claimed = await tx.execute(
                "UPDATE consultation_votes SET closed_at = ?, chosen = ?"
                " WHERE game_id = ? AND version = ? AND closed_at IS NULL",
                (now, chosen, vote.game_id, vote.version),
            )
            if not claimed:
                return False
            payload = {"game": vote.game_id, "version": vote.version, **tally}
            owed = Owed(TALLY_KIND, vote.guild_id, vote.thread_id, game_id=vote.game_id, payload=payload)
            await outbox.add(tx, owed, now)
            return True

        return await self.db.transact(transaction)

    async def record(self, team_id: int, guild_id: int) -> TeamRecord:
        """The team's finished games in a server (abandoned ones do not count)."""
        row = await self.db.fetchone(
            """
            SELECT SUM(CASE WHEN winner = ? THEN 1 ELSE 0 END) AS won,
                   SUM(CASE WHEN winner IS NOT NULL AND winner <> ? THEN 1 ELSE 0 END) AS lost
            FROM games WHERE guild_id = ? AND status = 'finished' AND (player0 = ? OR player1 = ?)
            """,
            (team_id, team_id, guild_id, team_id, team_id),
        )
        won = int(row["won"] or 0) if row is not None else 0
        lost = int(row["lost"] or 0) if row is not None else 0
        return TeamRecord(team_id, won, lost)
