"""Plakoto (docs/rules.md section 20): pinning, the mother, bearing off, scoring."""

import pytest

from engine.dice import Roll
from engine.game import WinKind
from engine.plakoto import PLAKOTO
from engine.tables import legal_tables_plays
from engine.tables import tables_position as board
from engine.variants import TablesGame, TablesPhase


def texts(position, roll):
    return sorted(str(play) for play in legal_tables_plays(PLAKOTO, position, Roll(*roll)))


@pytest.mark.parametrize(
    ("roll", "count"),
    [
        # By hand, from fifteen on 24 with the opponent's fifteen on our 1: two different dice
        # move one checker both (24/13) or two checkers one each (24/19 24/18): 2.
        ((6, 5), 2),
        ((3, 1), 2),
        # Doubles: the ways to share four moves among checkers that all start on 24 are the
        # partitions of 4 (4, 3+1, 2+2, 2+1+1, 1+1+1+1): 5, less those that reach 0
        # (a checker may not bear off): 6-6 loses "4" (24/0), leaving 4.
        ((6, 6), 4),
        ((5, 5), 5),
        ((4, 4), 5),
        ((1, 1), 5),
    ],
)
def test_opening_counts(roll, count):
    assert len(legal_tables_plays(PLAKOTO, PLAKOTO.start(), Roll(*roll))) == count


def test_landing_on_a_blot_pins_it():
    position = board("plakoto", {10: 1, 6: 2}, {7: 1, 20: 3})
    plays = {str(p): p for p in legal_tables_plays(PLAKOTO, position, Roll(3, 2))}
    assert "10/7* 6/4" in plays
    after = plays["10/7* 6/4"].position
    assert after.points[6] == 1 and after.pins[6] == -1  # ours on top, theirs pinned under
    # The pinned checker cannot move, and its owner cannot land there.
    theirs = after.swap()  # their view: the pinned checker stands on their 18
    for play in legal_tables_plays(PLAKOTO, theirs, Roll(5, 1)):
        assert all(move.source != 18 for move in play.moves)
    assert "19/18" not in {str(p) for p in legal_tables_plays(PLAKOTO, theirs, Roll(1, 2))}


def test_the_pinner_leaving_frees_the_checker():
    position = board("plakoto", {7: 1, 3: 2}, {20: 3}, pins={7: -1})
    plays = {str(p): p for p in legal_tables_plays(PLAKOTO, position, Roll(4, 2))}
    assert list(plays) == ["7/1"]  # 3/1 with 7/3, or 7/5/1: the same play
    after = plays["7/1"].position
    assert after.points[6] == -1 and after.pins[6] == 0  # their checker is a blot again
    # And a checker can pin it again in the same turn.
    position = board("plakoto", {9: 1, 7: 1}, {20: 3}, pins={7: -1})
    ends = [p.position for p in legal_tables_plays(PLAKOTO, position, Roll(2, 1))]
    moved_both = [p for p in ends if p.points[8] == 0 and p.points[6] == 1 and p.points[5] == 1]
    assert len(moved_both) == 1 and moved_both[0].pins[6] == -1


def test_two_checkers_hold_and_a_pin_holds():
    # 7 holds two of theirs; 6 is theirs on top of our pinned checker: both closed to us.
    position = board("plakoto", {10: 1, 9: 1}, {7: 2, 6: 1}, pins={6: 1})
    assert texts(position, (4, 3)) == ["9/2"]  # 10/7, 10/6, 9/6 closed: 9/5/2 only
    assert texts(position, (3, 3)) == [""]  # 10/7 and 9/6 closed: the roll is lost


def test_pinning_the_mother_wins_a_double_game():
    # Their last checker on their starting point (our 1) alone; our checker lands on it.
    position = board("plakoto", {3: 1, 5: 5}, {1: 1, 20: 5})
    game = TablesGame.from_position(position)
    game.roll(0, (2, 1))
    game.play(0, "3/1* 5/4")
    assert game.phase is TablesPhase.OVER
    assert game.result is not None
    assert game.result.winner == 0 and game.result.points == 2 and game.result.reason == "mother"
    assert game.result.kind is WinKind.GAMMON


def test_pinning_another_checker_on_their_start_wins_nothing():
    # Two of theirs on our 1: a closed point, no pin, no win.
    position = board("plakoto", {3: 1, 5: 5}, {1: 2, 20: 5})
    game = TablesGame.from_position(position)
    game.roll(0, (2, 1))
    assert "3/1*" not in " ".join(game.legal_play_texts())


def test_no_bearing_off_while_a_checker_is_pinned():
    # All ours home, but one lies pinned on our 2 under their checker.
    position = board("plakoto", {6: 2, 4: 3}, {2: 1, 20: 4}, pins={2: 1})
    for text in texts(position, (6, 4)):
        assert "off" not in text
    free = board("plakoto", {6: 2, 4: 3, 2: 1}, {20: 5})
    assert any("off" in text for text in texts(free, (6, 4)))


def test_larger_die_when_only_one_can_be_played():
    # One checker on 20: 20/14 then 14/9 is closed, 20/15 then 15/9 too: one die only, the larger.
    position = board("plakoto", {20: 1}, {9: 2, 8: 2, 3: 3})
    assert texts(position, (6, 5)) == ["20/14"]


@pytest.mark.parametrize(("loser_off", "points"), [(0, 2), (3, 1)])
def test_scoring(loser_off, points):
    theirs = {20: 15 - loser_off}
    position = board("plakoto", {1: 1}, theirs)
    game = TablesGame.from_position(position)
    game.roll(0, (1, 2))
    game.play(0, "1/off")
    assert game.result is not None
    assert game.result.points == points and game.result.reason == "bearoff"


def test_both_dice_when_both_can_be_played():
    # The 6 first (20/14) leaves no 5 (14/9 and 8/3 closed); the 5 first (20/15) leaves 8/2:
    # so both dice must be played, and 20/14 alone is not a legal play.
    position = board("plakoto", {20: 1, 8: 1, 1: 13}, {9: 2, 3: 2, 22: 11})
    assert texts(position, (6, 5)) == ["20/15 8/2"]
