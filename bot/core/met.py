"""Match equity at a score: each side's chance to win the match, the take points
and gammon values of the cube's next turn, and the table around the score.

No Discord and no pictures here (the Discord layer words it and has the table
drawn, :mod:`renderer.met`). The numbers come from gnubg-nn's match equity
table (:mod:`bot.ai.met`); reading it needs the engines, so every call may raise
:class:`bot.core.model.AnalysisUnavailableError` where they are not installed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.ai import met as table
from bot.ai.engines import available
from bot.core.model import AnalysisUnavailableError, ServiceError
from engine import Game
from i18n import _

MAX_LENGTH = table.MAX_AWAY
"""The longest match the table covers."""

SHOWN = 7
"""How many scores each way the table picture shows around the score."""


class ScoreError(ServiceError, ValueError):
    """A score, length or cube the table cannot answer for (said to the asker as it is)."""


@dataclass(frozen=True, slots=True)
class Side:
    away: int
    """Points still needed."""
    chance: float
    """Chance to win the match from here (before the game, cube at its value)."""
    take_point: float | None
    """The share of games this side must win to take a double from the other (dead cube,
    gammons left out: risk over risk + gain); None when the other side cannot double."""
    gammon_value: float
    """What winning a gammon adds to a single game, in single games, at the cube's value."""


@dataclass(frozen=True, slots=True)
class MatchEquity:
    length: int
    score: tuple[int, int]
    cube: int
    crawford: bool
    """The Crawford game: nobody may double."""
    post_crawford: bool
    sides: tuple[Side, Side]
    table_name: str
    grid: tuple[tuple[float, ...], ...]
    """The first side's chances, ``grid[i][j]`` at ``origin[0] + i`` away against ``origin[1] + j`` away
    (``SHOWN`` square, or the length's)."""
    origin: tuple[int, int]


def _check(length: int, score: tuple[int, int], cube: int) -> None:
    if not 1 <= length <= MAX_LENGTH:
        raise ScoreError(
            _("the match equity table covers matches of 1 to {max_length} points").format(max_length=MAX_LENGTH)
        )
    if any(not 0 <= s < length for s in score):
        raise ScoreError(
            _("in a {length}-point match each score is 0 to {number}").format(length=length, number=length - 1)
        )
    if cube < 1 or cube & (cube - 1) or cube > 64:
        raise ScoreError(_("the cube is 1, 2, 4, … 64"))


def parse_score(text: str) -> tuple[int, int]:
    """``2-4`` (the asker's score first) as a pair.

    :raises ValueError: for anything else."""
    head, sep, tail = text.strip().partition("-")
    if not sep or not head.strip().isdigit() or not tail.strip().isdigit():
        raise ScoreError(_("a score is two numbers like 2-4, not {text!r}").format(text=text))
    return int(head), int(tail)


def take_point(taker_away: int, doubler_away: int, cube: int, *, post_crawford: bool = False) -> float | None:
    """The dead-cube, gammonless take point of ``taker_away`` when the other side turns
    the cube from ``cube`` to twice it: (pass − lose) / (win − lose) in match winning chances."""
    post = post_crawford
    passed = table.mwc(taker_away, doubler_away - cube, post_crawford=post)
    lost = table.mwc(taker_away, doubler_away - 2 * cube, post_crawford=post)
    won = table.mwc(taker_away - 2 * cube, doubler_away, post_crawford=post)
    if won <= lost:
        return None
    return (passed - lost) / (won - lost)


def match_equity(
    length: int, score: tuple[int, int], cube: int = 1, *, post_crawford: bool | None = None
) -> MatchEquity:
    """What the table says at ``score`` (points each side has) in a ``length``-point match.

    ``post_crawford``: whether a 1-away score is after the Crawford game (None: the game
    that starts at the score is the Crawford game when one side is 1 away and has just
    got there, which a bare score cannot tell, so it is taken as the Crawford game)."""
    _check(length, score, cube)
    if not available():
        raise AnalysisUnavailableError()
    away = (length - score[0], length - score[1])
    one_away = 1 in away and away != (1, 1)
    post = bool(post_crawford) and one_away
    crawford = one_away and not post
    sides = []
    for me in (0, 1):
        mine, theirs = away[me], away[1 - me]
        values = table.ScoreValues.at(mine, theirs, cube)
        can_double = not crawford and (not post or theirs > 1)
        sides.append(
            Side(
                away=mine,
                chance=table.mwc(mine, theirs, post_crawford=post),
                take_point=take_point(mine, theirs, cube, post_crawford=post) if can_double else None,
                gammon_value=values.gammon_values[0],
            )
        )
    size = min(SHOWN, length)
    first = max(1, min(away[0] - size // 2, length - size + 1))
    second = max(1, min(away[1] - size // 2, length - size + 1))
    grid = tuple(tuple(table.mwc(first + i, second + j) for j in range(size)) for i in range(size))
    return MatchEquity(length, score, cube, crawford, post, (sides[0], sides[1]), table.MET_NAME, grid, (first, second))


def for_game(game: Game) -> MatchEquity:
    """The table at a match game's score and cube."""
    if game.is_money:
        raise ScoreError(_("a money game has no match score: the table is for matches"))
    n = game.settings.match_length
    post = not game.crawford and 1 in (n - game.score[0], n - game.score[1])
    return match_equity(n, (min(game.score[0], n - 1), min(game.score[1], n - 1)), game.cube_value, post_crawford=post)


async def amatch_equity(
    length: int, score: tuple[int, int], cube: int = 1, *, post_crawford: bool | None = None
) -> MatchEquity:
    """:func:`match_equity` in a thread: the first call loads the engine's table."""
    return await asyncio.to_thread(match_equity, length, score, cube, post_crawford=post_crawford)


async def afor_game(game: Game) -> MatchEquity:
    """:func:`for_game` in a thread."""
    return await asyncio.to_thread(for_game, game)
