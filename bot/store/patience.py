"""Serpent Poker Patience: the servers' daily deals and the members' layouts.

- A *daily deal* (``patience_deals``) is one per server and UTC day: made on
  the day's first ask (:meth:`PatienceStore.create_daily`, which keeps the
  first of two racing makers), with its seed, the seed's commitment, the
  nonce and the cards. What they mean is the core's business.
- An *attempt* (``patience_attempts``) is a member's layout of a deal: the
  squares laid so far, saved after every card with a compare-and-set on its
  version (:meth:`PatienceStore.save_path`), then submitted once with its
  score (:meth:`PatienceStore.submit`). The database holds a member to one
  daily attempt per server and day (so one submission), and to one
  unfinished attempt of each other kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from bot.store.database import Database, Tx
from bot.store.errors import GameOverError, NotFoundError, StaleVersionError
from bot.store.rows import Row, from_ts, req_ts

AttemptKind = Literal["daily", "hoyle", "random"]
KINDS: tuple[AttemptKind, ...] = ("daily", "hoyle", "random")


@dataclass(frozen=True, slots=True)
class DailyDealRow:
    """A server's deal of one UTC day."""

    guild_id: int
    day: str
    """``YYYY-MM-DD``."""
    seed: str
    """Hex; the core shows it only once the day is over."""
    commitment: str
    nonce: str
    deal: str
    created_at: datetime

    @classmethod
    def from_row(cls, row: Row) -> DailyDealRow:
        return cls(
            guild_id=row["guild_id"],
            day=row["day"],
            seed=row["seed"],
            commitment=row["commitment"],
            nonce=row["nonce"],
            deal=row["deal"],
            created_at=req_ts(row["created_at"]),
        )


@dataclass(frozen=True, slots=True)
class AttemptRow:
    """A member's layout of a deal, as stored."""

    id: int
    guild_id: int
    user_id: int
    kind: AttemptKind
    day: str | None
    deal: str
    seed: str | None
    scoring: str
    path: str
    version: int
    submitted: bool
    score: int | None
    best: int | None
    started_at: datetime
    updated_at: datetime
    finished_at: datetime | None

    @classmethod
    def from_row(cls, row: Row) -> AttemptRow:
        return cls(
            id=row["id"],
            guild_id=row["guild_id"],
            user_id=row["user_id"],
            kind=row["kind"],
            day=row["day"],
            deal=row["deal"],
            seed=row["seed"],
            scoring=row["scoring"],
            path=row["path"],
            version=row["version"],
            submitted=bool(row["submitted"]),
            score=row["score"],
            best=row["best"],
            started_at=req_ts(row["started_at"]),
            updated_at=req_ts(row["updated_at"]),
            finished_at=from_ts(row["finished_at"]),
        )


@dataclass(frozen=True, slots=True)
class DailyScore:
    """A submitted daily layout on a day's leaderboard."""

    user_id: int
    display_name: str
    score: int
    finished_at: datetime


class PatienceStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- daily deals -------------------------------------------------------------------

    async def daily(self, guild_id: int, day: str) -> DailyDealRow | None:
        """A server's deal of ``day``, or None if nobody asked for it that day."""
        row = await self.db.fetchone("SELECT * FROM patience_deals WHERE guild_id = ? AND day = ?", (guild_id, day))
        return DailyDealRow.from_row(row) if row else None

    async def create_daily(
        self, guild_id: int, day: str, *, seed: str, commitment: str, nonce: str, deal: str
    ) -> DailyDealRow:
        """Keep a server's deal of ``day`` unless it has one already; returns the one kept
        (of two processes making it at once, the first to write wins for both)."""
        now = self.db.now()

        async def transaction(tx: Tx) -> Row | None:
            await tx.execute(
                """
                INSERT INTO patience_deals (guild_id, day, seed, commitment, nonce, deal, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (guild_id, day) DO NOTHING
                """,
                (guild_id, day, seed, commitment, nonce, deal, now),
            )
            return await tx.fetchone("SELECT * FROM patience_deals WHERE guild_id = ? AND day = ?", (guild_id, day))

        row = await self.db.transact(transaction)
        assert row is not None
        return DailyDealRow.from_row(row)

    # -- attempts ------------------------------------------------------------------------

    async def get(self, attempt_id: int) -> AttemptRow | None:
        row = await self.db.fetchone("SELECT * FROM patience_attempts WHERE id = ?", (attempt_id,))
        return AttemptRow.from_row(row) if row else None

    async def daily_attempt(self, guild_id: int, user_id: int, day: str) -> AttemptRow | None:
        """A member's layout of a server's daily deal, submitted or not."""
        row = await self.db.fetchone(
            "SELECT * FROM patience_attempts WHERE guild_id = ? AND user_id = ? AND kind = 'daily' AND day = ?",
            (guild_id, user_id, day),
        )
        return AttemptRow.from_row(row) if row else None

    async def open_attempt(self, guild_id: int, user_id: int, kind: AttemptKind) -> AttemptRow | None:
        """A member's unfinished Hoyle's or random layout in a server (daily: :meth:`daily_attempt`)."""
        row = await self.db.fetchone(
            """
            SELECT * FROM patience_attempts
            WHERE guild_id = ? AND user_id = ? AND kind = ? AND submitted = 0
            ORDER BY id DESC LIMIT 1
            """,
            (guild_id, user_id, kind),
        )
        return AttemptRow.from_row(row) if row else None

    async def latest_open(self, guild_id: int, user_id: int, day: str) -> AttemptRow | None:
        """The member's unfinished layout touched last in a server: of any kind, a daily
        one only of ``day`` (an older day's can no longer be played)."""
        row = await self.db.fetchone(
            """
            SELECT * FROM patience_attempts
            WHERE guild_id = ? AND user_id = ? AND submitted = 0 AND (day IS NULL OR day = ?)
            ORDER BY updated_at DESC, id DESC LIMIT 1
            """,
            (guild_id, user_id, day),
        )
        return AttemptRow.from_row(row) if row else None

    async def start(
        self,
        guild_id: int,
        user_id: int,
        kind: AttemptKind,
        *,
        deal: str,
        scoring: str,
        day: str | None = None,
        seed: str | None = None,
        replace: bool = False,
    ) -> AttemptRow:
        """A new, empty layout. ``replace``: the member's unfinished one of this kind (not
        daily) is dropped in the same transaction.

        :raises ConstraintError: the member has a daily layout of that day already, or an
            unfinished one of this kind (``patience_attempts``' unique keys).
        """
        if kind not in KINDS:
            raise ValueError(f"no kind of deal {kind!r}")
        if replace and kind == "daily":
            raise ValueError("a daily layout is never replaced")
        now = self.db.now()

        async def transaction(tx: Tx) -> Row | None:
            if replace:
                await tx.execute(
                    "DELETE FROM patience_attempts WHERE guild_id = ? AND user_id = ? AND kind = ? AND submitted = 0",
                    (guild_id, user_id, kind),
                )
            attempt_id = await tx.insert_id(
                """
                INSERT INTO patience_attempts
                    (guild_id, user_id, kind, day, deal, seed, scoring, started_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                (guild_id, user_id, kind, day, deal, seed, scoring, now, now),
            )
            return await tx.fetchone("SELECT * FROM patience_attempts WHERE id = ?", (attempt_id,))

        row = await self.db.transact(transaction)
        assert row is not None
        return AttemptRow.from_row(row)

    async def save_path(self, attempt_id: int, version: int, path: str) -> AttemptRow:
        """Store the squares laid so far, if the layout is still at ``version``; returns it at the next.

        :raises StaleVersionError: it changed since (another click, another process).
        :raises GameOverError: it is submitted.
        :raises NotFoundError: there is no such layout.
        """
        now = self.db.now()

        async def transaction(tx: Tx) -> Row | None:
            changed = await tx.execute(
                """
                UPDATE patience_attempts SET path = ?, version = version + 1, updated_at = ?
                WHERE id = ? AND version = ? AND submitted = 0
                """,
                (path, now, attempt_id, version),
            )
            row = await tx.fetchone("SELECT * FROM patience_attempts WHERE id = ?", (attempt_id,))
            if not changed:
                _refuse(row, attempt_id, version)
            return row

        return AttemptRow.from_row(await self.db.transact(transaction))

    async def submit(self, attempt_id: int, version: int, *, score: int, best: int) -> AttemptRow:
        """Submit a layout at ``version`` with its score and the deal's best: once only.

        :raises StaleVersionError: it changed since.
        :raises GameOverError: it is submitted already.
        :raises NotFoundError: there is no such layout.
        """
        now = self.db.now()

        async def transaction(tx: Tx) -> Row | None:
            changed = await tx.execute(
                """
                UPDATE patience_attempts
                SET submitted = 1, score = ?, best = ?, version = version + 1, updated_at = ?, finished_at = ?
                WHERE id = ? AND version = ? AND submitted = 0
                """,
                (score, best, now, now, attempt_id, version),
            )
            row = await tx.fetchone("SELECT * FROM patience_attempts WHERE id = ?", (attempt_id,))
            if not changed:
                _refuse(row, attempt_id, version)
            return row

        return AttemptRow.from_row(await self.db.transact(transaction))

    # -- leaderboards and streaks -----------------------------------------------------------

    async def daily_scores(self, guild_id: int, day: str, limit: int = 10) -> tuple[list[DailyScore], int]:
        """A day's best submitted layouts in a server, best first (ties: the earlier
        submission first), and how many were submitted in all."""
        rows = await self.db.fetchall(
            """
            SELECT a.user_id, p.display_name, a.score, a.finished_at
            FROM patience_attempts a JOIN players p ON p.user_id = a.user_id
            WHERE a.guild_id = ? AND a.day = ? AND a.submitted = 1
            ORDER BY a.score DESC, a.finished_at ASC, a.id ASC
            LIMIT ?
            """,
            (guild_id, day, limit),
        )
        total = await self.db.fetchone(
            "SELECT COUNT(*) FROM patience_attempts WHERE guild_id = ? AND day = ? AND submitted = 1", (guild_id, day)
        )
        scores = [DailyScore(r["user_id"], r["display_name"], r["score"], req_ts(r["finished_at"])) for r in rows]
        return scores, int(total[0]) if total else 0

    async def daily_rank(self, guild_id: int, day: str, score: int) -> tuple[int, int]:
        """How many of a day's submissions in a server scored more than ``score``, and how many there are."""
        row = await self.db.fetchone(
            """
            SELECT COALESCE(SUM(CASE WHEN score > ? THEN 1 ELSE 0 END), 0), COUNT(*)
            FROM patience_attempts WHERE guild_id = ? AND day = ? AND submitted = 1
            """,
            (score, guild_id, day),
        )
        return (int(row[0]), int(row[1])) if row else (0, 0)

    async def daily_days(self, guild_id: int, user_ids: Sequence[int], since: str) -> dict[int, set[str]]:
        """The days since ``since`` (inclusive) on which each of these members submitted
        the server's daily deal."""
        ids = list(dict.fromkeys(user_ids))
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        rows = await self.db.fetchall(
            f"""
            SELECT user_id, day FROM patience_attempts
            WHERE guild_id = ? AND submitted = 1 AND kind = 'daily' AND day >= ? AND user_id IN ({marks})
            """,
            (guild_id, since, *ids),
        )
        days: dict[int, set[str]] = {user_id: set() for user_id in ids}
        for r in rows:
            days[r["user_id"]].add(r["day"])
        return days


def _refuse(row: Row | None, attempt_id: int, version: int) -> None:
    """Why a compare-and-set changed nothing."""
    if row is None:
        raise NotFoundError("that layout no longer exists")
    if row["submitted"]:
        raise GameOverError("that layout is submitted already")
    raise StaleVersionError("the layout has moved on", game_id=attempt_id, expected=version, actual=row["version"])


__all__ = ["KINDS", "AttemptKind", "AttemptRow", "DailyDealRow", "DailyScore", "PatienceStore"]
