"""The numbers behind the charts: a game move by move, a member's rating over time.

An analysis keeps its detail (:meth:`bot.ai.GameAnalysis.detail`, JSON in the
store); :func:`timeline` reads one game's back as values. :class:`Progress`
gathers a member's rated matches in a server (rating, points, opponents) and
the error rate of each analysed one. No pictures here: the Discord layer
turns these into charts (:mod:`renderer.charts`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.ai.pr import format_pr, pr_of
from bot.core.model import storage_errors_as_service_errors
from bot.store import GLOBAL_SCOPE, RatingPoint, Store
from engine.ratings import DEFAULT_RATING

BLUNDER = 0.08
"""A checker play losing more is a blunder (GNU Backgammon's "very bad" threshold)."""
CUBE_ERROR = 0.04
"""A cube decision losing more is a cube error marked on the chart."""
ANALYSED_KEPT = 400
"""The analysed games (a member's newest) the error-rate trend is drawn from."""


@dataclass(frozen=True, slots=True)
class MoveLine:
    move: int
    player: int
    dice: tuple[int, int] | None
    win: float
    """Player 0's chance of winning after the move."""
    gammons: tuple[float, float]
    luck: float
    """The luck of the move's roll for its mover."""


@dataclass(frozen=True, slots=True)
class MistakeLine:
    """A decision that lost equity, as the analysis kept it."""

    move: int
    player: int
    kind: str
    """``checker``, ``double`` (a wrong double or a missed one), ``take``, ``pass``, ``beaver``."""
    lost: float
    played: str
    best: str
    dice: tuple[int, int] | None
    gnubg_id: str
    choices: tuple[tuple[str, float], ...]
    """Best first, with the equity of each for the player deciding."""

    @property
    def is_cube(self) -> bool:
        return self.kind != "checker"

    @property
    def marked(self) -> bool:
        """A blunder, or a cube error: marked on the game chart."""
        return self.lost > (CUBE_ERROR if self.is_cube else BLUNDER)


@dataclass(frozen=True, slots=True)
class PlayerLine:
    decisions: int
    lost: float
    rate: float
    """Error rate: millipoints lost per decision."""
    luck: float
    blunders: int
    pr: float | None = None
    """Performance rating on XG's scale (:mod:`bot.ai.pr`); None without a decision that counts."""


@dataclass(frozen=True, slots=True)
class GameTimeline:
    """One analysed game of a match, move by move."""

    number: int
    moves: tuple[MoveLine, ...]
    mistakes: tuple[MistakeLine, ...]
    players: tuple[PlayerLine, PlayerLine]

    @property
    def marks(self) -> tuple[MistakeLine, ...]:
        return tuple(m for m in self.mistakes if m.marked)


def _dice(value: Sequence[int] | None) -> tuple[int, int] | None:
    if not value or not value[0]:
        return None
    return (int(value[0]), int(value[1]))


def mistake_of(item: Mapping[str, Any]) -> MistakeLine:
    return MistakeLine(
        move=int(item["move"]),
        player=int(item["player"]),
        kind=str(item["kind"]),
        lost=float(item["lost"]),
        played=str(item["played"]),
        best=str(item["best"]),
        dice=_dice(item.get("dice")),
        gnubg_id=str(item.get("id") or ""),
        choices=tuple((str(t), float(e)) for t, e in item.get("choices") or ()),
    )


def timeline(number: int, detail: Mapping[str, Any]) -> GameTimeline:
    """One game's timeline from its analysis's detail."""
    moves = tuple(
        MoveLine(int(m[0]), int(m[1]), _dice(m[2:4]), float(m[4]), (float(m[5]), float(m[6])), float(m[7]))
        for m in detail.get("moves") or ()
    )
    players = tuple(
        PlayerLine(
            int(p["decisions"]),
            float(p["lost"]),
            float(p["rate"]),
            float(p["luck"]),
            int(p["blunders"]),
            pr_of(float(p["lost"]), _pr_decisions(p)),
        )
        for p in detail.get("players") or ()
    )
    if len(players) != 2:
        players = (PlayerLine(0, 0.0, 0.0, 0.0, 0), PlayerLine(0, 0.0, 0.0, 0.0, 0))
    mistakes = tuple(mistake_of(m) for m in detail.get("mistakes") or ())
    return GameTimeline(number, moves, mistakes, players)


def shown_pr(pr: float | None) -> str:
    """``PR 6.3 (expert)``: XG's scale in words, for the Discord layer (which never imports bot.ai)."""
    return format_pr(pr)


def _pr_decisions(player: Mapping[str, Any]) -> int:
    """The decisions PR counts; an analysis stored before PR existed counts the graded ones."""
    return int(player.get("pr_decisions", player["decisions"]))


@dataclass(frozen=True, slots=True)
class ErrorPoint:
    game_id: int
    at: float
    rate: float
    decisions: int
    pr: float | None = None
    """The match's performance rating on XG's scale (:mod:`bot.ai.pr`)."""
    lost: float = 0.0
    pr_decisions: int = 0


def recent_pr(points: Sequence[ErrorPoint]) -> float | None:
    """PR over several analysed matches: their equity lost over their decisions together
    (a PR of PRs would weigh a short match like a long one)."""
    return pr_of(sum(p.lost for p in points), sum(p.pr_decisions for p in points))


@dataclass(frozen=True, slots=True)
class RatingHistory:
    """A member's rated matches in one server, oldest first."""

    user_id: int
    scope: int
    matches: tuple[RatingPoint, ...]
    errors: tuple[ErrorPoint, ...]
    """The member's error rate in each analysed match, oldest first."""
    wins: int
    losses: int

    @property
    def start_rating(self) -> float:
        return self.matches[0].rating_before if self.matches else DEFAULT_RATING

    @property
    def best_win(self) -> RatingPoint | None:
        """The win over the highest-rated opponent (their rating before the match)."""
        won = [m for m in self.matches if m.won and m.opponent_rating is not None]
        return max(won, key=lambda m: (m.opponent_rating, -m.at), default=None)

    @property
    def points(self) -> int:
        return sum(m.points or 0 for m in self.matches)


@storage_errors_as_service_errors
class Progress:
    """Ratings and error rates over time, for the rating chart."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def rating_history(
        self, guild_id: int | None, user_id: int, *, limit: int = 1000, family: str = "backgammon"
    ) -> RatingHistory:
        """A member's rating over the matches of one game family (its error rates: backgammon's analyses)."""
        scope = GLOBAL_SCOPE if guild_id is None else guild_id
        matches = await self.store.ratings.history(user_id, scope, limit=limit, family=family)
        if family != "backgammon":
            wins = sum(1 for m in matches if m.won)
            return RatingHistory(user_id, scope, tuple(matches), (), wins, len(matches) - wins)
        analysed = await self.store.stats.analysed_games(guild_id=guild_id, user_id=user_id, limit=ANALYSED_KEPT)
        errors = await asyncio.to_thread(error_points, analysed, user_id)  # JSON of hundreds of games
        wins = sum(1 for m in matches if m.won)
        return RatingHistory(user_id, scope, tuple(matches), errors, wins, len(matches) - wins)


def error_points(analysed: Sequence[Mapping[str, Any]], user_id: int) -> tuple[ErrorPoint, ...]:
    """A member's error rate in each analysed match (its games' decisions together), oldest first."""
    per_match: dict[int, list[Any]] = {}
    for row in analysed:
        seat = row["players"].index(user_id)
        players = json.loads(row["detail"]).get("players") or ()
        if len(players) != 2:
            continue
        entry = per_match.setdefault(row["game_id"], [row["finished_at"] or 0.0, 0, 0.0, 0])
        entry[1] += int(players[seat]["decisions"])
        entry[2] += float(players[seat]["lost"])
        entry[3] += _pr_decisions(players[seat])
    return tuple(
        sorted(
            (
                ErrorPoint(
                    game_id, float(at), 1000.0 * lost / decisions, decisions, pr_of(lost, counted), lost, counted
                )
                for game_id, (at, decisions, lost, counted) in per_match.items()
                if decisions
            ),
            key=lambda e: (e.at, e.game_id),
        )
    )
