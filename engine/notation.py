"""Reading plays: any reasonable spelling in (docs/rules.md section 11).

Writing is :mod:`engine.play` (canonical, as GNU Backgammon writes a play).
Reading accepts GNU Backgammon and FIBS spellings: ``24/18 13/10``,
``24-18 13-10``, bare numbers taken in pairs (``24 18 13 10``), chains
(``24/18/13``), counts (``8/5(2)``), ``bar``/``b``/``25`` and
``off``/``o``/``0``, with or without ``*``, in any order. A spelling is
accepted when it leads to the position of a legal play.
"""

from __future__ import annotations

import re

from engine.dice import Roll
from engine.moves import legal_plays
from engine.play import Play, format_play, format_point
from engine.position import BAR, OFF, Position

EXCERPT = 40
"""How much of the text an error message quotes around the trouble: never a whole paste."""


class NotationError(ValueError):
    """Raised when a play cannot be read at all; says where (quoting at most
    :data:`EXCERPT` characters of the text on each side)."""

    def __init__(self, text: str, position: int, reason: str) -> None:
        self.text = text
        self.position = position
        self.reason = reason
        super().__init__(f"can't read {excerpt(text, position)!r} at character {position + 1}: {reason}")


class IllegalPlayError(ValueError):
    """Raised when a play is readable but not legal here; says why."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"{excerpt(text)}: {reason}" if text else reason)


def excerpt(text: str, position: int = 0) -> str:
    """``text`` around ``position``, cut to :data:`EXCERPT` characters each side with ``...``."""
    start = max(0, position - EXCERPT)
    end = min(len(text), max(position, start) + EXCERPT)
    return ("..." if start else "") + text[start:end] + ("..." if end < len(text) else "")


# -- reading ------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<space>[\s,;]+)
  | (?P<point>bar|b|off|o|\d+)
  | (?P<sep>[/-])
  | (?P<star>\*)
  | (?P<count>\(\s*(?P<n>\d+)\s*\))
    """,
    re.VERBOSE | re.IGNORECASE,
)


def _point_value(token: str) -> int | None:
    """The point a token names; None for a number no point has (checked
    before converting: Python refuses to convert thousands of digits)."""
    word = token.lower()
    if word in ("bar", "b"):
        return BAR
    if word in ("off", "o"):
        return OFF
    digits = word.lstrip("0") or "0"
    return int(digits) if len(digits) <= 2 else None


def parse_moves(text: str) -> list[tuple[int, int, bool]]:
    """Read a play's text into ``(source, destination, marked_hit)`` steps.

    Chains are split into steps (``24/18/13`` gives 24-18 and 18-13); counts
    repeat the chain before them, right after it or after a space
    (``8/5(2)``, ``8/5 (2)``, as GNU Backgammon reads them); lone numbers pair
    up in order.

    :raises NotationError: naming the character where reading failed.
    """
    # A chain is a list of (point, marked) plus where it began in the text.
    chains: list[list[tuple[int, bool]]] = []
    current: list[tuple[int, bool]] | None = None
    expect_point = False
    lone: list[tuple[int, bool, int]] = []  # single numbers, for FIBS pairs
    counted: list[tuple[int, bool]] | None = None  # a chain a space closed: "8/5 (2)" counts it
    chain_start = 0
    i = 0
    while i < len(text):
        match = _TOKEN.match(text, i)
        if match is None:
            raise NotationError(text, i, f"unexpected {text[i]!r}")
        kind = match.lastgroup
        if kind == "space":
            if expect_point:
                # "24/ 18" is still one chain; allow the space.
                i = match.end()
                continue
            if current is not None:
                _close(text, current, chains, lone, chain_start)
                counted = current if len(current) > 1 else None
                current = None
            i = match.end()
            continue
        elif kind == "point":
            value = _point_value(match.group("point"))
            if value is None or value > BAR:
                name = match.group("point") if value is not None else "that high"
                raise NotationError(text, i, f"there is no point {name}")
            if current is None:
                current = [(value, False)]
                chain_start = i
            elif expect_point:
                current.append((value, False))
            else:
                raise NotationError(text, i, "two points with nothing between them")
            expect_point = False
        elif kind == "sep":
            if current is None or expect_point:
                raise NotationError(text, i, f"{match.group()!r} needs a point before it")
            expect_point = True
        elif kind == "star":
            if current is None or expect_point:
                raise NotationError(text, i, "'*' must follow a point")
            point, _ = current[-1]
            current[-1] = (point, True)
        else:  # count
            repeated = current if current is not None else counted
            if repeated is None or expect_point or len(repeated) < 2:
                raise NotationError(text, i, "a count like (2) must follow a move like 8/5")
            digits = match.group("n")
            n = int(digits) if len(digits) <= 2 else 0
            if not 1 <= n <= 4:
                shown = f", not {digits}" if len(digits) <= 2 else ""
                raise NotationError(text, i, f"a move can be repeated 1 to 4 times{shown}")
            # A chain a space closed is already in once.
            for _ in range(n if current is not None else n - 1):
                chains.append(list(repeated))
            current = None
        counted = None
        i = match.end()
    if expect_point:
        raise NotationError(text, len(text) - 1, "the move ends with a separator")
    if current is not None:
        _close(text, current, chains, lone, chain_start)
    if lone:
        if len(lone) % 2:
            raise NotationError(text, lone[-1][2], "a lone point: moves go from one point to another")
        for k in range(0, len(lone), 2):
            (a, ma, _), (b, mb, _) = lone[k], lone[k + 1]
            chains.append([(a, ma), (b, mb)])
    steps: list[tuple[int, int, bool]] = []
    for chain in chains:
        for (source, _), (destination, marked) in zip(chain, chain[1:]):
            if source == OFF:
                raise NotationError(text, 0, "a checker cannot move from off the board")
            if destination == BAR:
                raise NotationError(text, 0, "a checker cannot move to the bar")
            if destination >= source:
                raise NotationError(
                    text, 0, f"checkers move down: {format_point(source)}/{format_point(destination)} goes backwards"
                )
            steps.append((source, destination, marked))
    if len(steps) > 8:
        raise NotationError(text, 0, "too many moves")
    return steps


