"""Position: construction, validation, swap, pip counts, published Position IDs."""

from __future__ import annotations

import dataclasses

import pytest

from engine.position import Position, PositionError

P = Position.from_counts
START_COUNTS = {24: 2, 13: 5, 8: 3, 6: 5}


def test_start_position():
    start = Position.start()
    assert start == P(START_COUNTS, START_COUNTS)
    assert start.board[23] == 2 and start.board[12] == 5 and start.board[7] == 3 and start.board[5] == 5
    assert start.board[0] == -2 and start.board[11] == -5 and start.board[16] == -3 and start.board[18] == -5
    assert start.bar == (0, 0) and start.off == (0, 0)
    assert start.position_id() == "4HPwATDgc/ABMA"
    assert Position.from_position_id("4HPwATDgc/ABMA") == start


def test_start_pip_counts_are_167():
    assert Position.start().pip_counts() == (167, 167)


def test_start_is_symmetric():
    assert Position.start().swap() == Position.start()


def test_vector_after_8_5_6_5():
    """X opened 3-1 with 8/5 6/5; O (the untouched start) is now on roll."""
    x_after = {24: 2, 13: 5, 8: 2, 6: 4, 5: 2}
    position = Position.from_position_id("sGfwATDgc/ABMA")
    assert position == P(START_COUNTS, x_after)
    assert position.pip_counts() == (167, 167 - 4)
    assert position.swap() == P(x_after, START_COUNTS)
    assert position.position_id() == "sGfwATDgc/ABMA"
    # the ID names the side on roll second: X to move in the same position is another ID
    assert position.swap().position_id() != "sGfwATDgc/ABMA"


def test_vector_one_checker_each_on_the_bar():
    counts = {25: 1, 24: 1, 13: 5, 8: 3, 6: 5}
    position = Position.from_position_id("4HPwAVDgc/ABUA")
    assert position == P(counts, counts)
    assert position.bar == (1, 1)
    assert position.pip_counts() == (167 + 1, 167 + 1)
    assert position.position_id() == "4HPwAVDgc/ABUA"


def test_vector_bear_off_position():
    on_roll = {1: 2, 2: 2, 3: 2, 4: 2, 5: 1}
    not_on_roll = {1: 1, 3: 1, 4: 3, 5: 1, 6: 2}
    position = Position.from_position_id("6RoAALYtAAAAAA")
    assert position == P(on_roll, not_on_roll)
    assert position.off == (6, 7)
    assert position.all_home()
    assert position.pip_counts() == (2 + 4 + 6 + 8 + 5, 1 + 3 + 12 + 5 + 12)
    assert position.position_id() == "6RoAALYtAAAAAA"


def test_from_counts_places_the_opponent_in_their_numbering():
    position = P({6: 15}, {6: 15})
    assert position.board[5] == 15  # our 6
    assert position.board[18] == -15  # their 6 is our 19
    assert position.ours(6) == 15 and position.theirs(19) == 15
    assert position.theirs(6) == 0 and position.ours(19) == 0


def test_unplaced_checkers_are_borne_off():
    position = P({1: 3, 25: 2}, {23: 1})
    assert position.off == (10, 14)
    assert position.bar == (2, 0)
    assert position.ours(25) == 2 and position.ours(0) == 10


@pytest.mark.parametrize(
    "ours, theirs",
    [
        ({6: 16}, {6: 15}),
        ({6: 15}, {6: 10, 8: 6}),
        ({6: 15, 25: 1}, {6: 15}),
    ],
)
def test_sixteen_checkers_raise(ours, theirs):
    with pytest.raises(PositionError):
        P(ours, theirs)


def test_sixteen_checkers_from_counts_names_the_count():
    with pytest.raises(PositionError, match="16 checkers"):
        P({6: 16}, {6: 15})


def test_sixteen_checkers_on_the_raw_board_raise():
    board = [0] * 24
    board[5], board[18] = 16, -15
    with pytest.raises(PositionError, match="16 checkers"):
        Position(tuple(board))


def test_fourteen_checkers_without_off_raise():
    board = [0] * 24
    board[5], board[18] = 14, -15
    with pytest.raises(PositionError, match="14 checkers"):
        Position(tuple(board))


def test_wrong_board_length_raises():
    with pytest.raises(PositionError):
        Position((15,) + (0,) * 21 + (-15,))


def test_negative_bar_raises():
    board = [0] * 24
    board[5], board[18] = 15, -15
    with pytest.raises(PositionError):
        Position(tuple(board), bar=(-1, 0), off=(1, 0))


def test_point_held_by_both_raises():
    with pytest.raises(PositionError, match="both"):
        P({6: 2, 1: 13}, {19: 2, 1: 13})  # their 19 is our 6


def test_positions_are_frozen_and_hashable():
    start = Position.start()
    with pytest.raises(dataclasses.FrozenInstanceError):
        start.bar = (1, 0)  # type: ignore[misc]
    assert len({start, P(START_COUNTS, START_COUNTS)}) == 1


def test_swap_mirrors_everything():
    position = P({25: 2, 20: 1, 3: 4}, {25: 1, 24: 2, 1: 3})
    swapped = position.swap()
    assert swapped == P({25: 1, 24: 2, 1: 3}, {25: 2, 20: 1, 3: 4})
    assert swapped.bar == (1, 2)
    assert swapped.off == (position.off[1], position.off[0])
    assert swapped.pip_counts() == position.pip_counts()[::-1]
    assert swapped.swap() == position


def test_pip_counts_count_the_bar_as_25():
    position = P({25: 1, 1: 1}, {25: 2, 2: 1})
    assert position.pip_counts() == (26, 52)


def test_all_home():
    assert P({6: 15}, {6: 15}).all_home()
    assert not P({7: 1, 6: 14}, {6: 15}).all_home()
    assert not P({25: 1, 6: 14}, {6: 15}).all_home()
    assert P({1: 1}, {6: 15}).all_home()


def test_closed_out():
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5}
    assert P({25: 1, 13: 14}, closed).is_closed_out()
    assert not P({13: 15}, closed).is_closed_out()  # not on the bar
    five_point = {1: 1, 2: 2, 3: 2, 4: 2, 5: 2, 6: 6}
    assert not P({25: 1, 13: 14}, five_point).is_closed_out()  # a blot on the ace point
