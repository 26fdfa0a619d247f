"""Position analysis that needs no neural net: pip counts and shot counts
(docs/rules.md section 12 has the table the shot counter reproduces)."""

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
        if any(
            move.hit and move.destination == point
            for play in legal_plays(position, roll)
            for move in play.moves
        ):
            shots += ways
    return shots


def blots(position: Position) -> list[int]:
    """Points (mover's numbering) where the opponent has a lone checker."""
    return [p for p in range(1, 25) if position.theirs(p) == 1]
