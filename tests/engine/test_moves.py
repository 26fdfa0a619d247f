"""Legal plays, rule by rule (docs/rules.md sections 3-6), on positions written inline.

Positions are built with ``Position.from_counts(ours, theirs)``: each side's
checkers in its own numbering, 25 = that side's bar, the rest borne off.
"""

from __future__ import annotations

from engine.dice import Roll
from engine.moves import legal_plays
from engine.play import Move, Play
from engine.position import Position

P = Position.from_counts

# The opponent's 15 checkers safely in their own home board, out of the way
# of everything we do on points 1..18 (their 1..6 are our 24..19).
THEIRS_HOME = {6: 5, 5: 5, 4: 5}


def results(position: Position, roll: Roll) -> set[Position]:
    return {play.position for play in legal_plays(position, roll)}


def only_play(position: Position, roll: Roll) -> Play:
    plays = legal_plays(position, roll)
    assert len(plays) == 1, [p.moves for p in plays]
    return plays[0]


def replay(position: Position, moves) -> Position:
    """Apply single-die moves by hand (independently of the engine's search)."""
    board = list(position.board)
    bar, off = list(position.bar), list(position.off)
    for move in moves:
        if move.source == 25:
            assert bar[0] > 0
            bar[0] -= 1
        else:
            assert board[move.source - 1] > 0
            board[move.source - 1] -= 1
        if move.destination == 0:
            off[0] += 1
            continue
        here = board[move.destination - 1]
        assert here >= -1, f"{move} lands on a blocked point"
        assert move.hit == (here == -1)
        if here == -1:
            board[move.destination - 1] = 0
            bar[1] += 1
        board[move.destination - 1] += 1
    return Position(tuple(board), (bar[0], bar[1]), (off[0], off[1]))


# -- the opening ------------------------------------------------------------


def test_opening_31_has_16_plays_including_the_point():
    plays = legal_plays(Position.start(), Roll(3, 1))
    assert len(plays) == 16  # gnubg lists 16 distinct 3-1 openings
    assert P({24: 2, 13: 5, 8: 2, 6: 4, 5: 2}, {24: 2, 13: 5, 8: 3, 6: 5}) in results(Position.start(), Roll(3, 1))


def test_vector_after_8_5_6_5_is_reachable():
    """8/5 6/5 from the start, seen by the opponent, is sGfwATDgc/ABMA."""
    ids = {play.position.swap().position_id() for play in legal_plays(Position.start(), Roll(3, 1))}
    assert "sGfwATDgc/ABMA" in ids


def test_roll_order_does_not_matter():
    position = Position.start()
    assert results(position, Roll(6, 5)) == results(position, Roll(5, 6))


def test_every_play_replays_to_its_position():
    position = P({24: 2, 13: 4, 8: 3, 6: 4, 5: 1, 25: 1}, {24: 1, 13: 5, 8: 3, 6: 4, 3: 1, 25: 1})
    for roll in (Roll(6, 5), Roll(3, 1), Roll(4, 4), Roll(2, 1)):
        for play in legal_plays(position, roll):
            assert replay(position, play.moves) == play.position


# -- section 4: the bar -----------------------------------------------------


def test_checker_on_bar_enters_before_anything_else():
    position = P({25: 1, 13: 6, 8: 8}, THEIRS_HOME)
    plays = legal_plays(position, Roll(3, 1))
    assert plays and all(play.moves[0].source == 25 for play in plays)
    assert all(play.position.bar[0] == 0 for play in plays)
    # both entry points are used by some play
    assert {play.moves[0].destination for play in plays} == {22, 24}


def test_two_on_bar_use_both_dice_to_enter():
    position = P({25: 2, 13: 5, 8: 8}, THEIRS_HOME)
    play = only_play(position, Roll(3, 1))
    assert sorted(play.moves) == [Move(25, 22), Move(25, 24)]
    assert play.position == P({24: 1, 22: 1, 13: 5, 8: 8}, THEIRS_HOME)


def test_entry_blocked_for_both_dice_loses_the_roll():
    # their 5 and 6 points are our 20 and 19
    position = P({25: 1, 13: 14}, {6: 3, 5: 3, 13: 9})
    play = only_play(position, Roll(6, 5))
    assert play.moves == ()
    assert play.position == position


def test_closed_board_dances_on_every_roll():
    position = P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5})
    assert position.is_closed_out()
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            assert [p.moves for p in legal_plays(position, Roll(d1, d2))] == [()]


def test_one_enters_and_the_second_stays_on_the_bar():
    # 6 blocked (our 19 = their 6), 1 open: one checker enters, nothing else moves
    position = P({25: 2, 13: 13}, {6: 3, 13: 12})
    play = only_play(position, Roll(6, 1))
    assert play.moves == (Move(25, 24),)
    assert play.position.bar == (1, 0)


