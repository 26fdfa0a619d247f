"""Match equity: the table gnubg-nn uses, and what it says at a score.

gnubg-nn's default match equity table is Snowie's (``gnubg_nn.equities.value``
answers from it; ``gnubg_nn.set.equities('snowie')`` leaves every entry as it
is, and the other tables it knows, gnur, Jacobs, Woolsey and mec26, differ).
The table is read once, up to :data:`MAX_AWAY` points away, and kept: the
engine's table is global state, and nothing here ever changes it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

from bot.ai.engines import _gnubg

MET_NAME = "Snowie"
"""The table's name as players know it (gnubg-nn's default)."""

MAX_AWAY = 25
"""Scores the table covers: 1 to 25 points away each (gnubg's tables go this far)."""

_table: dict[tuple[int, int], float] | None = None
_lock = threading.Lock()


def _read() -> dict[tuple[int, int], float]:
    global _table
    with _lock:
        if _table is None:
            g = _gnubg()
            _table = {
                (a, b): (1.0 + float(g.equities.value(a, b))) / 2.0
                for a in range(1, MAX_AWAY + 1)
                for b in range(1, MAX_AWAY + 1)
            }
        return _table


POST_CRAWFORD = (
    0.500,
    0.485,
    0.315,
    0.305,
    0.187,
    0.181,
    0.112,
    0.109,
    0.067,
    0.066,
    0.040,
    0.040,
    0.024,
    0.024,
    0.010,
)
"""The trailer's chance after the Crawford game at 1, 2, ... 15 away against 1-away: the
same Snowie table's post-Crawford row (gnubg-nn keeps it inside and answers only the
Crawford entries, so it is written here as the table prints it, e.g. GNU Backgammon's
``met/snowie.xml``). Beyond 15 away each entry is taken as 0.6 of the one two points nearer."""


def _post_crawford(trailer_away: int) -> float:
    if trailer_away <= len(POST_CRAWFORD):
        return POST_CRAWFORD[trailer_away - 1]
    return 0.6 * _post_crawford(trailer_away - 2)


def mwc(away: int, opponent_away: int, *, post_crawford: bool = False) -> float:
    """The chance to win the match of a player ``away`` points from winning against
    one ``opponent_away`` away, before a game (a score of 0 or less has won).

    A 1-away score is the Crawford game's (the table's entry) unless ``post_crawford``:
    the Crawford game has been played (the leader was already 1 away)."""
    if away <= 0:
        return 1.0
    if opponent_away <= 0:
        return 0.0
    if post_crawford and (away == 1) != (opponent_away == 1):
        return 1.0 - _post_crawford(opponent_away) if away == 1 else _post_crawford(away)
    return _read()[(min(away, MAX_AWAY), min(opponent_away, MAX_AWAY))]


class Table(Protocol):
    """A match equity table: the chance to win the match from a score (as :func:`mwc`)."""

    def __call__(self, away: int, opponent_away: int, *, post_crawford: bool = False) -> float: ...


@dataclass(frozen=True, slots=True)
class ScoreValues:
    """What each result is worth at a score and cube, in match winning chances
    for the player to move (``win[k]``/``lose[k]``: k = 0 single, 1 gammon, 2 backgammon)."""

    win: tuple[float, float, float]
    lose: tuple[float, float, float]

    @classmethod
    def at(cls, away: int, opponent_away: int, cube: int = 1, *, table: Table | None = None) -> ScoreValues:
        """The values at a score, from ``table`` (a function like :func:`mwc`; this module's by default)."""
        chance = table or mwc
        # Once a side is 1 away (the Crawford game or after it), a 1-away score to come is post-Crawford.
        post = 1 in (away, opponent_away)
        return cls(
            tuple(chance(away - k * cube, opponent_away, post_crawford=post) for k in (1, 2, 3)),  # type: ignore[arg-type]
            tuple(chance(away, opponent_away - k * cube, post_crawford=post) for k in (1, 2, 3)),  # type: ignore[arg-type]
        )

    def match_chance(self, probs: tuple[float, ...]) -> float:
        """Cubeless match winning chance for (win, win gammon, win backgammon, lose gammon, lose backgammon)."""
        w, wg, wb, lg, lb = probs[:5]
        lose = 1.0 - w
        return (
            (w - wg) * self.win[0]
            + (wg - wb) * self.win[1]
            + wb * self.win[2]
            + (lose - lg) * self.lose[0]
            + (lg - lb) * self.lose[1]
            + lb * self.lose[2]
        )

    def emg(self, probs: tuple[float, ...]) -> float:
        """The same as an equivalent money game equity (EMG, GNU Backgammon's normalisation):
        winning a single game is +1, losing one -1."""
        spread = self.win[0] - self.lose[0]
        if spread <= 0:
            return 0.0
        return (2.0 * self.match_chance(probs) - self.win[0] - self.lose[0]) / spread

    @property
    def gammon_values(self) -> tuple[float, float]:
        """(our gammon value, theirs): what a gammon adds to a single game, in units of a single game."""
        spread = self.win[0] - self.lose[0]
        if spread <= 0:
            return (0.0, 0.0)
        return ((self.win[1] - self.win[0]) / spread, (self.lose[0] - self.lose[1]) / spread)
