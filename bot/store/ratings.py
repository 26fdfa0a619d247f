"""Ratings: per-server and global FIBS ratings, points and records.

The numbers change only inside the transaction that finishes a rated match
(:func:`apply_outcome`, called by :meth:`bot.store.games.GameStore.append`),
so a rating never disagrees with the games behind it.
"""

from __future__ import annotations

from bot.store import players
from bot.store.database import Database, Tx
from bot.store.rows import (
    GLOBAL_SCOPE,
    GameRow,
    LeaderboardEntry,
    LeaderboardOrder,
    LeaderboardPage,
    MatchOutcome,
    PlayerRating,
    PlayerStats,
    RatingChange,
    RatingPoint,
)
from engine.ratings import DEFAULT_RATING, Rating, effective_length, rate_match
from engine.variants import FAMILIES, family

RATING_TABLES = {name: "ratings" if name == "backgammon" else f"ratings_{name}" for name in FAMILIES}
"""Each game family's ratings table (migration 16): backgammon and its presets share ``ratings``."""


def table_of(family_name: str) -> str:
    """The ratings table of a family (a fixed name: never text from outside in the SQL).

    :raises ValueError: for no such family.
    """
    try:
        return RATING_TABLES[family_name]
    except KeyError:
        raise ValueError(f"no game family {family_name!r}") from None


