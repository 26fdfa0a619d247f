"""The board's other games: what plakoto, fevga and long nardy share (docs/rules.md sections 20-23).

Each game is a :class:`Rules` (:mod:`engine.plakoto`, :mod:`engine.fevga`,
:mod:`engine.nardy`). They share a position value, a move generator that
applies the maximum-use rules of every tables game (play both dice if you
can, the larger if only one, doubles four times, a checker taking two dice
touches down in between), notation, a position ID, and a game with an
action log (:class:`engine.variants.TablesGame`).

Numbering, as in backgammon, is the mover's own: points 1..24, the home
board 1..6, moves go from high numbers to low ones, ``0`` is off. There is
no bar: nobody is hit. Where the opponent stands in our numbering depends on
the game: in plakoto they run the other way (their point ``q`` is our
``25 - q``, backgammon's mirror); in fevga and nardy both sides run the same
way from diagonally opposite corners (their ``q`` is our ``q + 12`` for
``q <= 12``, else ``q - 12``).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from dataclasses import dataclass

from engine.dice import Roll
from engine.notation import IllegalPlayError, parse_moves
from engine.play import Move, format_moves
from engine.reasons import Reason, game_name

CHECKERS = 15
HOME = range(1, 7)
HEAD = 24
"""Every game here starts all fifteen checkers on the mover's point 24 (the
head, the mother's point)."""


class TablesIdError(ValueError):
    """Raised when a position ID of one of these games cannot be read."""


class TablesPositionError(ValueError):
    """Raised when a position of one of these games is impossible."""


@dataclass(frozen=True, slots=True)
class TablesPosition:
    """An immutable position of plakoto, fevga or nardy, seen from the player on roll.

    ``points[p - 1]`` is point ``p`` in our numbering: positive counts are
    our checkers, negative the opponent's (the checkers on top, for plakoto).
    ``pins[p - 1]`` is ``1`` when one of *our* checkers lies pinned under the
    opponent's on that point, ``-1`` when one of *theirs* lies pinned under
    ours, else 0 (plakoto only). ``off`` is (ours, theirs) borne off.
    """

    game: str
    points: tuple[int, ...]
    pins: tuple[int, ...] = (0,) * 24
    off: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        self.validate()

    def __deepcopy__(self, memo: dict[int, object]) -> TablesPosition:
        return self

    def validate(self) -> None:
        """:raises TablesPositionError: naming what is wrong (checker counts, a pin with nothing on top)."""
        if self.game not in GAMES:
            raise TablesPositionError(Reason("no such game {game!r}", game=self.game))
        if len(self.points) != 24 or len(self.pins) != 24:
            raise TablesPositionError(Reason("a board has 24 points"))
        for index, (count, pin) in enumerate(zip(self.points, self.pins, strict=True)):
            if pin not in (-1, 0, 1):
                raise TablesPositionError(Reason("point {value}: a pin is 1 (ours), -1 (theirs) or 0", value=index + 1))
            if pin and (count == 0 or (count > 0) == (pin > 0)):
                raise TablesPositionError(
                    Reason("point {value}: a pinned checker lies under the other side's", value=index + 1)
                )
            if pin and self.game != "plakoto":
                raise TablesPositionError(Reason("only plakoto pins checkers ({game})", game=game_name(self.game)))
        if any(n < 0 for n in self.off):
            raise TablesPositionError(Reason("off counts cannot be negative"))
        ours, theirs = self.counts()
        if ours != CHECKERS or theirs != CHECKERS:
            raise TablesPositionError(
                Reason(
                    "each side has {CHECKERS} checkers, not {ours} and {theirs}",
                    CHECKERS=CHECKERS,
                    ours=ours,
                    theirs=theirs,
                )
            )

    def counts(self) -> tuple[int, int]:
        """Checkers of each side, on the board (pinned included) and off."""
        ours = sum(n for n in self.points if n > 0) + sum(1 for p in self.pins if p > 0) + self.off[0]
        theirs = -sum(n for n in self.points if n < 0) + sum(1 for p in self.pins if p < 0) + self.off[1]
        return ours, theirs

    def swap(self) -> TablesPosition:
        """The same position seen from the opponent (now on roll)."""
        if self.game in OPPOSITE:
            points = tuple(-n for n in reversed(self.points))
            pins = tuple(-n for n in reversed(self.pins))
        else:
            points = tuple(-n for n in self.points[12:] + self.points[:12])
            pins = tuple(-n for n in self.pins[12:] + self.pins[:12])
        return _unchecked(self.game, points, pins, (self.off[1], self.off[0]))

    def their_point(self, point: int) -> int:
        """Our point ``point`` in the opponent's numbering."""
        if self.game in OPPOSITE:
            return 25 - point
        return point + 12 if point <= 12 else point - 12

    def pip_counts(self) -> tuple[int, int]:
        """Pips each side needs to bear everything off: (ours, theirs)."""
        ours = theirs = 0
        for index, (count, pin) in enumerate(zip(self.points, self.pins, strict=True)):
            point = index + 1
            mine = max(count, 0) + (1 if pin > 0 else 0)
            other = max(-count, 0) + (1 if pin < 0 else 0)
            ours += mine * point
            theirs += other * self.their_point(point)
        return ours, theirs

    def position_id(self) -> str:
        """A 43-character ID (URL-safe base64 of 32 bytes: the game, then each
        point's two counts and the pins): :func:`decode_tables_id` reads it back."""
        data = bytearray([GAMES.index(self.game)])
        for count, pin in zip(self.points, self.pins, strict=True):
            ours, theirs = max(count, 0), max(-count, 0)
            data.append(ours << 4 | theirs)
            data.append(pin & 3)
        packed = bytearray([data[0]])
        packed += bytes(data[1::2])
        pins = data[2::2]
        for i in range(0, 24, 4):
            packed.append(pins[i] | pins[i + 1] << 2 | pins[i + 2] << 4 | pins[i + 3] << 6)
        packed += bytes([self.off[0] << 4 | self.off[1]])
        return base64.urlsafe_b64encode(bytes(packed)).decode("ascii").rstrip("=")

    def __str__(self) -> str:
        return self.position_id()


