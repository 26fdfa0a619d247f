"""The computer's play in plakoto, fevga and long nardy: no neural net knows
these games, so it searches over each game's own evaluation.

:func:`choose_play` scores the position after every legal play with
:func:`evaluate` (the race, the points held and blocks in front of the
opponent, pins and the mother in plakoto, the head in nardy and fevga) and
plays the best. With ``lookahead`` above 1, the few best are searched one
roll deeper: the opponent's best reply to each of the 21 rolls, averaged.
The static choice already wins well over nine games in ten against a random
mover in a few milliseconds (``bench/variants_ai.py``), so it is the default;
the deeper search costs some twenty times as much. Pure Python over
:mod:`engine.tables`.
"""

from __future__ import annotations

import random

from engine.dice import Roll
from engine.tables import CHECKERS, HEAD, TablesPlay, TablesPosition, legal_tables_plays
from engine.variants import RULES

ROLLS = tuple((Roll(a, b), 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7))
"""The 21 different rolls and how many of the 36 throws make each."""

WIN = 10_000.0
CONTAIN = 3.0
"""Weight of the square of the points we hold in the six in front of the opponent's last checker (fevga, nardy)."""

_THEIR_ORDER = (*range(12, 0, -1), *range(24, 12, -1))
"""Our points in the order the opponent meets them (fevga, nardy)."""


def evaluate(position: TablesPosition) -> float:
    """How good ``position`` is for the player it is seen from (who has just
    played; the opponent is to roll). Higher is better; a won game is
    :data:`WIN` times its points."""
    rules = RULES[position.game]
    won = rules.result(position)
    if won is not None:
        return WIN * won[0]
    lost = rules.result(position.swap())
    if lost is not None:
        return -WIN * lost[0]
    ours, theirs = position.pip_counts()
    score = (theirs - ours) * 1.0 + 4.0 * (position.off[0] - position.off[1])
    if position.game == "plakoto":
        score += _plakoto(position)
    else:
        score += _same_way(position)
    return score


def _plakoto(position: TablesPosition) -> float:
    points, pins = position.points, position.pins
    score = 0.0
    # Pins: a pinned checker is stuck; worse the farther it has to go.
    for index, pin in enumerate(pins):
        if pin == -1:
            score += 25.0 + (24 - index) * 1.0  # theirs, at their point 24 - index
        elif pin == 1:
            score -= 25.0 + (index + 1) * 1.0
    # The mothers: a lone checker left on a starting point can be pinned for a double game.
    if points[HEAD - 1] == 1 and pins[HEAD - 1] == 0:
        score -= 60.0 if _their_checkers_behind(position, HEAD) else 5.0
    if points[0] == -1 and pins[0] == 0:
        score += 30.0
    # Blots in front of opposing checkers (which move towards our 24) can be pinned.
    their_lowest = next((i + 1 for i, n in enumerate(points) if n < 0), 25)
    for index, n in enumerate(points):
        point = index + 1
        if n == 1 and pins[index] == 0 and point > their_lowest:
            distance = point - their_lowest
            score -= 12.0 if distance <= 6 else 6.0 if distance <= 12 else 3.0
        elif n >= 2:
            score += 4.0 if point <= 18 else 2.0
    return score


def _their_checkers_behind(position: TablesPosition, point: int) -> bool:
    """Whether an opposing checker can still reach our ``point`` (stands below it, free)."""
    return any(n < 0 for n in position.points[: point - 1])


def _same_way(position: TablesPosition) -> float:
    points = position.points
    score = 0.0
    # Points held in front of the opponent's checkers block them; longer runs block more.
    run = 0
    for point in _THEIR_ORDER:
        if points[point - 1] > 0:
            run += 1
            score += 2.0 + 1.5 * min(run, 5)
        else:
            run = 0
    # Spread: checkers stacked high are wasted; the head should empty steadily.
    head = points[HEAD - 1]
    score -= 2.5 * max(head - 1, 0)
    for n in points:
        if n > 3:
            score -= (n - 3) * 1.5
    # Their head still full is their problem.
    their_head = -points[11]
    score += 1.0 * max(their_head - 1, 0)
    # Mobility: the opponent's checker-and-die moves that land on our points, less ours on theirs.
    score += CONTAIN * (_contained(points) - _contained(position.swap().points))
    return score


def _contained(points: tuple[int, ...]) -> int:
    """The square of how many of the six points in front of the opponent's
    last checker we hold (``points`` seen from us)."""
    for index, point in enumerate(_THEIR_ORDER):
        if points[point - 1] < 0:
            held = sum(1 for p in _THEIR_ORDER[index + 1 : index + 7] if points[p - 1] > 0)
            return held * held
    return 0


def _best_reply_value(position: TablesPosition, roll: Roll) -> float:
    """The opponent's best play of ``roll`` from ``position`` (seen from them), as they value it."""
    rules = RULES[position.game]
    plays = legal_tables_plays(rules, position, roll)
    return max(evaluate(play.position) for play in plays)


def choose_play(
    plays: list[TablesPlay],
    *,
    lookahead: int = 1,
    rng: random.Random | None = None,
) -> TablesPlay:
    """The computer's choice among ``plays`` (the legal plays of one roll).

    Every play is scored by :func:`evaluate`; the ``lookahead`` best are
    scored again one roll deeper (the mean over the 21 rolls of minus the
    opponent's best reply), and the best of those is played. Ties go to
    the first found, or to ``rng`` when given.
    """
    if len(plays) == 1:
        return plays[0]
    scored = sorted(((evaluate(play.position), i) for i, play in enumerate(plays)), reverse=True)
    if scored[0][0] >= WIN or lookahead <= 1:
        return plays[scored[0][1]]
    best_value, best = None, plays[scored[0][1]]
    for static, index in scored[:lookahead]:
        after = plays[index].position
        theirs = after.swap()
        total = 0.0
        for roll, weight in ROLLS:
            total += weight * _best_reply_value(theirs, roll)
        value = -total / 36.0 + 0.25 * static
        if best_value is None or value > best_value or (value == best_value and rng and rng.random() < 0.5):
            best_value, best = value, plays[index]
    return best


__all__ = ["CHECKERS", "choose_play", "evaluate"]