def test_entering_checker_can_continue_with_the_other_die():
    # our 19, 20, 21 blocked; the aces cannot move (not all home), so the
    # entering checker takes both dice: bar/23/22 or bar/24/22, one play.
    position = P({25: 1, 1: 14}, {6: 3, 5: 7, 4: 5})
    play = only_play(position, Roll(2, 1))
    assert play.moves[0].source == 25 and len(play.moves) == 2
    assert play.position == P({22: 1, 1: 14}, {6: 3, 5: 7, 4: 5})


# -- section 3: moving ------------------------------------------------------


def test_combined_move_needs_an_open_intermediate_point():
    # A lone checker on 24 (the rest are stuck on the ace point, not all home),
    # 6-5 to play, our 18 and 19 both blocked, 13 wide open: it cannot go 11 pips.
    position = P({24: 1, 1: 14}, {7: 2, 6: 2, 19: 11})  # their 7, 6 = our 18, 19
    assert position.ours(13) == 0 and position.theirs(13) == 0
    play = only_play(position, Roll(6, 5))
    assert play.moves == ()
    assert play.position == position


def test_combined_move_through_the_one_open_intermediate_point():
    position = P({24: 1, 1: 14}, {6: 2, 19: 13})  # 19 blocked, 18 open
    play = only_play(position, Roll(6, 5))
    assert play.moves == (Move(24, 18), Move(18, 13))


def test_blocked_point_cannot_be_landed_on():
    position = P({24: 1, 1: 14}, {6: 2, 19: 13})
    assert all(m.destination != 19 for p in legal_plays(position, Roll(5, 3)) for m in p.moves)


def test_hit_sends_the_blot_to_the_bar():
    # an opposing blot on our 7 (their 18)
    position = P({13: 2, 6: 13}, {18: 1, 6: 14})
    plays = legal_plays(position, Roll(6, 5))
    hitting = [p for p in plays if p.hits]
    assert hitting and len(hitting) < len(plays)
    for play in hitting:
        assert play.position.bar == (0, 1)
        assert play.position.theirs(7) == 0
        assert any(m == Move(13, 7, True) for m in play.moves)
    for play in plays:
        if not play.hits:
            assert play.position.bar == (0, 0) and play.position.theirs(7) == 1
    assert P({8: 1, 7: 1, 6: 13}, {25: 1, 6: 14}) in results(position, Roll(6, 5))  # 13/7* 13/8


def test_hit_and_continue():
    position = P({13: 1, 6: 14}, {18: 1, 6: 14})
    plays = legal_plays(position, Roll(6, 1))
    via_hit = [p for p in plays if p.moves == (Move(13, 7, True), Move(7, 6))]
    assert via_hit and via_hit[0].position.bar == (0, 1)
    assert via_hit[0].position == P({6: 15}, {25: 1, 6: 14})


def test_doubles_play_four():
    start = Position.start()
    plays = legal_plays(start, Roll(2, 2))
    assert plays and all(p.dice_used == 4 for p in plays)
    theirs = {24: 2, 13: 5, 8: 3, 6: 5}
    assert P({24: 2, 13: 3, 11: 2, 8: 3, 6: 5}, theirs) not in results(start, Roll(2, 2))  # 13/11(2) only
    assert P({24: 2, 13: 3, 11: 2, 8: 3, 6: 3, 4: 2}, theirs) in results(start, Roll(2, 2))
    assert P({24: 2, 13: 5, 8: 1, 6: 5, 4: 2}, theirs) in results(start, Roll(2, 2))  # 8/4(2)


def test_doubles_play_as_many_as_possible():
    # lone checker on 24, 6-6: 24/18/12 and then 6 is blocked (their 19)
    position = P({24: 1, 1: 14}, {19: 2, 2: 13})
    play = only_play(position, Roll(6, 6))
    assert play.moves == (Move(24, 18), Move(18, 12))
    assert play.dice_used == 2


# -- section 5: compulsory moves -------------------------------------------


def test_maximum_dice_rule():
    # 10/5 alone would leave no 2 anywhere, so it is not legal: 19/14 10/8 is.
    position = P({19: 1, 10: 1, 1: 13}, {22: 3, 19: 3, 13: 3, 9: 3, 8: 3})  # blocks 3 6 12 16 17
    play = only_play(position, Roll(5, 2))
    assert sorted(play.moves, reverse=True) == [Move(19, 14), Move(10, 8)]
    assert play.position == P({14: 1, 8: 1, 1: 13}, {22: 3, 19: 3, 13: 3, 9: 3, 8: 3})