def tables_position(
    game: str, ours: dict[int, int], theirs: dict[int, int], pins: dict[int, int] | None = None
) -> TablesPosition:
    """A position from ``{point: checkers}`` maps, both in the mover's numbering
    (the checkers on top of each point); ``pins`` as ``{point: 1}`` (ours pinned
    there) or ``{point: -1}`` (theirs); checkers not placed are borne off.

    :raises TablesPositionError: for an impossible position.
    """
    points = [0] * 24
    for point, n in ours.items():
        points[point - 1] = n
    for point, n in theirs.items():
        if points[point - 1]:
            raise TablesPositionError(Reason("point {point} has both sides' checkers on top", point=point))
        points[point - 1] = -n
    pin_list = [0] * 24
    for point, value in (pins or {}).items():
        pin_list[point - 1] = value
    mine = sum(ours.values()) + pin_list.count(1)
    other = sum(theirs.values()) + pin_list.count(-1)
    return TablesPosition(game, tuple(points), tuple(pin_list), (CHECKERS - mine, CHECKERS - other))


def _unchecked(game: str, points: tuple[int, ...], pins: tuple[int, ...], off: tuple[int, int]) -> TablesPosition:
    position = object.__new__(TablesPosition)
    object.__setattr__(position, "game", game)
    object.__setattr__(position, "points", points)
    object.__setattr__(position, "pins", pins)
    object.__setattr__(position, "off", off)
    return position


def decode_tables_id(text: str) -> TablesPosition:
    """Read :meth:`TablesPosition.position_id` back.

    :raises TablesIdError: for text that is not such an ID or names an impossible position.
    """
    text = text.strip()
    if len(text) != 43:
        raise TablesIdError(Reason("a position ID of these games has 43 characters, not {text}", text=len(text)))
    try:
        data = base64.urlsafe_b64decode(text + "==")
    except (binascii.Error, ValueError):
        raise TablesIdError(Reason("{value!r} is not base64", value=text[:50])) from None
    if len(data) != 32 or data[0] >= len(GAMES):
        raise TablesIdError(Reason("{value!r} is not a position ID of plakoto, fevga or nardy", value=text[:50]))
    game = GAMES[data[0]]
    points = tuple((b >> 4) - (b & 15) for b in data[1:25])
    if any((b >> 4) and (b & 15) for b in data[1:25]):
        raise TablesIdError(Reason("{text!r}: a point holds both sides' checkers on top", text=text))
    pins_raw = []
    for b in data[25:31]:
        pins_raw.extend([(b >> s) & 3 for s in (0, 2, 4, 6)])
    if 2 in pins_raw:
        raise TablesIdError(Reason("{text!r}: a pin is 1 (ours), -1 (theirs) or 0", text=text))
    pins = tuple(-1 if p == 3 else p for p in pins_raw)
    off = (data[31] >> 4, data[31] & 15)
    try:
        return TablesPosition(game, points, pins, off)
    except TablesPositionError as error:
        raise TablesIdError(Reason("{text!r}: {error}", text=text, error=error)) from None


