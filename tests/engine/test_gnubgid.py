"""GNU Backgammon Position ID and Match ID: published vectors and malformed input."""

from __future__ import annotations

import base64

import pytest

from engine.gnubgid import (
    IdError,
    MatchState,
    decode_match_id,
    decode_position_id,
    encode_match_id,
    encode_position_id,
)
from engine.position import Position

P = Position.from_counts
START = {24: 2, 13: 5, 8: 3, 6: 5}


def pack(fields: list[tuple[int, int]], size: int) -> str:
    """Independent little-endian bit packer: (value, width) pairs -> base64 of ``size`` bytes."""
    bits: list[int] = []
    for value, width in fields:
        bits.extend((value >> k) & 1 for k in range(width))
    data = bytearray(size)
    for k, bit in enumerate(bits):
        data[k // 8] |= bit << (k % 8)
    return base64.b64encode(bytes(data)).decode()


def position_key(first: dict[int, int], second: dict[int, int]) -> str:
    """Position ID from two sides' {point: count} (25 = bar), first = not on roll."""
    fields = []
    for side in (first, second):
        for point in range(1, 26):
            fields += [(1, 1)] * side.get(point, 0) + [(0, 1)]
    return pack(fields, 10)[:14]


def match_key(
    cube_log=0,
    owner=3,
    move=0,
    crawford=0,
    state=1,
    turn=0,
    doubled=0,
    resign=0,
    die1=0,
    die2=0,
    length=0,
    score0=0,
    score1=0,
    no_jacoby=0,
) -> str:
    return pack(
        [
            (cube_log, 4),
            (owner, 2),
            (move, 1),
            (crawford, 1),
            (state, 3),
            (turn, 1),
            (doubled, 1),
            (resign, 2),
            (die1, 3),
            (die2, 3),
            (length, 15),
            (score0, 15),
            (score1, 15),
            (no_jacoby, 1),
        ],
        9,
    )


# -- Position ID --------------------------------------------------------------


@pytest.mark.parametrize(
    "position_id, on_roll, not_on_roll",
    [
        ("4HPwATDgc/ABMA", START, START),
        ("sGfwATDgc/ABMA", START, {24: 2, 13: 5, 8: 2, 6: 4, 5: 2}),
        ("4HPwAVDgc/ABUA", {25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {25: 1, 24: 1, 13: 5, 8: 3, 6: 5}),
        ("6RoAALYtAAAAAA", {1: 2, 2: 2, 3: 2, 4: 2, 5: 1}, {1: 1, 3: 1, 4: 3, 5: 1, 6: 2}),
    ],
)
def test_position_id_vectors(position_id, on_roll, not_on_roll):
    position = P(on_roll, not_on_roll)
    assert decode_position_id(position_id) == position
    assert encode_position_id(position) == position_id
    # and our independent packer agrees on the layout: side not on roll first
    assert position_key(not_on_roll, on_roll) == position_id


def test_position_id_tolerates_surrounding_spaces():
    assert decode_position_id("  4HPwATDgc/ABMA\n") == Position.start()


def test_empty_board_all_borne_off():
    assert decode_position_id("AAAAAAAAAAAAAA").off == (15, 15)
    assert encode_position_id(P({}, {})) == "AAAAAAAAAAAAAA"


@pytest.mark.parametrize(
    "bad, message",
    [
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/ABMAA", "14 characters"),
        ("", "14 characters"),
        ("4HPwATDgc/AB!A", "base64"),
        ("4HPwATDgc/AB A", "base64"),
        ("//////////////", "checkers"),  # 80 one-bits: far too many checkers
    ],
)
def test_malformed_position_ids(bad, message):
    with pytest.raises(IdError, match=message):
        decode_position_id(bad)


def test_position_id_with_sixteen_checkers():
    # 80 bits hold 30 checkers and 50 separators: 16 on one side, 14 on the other
    bad = position_key({6: 16}, {6: 14})
    with pytest.raises(IdError, match="16"):
        decode_position_id(bad)
    bad = position_key({6: 14}, {6: 6, 8: 3, 13: 5, 24: 2})
    with pytest.raises(IdError, match="16"):
        decode_position_id(bad)


def test_position_id_with_a_point_held_by_both():
    # not-on-roll side's 1-point is the on-roll side's 24-point
    bad = position_key({1: 2, 6: 13}, {24: 2, 6: 13})
    with pytest.raises(IdError, match="both"):
        decode_position_id(bad)


def test_id_error_is_a_value_error():
    assert issubclass(IdError, ValueError)


# -- Match ID -----------------------------------------------------------------


MATCH_VECTORS = {
    # the manual's worked example: 9-point match, 2-4, player 0 owns a 2-cube,
    # player 1 has rolled 5-2
    "QYkqASAAIAAA": MatchState(
        cube=2,
        cube_owner=0,
        player_on_roll=1,
        crawford=False,
        game_state=1,
        turn=1,
        double_offered=False,
        resignation=0,
        dice=(5, 2),
        match_length=9,
        score=(2, 4),
        jacoby=True,
    ),
    # money game, centred cube, player 0 on roll with 3-1
    "MIEFAAAAAAAA": MatchState(
        cube=1,
        cube_owner=None,
        player_on_roll=0,
        turn=0,
        game_state=1,
        dice=(3, 1),
        match_length=0,
        score=(0, 0),
    ),
    # money game, centred cube, player 1 to roll
    "cAkAAAAAAAAA": MatchState(
        cube=1,
        cube_owner=None,
        player_on_roll=1,
        turn=1,
        game_state=1,
        dice=(0, 0),
    ),
    # 7-point match 0-0, player 0 rolled 3-1
    "MIHlAAAAAAAA": MatchState(
        cube=1,
        cube_owner=None,
        player_on_roll=0,
        turn=0,
        game_state=1,
        dice=(3, 1),
        match_length=7,
        score=(0, 0),
    ),
    # 3-point match, Crawford, 2-1, player 1 rolled 5-3, bit 66 (no Jacoby) set.
    # Its game-state bits are 000 ("no game"), as the ID was published.
    "8IhuACAACAAE": MatchState(
        cube=1,
        cube_owner=None,
        player_on_roll=1,
        crawford=True,
        game_state=0,
        turn=1,
        dice=(5, 3),
        match_length=3,
        score=(2, 1),
        jacoby=False,
    ),
}


@pytest.mark.parametrize("match_id", sorted(MATCH_VECTORS))
def test_match_id_vectors(match_id):
    state = decode_match_id(match_id)
    assert state == MATCH_VECTORS[match_id]
    assert encode_match_id(state) == match_id


def test_manual_worked_example_bytes():
    assert base64.b64decode("QYkqASAAIAAA") == bytes([0x41, 0x89, 0x2A, 0x01, 0x20, 0x00, 0x20, 0x00, 0x00])
    assert match_key(cube_log=1, owner=0, move=1, turn=1, die1=5, die2=2, length=9, score0=2, score1=4) == (
        "QYkqASAAIAAA"
    )


def test_match_id_writes_the_larger_die_first():
    state = MatchState(player_on_roll=1, turn=1, dice=(2, 5), match_length=9, score=(2, 4), cube=2, cube_owner=0)
    assert encode_match_id(state) == "QYkqASAAIAAA"


def test_match_id_fields_round_trip():
    state = MatchState(
        cube=64,
        cube_owner=1,
        player_on_roll=1,
        crawford=False,
        game_state=1,
        turn=0,
        double_offered=True,
        resignation=0,
        dice=(0, 0),
        match_length=25,
        score=(24, 13),
        jacoby=False,
    )
    assert decode_match_id(encode_match_id(state)) == state
    state = MatchState(turn=1, resignation=3, game_state=1)
    assert decode_match_id(encode_match_id(state)) == state


@pytest.mark.parametrize(
    "bad, message",
    [
        ("QYkqASAAIAA", "12 characters"),
        ("QYkqASAAIAAAA", "12 characters"),
        ("QYkqASAA!AAA", "base64"),
        ("cAkAAAAAAAA=", "9"),  # padding inside: 8 bytes (once an IndexError)
        (match_key(die1=7, die2=1), "dice"),
        (match_key(die1=3, die2=0), "dice"),
        (match_key(die1=0, die2=4), "dice"),
        (match_key(length=5, score0=6), "score"),
        (match_key(length=5, score1=7), "score"),
        (match_key(length=65), "longer than 64"),
        (match_key(length=0, crawford=1), "money"),
        (match_key(state=5), "state"),
    ],
)
def test_malformed_match_ids(bad, message):
    with pytest.raises(IdError, match=message):
        decode_match_id(bad)


def test_ids_gnubg_writes_are_read():
    # GNU Backgammon's second money game: a money session counts the score.
    state = decode_match_id("MIEOADAAAAAE")
    assert (state.match_length, state.score, state.dice, state.game_state) == (0, (3, 0), (5, 3), 1)
    # A finished 1-point match: the score reached the length; resigned at single.
    state = decode_match_id("cKMqABAAAAAE")
    assert (state.match_length, state.score, state.game_state, state.resignation) == (1, (1, 0), 3, 1)
    for match_id in ("MIEOADAAAAAE", "cKMqABAAAAAE"):
        assert encode_match_id(decode_match_id(match_id)) == match_id


def test_cube_owner_two_reads_as_centred_as_gnubg_reads_it():
    assert decode_match_id(match_key(owner=2)).cube_owner is None


def test_error_messages_never_echo_a_long_paste():
    for bad in ("x" * 5000, "4HPwATDgc/ABMA" * 300):
        for decode in (decode_match_id, decode_position_id):
            with pytest.raises(IdError) as error:
                decode(bad)
            assert len(str(error.value)) < 150


@pytest.mark.parametrize("cube", [0, 3, 6, -2])
def test_encoding_a_cube_that_is_not_a_power_of_two_fails(cube):
    with pytest.raises(IdError):
        encode_match_id(MatchState(cube=cube))


def test_encoding_a_field_too_wide_fails():
    with pytest.raises(IdError):
        encode_match_id(MatchState(match_length=1 << 15))
