"""eXtreme Gammon's position ID (XGID), read and written.

An XGID is ten fields separated by ``:``, after an optional ``XGID=``::

    XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10
         board                      | | | |  | | | | max cube (log2)
                                    | | | |  | | | match length (0 = money)
                                    | | | |  | | rules
                                    | | | |  | top player's score
                                    | | | |  bottom player's score
                                    | | | dice
                                    | | turn
                                    | cube owner
                                    cube (log2)

- **board**, 26 characters from the *bottom* player's side: character 0 is
  the top player's bar, 1-24 the bottom player's points 1-24 (a checker of
  the top player at character ``i`` is on the top player's point ``25 - i``),
  25 the bottom player's bar. ``-`` is an empty point, ``A``-``P`` one to
  sixteen of the bottom player's checkers, ``a``-``p`` the top player's.
  Checkers not on the board are borne off.
- **cube**: the cube is ``2**cube``; with a double offered (dice ``D``), the
  cube before the double.
- **cube owner**: ``1`` the bottom player, ``-1`` the top player, ``0`` in the
  middle.
- **turn**: ``1`` the bottom player is on roll, ``-1`` the top player; with a
  double offered, the player who doubled (the other one answers).
- **dice**: ``00`` to roll (or double), two digits the dice thrown and still
  to be played (written high die first; either order is read), ``D`` a double
  offered and waiting for take or pass. eXtreme Gammon also writes ``B`` (a
  beaver waiting for the doubler's answer) and ``R`` (a raccoon): this engine
  cannot hold either (its beaver is final at once, the cube going to twice
  the offer and to the beaver; it has no raccoons), so they are refused
  with :class:`XgidError`, as GNU Backgammon refuses them.
- **scores**: the bottom player's, then the top player's (a money session's
  points so far).
- **rules**: in a match ``1`` for the Crawford game, ``0`` for any other; for
  money a bit field: ``1`` Jacoby, ``2`` beavers (``3`` both).
- **match length**: 0 for money.
- **max cube**: the highest cube is ``2**max_cube`` (eXtreme Gammon writes
  10, 1024; ``0`` means nobody may double).

The players are GNU Backgammon's, as its ``set xgid`` reads them: the bottom
player is player 1 of the Match ID, the top player player 0. So an XGID and a
GNU Backgammon ID (``PositionID:MatchID``) say the same thing in different
words, and :class:`Xgid` holds it in the engine's own shapes: a
:class:`~engine.position.Position` seen from the player on roll (as
``Game.from_gnubg_id`` reads a Position ID) and the Match ID's
:class:`~engine.gnubgid.MatchState`, plus the two things only an XGID says:
beavers and the max cube. An XGID always shows a game in play: no finished
game, no pending resignation and no opening throw still to come.

    >>> xgid = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")
    >>> xgid.state.dice, xgid.state.player_on_roll, xgid.beavers
    ((5, 2), 1, True)
    >>> xgid.gnubg_id()
    '4HPwATDgc/ABMA:cIkKAAAAAAAA'
    >>> str(xgid) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from engine.gnubgid import MAX_MATCH_LENGTH, MatchState, decode_match_id, encode_match_id
from engine.position import CHECKERS, IdError, Position, PositionError, decode_position_id, encode_position_id
from engine.reasons import Reason

__all__ = [
    "DEFAULT_MAX_CUBE",
    "MAX_CUBE",
    "PREFIX",
    "Xgid",
    "XgidError",
    "board_text",
    "format_xgid",
    "looks_like_xgid",
    "parse_xgid",
]

PREFIX = "XGID="

DEFAULT_MAX_CUBE = 1 << 10
"""The max cube eXtreme Gammon writes (field 10)."""

MAX_CUBE = 1 << 15
"""The highest cube an XGID may show here: the largest a GNU Backgammon Match
ID holds (4 bits of log2), so that every XGID read has a GNU Backgammon ID."""

MAX_SCORE = (1 << 15) - 1
"""The highest score a Match ID holds (a money session's points so far)."""

BOTTOM, TOP = 1, 0
"""The Match ID's players of the bottom and top player (GNU Backgammon's ``set xgid``)."""

_FIELDS = (
    "board",
    "cube",
    "cube owner",
    "turn",
    "dice",
    "bottom score",
    "top score",
    "rules",
    "match length",
    "max cube",
)
_NUMBER = re.compile(r"[+-]?\d{1,6}")
_BOARD = re.compile(r"[-A-Pa-p]{26}")


class XgidError(IdError):
    """An XGID that cannot be read, or a state an XGID cannot write.

    A :class:`~engine.position.IdError` (so a ``ValueError``): whoever reads
    GNU Backgammon IDs refuses these the same way. Its message quotes at most
    40 characters of the input."""


@dataclass(frozen=True, slots=True)
class Xgid:
    """What an XGID says, in the engine's shapes (see the module)."""

    position: Position
    """The checkers, seen from ``state.player_on_roll`` (the doubler while a double waits)."""
    state: MatchState
    """The Match ID's fields: player 1 is the bottom player. ``game_state`` is
    1 and ``resignation`` 0; ``turn`` is the player on roll, or the other one
    while a double waits; dice high die first; ``jacoby`` only in money games."""
    beavers: bool = False
    """Money: beavers are allowed (rules bit 2)."""
    max_cube: int = DEFAULT_MAX_CUBE
    """The highest the cube may go (a power of two; 1: nobody may double)."""

    def __str__(self) -> str:
        return format_xgid(self.position, self.state, beavers=self.beavers, max_cube=self.max_cube)

    def text(self) -> str:
        """The XGID, with its ``XGID=`` prefix."""
        return str(self)

    def position_id(self) -> str:
        return encode_position_id(self.position)

    def match_id(self) -> str:
        return encode_match_id(self.state)

    def gnubg_id(self) -> str:
        """``PositionID:MatchID``, as GNU Backgammon's ``set xgid`` makes it."""
        return f"{self.position_id()}:{self.match_id()}"

    @classmethod
    def from_gnubg_id(cls, gnubg_id: str, *, beavers: bool = False, max_cube: int = DEFAULT_MAX_CUBE) -> Xgid:
        """The XGID of ``PositionID:MatchID`` (a Position ID alone: money, player 0
        to roll). A Match ID's Jacoby bit counts in money games only.

        :raises IdError: if either ID is malformed.
        :raises XgidError: for a state an XGID cannot show (a game over or not
            begun, a resignation pending, the dice thrown for the player not to act).
        """
        position_id, _, match_id = gnubg_id.strip().partition(":")
        position = decode_position_id(position_id)
        state = decode_match_id(match_id) if match_id else MatchState(game_state=1)
        if state.match_length:
            state = replace(state, jacoby=False)
        if all(state.dice):
            state = replace(state, dice=(max(state.dice), min(state.dice)))
        xgid = cls(position, state, beavers=beavers, max_cube=max_cube)
        _check(xgid)
        return xgid


def looks_like_xgid(text: str) -> bool:
    """Whether ``text`` is meant as an XGID (its prefix, or a 26-character board
    and colons), whether or not it reads: tells it from a GNU Backgammon ID."""
    text = text.strip()
    return text[: len(PREFIX)].upper() == PREFIX or (len(text) > 26 and text[26] == ":" and ":" not in text[:26])


def parse_xgid(text: str) -> Xgid:
    """Read an XGID (the ``XGID=`` prefix optional, spaces around ignored).

    Besides the format (see the module), it must show a game that can be in
    play, as a GNU Backgammon ID must: at most 15 checkers a side (the rest
    borne off), each side with checkers still to bear off, a cube up to
    :data:`MAX_CUBE` and no higher than the max cube, a match of at most 64
    points with both scores below its length.

    :raises XgidError: saying what is wrong.
    """
    original = text
    text = text.strip()
    if text[: len(PREFIX)].upper() == PREFIX:
        text = text[len(PREFIX) :]
    fields = text.split(":")
    if len(fields) != len(_FIELDS):
        raise XgidError(
            Reason(
                "an XGID has {FIELDS} fields separated by ':' (board, cube, cube owner, turn, dice, bottom score, "
                "top score, rules, match length, max cube); {original} has {fields}",
                FIELDS=len(_FIELDS),
                original=_show(original),
                fields=len(fields),
            )
        )
    board, cube_text, owner_text, turn_text, dice_text, bottom_text, top_text, rules_text, length_text, max_text = (
        f.strip() for f in fields
    )
    if len(board) != 26:
        raise XgidError(
            Reason("an XGID's board has 26 characters, {board} has {board2}", board=_show(board), board2=len(board))
        )
    if not _BOARD.fullmatch(board):
        bad = next(c for c in board if not ("A" <= c <= "P" or "a" <= c <= "p" or c == "-"))
        raise XgidError(
            Reason(
                "{board}: an XGID's board holds '-' and the letters A-P (bottom player) and a-p (top player), not {bad!r}",
                board=_show(board),
                bad=bad,
            )
        )
    if board[0].isupper():
        raise XgidError(
            Reason(
                "{board}: character 0 is the top player's bar, so it holds a-p, not {value!r}",
                board=_show(board),
                value=board[0],
            )
        )
    if board[25].islower():
        raise XgidError(
            Reason(
                "{board}: character 25 is the bottom player's bar, so it holds A-P, not {value!r}",
                board=_show(board),
                value=board[25],
            )
        )

    cube_log = _number(cube_text, Reason("cube"), 0, 15, Reason("log2 of the cube, 0 (1) to 15 (32768)"))
    owner = _number(
        owner_text,
        Reason("cube owner"),
        -1,
        1,
        Reason("1 (bottom player), -1 (top player) or 0 (in the middle)"),
    )
    turn = _number(turn_text, Reason("turn"), -1, 1, Reason("1 (bottom player) or -1 (top player)"))
    if turn == 0:
        raise XgidError(Reason("the turn is 1 (bottom player) or -1 (top player), not 0"))
    length = _number(
        length_text,
        Reason("match length"),
        0,
        MAX_MATCH_LENGTH,
        Reason("0 (money) to {MAX_MATCH_LENGTH} points", MAX_MATCH_LENGTH=MAX_MATCH_LENGTH),
    )
    highest = length - 1 if length else MAX_SCORE
    scores = (
        Reason("below the match length ({length})", length=length)
        if length
        else Reason("0 to {MAX_SCORE}", MAX_SCORE=MAX_SCORE)
    )
    bottom_score = _number(bottom_text, Reason("bottom player's score"), 0, highest, scores)
    top_score = _number(top_text, Reason("top player's score"), 0, highest, scores)
    if length:
        rules = _number(rules_text, Reason("rules"), 0, 1, Reason("in a match 1 (the Crawford game) or 0"))
        crawford, jacoby, beavers = bool(rules), False, False
    else:
        rules = _number(rules_text, Reason("rules"), 0, 3, Reason("for money 0 to 3 (1 Jacoby + 2 beavers)"))
        crawford, jacoby, beavers = False, bool(rules & 1), bool(rules & 2)
    max_log = _number(max_text, Reason("max cube"), 0, 15, Reason("log2 of the highest cube, 0 to 15"))
    if cube_log > max_log:
        raise XgidError(
            Reason(
                "the cube shows {value}, past the XGID's own max cube {value2}",
                value=1 << cube_log,
                value2=1 << max_log,
            )
        )

    on_roll = BOTTOM if turn == 1 else TOP
    doubled = False
    dice = (0, 0)
    if dice_text.upper() == "B":
        raise XgidError(
            Reason(
                "dice {dice_text!r} means a beaver waiting for an answer, which this engine cannot hold: its beaver "
                "is final at once (the cube to twice the offer, owned by the beaver) and it has no raccoons; set up "
                "the position after it instead",
                dice_text=dice_text,
            )
        )
    if dice_text.upper() == "R":
        raise XgidError(
            Reason(
                "dice {dice_text!r} means a raccoon waiting for an answer, which this engine cannot hold: its beaver "
                "is final at once (the cube to twice the offer, owned by the beaver) and it has no raccoons; set up "
                "the position after it instead",
                dice_text=dice_text,
            )
        )
    if dice_text.upper() == "D":
        doubled = True
    elif re.fullmatch(r"[0-6]{2}", dice_text):
        high, low = sorted((int(dice_text[0]), int(dice_text[1])), reverse=True)
        if (high == 0) != (low == 0):
            raise XgidError(Reason("the dice are 00 (to roll) or two dice 1-6, not {dice_text!r}", dice_text=dice_text))
        dice = (high, low)
    else:
        raise XgidError(
            Reason(
                "the dice are 00 (to roll), two dice 1-6 (e.g. 52) or D (a double offered), not {dice_text}",
                dice_text=_show(dice_text),
            )
        )

    ours, theirs = _sides(board)  # bottom player's counts, top player's, each in its own numbering
    bottom, top = sum(ours.values()), sum(theirs.values())
    if bottom > CHECKERS:
        raise XgidError(
            Reason(
                "{board}: the bottom player has {total} checkers, not at most {CHECKERS}",
                board=_show(board),
                total=bottom,
                CHECKERS=CHECKERS,
            )
        )
    if bottom == 0:
        raise XgidError(
            Reason(
                "{board}: the bottom player has borne off all {CHECKERS} checkers: that game is over",
                board=_show(board),
                CHECKERS=CHECKERS,
            )
        )
    if top > CHECKERS:
        raise XgidError(
            Reason(
                "{board}: the top player has {total} checkers, not at most {CHECKERS}",
                board=_show(board),
                total=top,
                CHECKERS=CHECKERS,
            )
        )
    if top == 0:
        raise XgidError(
            Reason(
                "{board}: the top player has borne off all {CHECKERS} checkers: that game is over",
                board=_show(board),
                CHECKERS=CHECKERS,
            )
        )
    try:
        bottom_view = Position.from_counts(ours, theirs)
    except PositionError as error:  # cannot happen (one letter a point), but say so if it does
        raise XgidError(Reason("{board}: {error}", board=_show(board), error=error)) from None
    state = MatchState(
        cube=1 << cube_log,
        cube_owner={1: BOTTOM, -1: TOP, 0: None}[owner],
        player_on_roll=on_roll,
        crawford=crawford,
        game_state=1,
        turn=1 - on_roll if doubled else on_roll,
        double_offered=doubled,
        resignation=0,
        dice=dice,
        match_length=length,
        score=(top_score, bottom_score),
        jacoby=jacoby,
    )
    position = bottom_view if on_roll == BOTTOM else bottom_view.swap()
    return Xgid(position, state, beavers=beavers, max_cube=1 << max_log)


def format_xgid(
    position: Position, state: MatchState, *, beavers: bool = False, max_cube: int = DEFAULT_MAX_CUBE
) -> str:
    """The XGID of ``position`` (seen from ``state.player_on_roll``) and ``state``.

    Money games write their Jacoby (``state.jacoby``) and ``beavers`` rules;
    ``max_cube`` is the highest the cube may go (a power of two).

    :raises XgidError: for a state an XGID cannot show (a game over or not
        begun, a resignation pending, the dice thrown for the player not to
        act, dice with a double) or values out of its range.
    """
    xgid = Xgid(position, state, beavers=beavers, max_cube=max_cube)
    _check(xgid)
    bottom_view = position if state.player_on_roll == BOTTOM else position.swap()
    if state.double_offered:
        dice = "D"
    elif all(state.dice):
        dice = f"{max(state.dice)}{min(state.dice)}"
    else:
        dice = "00"
    rules = int(state.crawford) if state.match_length else int(state.jacoby) + 2 * int(beavers)
    owner = {None: 0, BOTTOM: 1, TOP: -1}[state.cube_owner]
    fields = (
        board_text(bottom_view),
        state.cube.bit_length() - 1,
        owner,
        1 if state.player_on_roll == BOTTOM else -1,
        dice,
        state.score[BOTTOM],
        state.score[TOP],
        rules,
        state.match_length,
        max_cube.bit_length() - 1,
    )
    return PREFIX + ":".join(str(f) for f in fields)


def board_text(position: Position) -> str:
    """The 26-character board of an XGID, ``position`` seen from the player
    written in capitals: character 0 is the other player's bar, 1-24 the
    capitals' points 1-24, 25 their bar."""
    cells = ["-"] * 26
    for index, count in enumerate(position.board):
        if count:
            cells[index + 1] = chr((ord("A") if count > 0 else ord("a")) + abs(count) - 1)
    if position.bar[0]:
        cells[25] = chr(ord("A") + position.bar[0] - 1)
    if position.bar[1]:
        cells[0] = chr(ord("a") + position.bar[1] - 1)
    return "".join(cells)


# -- helpers ------------------------------------------------------------------------


def _check(xgid: Xgid) -> None:
    """:raises XgidError: unless an XGID can show ``xgid``."""
    state, position = xgid.state, xgid.position
    if state.game_state != 1:
        if state.game_state == 0:
            raise XgidError(Reason("an XGID shows a game in play, not a game whose opening throw is still to come"))
        raise XgidError(Reason("an XGID shows a game in play, not a finished game"))
    if state.resignation:
        raise XgidError(Reason("an XGID cannot show a resignation waiting for an answer"))
    if state.double_offered and any(state.dice):
        raise XgidError(Reason("a double is offered before rolling, not with dice on the board"))
    if not state.double_offered and state.turn != state.player_on_roll:
        raise XgidError(Reason("an XGID shows the player on roll acting (or answering a double), not the other one"))
    if all(state.dice) is not any(state.dice) or not all(0 <= d <= 6 for d in state.dice):
        raise XgidError(Reason("impossible dice {value}-{value2}", value=state.dice[0], value2=state.dice[1]))
    if CHECKERS in position.off:
        raise XgidError(Reason("a side has borne off all {CHECKERS} checkers: that game is over", CHECKERS=CHECKERS))
    if not _power_of_two(state.cube):
        raise XgidError(
            Reason("the cube is a power of two up to {MAX_CUBE}, not {value}", MAX_CUBE=MAX_CUBE, value=state.cube)
        )
    if not _power_of_two(xgid.max_cube):
        raise XgidError(
            Reason(
                "the max cube is a power of two up to {MAX_CUBE}, not {value}", MAX_CUBE=MAX_CUBE, value=xgid.max_cube
            )
        )
    if state.cube > xgid.max_cube:
        raise XgidError(
            Reason("the cube shows {cube}, past the max cube {max_cube}", cube=state.cube, max_cube=xgid.max_cube)
        )
    length = state.match_length
    if not 0 <= length <= MAX_MATCH_LENGTH:
        raise XgidError(
            Reason(
                "a match is 1 to {MAX_MATCH_LENGTH} points (0 for money), not {length}",
                MAX_MATCH_LENGTH=MAX_MATCH_LENGTH,
                length=length,
            )
        )
    if length and max(state.score) >= length:
        raise XgidError(
            Reason(
                "a score of {value}-{value2} has already won a {length}-point match",
                value=state.score[0],
                value2=state.score[1],
                length=length,
            )
        )
    if min(state.score) < 0 or max(state.score) > MAX_SCORE:
        raise XgidError(
            Reason(
                "a score is 0 to {MAX_SCORE}, not {value}-{value2}",
                MAX_SCORE=MAX_SCORE,
                value=state.score[0],
                value2=state.score[1],
            )
        )
    if not length and state.crawford:
        raise XgidError(Reason("a money game has no Crawford game"))
    if length and xgid.beavers:
        raise XgidError(Reason("beavers are for money games only"))


def _sides(board: str) -> tuple[dict[int, int], dict[int, int]]:
    """``{point: count}`` of the bottom player and of the top player, each in its
    own numbering (25 = its bar), from an XGID board."""
    bottom: dict[int, int] = {}
    top: dict[int, int] = {}
    for index, cell in enumerate(board):
        if cell == "-":
            continue
        if cell.isupper():
            bottom[25 if index == 25 else index] = ord(cell) - ord("A") + 1
        else:
            top[25 if index == 0 else 25 - index] = ord(cell) - ord("a") + 1
    return bottom, top


def _power_of_two(value: int) -> bool:
    """Whether an XGID's cube may show ``value``: a power of two up to :data:`MAX_CUBE`."""
    return 1 <= value <= MAX_CUBE and not value & (value - 1)


def _number(text: str, name: Reason, low: int, high: int, meaning: Reason) -> int:
    """The field ``name`` (a word the layer above translates) as a whole number, ``meaning`` what it holds."""
    if not _NUMBER.fullmatch(text):
        raise XgidError(
            # Translators: {name} is an XGID field's name ("cube", "cube owner"...), {meaning} what it holds
            Reason("the {name} is a whole number ({meaning}), not {text}", name=name, meaning=meaning, text=_show(text))
        )
    value = int(text)
    if not low <= value <= high:
        # Translators: {name} is an XGID field's name ("cube", "cube owner"...), {meaning} what it holds
        raise XgidError(Reason("the {name} is {meaning}, not {value}", name=name, meaning=meaning, value=value))
    return value


def _show(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut short: an error message never echoes a whole paste."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."