@dataclass(frozen=True, slots=True)
class TablesPlay:
    """A whole turn: the moves in order (``hit`` marks a pin, plakoto) and the position after, still seen
    from the mover. An empty play is a lost turn."""

    moves: tuple[Move, ...]
    position: TablesPosition

    def __deepcopy__(self, memo: dict[int, object]) -> TablesPlay:
        return self

    def __str__(self) -> str:
        return format_moves(self.moves)


def format_tables_play(play: TablesPlay) -> str:
    """The canonical spelling (GNU Backgammon's style: ``24/18 13/10``, ``8/5(2)``, ``*`` a pin)."""
    return format_moves(play.moves)


# -- the move generator ---------------------------------------------------------
#
# The search works on flat lists: a[1..24] signed counts, a[0] our checkers
# off; pins on a parallel list (plakoto). A state is the tuple of both.


class Rules:
    """What one game adds to the common movement. Subclasses set the class
    attributes and override the hooks."""

    name = ""
    opposite = False
    """True when the opponent runs the other way (plakoto); else the same way from the opposite corner."""
    single_holds = True
    """A single opposing checker blocks a point (fevga, nardy); else it can be pinned (plakoto)."""

    def start(self) -> TablesPosition:
        """All fifteen on each side's point 24."""
        points = [0] * 24
        points[HEAD - 1] = CHECKERS
        theirs = 1 if self.opposite else 12  # their 24 in our numbering
        points[theirs - 1] = -CHECKERS
        return TablesPosition(self.name, tuple(points))

    def may_leave_head(self, a: list[int], start_head: int, first_turn: bool, roll: Roll) -> bool:
        """Whether one more checker may leave point 24 now (nardy, fevga)."""
        return True

    def allowed(self, a: list[int], off_theirs: int, destination: int) -> bool:
        """Whether the board after a move landing on ``destination`` is legal (the block rules of fevga and nardy)."""
        return True

    def result(self, position: TablesPosition) -> tuple[int, str] | None:
        """After the mover's play (``position`` still seen from the mover): None
        while the game goes on, else (multiplier, reason) for the mover's win."""
        if position.off[0] == CHECKERS:
            return (1 if position.off[1] else 2), "bearoff"
        return None

    def win_name(self, multiplier: int, reason: str) -> str:
        return {1: "a single game", 2: "a double game", 3: "a triple game"}[multiplier]


def legal_tables_plays(
    rules: Rules, position: TablesPosition, roll: Roll, *, first_turn: bool = False
) -> list[TablesPlay]:
    """Every legal play of ``roll``, one per resulting position.

    The common rules: each die moves one checker forward to an open point; a
    checker taking both dice touches down in between; the play uses as many
    dice as can be used (four with doubles); if only one die of two can be
    used, the larger when it can; bearing off needs all fifteen home (and, in
    plakoto, none pinned), a die bears off from its point or, with none
    higher, from the highest. The game's own rules come from ``rules``.
    ``first_turn`` is the mover's first play of the game (nardy's doubles).
    """
    a = [position.off[0], *position.points]
    pins = [0, *position.pins]
    results: _Results = {}
    context = _Context(rules, position.off[1], a[HEAD], first_turn, roll)
    if roll.is_double:
        best = _search(context, a, pins, [roll.die1] * 4, (), 0, results, set())
    else:
        best = max(
            _search_pair(context, a, pins, roll.die1, roll.die2, results),
            _search_pair(context, a, pins, roll.die2, roll.die1, results),
        )
    if best == 0:
        return [TablesPlay((), position)]
    larger_only = best == 1 and not roll.is_double and any(first == roll.high for _, first, _ in results.values())
    plays = []
    for key, (moves, first, pins_after) in results.items():
        if len(moves) != best or (larger_only and first != roll.high):
            continue
        after = _unchecked(position.game, key[1:25], tuple(pins_after[1:]), (key[0], position.off[1]))
        plays.append(TablesPlay(tuple(Move(*m) for m in moves), after))
    return plays


_Results = dict[tuple[int, ...], tuple[tuple[tuple[int, int, bool], ...], int, list[int]]]
"""Final counts -> (the moves that reach them, the die of the first move, the pins there)."""


@dataclass(slots=True)
class _Context:
    rules: Rules
    off_theirs: int
    start_head: int
    first_turn: bool
    roll: Roll


