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
from engine.reasons import Reason

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
            raise NotationError(text, i, Reason("unexpected {value!r}", value=text[i]))
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
            if value is None:
                raise NotationError(text, i, Reason("there is no point that high"))
            if value > BAR:
                raise NotationError(text, i, Reason("there is no point {name}", name=match.group("point")))
            if current is None:
                current = [(value, False)]
                chain_start = i
            elif expect_point:
                current.append((value, False))
            else:
                raise NotationError(text, i, Reason("two points with nothing between them"))
            expect_point = False
        elif kind == "sep":
            if current is None or expect_point:
                raise NotationError(text, i, Reason("{match!r} needs a point before it", match=match.group()))
            expect_point = True
        elif kind == "star":
            if current is None or expect_point:
                raise NotationError(text, i, Reason("'*' must follow a point"))
            point, _ = current[-1]
            current[-1] = (point, True)
        else:  # count
            repeated = current if current is not None else counted
            if repeated is None or expect_point or len(repeated) < 2:
                raise NotationError(text, i, Reason("a count like (2) must follow a move like 8/5"))
            digits = match.group("n")
            n = int(digits) if len(digits) <= 2 else 0
            if not 1 <= n <= 4:
                if len(digits) > 2:
                    raise NotationError(text, i, Reason("a move can be repeated 1 to 4 times"))
                raise NotationError(text, i, Reason("a move can be repeated 1 to 4 times, not {count}", count=digits))
            # A chain a space closed is already in once.
            for _ in range(n if current is not None else n - 1):
                chains.append(list(repeated))
            current = None
        counted = None
        i = match.end()
    if expect_point:
        raise NotationError(text, len(text) - 1, Reason("the move ends with a separator"))
    if current is not None:
        _close(text, current, chains, lone, chain_start)
    if lone:
        if len(lone) % 2:
            raise NotationError(text, lone[-1][2], Reason("a lone point: moves go from one point to another"))
        for k in range(0, len(lone), 2):
            (a, ma, _), (b, mb, _) = lone[k], lone[k + 1]
            chains.append([(a, ma), (b, mb)])
    steps: list[tuple[int, int, bool]] = []
    for chain in chains:
        for (source, _), (destination, marked) in zip(chain, chain[1:]):
            if source == OFF:
                raise NotationError(text, 0, Reason("a checker cannot move from off the board"))
            if destination == BAR:
                raise NotationError(text, 0, Reason("a checker cannot move to the bar"))
            if destination >= source:
                raise NotationError(
                    text,
                    0,
                    Reason(
                        "checkers move down: {source}/{destination} goes backwards",
                        source=format_point(source),
                        destination=format_point(destination),
                    ),
                )
            steps.append((source, destination, marked))
    if len(steps) > 8:
        raise NotationError(text, 0, Reason("too many moves"))
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
        raise IllegalPlayError(stripped, Reason("you have a legal play; type your moves, like 24/18 13/10"))
    steps = parse_moves(stripped)
    if len(plays) == 1 and not plays[0].moves:
        raise IllegalPlayError(
            stripped, Reason("no move is possible with {high}-{low}; the turn passes", high=roll.high, low=roll.low)
        )

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
        shown = [format_play(p) for p in candidates]
        # Translators: a choice of plays in notation ("13/7*, 13/7 or 8/2*"): {plays} all but the last
        options = Reason("{plays} or {play}", plays=", ".join(shown[:-1]), play=shown[-1])
        raise IllegalPlayError(stripped, Reason("say which: {options}", options=options))
    raise IllegalPlayError(stripped, _why_illegal(position, roll, steps, plays))


def _no_checker(position: Position, steps: list[tuple[int, int, bool]], point: int) -> Reason:
    if point == BAR:
        return Reason("you have no checker on the bar")
    if point == OFF:
        return Reason("a checker cannot come back from off the board")
    return Reason("you have no checker on point {point} to move", point=point)


def _why_illegal(position: Position, roll: Roll, steps: list[tuple[int, int, bool]], plays: list[Play]) -> Reason:
    """Explain, in a player's words, why typed steps are no legal play."""
    dice = roll.moves()
    best = len(plays[0].moves)
    if position.bar[0] and steps and steps[0][0] != BAR and not any(s == BAR for s, _, _ in steps):
        return Reason("enter from the bar first")
    for _, destination, _ in steps:
        if destination != OFF and position.theirs(destination) >= 2:
            return Reason("point {point} is blocked", point=destination)
        if destination == OFF and not _could_be_home(position, steps):
            return Reason("you can't bear off with a checker outside your home board")
    # Expand the steps into single-die moves where a step spans several dice.
    typed_dice = sum(_dice_for_step(s, d, roll) for s, d, _ in steps)
    for source, destination, _ in steps:
        if _dice_for_step(source, destination, roll) == 0:
            return Reason(
                "no die takes a checker from {source} to {destination} with {high}-{low}",
                source=format_point(source),
                destination=format_point(destination),
                high=roll.high,
                low=roll.low,
            )
    if typed_dice < best:
        if best == 2 and not roll.is_double:
            return Reason("both dice can be used: play both")
        return Reason(
            "{count} moves can be made with {high}-{low}: play {count}", count=best, high=roll.high, low=roll.low
        )
    if best == 1 and not roll.is_double and len(steps) == 1:
        return Reason("only one die can be played, and it must be the larger one ({high})", high=roll.high)
    if typed_dice > len(dice):
        return Reason("that is more moves than {high}-{low} allows", high=roll.high, low=roll.low)
    return Reason("that is not a legal play with {high}-{low}", high=roll.high, low=roll.low)


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
