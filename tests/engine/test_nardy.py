"""Long nardy (docs/rules.md section 22): the head, the opening doubles, no landing, six in a row,
oin, mars and koks."""

import pytest

from engine.dice import Roll
from engine.nardy import NARDY
from engine.tables import legal_tables_plays
from engine.tables import tables_position as board
from engine.variants import TablesGame


def texts(position, roll, first_turn=False):
    return sorted(str(p) for p in legal_tables_plays(NARDY, position, Roll(*roll), first_turn=first_turn))


@pytest.mark.parametrize(
    ("roll", "plays"),
    [
        # By hand, the first turn: one checker off the head, except 6-6, 4-4 and 3-3.
        ((6, 5), ["24/13"]),
        ((6, 6), ["24/18(2)"]),  # 18/12 is their head: each checker goes one six, so two leave
        ((4, 4), ["24/16(2)"]),  # 16/12 closed: two checkers two fours each
        ((3, 3), ["24/15 24/21", "24/18(2)"]),  # 15/12 closed: 3+1 or 2+2
        ((5, 5), ["24/4"]),  # one checker can play all four: one leaves
        ((2, 2), ["24/16"]),
    ],
)
def test_first_turn(roll, plays):
    assert texts(NARDY.start(), roll, first_turn=True) == plays


def test_one_checker_off_the_head_after_the_first_turn():
    position = board("nardy", {24: 13, 20: 2}, {12: 14, 3: 1})
    for play in legal_tables_plays(NARDY, position, Roll(6, 6)):
        assert play.position.points[23] >= 12
    # On the first turn the same double lets two go.
    start = NARDY.start()
    assert texts(start, (6, 6), first_turn=False) == ["24/18"]


def test_no_landing_on_an_opposing_checker():
    position = board("nardy", {24: 14, 10: 1}, {12: 14, 8: 1})
    for text in texts(position, (2, 1)):
        assert "/8" not in text


def test_six_in_a_row_only_with_an_opposing_checker_past_it():
    ours = {24: 5, 10: 2, 9: 2, 8: 2, 7: 2, 6: 2}

    def longest(position):
        best = run = 0
        for n in position.points[10::-1]:
            run = run + 1 if n > 0 else 0
            best = max(best, run)
        return best

    trapped = board("nardy", ours, {12: 15})
    assert all(longest(p.position) < 6 for p in legal_tables_plays(NARDY, trapped, Roll(1, 1)))
    passed = board("nardy", ours, {12: 14, 3: 1})
    assert any(longest(p.position) >= 6 for p in legal_tables_plays(NARDY, passed, Roll(1, 1)))


@pytest.mark.parametrize(
    ("theirs", "points", "name"),
    [
        ({16: 10}, 1, "oin"),  # they bore off five
        ({16: 15}, 2, "mars"),  # none off, all in their home board (our 13-18)
        ({20: 15}, 3, "koks"),  # none off, none home
    ],
)
def test_scoring(theirs, points, name):
    game = TablesGame.from_position(board("nardy", {1: 1}, theirs))
    game.roll(0, (1, 2))
    game.play(0, "1/off")
    assert game.result is not None
    assert game.result.points == points
    assert NARDY.win_name(points, "bearoff").startswith(name)


def test_koks_can_be_turned_off():
    from engine.nardy import Nardy

    rules = Nardy()
    rules.koks = False
    assert rules.result(board("nardy", {}, {20: 15})) == (2, "bearoff")


def test_the_game_gives_each_player_the_opening_doubles_once():
    game = TablesGame("nardy")
    game.opening_roll((5, 2))
    game.roll(0, (6, 6))
    assert game.legal_play_texts() == ("24/18(2)",)  # player 0's first turn: two leave the head
    game.play(0, "24/18(2)")
    game.roll(1, (6, 6))
    assert game.legal_play_texts() == ("24/18(2)",)  # the second player's first turn too
    game.play(1, "24/18(2)")
    game.roll(0, (6, 6))
    assert game.legal_play_texts() == ("24/18",)  # later: one checker off the head (18/12 is their head)
