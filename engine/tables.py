"""The board's other games: what plakoto, fevga and long nardy share (docs/rules.md sections 20-23).

Each game is a :class:`Rules` (:mod:`engine.plakoto`, :mod:`engine.fevga`,
:mod:`engine.nardy`). They share a position value, a move generator that
applies the maximum-use rules of every tables game (play both dice if you
can, the larger if only one, doubles four times, a checker taking two dice
touches down in between), notation, a position ID, and a game with an
action log (:class:`TablesGame`).

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
import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.dice import DiceSource, Roll, SecureDice
from engine.game import Action, GameError, GameResult, LogError
from engine.notation import IllegalPlayError, parse_moves
from engine.play import Move, format_moves

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
        if self.game not in RULES:
            raise TablesPositionError(f"no such game {self.game!r}")
        if len(self.points) != 24 or len(self.pins) != 24:
            raise TablesPositionError("a board has 24 points")
        for index, (count, pin) in enumerate(zip(self.points, self.pins, strict=True)):
            if pin not in (-1, 0, 1):
                raise TablesPositionError(f"point {index + 1}: a pin is 1 (ours), -1 (theirs) or 0")
            if pin and (count == 0 or (count > 0) == (pin > 0)):
                raise TablesPositionError(f"point {index + 1}: a pinned checker lies under the other side's")
            if pin and self.game != "plakoto":
                raise TablesPositionError(f"only plakoto pins checkers ({self.game})")
        if any(n < 0 for n in self.off):
            raise TablesPositionError("off counts cannot be negative")
        ours, theirs = self.counts()
        if ours != CHECKERS or theirs != CHECKERS:
            raise TablesPositionError(f"each side has {CHECKERS} checkers, not {ours} and {theirs}")

    def counts(self) -> tuple[int, int]:
        """Checkers of each side, on the board (pinned included) and off."""
        ours = sum(n for n in self.points if n > 0) + sum(1 for p in self.pins if p > 0) + self.off[0]
        theirs = -sum(n for n in self.points if n < 0) + sum(1 for p in self.pins if p < 0) + self.off[1]
        return ours, theirs

    def swap(self) -> TablesPosition:
        """The same position seen from the opponent (now on roll)."""
        if RULES[self.game].opposite:
            points = tuple(-n for n in reversed(self.points))
            pins = tuple(-n for n in reversed(self.pins))
        else:
            points = tuple(-n for n in self.points[12:] + self.points[:12])
            pins = tuple(-n for n in self.pins[12:] + self.pins[:12])
        return _unchecked(self.game, points, pins, (self.off[1], self.off[0]))

    def their_point(self, point: int) -> int:
        """Our point ``point`` in the opponent's numbering."""
        if RULES[self.game].opposite:
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
        raise TablesIdError(f"a position ID of these games has 43 characters, not {len(text)}")
    try:
        data = base64.urlsafe_b64decode(text + "==")
    except (binascii.Error, ValueError):
        raise TablesIdError(f"{text[:50]!r} is not base64") from None
    if len(data) != 32 or data[0] >= len(GAMES):
        raise TablesIdError(f"{text[:50]!r} is not a position ID of plakoto, fevga or nardy")
    game = GAMES[data[0]]
    points = tuple((b >> 4) - (b & 15) for b in data[1:25])
    if any((b >> 4) and (b & 15) for b in data[1:25]):
        raise TablesIdError(f"{text!r}: a point holds both sides' checkers on top")
    pins_raw = []
    for b in data[25:31]:
        pins_raw.extend([(b >> s) & 3 for s in (0, 2, 4, 6)])
    if 2 in pins_raw:
        raise TablesIdError(f"{text!r}: a pin is 1 (ours), -1 (theirs) or 0")
    pins = tuple(-1 if p == 3 else p for p in pins_raw)
    off = (data[31] >> 4, data[31] & 15)
    try:
        return TablesPosition(game, points, pins, off)
    except TablesPositionError as error:
        raise TablesIdError(f"{text!r}: {error}") from None


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
            _search(context, a, pins, [roll.die1, roll.die2], (), 0, results, set()),
            _search(context, a, pins, [roll.die2, roll.die1], (), 0, results, set()),
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
        raise IllegalPlayError(text, f"there is no bar in {position.game}: nobody is hit")
    wanted = _flow((s, d) for s, d, _ in steps)
    for play in plays:
        if _flow((m.source, m.destination) for m in play.moves) == wanted:
            return play
    if not steps and plays and plays[0].moves:
        raise IllegalPlayError(text, f"the {roll} can be played: a play is needed")
    raise IllegalPlayError(text, f"that is not a legal play of {roll.high}-{roll.low} here")


# -- a game ------------------------------------------------------------------------


class TablesPhase(enum.Enum):
    OPENING = "opening"
    ROLL = "roll"
    PLAY = "play"
    OVER = "over"