def mobility(rules: Rules, position: TablesPosition) -> int:
    """How many single moves (a checker and a die, 1 to 6) the player on roll
    could make now, under every rule of the game: a measure of how free
    they are, for the computer's evaluation."""
    a = [position.off[0], *position.points]
    pins = [0, *position.pins]
    total = 0
    for die in range(1, 7):
        context = _Context(rules, position.off[1], a[HEAD], False, Roll(die, die))
        total += len(_single_moves(context, a, pins, die))
    return total


def _single_moves(context: _Context, a: list[int], pins: list[int], die: int) -> list[tuple[int, int, bool]]:
    rules = context.rules
    found = []
    # Bearing off: nothing of ours above point 6, nothing of ours pinned.
    home = all(n <= 0 for n in a[7:25]) and 1 not in pins
    highest = 0
    if home:
        for p in range(6, 0, -1):
            if a[p] > 0:
                highest = p
                break
    single_holds = rules.single_holds
    for source in range(24, 0, -1):
        if a[source] <= 0:
            continue
        if source == HEAD and not rules.may_leave_head(a, context.start_head, context.first_turn, context.roll):
            continue
        destination = source - die
        if destination >= 1:
            n = a[destination]
            if n >= 0:
                found.append((source, destination, False))
            elif not single_holds and n == -1 and pins[destination] == 0:
                found.append((source, destination, True))
        elif home and (destination == 0 or source == highest):
            found.append((source, 0, False))
    return found


def _apply(a: list[int], pins: list[int], move: tuple[int, int, bool]) -> tuple[list[int], list[int]]:
    source, destination, pin = move
    b, q = a.copy(), pins
    b[source] -= 1
    if b[source] == 0 and pins[source] == -1:
        q = pins.copy()  # the last pinner leaves: their checker is free again
        q[source] = 0
        b[source] = -1
    if destination == 0:
        b[0] += 1
    elif pin:
        if q is pins:
            q = pins.copy()
        q[destination] = -1
        b[destination] = 1
    else:
        b[destination] += 1
    return b, q


def _search_pair(context: _Context, a: list[int], pins: list[int], first: int, second: int, results: _Results) -> int:
    """Play ``first`` then ``second`` (two different dice); record every end; return the most dice used.
    The same search as :func:`_search`, unrolled: most rolls are not doubles."""
    allowed = context.rules.allowed
    off_theirs = context.off_theirs
    best = 0
    for move in _single_moves(context, a, pins, first):
        b, q = _apply(a, pins, move)
        if not allowed(b, off_theirs, move[1]):
            continue
        went = False
        for move2 in _single_moves(context, b, q, second):
            c, r = _apply(b, q, move2)
            if not allowed(c, off_theirs, move2[1]):
                continue
            went = True
            key = tuple(c)
            known = results.get(key)
            if known is None or len(known[0]) < 2:
                results[key] = ((move, move2), first, r)
        if went:
            best = 2
        else:
            best = max(best, 1)
            key = tuple(b)
            known = results.get(key)
            if known is None or (len(known[0]) == 1 and first > known[1]):
                results[key] = ((move,), first, q)
    return best


def _search(
    context: _Context,
    a: list[int],
    pins: list[int],
    dice: list[int],
    moves: tuple[tuple[int, int, bool], ...],
    first: int,
    results: _Results,
    seen: set[tuple[int, ...]],
) -> int:
    """Play ``dice`` in order as far as they go; record every end (with the
    die the first move used); return the most dice used."""
    candidates = _single_moves(context, a, pins, dice[0]) if dice else []
    best = len(moves)
    went = False
    rest = dice[1:]
    left = len(rest)
    allowed = context.rules.allowed
    off_theirs = context.off_theirs
    for move in candidates:
        b, q = _apply(a, pins, move)
        if not allowed(b, off_theirs, move[1]):
            continue
        went = True
        # The pins follow from the counts (a pin stands where we now stand on
        # what was their blot), so the counts alone tell states apart.
        key = (*b, left)
        if key in seen:
            continue
        seen.add(key)
        best = max(best, _search(context, b, q, rest, (*moves, move), first or dice[0], results, seen))
    if not went and moves:
        key = tuple(a)
        known = results.get(key)
        if known is None or len(known[0]) < len(moves) or (len(known[0]) == len(moves) == 1 and first > known[1]):
            results[key] = (moves, first, pins)
    return best


# -- the block rules of the same-way games (fevga, nardy) ------------------------

# Our points in the order the opponent meets them: their own 24 first.
_THEIR_ORDER = tuple(q - 12 if q > 12 else q + 12 for q in range(24, 0, -1))


_ORDER_INDEX = {point: index for index, point in enumerate(_THEIR_ORDER)}


