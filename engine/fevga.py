"""Fevga, the third game of Greek tavli (docs/rules.md section 21).

Both sides start with all fifteen on their point 24, at diagonally opposite
corners, and run the same way (counter-clockwise). Nobody is hit: a single
checker holds a point, and the opponent may neither land nor touch down there.

- **The first checker**: a player moves one checker only, until it has
  passed the opponent's starting point (our point 12); then the others may
  leave the start.
- **The starting quarter**: a player may never hold all six points of their
  own starting quarter (19-24) at once.
- **Primes**: six points or more in a row may stand only if at least one of
  the opponent's checkers is already past them (a prime that would trap every
  opposing checker is not allowed), checked after every move.

Scoring: a single game 1, a double game (the loser has borne off none) 2.
"""

from __future__ import annotations

from engine.dice import Roll
from engine.tables import CHECKERS, HEAD, Rules, blocks_trapped


class Fevga(Rules):
    name = "fevga"

    def may_leave_head(self, a: list[int], start_head: int, first_turn: bool, roll: Roll) -> bool:
        """The first checker leaves alone; the next may leave once a checker of ours is past the
        opponent's start (our point 12: on 1..11, or off)."""
        if a[HEAD] + a[0] == CHECKERS and all(n <= 0 for n in a[1:HEAD]):
            return True  # nothing has left yet: the first checker may go
        return a[0] > 0 or any(n > 0 for n in a[1:12])

    def allowed(self, a: list[int], off_theirs: int, destination: int) -> bool:
        if destination >= 19 and a[19] > 0 and a[20] > 0 and a[21] > 0 and a[22] > 0 and a[23] > 0 and a[24] > 0:
            return False
        return not blocks_trapped(a, off_theirs, destination)


FEVGA = Fevga()
