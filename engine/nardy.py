"""Long nardy (docs/rules.md section 22).

Both sides start with all fifteen on the **head** (their point 24), at
diagonally opposite corners, and run the same way. Nobody is hit: a point with
any opposing checker on it is closed.

- **The head**: only one checker may leave the head in a turn, except on a
  player's first turn with 6-6, 4-4 or 3-3, when two may (one checker alone
  could not play the whole roll: the opponent's head stands in its way).
- **Six in a row**: a player may hold six (or more) points in a row only if
  at least one of the opponent's checkers is already past them, checked after
  every move.
- Bearing off as in backgammon, from the home board (1-6).

Scoring: *oin* (a single game) 1; *mars* (the loser has borne off none) 2;
*koks* (the loser has borne off none and has not brought a single checker
into their home board) 3 — :attr:`Nardy.koks` off for the Russian
federation's rules, which count no koks.
"""

from __future__ import annotations

from engine.dice import Roll
from engine.tables import CHECKERS, HEAD, Rules, TablesPosition, blocks_trapped

OPENING_DOUBLES = frozenset({6, 4, 3})
"""The doubles that let two checkers leave the head on a player's first turn."""


class Nardy(Rules):
    name = "nardy"
    koks = True

    def may_leave_head(self, a: list[int], start_head: int, first_turn: bool, roll: Roll) -> bool:
        limit = 2 if first_turn and roll.is_double and roll.die1 in OPENING_DOUBLES else 1
        return start_head - a[HEAD] < limit

    def allowed(self, a: list[int], off_theirs: int, destination: int) -> bool:
        return not blocks_trapped(a, off_theirs, destination)

    def result(self, position: TablesPosition) -> tuple[int, str] | None:
        if position.off[0] != CHECKERS:
            return None
        if position.off[1]:
            return 1, "bearoff"
        # Their home board (their 1..6) is our 13..18.
        if self.koks and not any(n < 0 for n in position.points[12:18]):
            return 3, "bearoff"
        return 2, "bearoff"

    def win_name(self, multiplier: int, reason: str) -> str:
        return {1: "oin (a single game)", 2: "mars (a double game)", 3: "koks (a triple game)"}[multiplier]


NARDY = Nardy()
