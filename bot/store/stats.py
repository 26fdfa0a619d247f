"""Numbers read from the games: dice rolled, the computer's record, and the
analyses kept for finished games."""

from __future__ import annotations

from typing import Any

from bot.store.database import Database, Tx
from bot.store.rows import DiceStats, dump_json, load_json


class StatsStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def save_analysis(
        self, game_id: int, game_number: int, ply: int, summary: str, detail: dict[str, Any] | None = None
    ) -> None:
        """Keep the analysis of game ``game_number`` (from 1) of a stored match, its text
        and the numbers behind it (``detail``, JSON); a newer one replaces it."""

        async def transaction(tx: Tx) -> None:
            await tx.execute(
                """
                INSERT INTO game_analyses (game_id, game_number, ply, summary, detail, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (game_id, game_number) DO UPDATE SET
                    ply = excluded.ply, summary = excluded.summary, detail = excluded.detail,
                    created_at = excluded.created_at
                """,
                (game_id, game_number, ply, summary, None if detail is None else dump_json(detail), self.db.now()),
            )

        await self.db.transact(transaction)

    async def analyses(self, game_id: int) -> dict[int, str]:
        """Stored analyses of a match's games: game number -> summary."""
        rows = await self.db.fetchall(
            "SELECT game_number, summary FROM game_analyses WHERE game_id = ? ORDER BY game_number",
            (game_id,),
        )
        return {int(r["game_number"]): str(r["summary"]) for r in rows}

    async def analysis_details(self, game_id: int) -> dict[int, dict[str, Any]]:
        """The numbers behind a match's stored analyses: game number -> detail (the
        analyses kept before details existed have none)."""
        rows = await self.db.fetchall(
            "SELECT game_number, detail FROM game_analyses WHERE game_id = ? AND detail IS NOT NULL"
            " ORDER BY game_number",
            (game_id,),
        )
        return {int(r["game_number"]): load_json(r["detail"]) for r in rows}

    async def analysed_games(
        self,
        *,
        guild_id: int | None = None,
        user_id: int | None = None,
        finished_since: float | None = None,
        limit: int = 500,
    ) -> list[dict[str, Any]]:
        """Analysed games of finished matches (never one still played), newest first:
        ``game_id``, ``game_number``, ``guild_id``, ``channel_id``, ``players`` (the two
        user ids), ``finished_at`` and ``detail`` (its JSON text: parse many off the event
        loop). ``guild_id``: in that server; ``user_id``: that member played;
        ``finished_since``: matches ended since then."""
        where = ["g.status = 'finished'", "a.detail IS NOT NULL"]
        params: list[Any] = []
        if guild_id is not None:
            where.append("g.guild_id = ?")
            params.append(guild_id)
        if user_id is not None:
            where.append("(g.player0 = ? OR g.player1 = ?)")
            params += [user_id, user_id]
        if finished_since is not None:
            where.append("g.finished_at >= ?")
            params.append(finished_since)
        rows = await self.db.fetchall(
            f"""
            SELECT a.game_id, a.game_number, a.detail, g.guild_id, g.channel_id, g.player0, g.player1, g.finished_at
            FROM game_analyses a JOIN games g ON g.id = a.game_id
            WHERE {" AND ".join(where)}
            ORDER BY g.finished_at DESC, a.game_id DESC, a.game_number
            LIMIT ?
            """,
            (*params, limit),
        )
        return [
            {
                "game_id": int(r["game_id"]),
                "game_number": int(r["game_number"]),
                "guild_id": int(r["guild_id"]),
                "channel_id": int(r["channel_id"]),
                "players": (int(r["player0"]), int(r["player1"])),
                "finished_at": r["finished_at"],
                "detail": str(r["detail"]),
            }
            for r in rows
        ]

    async def computer_record(self, computer_id: int, guild_id: int | None = None) -> tuple[int, int]:
        """(wins, losses) of a player over finished games, e.g. the computer's against people."""
        where = "" if guild_id is None else " AND guild_id = ?"
        params: tuple[Any, ...] = (computer_id, computer_id, computer_id)
        if guild_id is not None:
            params += (guild_id,)
        row = await self.db.fetchone(
            """
            SELECT
                COALESCE(SUM(CASE WHEN winner = ? THEN 1 ELSE 0 END), 0) AS wins,
                COUNT(*) AS games
            FROM games
            WHERE status = 'finished' AND winner IS NOT NULL AND (player0 = ? OR player1 = ?)
            """
            + where,
            params,
        )
        wins = int(row["wins"]) if row else 0
        games = int(row["games"]) if row else 0
        return wins, games - wins

    async def dice_stats(self, user_id: int, guild_id: int | None = None) -> DiceStats:
        """Count a player's rolls: the finished games' from their counts (kept when each
        ended), the games still played from their logs (a member plays a few at once)."""
        async with self.db.snapshot() as snap:
            done = await snap.fetchall(
                """
                SELECT hi, lo, SUM(n) AS n FROM dice_counts
                WHERE user_id = ? AND (CAST(? AS BIGINT) IS NULL OR guild_id = ?)
                GROUP BY hi, lo
                """,
                (user_id, guild_id, guild_id),
            )
            live = await snap.fetchall(
                """
                SELECT CASE WHEN a.die1 >= a.die2 THEN a.die1 ELSE a.die2 END AS hi,
                       CASE WHEN a.die1 >= a.die2 THEN a.die2 ELSE a.die1 END AS lo,
                       COUNT(*) AS n
                FROM games g JOIN actions a ON a.game_id = g.id
                WHERE g.status = 'active' AND (g.player0 = ? OR g.player1 = ?)
                  AND (CAST(? AS BIGINT) IS NULL OR g.guild_id = ?)
                  AND a.actor = ? AND a.die1 IS NOT NULL
                GROUP BY 1, 2
                """,
                (user_id, user_id, guild_id, guild_id, user_id),
            )
        counts: dict[tuple[int, int], int] = {}
        for r in [*done, *live]:
            key = (int(r["hi"]), int(r["lo"]))
            counts[key] = counts.get(key, 0) + int(r["n"])
        return DiceStats(counts)


async def count_dice(tx: Tx, game_id: int, guild_id: int) -> None:
    """Add a game's rolls to its players' counts; in the transaction that ends it."""
    await tx.execute(
        """
        INSERT INTO dice_counts (user_id, guild_id, hi, lo, n)
        SELECT actor, ?, CASE WHEN die1 >= die2 THEN die1 ELSE die2 END,
               CASE WHEN die1 >= die2 THEN die2 ELSE die1 END, COUNT(*)
        FROM actions
        WHERE game_id = ? AND actor IS NOT NULL AND die1 IS NOT NULL
        GROUP BY actor, 3, 4
        ON CONFLICT (user_id, guild_id, hi, lo) DO UPDATE SET n = dice_counts.n + excluded.n
        """,
        (guild_id, game_id),
    )
