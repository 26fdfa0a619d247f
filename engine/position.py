"""Positions: where the 30 checkers stand, seen from the player on roll.

Points are numbered from the point of view of the player on roll ("us"):
1..6 is our home board, 24 is the opponent's ace point, and we move from high
numbers to low numbers. Our bar is point 25 and "off" is point 0. Point ``p``
for us is point ``25 - p`` for the opponent (docs/rules.md section 1). The
GNU Backgammon Position ID codec is here too (section 13).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from engine.reasons import Reason

CHECKERS = 15
"""Checkers per side."""

BAR = 25
"""The bar, as a point number in the mover's own numbering."""

OFF = 0
"""Borne off, as a point number in the mover's own numbering."""


class PositionError(ValueError):
    """Raised when a position is impossible (wrong checker count, shared point, ...)."""


class IdError(ValueError):
    """Raised when a Position ID or Match ID cannot be decoded."""


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable, hashable backgammon position seen from the player on roll.

    ``board[p - 1]`` holds point ``p`` (1..24, our numbering): a positive count
    is our checkers, a negative count the opponent's. ``bar`` and ``off`` are
    pairs ``(ours, theirs)``.
    """

    board: tuple[int, ...]
    """24 signed counts; index ``p - 1`` is point ``p`` from our side."""
    bar: tuple[int, int] = (0, 0)
    """Checkers on the bar: (ours, the opponent's)."""
    off: tuple[int, int] = (0, 0)
    """Checkers borne off: (ours, the opponent's)."""

    def __deepcopy__(self, memo: dict[int, object]) -> Position:
        return self  # immutable: copies of a game share it

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Pickled for the drawing workers with every board: its three tuples,
        # not the generic state of a slotted dataclass (valid when pickled).
        return unchecked_position, (self.board, self.bar, self.off)

    def __post_init__(self) -> None:
        self.validate()

    # -- construction -----------------------------------------------------

    @classmethod
    def start(cls) -> Position:
        """The starting position: 2 on 24, 5 on 13, 3 on 8, 5 on 6 for each side."""
        return STARTING_POSITION

    @classmethod
    def from_counts(
        cls,
        ours: dict[int, int],
        theirs: dict[int, int],
    ) -> Position:
        """Build a position from ``{point: count}`` maps, each in its owner's numbering.

        Point 25 is that side's bar. Checkers not placed are borne off.
        """
        board = [0] * 24
        for point, count in ours.items():
            if 1 <= point <= 24:
                board[point - 1] += count
        for point, count in theirs.items():
            if 1 <= point <= 24:
                if board[24 - point] > 0 and count > 0:
                    raise PositionError(Reason("point {value} is held by both sides", value=25 - point))
                board[24 - point] -= count
        our_bar = ours.get(BAR, 0)
        their_bar = theirs.get(BAR, 0)
        our_total = sum(c for p, c in ours.items() if 1 <= p <= BAR)
        their_total = sum(c for p, c in theirs.items() if 1 <= p <= BAR)
        return cls(
            tuple(board),
            (our_bar, their_bar),
            (CHECKERS - our_total, CHECKERS - their_total),
        )

    @classmethod
    def from_position_id(cls, position_id: str) -> Position:
        """Decode a GNU Backgammon Position ID (the player on roll is encoded second).

        :raises IdError: if the text is not a well-formed, possible Position ID.
        """
        return decode_position_id(position_id)

    def position_id(self) -> str:
        """The GNU Backgammon Position ID of this position, player on roll to move."""
        return encode_position_id(self)

    # -- queries ------------------------------------------------------------

    def validate(self) -> None:
        """Check the position can occur: 15 checkers a side, nothing negative.

        :raises PositionError: naming what is wrong.
        """
        if len(self.board) != 24:
            raise PositionError(Reason("a board has 24 points, not {board}", board=len(self.board)))
        on_board = sum(n for n in self.board if n > 0) + self.bar[0]
        their_on_board = -sum(n for n in self.board if n < 0) + self.bar[1]
        if on_board > CHECKERS:
            raise PositionError(
                Reason("the player on roll has {ours} checkers, not {CHECKERS}", ours=on_board, CHECKERS=CHECKERS)
            )
        if their_on_board > CHECKERS:
            raise PositionError(
                Reason("the opponent has {theirs} checkers, not {CHECKERS}", theirs=their_on_board, CHECKERS=CHECKERS)
            )
        if any(n < 0 for n in self.bar) or any(n < 0 for n in self.off):
            raise PositionError(Reason("bar and off counts cannot be negative"))
        ours = on_board + self.off[0]
        theirs = their_on_board + self.off[1]
        if ours != CHECKERS:
            raise PositionError(
                Reason("the player on roll has {ours} checkers, not {CHECKERS}", ours=ours, CHECKERS=CHECKERS)
            )
        if theirs != CHECKERS:
            raise PositionError(
                Reason("the opponent has {theirs} checkers, not {CHECKERS}", theirs=theirs, CHECKERS=CHECKERS)
            )

    def ours(self, point: int) -> int:
        """How many of our checkers stand on ``point`` (25 = our bar, 0 = off)."""
        if point == BAR:
            return self.bar[0]
        if point == OFF:
            return self.off[0]
        n = self.board[point - 1]
        return n if n > 0 else 0

    def theirs(self, point: int) -> int:
        """How many opponent checkers stand on our ``point`` (1..24)."""
        n = self.board[point - 1]
        return -n if n < 0 else 0

    def side_counts(self, *, on_roll: bool) -> list[int]:
        """25 checker counts for one side in its own numbering: index ``i`` is
        point ``i + 1``, index 24 its bar (GNU Backgammon's ``anBoard[side]``)."""
        if on_roll:
            return [max(n, 0) for n in self.board] + [self.bar[0]]
        return [max(-n, 0) for n in reversed(self.board)] + [self.bar[1]]

    def swap(self) -> Position:
        """The same position seen from the opponent's side (they are now on roll)."""
        return unchecked_position(
            tuple(-n for n in reversed(self.board)),
            (self.bar[1], self.bar[0]),
            (self.off[1], self.off[0]),
        )

    def pip_counts(self) -> tuple[int, int]:
        """Pips each side needs to bear off everything: (ours, the opponent's)."""
        ours = 25 * self.bar[0]
        theirs = 25 * self.bar[1]
        for index, n in enumerate(self.board):
            if n > 0:
                ours += n * (index + 1)
            elif n < 0:
                theirs += -n * (24 - index)
        return ours, theirs

    def all_home(self) -> bool:
        """True when all our checkers are in our home board or borne off."""
        return self.bar[0] == 0 and all(n <= 0 for n in self.board[6:])

    def is_closed_out(self) -> bool:
        """True when we are on the bar and the opponent holds all six of their home points."""
        return self.bar[0] > 0 and all(n <= -2 for n in self.board[18:])

    def __str__(self) -> str:
        return self.position_id()

    def __repr__(self) -> str:
        return f"Position.from_position_id({self.position_id()!r})"


def unchecked_position(board: tuple[int, ...], bar: tuple[int, int], off: tuple[int, int]) -> Position:
    """A Position built without validation: only for positions derived from
    valid ones by legal steps (the move generator makes thousands a second)."""
    position = object.__new__(Position)
    object.__setattr__(position, "board", board)
    object.__setattr__(position, "bar", bar)
    object.__setattr__(position, "off", off)
    return position


_START_BOARD = [0] * 24
for _point, _count in ((24, 2), (13, 5), (8, 3), (6, 5)):
    _START_BOARD[_point - 1] = _count
    _START_BOARD[24 - _point] = -_count
STARTING_POSITION = Position(tuple(_START_BOARD))
_START_BOARD = [0] * 24
for _point, _count in ((24, 2), (23, 2), (13, 4), (8, 3), (6, 4)):
    _START_BOARD[_point - 1] = _count
    _START_BOARD[24 - _point] = -_count
NACKGAMMON_POSITION = Position(tuple(_START_BOARD))
"""Nackgammon's start (Nick Ballard's variant): 2 on 24, 2 on 23, 4 on 13, 3 on 8, 4 on 6 a side."""
del _point, _count, _START_BOARD

STARTS: dict[str, Position] = {"standard": STARTING_POSITION, "nackgammon": NACKGAMMON_POSITION}
"""The starting positions a game may be played from (``GameSettings.start``)."""


# -- the GNU Backgammon Position ID (formats: shared research, "Position ID") -----
#
# The ID packs both sides' checkers, each from its own side: first the player
# *not* on roll, then the player on roll (GNU Backgammon writes ``anBoard[0]``
# first and ``anBoard[1]`` is on roll).


def bits_to_bytes(bits: list[int], size: int) -> bytes:
    """Pack bits into ``size`` bytes, least significant bit first (both GNU Backgammon IDs)."""
    data = bytearray(size)
    for k, bit in enumerate(bits):
        if bit:
            data[k >> 3] |= 1 << (k & 7)
    return bytes(data)


def bytes_to_bits(data: bytes) -> list[int]:
    """The bits of ``data``, least significant bit of each byte first."""
    return [(data[k >> 3] >> (k & 7)) & 1 for k in range(len(data) * 8)]


def encode_position_id(position: Position) -> str:
    """The 14-character Position ID, the player on roll to move."""
    bits: list[int] = []
    for counts in (position.side_counts(on_roll=False), position.side_counts(on_roll=True)):
        for n in counts:
            bits.extend([1] * n)
            bits.append(0)
    return base64.b64encode(bits_to_bytes(bits, 10)).decode("ascii")[:14]


def decode_position_id(position_id: str) -> Position:
    """Read a Position ID; the second side encoded is the player on roll.

    :raises IdError: if the text is not a well-formed, possible Position ID.
    """
    text = position_id.strip()
    if len(text) != 14:
        shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
        raise IdError(Reason("a Position ID has 14 characters, {shown} has {text}", shown=shown, text=len(text)))
    try:
        data = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError):
        raise IdError(Reason("{text!r} is not base64", text=text)) from None
    if len(data) != 10:  # padding ("=") inside the 14 characters
        raise IdError(Reason("{text!r} is not a Position ID: it holds {data} bytes, not 10", text=text, data=len(data)))
    bits = bytes_to_bits(data)
    sides: list[list[int]] = [[0] * 25, [0] * 25]
    side, index = 0, 0
    for bit in bits:
        if side == 2:
            break
        if bit:
            sides[side][index] += 1
        else:
            index += 1
            if index == 25:
                side, index = side + 1, 0
    theirs, ours = sides
    if sum(theirs) > CHECKERS:
        raise IdError(Reason("{text!r}: the first side has {counts} checkers", text=text, counts=sum(theirs)))
    if sum(ours) > CHECKERS:
        raise IdError(Reason("{text!r}: the second side has {counts} checkers", text=text, counts=sum(ours)))
    board = [0] * 24
    for i in range(24):
        mine, their = ours[i], theirs[23 - i]
        if mine and their:
            raise IdError(Reason("{text!r}: point {value} is held by both sides", text=text, value=i + 1))
        board[i] = mine - their
    try:
        return Position(
            tuple(board),
            (ours[24], theirs[24]),
            (CHECKERS - sum(ours), CHECKERS - sum(theirs)),
        )
    except PositionError as error:
        raise IdError(Reason("{text!r}: {error}", text=text, error=error)) from None
