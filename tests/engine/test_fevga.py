"""Fevga (docs/rules.md section 21): the first checker, a single checker holds, the starting
quarter, primes, scoring."""

import pytest

from engine.dice import Roll
from engine.fevga import FEVGA
from engine.tables import legal_tables_plays
from engine.tables import tables_position as board
from engine.variants import TablesGame


def texts(position, roll):
    return sorted(str(play) for play in legal_tables_plays(FEVGA, position, Roll(*roll)))


def longest_run(position, points=range(11, 0, -1)):
    best = run = 0
    for point in points:
        run = run + 1 if position.points[point - 1] > 0 else 0
        best = max(best, run)
    return best


@pytest.mark.parametrize(
    ("roll", "plays"),
    [
        # By hand: only the first checker moves until it passes the opponent's start (our 12).
        ((6, 5), ["24/13"]),  # 24/18/13 or 24/19/13: one checker, one place
        ((6, 6), ["24/18"]),  # the source's example: 18/12 is their start, and nothing else may leave
        ((4, 4), ["24/16"]),  # 16/12 is closed: two fours only
        ((3, 3), ["24/15"]),
        ((5, 5), ["24/4", "24/9 24/19"]),  # past 12 after three fives: the fourth may take a second checker
        ((2, 1), ["24/21"]),
    ],
)
def test_opening(roll, plays):
    assert texts(FEVGA.start(), roll) == plays


def test_the_first_checker_moves_alone_until_past_their_start():
    position = board("fevga", {24: 14, 15: 1}, {12: 15})
    assert texts(position, (2, 1)) == ["15/13"]  # 13/12 and 14/12 closed; no other checker may leave
    assert "24/22 15/10" in texts(position, (5, 2))  # 15/10 passes 12: then a second checker may go


def test_a_single_checker_holds_a_point():
    position = board("fevga", {24: 14, 10: 1}, {12: 14, 8: 1})
    for text in texts(position, (2, 1)):
        assert "/8" not in text


def test_the_starting_quarter_is_never_all_held():
    # Five of 19-24 held; one of theirs already past (our 15) so no prime rule is involved.
    position = board("fevga", {24: 10, 23: 1, 22: 1, 21: 1, 20: 1, 5: 1}, {12: 14, 15: 1})
    for play in legal_tables_plays(FEVGA, position, Roll(5, 1)):
        assert not all(n > 0 for n in play.position.points[18:])
    assert "24/19 5/4" not in texts(position, (5, 1)) and "24/19 20/19" in texts(position, (5, 1))


def test_no_prime_that_traps_every_opposing_checker():
    ours = {24: 5, 10: 2, 9: 2, 8: 2, 7: 2, 6: 2}
    trapped = board("fevga", ours, {12: 15})
    assert all(longest_run(play.position) < 6 for play in legal_tables_plays(FEVGA, trapped, Roll(1, 1)))
    # One of theirs already past the block (our 3): the same prime may stand.
    passed = board("fevga", ours, {12: 14, 3: 1})
    assert any(longest_run(play.position) >= 6 for play in legal_tables_plays(FEVGA, passed, Roll(1, 1)))


@pytest.mark.parametrize(("loser_off", "points"), [(0, 2), (4, 1)])
def test_scoring(loser_off, points):
    game = TablesGame.from_position(board("fevga", {2: 1}, {16: 15 - loser_off}))
    game.roll(0, (2, 3))
    game.play(0, "2/off")
    assert game.result is not None
    assert game.result.points == points and game.result.winner == 0
