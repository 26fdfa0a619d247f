"""Position analysis that needs no neural net: pip counts and shot counts,
the old texts' "odds of being hit" (docs/rules.md section 12 has the table
the shot counter reproduces)."""

from __future__ import annotations

from engine.dice import Roll
from engine.moves import legal_plays
from engine.position import Position


def pip_count(position: Position) -> tuple[int, int]:
    """Pips to bear off everything: (player on roll, opponent)."""
    return position.pip_counts()


def all_rolls() -> list[tuple[Roll, int]]:
    """The 21 distinct rolls with how many of the 36 throws give each."""
    return [(Roll(a, b), 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7)]


def shot_count(position: Position, point: int) -> int:
    """How many of the 36 rolls let the player on roll hit the opposing blot on
    ``point`` (in the mover's numbering), counting every rule: checkers on the
    bar, blocked landing and intermediate points, and the compulsory-move rules.

    :raises ValueError: if there is no opposing blot on ``point``.
    """
    if not 1 <= point <= 24 or position.theirs(point) != 1:
        raise ValueError(f"there is no opposing blot on point {point}")
    shots = 0
    for roll, ways in all_rolls():
        if any(move.hit and move.destination == point for play in legal_plays(position, roll) for move in play.moves):
            shots += ways
    return shots


def blots(position: Position) -> list[int]:
    """Points (mover's numbering) where the opponent has a lone checker."""
    return [p for p in range(1, 25) if position.theirs(p) == 1]


def blot_exposure(position: Position) -> dict[int, int]:
    """The odds of being hit: for each blot of the player on roll (point in
    their numbering), how many of the 36 throws would let the opponent hit it
    if the opponent were to throw now, every rule counted.

    Ask it of the position a play leaves (``play.position``, still seen from
    the mover): which blots the play exposes, and how badly.
    """
    theirs = position.swap()
    return {point: shot_count(theirs, 25 - point) for point in range(1, 25) if position.ours(point) == 1}


def total_exposure(position: Position) -> int:
    """How many of the 36 throws would let the opponent hit at least one blot
    of the player on roll (0 without blots): the throws that hit several
    blots count once."""
    theirs = position.swap()
    targets = {25 - point for point in range(1, 25) if position.ours(point) == 1}
    if not targets:
        return 0
    return sum(
        ways
        for roll, ways in all_rolls()
        if any(move.hit and move.destination in targets for play in legal_plays(theirs, roll) for move in play.moves)
    )


def direct_shots(distance: int) -> int:
    """Ways out of 36 to hit a lone blot ``distance`` pips away (1-24) with
    nothing in between: the old texts' table, worked out by the engine
    (docs/rules.md section 12). The hitter comes in from the bar, the only
    checkers on the board are the two.

    :raises ValueError: for a distance outside 1-24.
    """
    if not 1 <= distance <= 24:
        raise ValueError(f"a blot is 1 to 24 pips away, not {distance}")
    blot = 25 - distance  # in the hitter's numbering
    position = Position.from_counts({25: 1}, {25 - blot: 1})
    return shot_count(position, blot)