def test_larger_die_when_only_one_can_be_played():
    # 24/18 or 24/19 are each possible, 13 is blocked so not both: play the 6.
    position = P({24: 1, 1: 14}, {12: 2, 2: 13})
    play = only_play(position, Roll(6, 5))
    assert play.moves == (Move(24, 18),)
    play = only_play(position, Roll(5, 6))
    assert play.moves == (Move(24, 18),)


def test_smaller_die_when_the_larger_cannot_be_played():
    position = P({24: 1, 1: 14}, {12: 2, 7: 2, 2: 11})  # 13 and 18 blocked
    play = only_play(position, Roll(6, 5))
    assert play.moves == (Move(24, 19),)


def test_rules_example_4_3_hit_3_off():
    """docs/rules.md 5: last checker on 4, 5-1, opposing blot on our 3: 4/3* 3/off."""
    position = P({4: 1}, {22: 1, 6: 14})  # their 22 is our 3
    for roll in (Roll(5, 1), Roll(1, 5)):
        play = only_play(position, roll)
        assert play.moves == (Move(4, 3, True), Move(3, 0))
        assert play.hits == 1
        assert play.position.off == (15, 0)
        assert play.position.bar == (0, 1)


def test_no_legal_play_is_a_single_empty_play():
    position = P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5})
    plays = legal_plays(position, Roll(4, 4))
    assert plays == [Play((), position)]


# -- section 6: bearing off -------------------------------------------------


def test_bear_off_from_the_die_point():
    position = P({6: 1, 5: 1}, THEIRS_HOME)
    assert results(position, Roll(6, 5)) == {
        P({}, THEIRS_HOME),  # 6/off 5/off
        P({1: 1}, THEIRS_HOME),  # 6/1 5/off: moving inside is allowed too
    }


def test_higher_die_bears_off_from_the_highest_point():
    position = P({3: 1, 2: 1}, THEIRS_HOME)
    play = only_play(position, Roll(6, 5))
    assert play.position.off[0] == 15
    assert sorted(play.moves, reverse=True) == [Move(3, 0), Move(2, 0)]


def test_no_bearing_off_with_a_larger_die_while_a_checker_stands_higher():
    # 5 and 4 with two checkers on the 6: point 5 and 4 empty, the 6 is higher,
    # so both dice must move inside: 6/1 6/2.
    position = P({6: 2}, THEIRS_HOME)
    play = only_play(position, Roll(5, 4))
    assert play.position == P({2: 1, 1: 1}, THEIRS_HOME)
    assert all(m.destination != 0 for m in play.moves)


def test_moving_inside_instead_of_bearing_off_is_allowed():
    position = P({4: 1, 2: 1}, THEIRS_HOME)
    assert results(position, Roll(2, 1)) == {
        P({3: 1}, THEIRS_HOME),  # 4/3 2/off
        P({2: 1, 1: 1}, THEIRS_HOME),  # 4/2 2/1 (or 4/3/1): nothing borne off
    }


def test_no_bearing_off_with_a_checker_outside_home():
    position = P({12: 1, 6: 2, 5: 2, 4: 10}, THEIRS_HOME)
    plays = legal_plays(position, Roll(2, 1))
    assert plays and all(m.destination != 0 for p in plays for m in p.moves)
    # with 6-5 the checker on 7 must come home before anything is borne off
    position = P({7: 1, 6: 2, 5: 2, 4: 10}, THEIRS_HOME)
    plays = legal_plays(position, Roll(6, 5))
    assert P({6: 2, 5: 1, 4: 10, 1: 1}, THEIRS_HOME) in {p.position for p in plays}
    for play in plays:
        if play.moves[-1].destination == 0:
            assert play.moves[0].source == 7  # 7/1 5/off or 7/2 6/off


def test_checker_hit_in_bear_off_reenters_before_bearing_off():
    theirs = {1: 5, 2: 5, 3: 5}  # our 24, 23, 22: entry on 19 and 20 is open
    position = P({25: 1, 6: 2, 3: 12}, theirs)
    plays = legal_plays(position, Roll(6, 5))
    assert plays and all(p.dice_used == 2 for p in plays)
    for play in plays:
        assert play.moves[0].source == 25
        assert all(m.destination != 0 for m in play.moves)
        assert play.position.off == position.off


def test_reentered_checker_comes_home_then_bears_off():
    # 6-6 from the bar: bar/19/13/7/1; never a bear-off on the way
    position = P({25: 1, 1: 14}, {1: 1, 2: 14})
    play = only_play(position, Roll(6, 6))
    assert play.moves == (Move(25, 19), Move(19, 13), Move(13, 7), Move(7, 1))
    assert play.position.off == (0, 0)
