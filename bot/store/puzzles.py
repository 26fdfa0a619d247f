"""Puzzles and drills: the server's puzzles and their answers, streaks, and each member's drills.

- A *puzzle* is a position of a server's own analysed games where a member
  erred: one a day per server (``daily``, posted in the server's puzzle
  channel and revealed the next day) and the ``extra`` ones members ask for.
  A position (its GNU Backgammon ID, dice, cube and score included) is a
  puzzle at most once in a server (a unique key).
- Each member answers a puzzle once (the answers' primary key).
- A daily puzzle's reveal is claimed once (``revealed_at``) and counts its
  answers into the members' scores and streaks in the same transaction, with
  the message it owes (the outbox).
- A *drill* is one of a member's own errors, served again on a spaced
  schedule (``box``, ``due_at``) until learned.

A server's puzzle settings (its channel, whether names are shown) are among its
settings (:mod:`bot.store.servers`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.store import outbox
from bot.store.database import Database, Tx
from bot.store.errors import ConstraintError
from bot.store.outbox import Owed
from bot.store.rows import Row, dump_json, load_json
from bot.store.shards import Shard, shard_clause


@dataclass(frozen=True, slots=True)
class PuzzleRow:
    id: int
    guild_id: int
    kind: str
    """``daily`` or ``extra``."""
    day: str | None
    position_key: str
    game_id: int
    game_number: int
    user_id: int
    """The member who erred in the position."""
    payload: dict[str, Any]
    channel_id: int | None
    message_id: int | None
    created_at: float
    reveal_at: float | None
    revealed_at: float | None

    @classmethod
    def from_row(cls, row: Row) -> PuzzleRow:
        return cls(
            id=int(row["id"]),
            guild_id=int(row["guild_id"]),
            kind=row["kind"],
            day=row["day"],
            position_key=row["position_key"],
            game_id=int(row["game_id"]),
            game_number=int(row["game_number"]),
            user_id=int(row["user_id"]),
            payload=load_json(row["payload"]) or {},
            channel_id=row["channel_id"],
            message_id=row["message_id"],
            created_at=float(row["created_at"]),
            reveal_at=row["reveal_at"],
            revealed_at=row["revealed_at"],
        )


@dataclass(frozen=True, slots=True)
class AnswerRow:
    puzzle_id: int
    user_id: int
    choice: int
    correct: bool
    equity_lost: float
    answered_at: float


@dataclass(frozen=True, slots=True)
class ScoreRow:
    guild_id: int
    user_id: int
    answered: int
    correct: int
    streak: int
    best_streak: int
    display_name: str = ""


@dataclass(frozen=True, slots=True)
class DrillRow:
    id: int
    user_id: int
    position_key: str
    game_id: int | None
    """None: a game imported from a file (:attr:`source`)."""
    payload: dict[str, Any]
    box: int
    due_at: float | None
    """None: learned."""
    attempts: int
    created_at: float
    source: str | None = None
    """``import``: an error of a game imported from a ``.mat`` file; None: a game played here."""

    @classmethod
    def from_row(cls, row: Row) -> DrillRow:
        return cls(
            id=int(row["id"]),
            user_id=int(row["user_id"]),
            position_key=row["position_key"],
            game_id=int(row["game_id"]) if row["game_id"] is not None else None,
            payload=load_json(row["payload"]) or {},
            box=int(row["box"]),
            due_at=row["due_at"],
            attempts=int(row["attempts"]),
            created_at=float(row["created_at"]),
            source=row["source"],
        )


def _answer(row: Row) -> AnswerRow:
    return AnswerRow(
        int(row["puzzle_id"]),
        int(row["user_id"]),
        int(row["choice"]),
        bool(row["correct"]),
        float(row["equity_lost"]),
        float(row["answered_at"]),
    )


def _score(row: Row) -> ScoreRow:
    return ScoreRow(
        int(row["guild_id"]),
        int(row["user_id"]),
        int(row["answered"]),
        int(row["correct"]),
        int(row["streak"]),
        int(row["best_streak"]),
        row["display_name"] or "",
    )


class PuzzleStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- puzzles -------------------------------------------------------------------------------

    async def used_keys(self, guild_id: int) -> set[str]:
        rows = await self.db.fetchall("SELECT position_key FROM puzzles WHERE guild_id = ?", (guild_id,))
        return {r["position_key"] for r in rows}

    async def create(
        self,
        *,
        guild_id: int,
        kind: str,
        day: str | None,
        position_key: str,
        game_id: int,
        game_number: int,
        user_id: int,
        payload: Mapping[str, Any],
        channel_id: int | None,
        reveal_at: float | None,
        owes: str | None = None,
    ) -> PuzzleRow | None:
        """A new puzzle, and (``owes``: its kind) the message that posts it, in one
        transaction. None if the server has its daily puzzle of ``day`` already, or
        has had this position (another process may have just made it)."""

        async def transaction(tx: Tx) -> int | None:
            if kind == "daily":
                taken = await tx.fetchone(
                    "SELECT id FROM puzzles WHERE guild_id = ? AND day = ? AND kind = 'daily'", (guild_id, day)
                )
                if taken is not None:
                    return None
            used = await tx.fetchone(
                "SELECT id FROM puzzles WHERE guild_id = ? AND position_key = ?", (guild_id, position_key)
            )
            if used is not None:
                return None
            now = self.db.now()
            puzzle_id = await tx.insert_id(
                """
                INSERT INTO puzzles (guild_id, kind, day, position_key, game_id, game_number, user_id, payload,
                                     channel_id, created_at, reveal_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                (
                    guild_id,
                    kind,
                    day,
                    position_key,
                    game_id,
                    game_number,
                    user_id,
                    dump_json(dict(payload)),
                    channel_id,
                    now,
                    reveal_at,
                ),
            )
            if owes is not None and channel_id is not None:
                await outbox.add(tx, Owed(owes, guild_id, channel_id, payload={"puzzle": puzzle_id}), now)
            return puzzle_id

        try:
            puzzle_id = await self.db.transact(transaction)
        except ConstraintError:
            return None  # made at the same moment by another process
        return None if puzzle_id is None else await self.get(puzzle_id)

    async def get(self, puzzle_id: int) -> PuzzleRow | None:
        row = await self.db.fetchone("SELECT * FROM puzzles WHERE id = ?", (puzzle_id,))
        return PuzzleRow.from_row(row) if row else None

    async def daily(self, guild_id: int, day: str) -> PuzzleRow | None:
        row = await self.db.fetchone(
            "SELECT * FROM puzzles WHERE guild_id = ? AND day = ? AND kind = 'daily'", (guild_id, day)
        )
        return PuzzleRow.from_row(row) if row else None

    async def latest(
        self,
        guild_id: int,
        *,
        kind: str = "daily",
        revealed: bool | None = None,
        unanswered_by: int | None = None,
        limit: int = 1,
    ) -> list[PuzzleRow]:
        """A server's newest puzzles of ``kind`` (revealed or not; not answered by a member)."""
        where = ["p.guild_id = ?", "p.kind = ?"]
        params: list[Any] = [guild_id, kind]
        if revealed is not None:
            where.append("p.revealed_at IS NOT NULL" if revealed else "p.revealed_at IS NULL")
        if unanswered_by is not None:
            where.append("NOT EXISTS (SELECT 1 FROM puzzle_answers a WHERE a.puzzle_id = p.id AND a.user_id = ?)")
            params.append(unanswered_by)
        rows = await self.db.fetchall(
            f"SELECT p.* FROM puzzles p WHERE {' AND '.join(where)} ORDER BY p.id DESC LIMIT ?", (*params, limit)
        )
        return [PuzzleRow.from_row(r) for r in rows]

    async def posted(self, puzzle_id: int, channel_id: int, message_id: int) -> None:
        """The puzzle's message (its select menu) is ``message_id``."""

        async def transaction(tx: Tx) -> None:
            await tx.execute(
                "UPDATE puzzles SET channel_id = ?, message_id = ? WHERE id = ?", (channel_id, message_id, puzzle_id)
            )

        await self.db.transact(transaction)

    async def answer(self, puzzle_id: int, user_id: int, choice: int, correct: bool, equity_lost: float) -> bool:
        """Record a member's answer; False if they had answered already (the first stands)."""

        async def transaction(tx: Tx) -> int:
            return await tx.execute(
                """
                INSERT INTO puzzle_answers (puzzle_id, user_id, choice, correct, equity_lost, answered_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (puzzle_id, user_id) DO NOTHING
                """,
                (puzzle_id, user_id, choice, int(correct), equity_lost, self.db.now()),
            )

        return bool(await self.db.transact(transaction))

    async def answer_of(self, puzzle_id: int, user_id: int) -> AnswerRow | None:
        row = await self.db.fetchone(
            "SELECT * FROM puzzle_answers WHERE puzzle_id = ? AND user_id = ?", (puzzle_id, user_id)
        )
        return _answer(row) if row else None

    async def answers(self, puzzle_id: int) -> list[AnswerRow]:
        rows = await self.db.fetchall(
            "SELECT * FROM puzzle_answers WHERE puzzle_id = ? ORDER BY answered_at, user_id", (puzzle_id,)
        )
        return [_answer(r) for r in rows]

    async def due_reveals(self, now: float, shard: Shard | None = None, limit: int = 50) -> list[PuzzleRow]:
        where, params = shard_clause(shard, "reveal_at", now)
        rows = await self.db.fetchall(
            "SELECT * FROM puzzles WHERE revealed_at IS NULL AND reveal_at IS NOT NULL AND reveal_at <= ?"
            + where
            + " ORDER BY reveal_at, id LIMIT ?",
            (now, *params, limit),
        )
        return [PuzzleRow.from_row(r) for r in rows]

    async def next_reveal(self, shard: Shard | None = None) -> float | None:
        where, params = shard_clause(shard, "reveal_at", self.db.now())
        row = await self.db.fetchone(
            "SELECT MIN(reveal_at) FROM puzzles WHERE revealed_at IS NULL AND reveal_at IS NOT NULL" + where, params
        )
        return float(row[0]) if row and row[0] is not None else None

    async def reveal(self, puzzle: PuzzleRow, owes: str | None = "puzzle_reveal") -> bool:
        """Reveal a puzzle once: count its answers (a daily one's) into the members'
        scores and streaks (a member with a streak who did not answer loses it) and
        owe the reveal's message, in one transaction. False if it was revealed already."""

        async def transaction(tx: Tx) -> bool:
            now = self.db.now()
            claimed = await tx.execute(
                "UPDATE puzzles SET revealed_at = ? WHERE id = ? AND revealed_at IS NULL", (now, puzzle.id)
            )
            if not claimed:
                return False
            if puzzle.kind == "daily":
                rows = await tx.fetchall(
                    "SELECT user_id, correct FROM puzzle_answers WHERE puzzle_id = ?", (puzzle.id,)
                )
                answered = {int(r["user_id"]): bool(r["correct"]) for r in rows}
                streaking = await tx.fetchall(
                    "SELECT user_id FROM puzzle_scores WHERE guild_id = ? AND streak > 0" + tx.for_update,
                    (puzzle.guild_id,),
                )
                for row in streaking:
                    if int(row["user_id"]) not in answered:
                        await tx.execute(
                            "UPDATE puzzle_scores SET streak = 0, updated_at = ? WHERE guild_id = ? AND user_id = ?",
                            (now, puzzle.guild_id, int(row["user_id"])),
                        )
                for user_id, correct in sorted(answered.items()):
                    await tx.execute(
                        """
                        INSERT INTO puzzle_scores (guild_id, user_id, answered, correct, streak, best_streak, updated_at)
                        VALUES (?, ?, 1, ?, ?, ?, ?)
                        ON CONFLICT (guild_id, user_id) DO UPDATE SET
                            answered = puzzle_scores.answered + 1,
                            correct = puzzle_scores.correct + excluded.correct,
                            streak = CASE WHEN excluded.correct = 1 THEN puzzle_scores.streak + 1 ELSE 0 END,
                            best_streak = CASE WHEN excluded.correct = 1 AND puzzle_scores.streak + 1 > puzzle_scores.best_streak
                                               THEN puzzle_scores.streak + 1 ELSE puzzle_scores.best_streak END,
                            updated_at = excluded.updated_at
                        """,
                        (puzzle.guild_id, user_id, int(correct), int(correct), int(correct), now),
                    )
            if owes is not None and puzzle.channel_id is not None:
                await outbox.add(tx, Owed(owes, puzzle.guild_id, puzzle.channel_id, payload={"puzzle": puzzle.id}), now)
            return True

        return await self.db.transact(transaction)

    async def scores(self, guild_id: int, *, limit: int = 10) -> list[ScoreRow]:
        """A server's puzzle leaderboard: most right answers, then the best streak."""
        rows = await self.db.fetchall(
            """
            SELECT s.*, p.display_name FROM puzzle_scores s LEFT JOIN players p ON p.user_id = s.user_id
            WHERE s.guild_id = ? AND s.answered > 0
            ORDER BY s.correct DESC, s.best_streak DESC, s.answered, s.user_id
            LIMIT ?
            """,
            (guild_id, limit),
        )
        return [_score(r) for r in rows]

    async def score_of(self, guild_id: int, user_id: int) -> ScoreRow | None:
        row = await self.db.fetchone(
            """
            SELECT s.*, p.display_name FROM puzzle_scores s LEFT JOIN players p ON p.user_id = s.user_id
            WHERE s.guild_id = ? AND s.user_id = ?
            """,
            (guild_id, user_id),
        )
        return _score(row) if row else None

    # -- drills -------------------------------------------------------------------------------

    async def add_drills(
        self, user_id: int, items: Iterable[tuple[str, int | None, Mapping[str, Any]]], *, source: str | None = None
    ) -> int:
        """A member's errors as drills (``(position key, game id, payload)``), due now;
        those the member has already are left as they are. Returns how many are new.
        ``source="import"``: errors of games imported from a file (no game id)."""
        items = list(items)
        if not items:
            return 0

        async def transaction(tx: Tx) -> int:
            now = self.db.now()
            added = 0
            for key, game_id, payload in items:
                added += await tx.execute(
                    """
                    INSERT INTO drills (user_id, position_key, game_id, payload, box, due_at, created_at, source)
                    VALUES (?, ?, ?, ?, 0, ?, ?, ?)
                    ON CONFLICT (user_id, position_key) DO NOTHING
                    """,
                    (user_id, key, game_id, dump_json(dict(payload)), now, now, source),
                )
            return added

        return await self.db.transact(transaction)

    async def drills_since(self, user_id: int) -> float | None:
        """When the member's newest drill of a game played here was made (None: no drill
        yet); an import's drills do not count (they say nothing of the games analysed here)."""
        row = await self.db.fetchone(
            "SELECT MAX(created_at) FROM drills WHERE user_id = ? AND source IS NULL", (user_id,)
        )
        return float(row[0]) if row and row[0] is not None else None

    async def due_drill(self, user_id: int, now: float) -> DrillRow | None:
        """The member's drill due first (the biggest error among those due together)."""
        row = await self.db.fetchone(
            "SELECT * FROM drills WHERE user_id = ? AND due_at IS NOT NULL AND due_at <= ? ORDER BY due_at, id LIMIT 1",
            (user_id, now),
        )
        return DrillRow.from_row(row) if row else None

    async def drill(self, drill_id: int) -> DrillRow | None:
        row = await self.db.fetchone("SELECT * FROM drills WHERE id = ?", (drill_id,))
        return DrillRow.from_row(row) if row else None

    async def drill_answered(self, drill_id: int, box: int, due_at: float | None, *, expected_box: int) -> bool:
        """Move a drill to ``box`` (due at ``due_at``; None: learned) if it is still in
        ``expected_box`` (an answer given twice at once counts once)."""

        async def transaction(tx: Tx) -> int:
            return await tx.execute(
                "UPDATE drills SET box = ?, due_at = ?, attempts = attempts + 1 WHERE id = ? AND box = ?",
                (box, due_at, drill_id, expected_box),
            )

        return bool(await self.db.transact(transaction))

    async def drill_counts(self, user_id: int, now: float) -> tuple[int, int, int]:
        """(due now, waiting for later, learned) of a member's drills."""
        row = await self.db.fetchone(
            """
            SELECT COALESCE(SUM(CASE WHEN due_at IS NOT NULL AND due_at <= ? THEN 1 ELSE 0 END), 0) AS due,
                   COALESCE(SUM(CASE WHEN due_at > ? THEN 1 ELSE 0 END), 0) AS later,
                   COALESCE(SUM(CASE WHEN due_at IS NULL THEN 1 ELSE 0 END), 0) AS learned
            FROM drills WHERE user_id = ?
            """,
            (now, now, user_id),
        )
        return (int(row["due"]), int(row["later"]), int(row["learned"])) if row else (0, 0, 0)