def blocks_trapped(a: list[int], off_theirs: int, destination: int) -> bool:
    """Whether the move that just landed on ``destination`` makes us hold six
    or more points in a row (in the order the opponent runs) with none of the
    opponent's checkers past the block's far end (a checker borne off is past
    every point). ``a[1..24]`` in our numbering. Only a block through the
    landing point can be new: leaving a point only shortens blocks, and the
    opponent's checkers only move on."""
    if off_theirs or destination == 0:
        return False
    order = _THEIR_ORDER
    here = _ORDER_INDEX[destination]
    low = high = here
    while low > 0 and a[order[low - 1]] > 0:
        low -= 1
    while high < 23 and a[order[high + 1]] > 0:
        high += 1
    if high - low < 5:
        return False
    for index in range(23, high, -1):
        if a[order[index]] < 0:
            return False  # a checker of theirs is past the block
    return True


def audit_play(
    rules: Rules, before: TablesPosition, play: TablesPlay, roll: Roll, *, first_turn: bool = False
) -> list[str]:
    """What is wrong with ``play`` of ``roll`` from ``before``, checked
    independently of the generator (for tests and benches): fifteen
    checkers a side, pins only under the other side, the opponent's
    checkers untouched, moves of the dice thrown, and the game's own rules
    on the final board. An empty list: nothing wrong."""
    errors: list[str] = []
    after = play.position
    try:
        after.validate()
    except TablesPositionError as error:
        errors.append(str(error))
    dice = sorted(roll.moves(), reverse=True)
    for move in play.moves:
        distance = move.source - move.destination
        if move.destination != 0 and distance not in dice:
            errors.append(f"{move.source}/{move.destination} is no die of {roll}")
    if len(play.moves) > len(dice):
        errors.append(f"{len(play.moves)} moves for {roll}")
    theirs_after = [
        min(n, 0) if not (n > 0 and pin == -1) else -1 for n, pin in zip(after.points, after.pins, strict=True)
    ]
    theirs_before = [
        min(n, 0) if not (n > 0 and pin == -1) else -1 for n, pin in zip(before.points, before.pins, strict=True)
    ]
    if theirs_before != theirs_after or before.off[1] != after.off[1]:
        errors.append("the opponent's checkers moved")
    if after.off[0] and any(n > 0 for n in after.points[6:]):
        errors.append("borne off with a checker outside the home board")
    a = [after.off[0], *after.points]
    if rules.name in ("fevga", "nardy"):
        for point in range(1, 25):
            if a[point] > 0 and blocks_trapped(a, after.off[1], point):
                errors.append(f"a block of six through {point} traps every opposing checker")
                break
    if rules.name == "fevga" and all(n > 0 for n in after.points[18:]):
        errors.append("all six points of the starting quarter held")
    if rules.name == "nardy":
        left = before.points[HEAD - 1] - after.points[HEAD - 1]
        limit = 2 if first_turn and roll.is_double and roll.die1 in (3, 4, 6) else 1
        if left > limit:
            errors.append(f"{left} checkers left the head")
    return errors


# -- reading plays ----------------------------------------------------------------


def _flow(moves: Iterable[tuple[int, int]]) -> dict[int, int]:
    flow: dict[int, int] = {}
    for source, destination in moves:
        flow[source] = flow.get(source, 0) - 1
        flow[destination] = flow.get(destination, 0) + 1
    return {point: n for point, n in flow.items() if n}


def match_tables_play(position: TablesPosition, roll: Roll, text: str, plays: list[TablesPlay]) -> TablesPlay:
    """The legal play ``text`` means: any spelling whose checkers go where a
    legal play's go (orders, chains, single hops, ``*`` or not).

    :raises NotationError: for text that is not a play at all.
    :raises IllegalPlayError: for a readable play that is not legal here.
    """
    steps = parse_moves(text)
    if any(source > 24 or destination > 24 for source, destination, _ in steps):
        raise IllegalPlayError(text, Reason("there is no bar in {game}: nobody is hit", game=game_name(position.game)))
    wanted = _flow((s, d) for s, d, _ in steps)
    for play in plays:
        if _flow((m.source, m.destination) for m in play.moves) == wanted:
            return play
    if not steps and plays and plays[0].moves:
        raise IllegalPlayError(text, Reason("the {roll} can be played: a play is needed", roll=roll))
    raise IllegalPlayError(text, Reason("that is not a legal play of {high}-{low} here", high=roll.high, low=roll.low))


GAMES = ("plakoto", "fevga", "nardy")
"""The games played on this module's positions, in the order of their position IDs' first byte."""

OPPOSITE = frozenset({"plakoto"})
"""The games whose two sides run in opposite directions (the others run the same way)."""
