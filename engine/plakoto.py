"""Plakoto, the second game of Greek tavli (docs/rules.md section 20).

Backgammon's movement from a different start, without hitting: all fifteen
checkers start on the mover's point 24 (the opponent's ace point) and the two
sides run in opposite directions. A checker that lands on a single opposing
checker **pins** it: the pinned checker cannot move while a checker of the
pinner stands on it, and the point belongs to the pinner (the opponent cannot
land there; the pinner may stack more). Two or more checkers hold a point.
Bearing off needs all fifteen home and none pinned.

The **mother** (*mana*): the last checker left on a player's starting point.
Pinning it wins the game at once as a double game (2 points).

Scoring: a single game 1; a double game 2 (the loser has borne off none, or
the mother was pinned). No cube, no triple game.
"""

from __future__ import annotations

from engine.tables import CHECKERS, Rules, TablesPosition


class Plakoto(Rules):
    name = "plakoto"
    opposite = True
    single_holds = False

    def result(self, position: TablesPosition) -> tuple[int, str] | None:
        """The mover bore off all fifteen (2 if the loser has borne off none,
        else 1), or the mover pinned the opponent's mother (2)."""
        if position.off[0] == CHECKERS:
            return (1 if position.off[1] else 2), "bearoff"
        if position.pins[0] == -1:  # their last checker on their starting point (our 1), pinned
            return 2, "mother"
        return None

    def win_name(self, multiplier: int, reason: str) -> str:
        if reason == "mother":
            return "a double game (the mother is pinned)"
        return "a double game (*diplo*)" if multiplier == 2 else "a single game"


PLAKOTO = Plakoto()