def _close(
    text: str,
    chain: list[tuple[int, bool]],
    chains: list[list[tuple[int, bool]]],
    lone: list[tuple[int, bool, int]],
    where: int,
) -> None:
    if len(chain) == 1:
        lone.append((chain[0][0], chain[0][1], where))
    else:
        chains.append(chain)


def parse_play(position: Position, roll: Roll, text: str) -> Play:
    """The legal play that ``text`` describes, for the player on roll.

    :raises NotationError: when the text cannot be read.
    :raises IllegalPlayError: when it reads but is not a legal play here; the
        message says why in words a player can act on.
    """
    plays = legal_plays(position, roll)
    return match_play(position, roll, text, plays)


def match_play(position: Position, roll: Roll, text: str, plays: list[Play]) -> Play:
    """Like :func:`parse_play` with the legal plays already generated."""
    stripped = text.strip()
    if not stripped or stripped.lower() in ("pass", "none", "-", "dance"):
        if len(plays) == 1 and not plays[0].moves:
            return plays[0]
        raise IllegalPlayError(stripped, "you have a legal play; type your moves, like 24/18 13/10")
    steps = parse_moves(stripped)
    if len(plays) == 1 and not plays[0].moves:
        raise IllegalPlayError(stripped, f"no move is possible with {roll.high}-{roll.low}; the turn passes")

    # My checkers: where they stand after the typed moves, whatever the order.
    mine = [position.ours(p) for p in range(26)]
    for source, destination, _ in steps:
        mine[source] -= 1
        mine[destination] += 1
    for point in range(26):
        if mine[point] < 0:
            raise IllegalPlayError(stripped, _no_checker(position, steps, point))
    landings = {destination for _, destination, _ in steps if destination != OFF}
    literal = {p for p in landings if position.theirs(p) == 1}

    candidates = []
    for play in plays:
        result = play.position
        if all(result.ours(p) == mine[p] for p in range(26)):
            candidates.append(play)
    if len(candidates) == 1:
        return candidates[0]
    if len(candidates) > 1:
        # Several plays move our checkers the same way and differ in hits on
        # the way: take the one hitting exactly where the text touched down.
        for play in candidates:
            if {m.destination for m in play.moves if m.hit} == literal:
                return play
        options = " or ".join(format_play(p) for p in candidates)
        raise IllegalPlayError(stripped, f"say which: {options}")
    raise IllegalPlayError(stripped, _why_illegal(position, roll, steps, plays))


def _no_checker(position: Position, steps: list[tuple[int, int, bool]], point: int) -> str:
    if point == BAR:
        return "you have no checker on the bar"
    if point == OFF:
        return "a checker cannot come back from off the board"
    return f"you have no checker on point {point} to move"


def _why_illegal(position: Position, roll: Roll, steps: list[tuple[int, int, bool]], plays: list[Play]) -> str:
    """Explain, in a player's words, why typed steps are no legal play."""
    dice = roll.moves()
    best = len(plays[0].moves)
    if position.bar[0] and steps and steps[0][0] != BAR and not any(s == BAR for s, _, _ in steps):
        return "enter from the bar first"
    for _, destination, _ in steps:
        if destination != OFF and position.theirs(destination) >= 2:
            return f"point {destination} is blocked"
        if destination == OFF and not _could_be_home(position, steps):
            return "you can't bear off with a checker outside your home board"
    # Expand the steps into single-die moves where a step spans several dice.
    typed_dice = sum(_dice_for_step(s, d, roll) for s, d, _ in steps)
    for source, destination, _ in steps:
        if _dice_for_step(source, destination, roll) == 0:
            return (
                f"no die takes a checker from {format_point(source)} to {format_point(destination)}"
                f" with {roll.high}-{roll.low}"
            )
    if typed_dice < best:
        if best == 2 and not roll.is_double:
            return "both dice can be used: play both"
        return f"{best} moves can be made with {roll.high}-{roll.low}: play {best}"
    if best == 1 and not roll.is_double and len(steps) == 1:
        return f"only one die can be played, and it must be the larger one ({roll.high})"
    if typed_dice > len(dice):
        return f"that is more moves than {roll.high}-{roll.low} allows"
    return f"that is not a legal play with {roll.high}-{roll.low}"


def _could_be_home(position: Position, steps: list[tuple[int, int, bool]]) -> bool:
    """Whether every checker could be home before a bear-off in these steps."""
    mine = [position.ours(p) for p in range(26)]
    for source, destination, _ in steps:
        if destination != OFF:
            mine[source] -= 1
            mine[destination] += 1
    return all(mine[p] <= 0 for p in range(7, 26))


def _dice_for_step(source: int, destination: int, roll: Roll) -> int:
    """How many dice a step of this length needs (0 if no combination fits)."""
    distance = source - destination
    if roll.is_double:
        if destination == OFF:
            return max(1, -(-distance // roll.die1)) if distance <= 4 * roll.die1 else 0
        return distance // roll.die1 if distance % roll.die1 == 0 and distance <= 4 * roll.die1 else 0
    if destination == OFF:
        if distance <= roll.high:
            return 1
        return 2 if distance <= roll.die1 + roll.die2 else 0
    if distance in (roll.die1, roll.die2):
        return 1
    if distance == roll.die1 + roll.die2:
        return 2
    return 0
