"""Summaries: what a finished game leaves behind, written once when it ends.

A finished game never changes, yet replaying its log to show it costs a
fraction of a second for a long match. So the game's end writes its summary
in the same transaction (:func:`write`, called by ``games.append``): a small
*card* (result, score, each game's result, the final position), each game's
log for replays and analyses, and the ``.mat`` and JSON exports. Games that
ended before summaries existed get theirs the first time someone asks
(:meth:`SummaryStore.save`). The store keeps the parts as the core gives them:
what they mean is the core's business.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal

from bot.store.database import Database, Tx
from bot.store.rows import RatingChange, dump_json, load_json

PARTS: Final = ("card", "games", "mat", "export")
"""The parts of a summary; ``card`` and ``games`` are JSON, ``mat`` and ``export`` text."""
_JSON_PARTS: Final = frozenset({"card", "games"})

Part = Literal["card", "games", "mat", "export"]


def _columns(summary: Mapping[str, Any]) -> tuple[Any, ...]:
    missing = [part for part in PARTS if part not in summary]
    if missing:
        raise ValueError(f"a summary needs {', '.join(missing)}")
    return tuple(dump_json(summary[p]) if p in _JSON_PARTS else str(summary[p]) for p in PARTS)


async def write(tx: Tx, game_id: int, summary: Mapping[str, Any], now: float) -> None:
    """Keep a game's summary (inside the transaction that finishes the game).
    A summary already there stays: a game is summarised once."""
    await tx.execute(
        """
        INSERT INTO game_summaries (game_id, card, games, mat, export, created_at)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (game_id) DO NOTHING
        """,
        (game_id, *_columns(summary), now),
    )


class SummaryStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def save(self, game_id: int, summary: Mapping[str, Any]) -> None:
        """Keep the summary of a game that ended before summaries existed (the backfill)."""
        now = self.db.now()

        async def transaction(tx: Tx) -> None:
            await write(tx, game_id, summary, now)

        await self.db.transact(transaction)

    async def cards(self, game_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
        """The cards of these games, by game id (games without a summary are left out)."""
        if not game_ids:
            return {}
        marks = ", ".join("?" for _ in game_ids)
        rows = await self.db.fetchall(
            f"SELECT game_id, card FROM game_summaries WHERE game_id IN ({marks})", tuple(game_ids)
        )
        return {int(r["game_id"]): load_json(r["card"]) for r in rows}

    async def part(self, game_id: int, part: Part) -> Any:
        """One part of a game's summary (JSON parts decoded), or None if it has none yet."""
        if part not in PARTS:
            raise ValueError(f"a summary has no part {part!r}")
        row = await self.db.fetchone(f"SELECT {part} FROM game_summaries WHERE game_id = ?", (game_id,))
        if row is None:
            return None
        return load_json(row[0]) if part in _JSON_PARTS else row[0]

    async def rating_changes(self, game_ids: Iterable[int]) -> dict[int, list[RatingChange]]:
        """How each of these games moved its players' ratings (rated games only), by game id."""
        ids = list(game_ids)
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        rows = await self.db.fetchall(
            f"""
            SELECT game_id, scope, user_id, rating_before, rating_after, experience_after, won
            FROM rating_history WHERE game_id IN ({marks}) ORDER BY id
            """,
            tuple(ids),
        )
        changes: dict[int, list[RatingChange]] = {}
        for r in rows:
            changes.setdefault(int(r["game_id"]), []).append(
                RatingChange(
                    scope=r["scope"],
                    user_id=r["user_id"],
                    before=r["rating_before"],
                    after=r["rating_after"],
                    experience=r["experience_after"],
                    won=bool(r["won"]),
                )
            )
        return changes