async def apply_outcome(tx: Tx, game: GameRow, outcome: MatchOutcome, now: float) -> list[RatingChange]:
    """Rate a finished match inside the transaction that finishes it: both
    players' rows in the game's guild scope and the global scope (0) move by
    the FIBS formula (:mod:`engine.ratings`), with their wins, gammons,
    backgammons and points, and each move is kept in the rating history."""
    length = game.match_length if outcome.match_length is None else outcome.match_length
    n = effective_length(length)
    kind = family(str(game.settings.get("variant") or "backgammon"))
    table = table_of(kind)
    scopes = [GLOBAL_SCOPE] if game.guild_id == GLOBAL_SCOPE else [game.guild_id, GLOBAL_SCOPE]
    changes: list[RatingChange] = []
    for scope in scopes:
        # Lock both rows (creating them at the default rating) in user id
        # order, so two matches of the same players finishing at once in
        # two processes queue instead of losing an update or deadlocking.
        pair = sorted({outcome.winner, outcome.loser})
        for uid in pair:
            await players.touch(tx, uid, now)
            await tx.execute(
                f"""
                INSERT INTO {table} (scope, user_id, rating, experience, best_rating, updated_at)
                VALUES (?, ?, ?, 0, ?, ?)
                ON CONFLICT (scope, user_id) DO NOTHING
                """,
                (scope, uid, DEFAULT_RATING, DEFAULT_RATING, now),
            )
        rows = await tx.fetchall(
            f"SELECT user_id, rating, experience FROM {table} WHERE scope = ? AND user_id IN (?, ?)"
            " ORDER BY user_id" + tx.for_update,
            (scope, pair[0], pair[-1]),
        )
        current: dict[int, Rating] = {r["user_id"]: Rating(r["rating"], r["experience"]) for r in rows}
        new_w, new_l = rate_match(current[outcome.winner], current[outcome.loser], n)
        for uid, new, won, pts_won, pts_lost, gammons, backgammons in (
            (
                outcome.winner,
                new_w,
                1,
                outcome.winner_points,
                outcome.loser_points,
                outcome.winner_gammons,
                outcome.winner_backgammons,
            ),
            (
                outcome.loser,
                new_l,
                0,
                outcome.loser_points,
                outcome.winner_points,
                outcome.loser_gammons,
                outcome.loser_backgammons,
            ),
        ):
            await tx.execute(
                f"""
                INSERT INTO {table} (scope, user_id, rating, experience, games, wins,
                                     gammons, backgammons, points_won, points_lost,
                                     best_rating, updated_at)
                VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (scope, user_id) DO UPDATE SET
                    rating      = excluded.rating,
                    experience  = excluded.experience,
                    games       = {table}.games + 1,
                    wins        = {table}.wins + excluded.wins,
                    gammons     = {table}.gammons + excluded.gammons,
                    backgammons = {table}.backgammons + excluded.backgammons,
                    points_won  = {table}.points_won + excluded.points_won,
                    points_lost = {table}.points_lost + excluded.points_lost,
                    best_rating = CASE WHEN {table}.best_rating > excluded.rating
                                       THEN {table}.best_rating ELSE excluded.rating END,
                    updated_at  = excluded.updated_at
                """,
                (
                    scope,
                    uid,
                    new.rating,
                    new.experience,
                    won,
                    gammons,
                    backgammons,
                    pts_won,
                    pts_lost,
                    max(DEFAULT_RATING, new.rating),
                    now,
                ),
            )
            await tx.execute(
                """
                INSERT INTO rating_history (game_id, scope, user_id, rating_before,
                                            rating_after, experience_after, won, points, created_at, family)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                (
                    game.id,
                    scope,
                    uid,
                    current[uid].rating,
                    new.rating,
                    new.experience,
                    won,
                    pts_won - pts_lost,
                    now,
                    kind,
                ),
            )
            changes.append(RatingChange(scope, uid, current[uid].rating, new.rating, new.experience, bool(won)))
    return changes


class RatingStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def changes_of(self, game_id: int) -> list[RatingChange]:
        """How a finished match moved its players' ratings (empty if unrated), in the order they were written."""
        rows = await self.db.fetchall(
            """
            SELECT scope, user_id, rating_before, rating_after, experience_after, won
            FROM rating_history WHERE game_id = ? ORDER BY id
            """,
            (game_id,),
        )
        return [
            RatingChange(
                r["scope"], r["user_id"], r["rating_before"], r["rating_after"], r["experience_after"], bool(r["won"])
            )
            for r in rows
        ]

    async def history(
        self, user_id: int, scope: int = GLOBAL_SCOPE, *, limit: int = 1000, family: str = "backgammon"
    ) -> list[RatingPoint]:
        """A player's rated matches of a game family in a scope, oldest first (the newest
        ``limit``): the rating after each, its points, and the opponent with their rating before it."""
        rows = await self.db.fetchall(
            """
            SELECT h.id, h.game_id, h.created_at, h.rating_before, h.rating_after, h.won, h.points,
                   o.user_id AS opponent, o.rating_before AS opponent_rating, p.display_name AS opponent_name
            FROM rating_history h
            LEFT JOIN rating_history o
                   ON o.game_id = h.game_id AND o.scope = h.scope AND o.user_id <> h.user_id
            LEFT JOIN players p ON p.user_id = o.user_id
            WHERE h.scope = ? AND h.user_id = ? AND h.family = ?
            ORDER BY h.id DESC
            LIMIT ?
            """,
            (scope, user_id, family, limit),
        )
        return [
            RatingPoint(
                game_id=int(r["game_id"]),
                at=float(r["created_at"]),
                rating_before=float(r["rating_before"]),
                rating_after=float(r["rating_after"]),
                won=bool(r["won"]),
                points=None if r["points"] is None else int(r["points"]),
                opponent=None if r["opponent"] is None else int(r["opponent"]),
                opponent_rating=None if r["opponent_rating"] is None else float(r["opponent_rating"]),
                opponent_name=r["opponent_name"] or "",
            )
            for r in reversed(list(rows))
        ]

    async def player_stats(
        self, user_id: int, scope: int = GLOBAL_SCOPE, *, family: str = "backgammon"
    ) -> PlayerStats | None:
        """Return a player's ratings row of a game family with their rank by rating in the scope."""
        table = table_of(family)
        rows = await self.db.fetchall(
            f"""
            SELECT r.*, p.display_name,
                   (SELECT COUNT(*) FROM {table} o
                     WHERE o.scope = r.scope AND o.rating > r.rating AND o.games > 0)
                 + (SELECT COUNT(*) FROM {table} o
                     WHERE o.scope = r.scope AND o.rating = r.rating AND o.games > 0
                       AND (o.games > r.games OR (o.games = r.games AND o.user_id < r.user_id))) + 1 AS rank_,
                   (SELECT COUNT(*) FROM {table} o
                     WHERE o.scope = r.scope AND o.games > 0) AS ranked_
            FROM {table} r LEFT JOIN players p ON p.user_id = r.user_id
            WHERE r.scope = ? AND r.user_id = ?
            """,
            (scope, user_id),
        )
        rows = list(rows)
        if not rows:
            return None
        row = rows[0]
        return PlayerStats(PlayerRating.from_row(row), int(row["rank_"]), int(row["ranked_"]))

    async def leaderboard(
        self,
        scope: int = GLOBAL_SCOPE,
        *,
        order: LeaderboardOrder = "rating",
        offset: int = 0,
        limit: int = 10,
        min_games: int = 1,
        family: str = "backgammon",
    ) -> LeaderboardPage:
        """Return one page of the leaderboard and the total ranked count.

        ``order``: 'rating', 'points' (points won), 'net' (won - lost) or
        'wins'.  Ties break on rating, then games played, then user id.
        """
        order_sql = {
            "rating": "{t}.rating DESC",
            "points": "{t}.points_won DESC, {t}.rating DESC",
            "net": "({t}.points_won - {t}.points_lost) DESC, {t}.rating DESC",
            "wins": "{t}.wins DESC, {t}.rating DESC",
        }.get(order)
        if order_sql is None:
            raise ValueError(f"bad leaderboard order {order!r}")
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        inner, outer = order_sql.format(t="o"), order_sql.format(t="r")
        table = table_of(family)
        async with self.db.snapshot() as snap:
            # The page is found in the standings' index order (a deep page skips
            # index entries, not rows); only its members' rows and names are read.
            rows = list(
                await snap.fetchall(
                    f"""
                    SELECT r.*, p.display_name FROM (
                        SELECT o.scope, o.user_id FROM {table} o
                        WHERE o.scope = ? AND o.games >= ?
                        ORDER BY {inner}, o.games DESC, o.user_id
                        LIMIT ? OFFSET ?
                    ) page
                    JOIN {table} r ON r.scope = page.scope AND r.user_id = page.user_id
                    LEFT JOIN players p ON p.user_id = r.user_id
                    ORDER BY {outer}, r.games DESC, r.user_id
                    """,
                    (scope, max(min_games, 1), limit, offset),
                )
            )
            total_rows = list(
                await snap.fetchall(
                    f"SELECT COUNT(*) FROM {table} WHERE scope = ? AND games >= ?",
                    (scope, max(min_games, 1)),
                )
            )
        entries = [LeaderboardEntry(offset + i + 1, PlayerRating.from_row(r)) for i, r in enumerate(rows)]
        return LeaderboardPage(entries, int(total_rows[0][0]), offset, limit)