class TablesGame:
    """One game of plakoto, fevga or nardy, from the opening throw to the result.

    The opening: each player throws one die, a tie is thrown again, and the
    higher throws both dice for the first play (the Greek and the Russian
    custom alike). With ``starter`` given (the winner of the previous game,
    :class:`engine.tavli.Tavli`) there is no opening throw. Every accepted
    action is appended to :attr:`log` (:class:`engine.game.Action`);
    :meth:`replay` rebuilds the game from it. No cube, no resignations
    short of a forfeit.
    """

    def __init__(
        self,
        game: str,
        *,
        dice: DiceSource | None = None,
        starter: int | None = None,
        score: tuple[int, int] = (0, 0),
    ) -> None:
        if game not in RULES:
            raise GameError(f"no such game {game!r}: one of {', '.join(GAMES)}")
        self.rules = RULES[game]
        self.game = game
        self.dice_source: DiceSource = dice or SecureDice()
        self.score = score
        self.phase = TablesPhase.OPENING
        self.player_on_roll = self.turn = 0
        self.position = self.rules.start()
        self.dice: Roll | None = None
        self.plays_made = [0, 0]
        self.result: GameResult | None = None
        self.last_play: tuple[int, TablesPlay] | None = None
        self.log: list[Action] = []
        self._plays: list[TablesPlay] | None = None
        self._cursor = 0
        self.starter = starter
        if starter is not None:
            if starter not in (0, 1):
                raise GameError(f"there is no player {starter}")
            self.log.append(Action("throws_first", starter, auto=True))
            self.player_on_roll = self.turn = starter
            self.phase = TablesPhase.ROLL

    @classmethod
    def from_position(cls, position: TablesPosition, player: int = 0, *, dice: DiceSource | None = None) -> TablesGame:
        """A game set up at ``position`` (seen from ``player``, to roll), logged as ``setup``.

        :raises GameError: for a finished position or one of another game's kind.
        """
        game = cls(position.game, dice=dice)
        game._setup(position.position_id(), player)
        return game

    def _setup(self, text: str, player: int) -> None:
        if self.log:
            raise GameError("a game can only be set up before it starts")
        position = decode_tables_id(text)
        if position.game != self.game:
            raise GameError(f"that is a position of {position.game}, not {self.game}")
        if CHECKERS in position.off or self.rules.result(position) or self.rules.result(position.swap()):
            raise GameError("that position is a finished game")
        self.log.append(Action("setup", player, text=text))
        self.position = position
        self.player_on_roll = self.turn = _player(player)
        self.plays_made = [1, 1]  # past the first turns
        self.phase = TablesPhase.ROLL

    @property
    def is_over(self) -> bool:
        return self.phase is TablesPhase.OVER

    def position_for(self, player: int) -> TablesPosition:
        return self.position if player == self.player_on_roll else self.position.swap()

    def pip_counts(self) -> tuple[int, int]:
        ours, theirs = self.position.pip_counts()
        return (ours, theirs) if self.player_on_roll == 0 else (theirs, ours)

    def opening_roll(self, dice: tuple[int, int] | None = None) -> tuple[int, int]:
        """One die each (player 0's, player 1's); a tie is thrown again (with
        ``dice`` given, only that throw is made). The higher then rolls."""
        self._expect(TablesPhase.OPENING, None)
        while True:
            throw = dice or (self.dice_source.die(), self.dice_source.die())
            Roll(*throw)
            self.log.append(Action("opening", dice=(throw[0], throw[1])))
            if throw[0] != throw[1]:
                self.player_on_roll = self.turn = 0 if throw[0] > throw[1] else 1
                self.phase = TablesPhase.ROLL
                return throw
            if dice is not None:
                return throw

    def roll(self, player: int, dice: Roll | tuple[int, int] | None = None) -> Roll:
        """Throw both dice; a roll with no legal play is a lost turn, logged."""
        self._expect(TablesPhase.ROLL, player)
        thrown = (
            dice
            if isinstance(dice, Roll)
            else Roll(*dice)
            if dice
            else Roll(self.dice_source.die(), self.dice_source.die())
        )
        self.log.append(Action("roll", player, dice=(thrown.die1, thrown.die2)))
        self.dice = thrown
        self.phase = TablesPhase.PLAY
        self._plays = None
        plays = self.legal_plays()
        if len(plays) == 1 and not plays[0].moves:
            self.log.append(Action("play", player, text="", auto=True))
            self._after_play(player, plays[0])
        return thrown

    def legal_plays(self) -> list[TablesPlay]:
        if self.phase is not TablesPhase.PLAY or self.dice is None:
            return []
        if self._plays is None:
            first = self.plays_made[self.player_on_roll] == 0
            self._plays = legal_tables_plays(self.rules, self.position, self.dice, first_turn=first)
        return self._plays

    def legal_play_texts(self) -> tuple[str, ...]:
        return tuple(sorted(format_tables_play(play) for play in self.legal_plays()))

    def play(self, player: int, play: str | TablesPlay) -> TablesPlay:
        """Play the dice: notation (any spelling of a legal play) or a legal :class:`TablesPlay`.

        :raises GameError: out of turn or phase.
        :raises NotationError: unreadable notation.
        :raises IllegalPlayError: readable but not legal here.
        """
        self._expect(TablesPhase.PLAY, player)
        assert self.dice is not None
        plays = self.legal_plays()
        if isinstance(play, TablesPlay):
            if play not in plays:
                raise IllegalPlayError(str(play), "that is not a legal play of these dice")
            chosen = play
        else:
            chosen = match_tables_play(self.position, self.dice, play, plays)
        self.log.append(Action("play", player, text=format_tables_play(chosen)))
        self._after_play(player, chosen)
        return chosen

    def _after_play(self, player: int, chosen: TablesPlay) -> None:
        self.last_play = (player, chosen)
        self.plays_made[player] += 1
        self.position = chosen.position
        self.dice = None
        self._plays = None
        won = self.rules.result(self.position)
        if won is not None:
            multiplier, reason = won
            self._finish(player, multiplier, reason)
            return
        self.player_on_roll = self.turn = 1 - player
        self.position = self.position.swap()
        self.phase = TablesPhase.ROLL

    def forfeit(self, player: int, multiplier: int = 1, reason: str = "forfeit") -> GameResult:
        """``player`` gives up (or runs out of time): the opponent wins ``multiplier`` points."""
        if player not in (0, 1):
            raise GameError(f"there is no player {player}")
        if self.is_over:
            raise GameError("the game is over")
        if multiplier not in (1, 2, 3):
            raise GameError("a game is won single (1), double (2) or triple (3)")
        self.log.append(Action("forfeit", player, text=reason, value=multiplier))
        return self._finish(1 - player, multiplier, reason)

    def _finish(self, winner: int, multiplier: int, reason: str) -> GameResult:
        from engine.game import WinKind

        self.result = GameResult(winner=winner, kind=WinKind(multiplier), cube=1, points=multiplier, reason=reason)
        self.phase = TablesPhase.OVER
        self.dice = None
        self._plays = None
        return self.result

    def _expect(self, phase: TablesPhase, player: int | None) -> None:
        if self.phase is not phase:
            raise GameError(f"the game is in its {self.phase.value} phase, not {phase.value}")
        if player is not None and player != self.turn:
            raise GameError(f"it is player {self.turn}'s turn, not player {player}'s")

    # -- the log ----------------------------------------------------------------

    def apply(self, action: Action | dict[str, Any]) -> None:
        """Apply one logged action; an ``auto`` entry must be the one the game made itself."""
        if not isinstance(action, Action):
            action = Action.from_dict(action)
        if action.auto:
            if self._cursor < len(self.log) and self.log[self._cursor] == action:
                self._cursor += 1
                return
            if action.kind == "throws_first" and not self.log and action.player in (0, 1):
                self.__init__(self.game, dice=self.dice_source, starter=action.player, score=self.score)  # type: ignore[misc]
                self._cursor = len(self.log)
                return
            raise GameError(f"the log says {action.kind!r} happened by itself here, but it did not")
        start = len(self.log)
        kind, player = action.kind, action.player
        if kind == "opening":
            if action.dice is None:
                raise LogError("a logged opening needs its dice")
            self.opening_roll(action.dice)
        elif kind == "roll":
            self.roll(_player(player), action.dice)
        elif kind == "play":
            self.play(_player(player), action.text or "")
        elif kind == "forfeit":
            self.forfeit(_player(player), action.value or 1, action.text or "forfeit")
        elif kind == "setup":
            try:
                self._setup(action.text or "", _player(player))
            except TablesIdError as error:
                raise LogError(str(error)) from None
        else:
            raise LogError(f"{kind!r} is no action of {self.game}")
        self._cursor = start + 1

    @classmethod
    def replay(
        cls, game: str, actions: Iterable[Action | dict[str, Any]], *, dice: DiceSource | None = None
    ) -> TablesGame:
        """Rebuild a game from its log.

        :raises LogError: for an entry that is not an action.
        :raises GameError: for an action the game refuses at that point.
        """
        rebuilt = cls(game, dice=dice)
        for action in actions:
            rebuilt.apply(action)
        return rebuilt


def _player(player: int | None) -> int:
    if player not in (0, 1):
        raise GameError(f"the action names no player (got {player!r})")
    return player


GAMES = ("plakoto", "fevga", "nardy")
"""The games of this module, in the order of their position IDs' first byte."""

RULES: dict[str, Rules] = {}
"""Each game's :class:`Rules`, filled by its module."""


def register(rules: Rules) -> Rules:
    RULES[rules.name] = rules
    return rules


from engine import fevga, nardy, plakoto  # noqa: E402, F401  (each registers its rules)
