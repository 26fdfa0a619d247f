"""GNU Backgammon's Match ID, and the Position ID's codec re-exported.

The Position ID itself is part of :class:`~engine.position.Position`
(``position_id()`` / ``from_position_id()``); this module adds the Match ID,
which needs the game's state around the position.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from engine.position import IdError, bits_to_bytes, bytes_to_bits, decode_position_id, encode_position_id
from engine.reasons import Reason

__all__ = [
    "GAME_STATES",
    "IdError",
    "MatchState",
    "decode_match_id",
    "decode_position_id",
    "encode_match_id",
    "encode_position_id",
]


# -- Match ID -----------------------------------------------------------------

GAME_STATES = {"none": 0, "playing": 1, "over": 2, "resigned": 3, "dropped": 4}

MAX_MATCH_LENGTH = 64
"""The longest match GNU Backgammon plays (``MAXSCORE``); its Match ID reader refuses longer ones."""


@dataclass(frozen=True, slots=True)
class MatchState:
    """The fields of a GNU Backgammon Match ID (players are 0 and 1)."""

    cube: int = 1
    cube_owner: int | None = None
    """0 or 1, or None when the cube is in the middle."""
    player_on_roll: int = 0
    """fMove: the player whose turn it is (who rolls or rolled)."""
    crawford: bool = False
    game_state: int = 1
    turn: int = 0
    """fTurn: the player who must act now (differs while a double or resignation is pending)."""
    double_offered: bool = False
    resignation: int = 0
    """0 none, 1 single, 2 gammon, 3 backgammon."""
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    """The score before the game (after it, once the game is over). In a
    money session, the points won so far."""
    jacoby: bool = True
    """Bit 66 is "Jacoby NOT in effect"; GNU Backgammon sets it in matches and in money games without Jacoby."""


_FIELDS = (  # (name, width) in bit order
    ("cube_log", 4),
    ("owner", 2),
    ("move", 1),
    ("crawford", 1),
    ("state", 3),
    ("turn", 1),
    ("doubled", 1),
    ("resign", 2),
    ("die1", 3),
    ("die2", 3),
    ("length", 15),
    ("score0", 15),
    ("score1", 15),
    ("no_jacoby", 1),
)


def encode_match_id(state: MatchState) -> str:
    """The 12-character Match ID."""
    if state.cube < 1 or state.cube & (state.cube - 1):
        raise IdError(Reason("the cube shows a power of two, not {cube}", cube=state.cube))
    die1, die2 = state.dice
    if die1 and die2 and die2 > die1:
        die1, die2 = die2, die1  # GNU Backgammon writes the larger die first
    values = {
        "cube_log": state.cube.bit_length() - 1,
        "owner": 3 if state.cube_owner is None else state.cube_owner,
        "move": state.player_on_roll,
        "crawford": int(state.crawford),
        "state": state.game_state,
        "turn": state.turn,
        "doubled": int(state.double_offered),
        "resign": state.resignation,
        "die1": die1,
        "die2": die2,
        "length": state.match_length,
        "score0": state.score[0],
        "score1": state.score[1],
        "no_jacoby": int(not state.jacoby),
    }
    bits: list[int] = []
    for name, width in _FIELDS:
        value = values[name]
        if not 0 <= value < (1 << width):
            raise IdError(
                Reason("match field {name}={value} does not fit in {width} bits", name=name, value=value, width=width)
            )
        bits.extend((value >> k) & 1 for k in range(width))
    return base64.b64encode(bits_to_bytes(bits, 9)).decode("ascii")


def decode_match_id(match_id: str) -> MatchState:
    """Read a Match ID, accepting what GNU Backgammon's reader accepts.

    A money session's score may be anything (GNU Backgammon counts the points
    won over the session's games); a match score may reach the match length
    (the ID of a finished match). Cube owner 2 reads as a centred cube, as
    GNU Backgammon reads it.

    :raises IdError: if it is malformed or describes an impossible state.
    """
    text = match_id.strip()
    if len(text) != 12:
        raise IdError(Reason("a Match ID has 12 characters, {text} has {text2}", text=_show(text), text2=len(text)))
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise IdError(Reason("{text!r} is not base64", text=text)) from None
    if len(data) != 9:  # padding ("=") inside the 12 characters
        raise IdError(Reason("{text!r} is not a Match ID: it holds {data} bytes, not 9", text=text, data=len(data)))
    bits = bytes_to_bits(data)
    values: dict[str, int] = {}
    offset = 0
    for name, width in _FIELDS:
        values[name] = sum(bits[offset + k] << k for k in range(width))
        offset += width
    if values["die1"] > 6 or values["die2"] > 6 or bool(values["die1"]) != bool(values["die2"]):
        raise IdError(
            Reason("{text!r}: impossible dice {value}-{value2}", text=text, value=values["die1"], value2=values["die2"])
        )
    length = values["length"]
    if length > MAX_MATCH_LENGTH:
        raise IdError(
            Reason(
                "{text!r}: a {length}-point match is longer than {MAX_MATCH_LENGTH} points",
                text=text,
                length=length,
                MAX_MATCH_LENGTH=MAX_MATCH_LENGTH,
            )
        )
    if length and (values["score0"] > length or values["score1"] > length):
        raise IdError(Reason("{text!r}: a score is past the match length {length}", text=text, length=length))
    if not length and values["crawford"]:
        raise IdError(Reason("{text!r}: a money game has no Crawford game", text=text))
    if values["state"] > 4:
        raise IdError(Reason("{text!r}: unknown game state {value}", text=text, value=values["state"]))
    return MatchState(
        cube=1 << values["cube_log"],
        cube_owner=values["owner"] if values["owner"] in (0, 1) else None,
        player_on_roll=values["move"],
        crawford=bool(values["crawford"]),
        game_state=values["state"],
        turn=values["turn"],
        double_offered=bool(values["doubled"]),
        resignation=values["resign"],
        dice=(values["die1"], values["die2"]),
        match_length=length,
        score=(values["score0"], values["score1"]),
        jacoby=not values["no_jacoby"],
    )


def _show(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut short: an error message never echoes a whole paste."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."
