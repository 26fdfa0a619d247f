"""The old texts' conventions as engine settings and data (docs/rules.md 2, 7,
8, 10, 12, 15): Hoyle's rubber, the seed 003 variants, the glossary, the
odds of being hit."""

from __future__ import annotations

import json

import pytest

from engine import (
    GLOSSARY,
    UNLIMITED,
    Action,
    Game,
    GameError,
    GameSettings,
    Match,
    Phase,
    Position,
    Roll,
    ScriptedDice,
    SeededDice,
    WinKind,
    blot_exposure,
    call,
    direct_shots,
    shot_count,
    total_exposure,
)
from engine.glossary import DIE_NAMES, term

P = Position.from_counts


# -- Hoyle's rubber -----------------------------------------------------------------


def test_hoyle_preset():
    rules = GameSettings.hoyle()
    assert (rules.match_length, rules.cube, rules.backgammon_value) == (2, False, 3)
    assert rules.hit_winner_throws_first and rules.opening_choice
    assert GameSettings.hoyle(backgammon_value=4).backgammon_value == 4  # "as may have been agreed"
    with pytest.raises(ValueError):
        GameSettings.hoyle(backgammon_value=5)
    assert GameSettings.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


def test_the_opening_winner_may_play_the_opening_dice():
    game = Game(GameSettings.hoyle(), dice=ScriptedDice([]))
    game.opening_roll((2, 6))
    assert (game.phase, game.turn, game.opening_offer) == (Phase.ROLL, 1, Roll(6, 2))
    with pytest.raises(GameError):
        game.use_opening(0)  # not the winner
    assert game.use_opening(1) == Roll(6, 2)
    assert game.phase is Phase.PLAY and game.dice == Roll(6, 2)
    assert game.log[-1] == Action("use_opening", 1)
    game.play(1, "24/18 13/11")
    with pytest.raises(GameError):
        game.use_opening(0)  # once only


def test_or_throw_again():
    game = Game(GameSettings.hoyle(), dice=ScriptedDice([5, 5]))
    game.opening_roll((2, 6))
    assert game.roll(1) == Roll(5, 5)
    assert game.opening_offer is None
    game.play(1, "13/3(2)")
    assert game.phase is Phase.ROLL and game.turn == 0 and game.opening_offer is None


def test_a_rubber_is_the_best_of_three_games():
    match = Match(GameSettings.hoyle(), dice=SeededDice(3))
    first = match.new_game()
    first.opening_roll((6, 1))
    first.use_opening(0)
    first.forfeit(1, WinKind.SINGLE)  # a hit for player 0
    assert match.score == (1, 0) and not match.is_over
    # The winner of a hit throws first in the next game: no opening throw.
    second = match.new_game()
    assert second.starter == 0 and second.phase is Phase.ROLL and second.turn == 0
    assert second.log == [Action("throws_first", 0, auto=True)]
    with pytest.raises(GameError):
        second.opening_roll()
    with pytest.raises(GameError):
        second.double(0)  # no cube in a rubber
    second.roll(0, (3, 1))
    second.play(0, "8/5 6/5")
    second.forfeit(0, WinKind.SINGLE)
    assert match.score == (1, 1)
    third = match.new_game()
    assert third.starter == 1
    third.roll(1, (4, 2))
    third.play(1, "8/4 6/4")
    third.forfeit(0, WinKind.GAMMON)
    assert match.is_over and match.winner == 1 and match.score == (1, 2)
    # The rubber replays from its stored log.
    stored = json.loads(json.dumps([a.to_dict() for a in match.log]))
    again = Match.replay(stored, GameSettings.hoyle())
    assert [g.log for g in again.games] == [g.log for g in match.games]
    assert again.score == match.score


def test_after_a_gammon_both_throw_again():
    match = Match(GameSettings.hoyle())
    game = match.new_game()
    game.opening_roll((6, 1))
    game.use_opening(0)
    game.forfeit(1, WinKind.GAMMON)
    assert match.is_over  # a gammon counts two: the rubber is won at once
    match = Match(GameSettings(match_length=3, hit_winner_throws_first=True))
    game = match.new_game()
    game.opening_roll((6, 1))
    game.forfeit(1, WinKind.GAMMON)
    assert match.next_starter() is None and match.new_game().phase is Phase.OPENING


def test_a_backgammon_worth_four_stops_at_the_rubber():
    match = Match(GameSettings.hoyle(backgammon_value=4))
    game = match.new_game()
    game.opening_roll((6, 1))
    game.use_opening(0)
    game.forfeit(0, WinKind.SINGLE)
    game = match.new_game()
    assert game.starter == 1
    game.roll(1, (6, 1))
    game.forfeit(0, WinKind.BACKGAMMON)
    assert game.result is not None
    assert game.result.points == 4
    assert match.score == (0, 2)  # the score stops at the rubber's two


def test_who_throws_first_is_in_the_log():
    """Code that only has a game's log (a replay, an analysis) rebuilds it without knowing the starter."""
    made = Game.replay([Action("throws_first", 1, auto=True)], GameSettings.hoyle(), starter=1)
    read = Game.replay([Action("throws_first", 1, auto=True)], GameSettings.hoyle())
    assert (made.turn, made.phase, made.starter) == (read.turn, read.phase, read.starter) == (1, Phase.ROLL, 1)
    assert made.log == read.log
    game = Game(GameSettings.hoyle(), dice=ScriptedDice([]))
    game.opening_roll((6, 1))
    with pytest.raises(GameError):  # only a game's first entry
        game.apply(Action("throws_first", 1, auto=True))
    with pytest.raises(GameError):
        Game.replay([Action("throws_first", 1, auto=True)], GameSettings.hoyle(), starter=0)


# -- seed 003: automatic doubles without a limit; no double before the first play -------


def test_unlimited_automatic_doubles_stop_at_the_cube_limit():
    game = Game(GameSettings(automatic_doubles=UNLIMITED, cube_limit=8), dice=ScriptedDice([]))
    for _ in range(5):
        game.opening_roll((4, 4))
    assert game.cube_value == 8 and game.cube_owner is None and game.phase is Phase.OPENING
    game.opening_roll((5, 2))
    assert game.phase is Phase.PLAY and game.cube_value == 8
    counted = Game(GameSettings(automatic_doubles=2), dice=ScriptedDice([]))
    for _ in range(4):
        counted.opening_roll((1, 1))
    assert counted.cube_value == 4
    with pytest.raises(ValueError):
        GameSettings(automatic_doubles=-2)
    with pytest.raises(ValueError):
        GameSettings(match_length=5, automatic_doubles=UNLIMITED)


def test_no_double_before_the_first_play():
    rules = GameSettings(opening_reroll=True, double_before_first_play=False)
    game = Game(rules, dice=ScriptedDice([]))
    game.opening_roll((6, 1))
    assert game.phase is Phase.ROLL and not game.can_double(0)
    with pytest.raises(GameError, match="first play"):
        game.double(0)
    game.roll(0, (3, 1))
    game.play(0, "8/5 6/5")
    assert game.can_double(1)
    assert game.double(1) == 2
    # By default (today's rules) the opening winner who throws again may double first.
    game = Game(GameSettings(opening_reroll=True), dice=ScriptedDice([]))
    game.opening_roll((6, 1))
    assert game.can_double(0)


def test_opening_choice_and_reroll_are_one_or_the_other():
    with pytest.raises(ValueError):
        GameSettings(opening_reroll=True, opening_choice=True)


# -- the glossary -----------------------------------------------------------------------


def test_the_glossary_has_the_period_words():
    words = {entry.word for entry in GLOSSARY}
    assert {
        "hit",
        "gammon",
        "backgammon",
        "ace",
        "deuce",
        "trois",
        "quatre",
        "cinque",
        "six",
        "blot",
        "point",
        "table",
        "bar",
    } <= words
    assert len(words) == len(GLOSSARY)
    for entry in GLOSSARY:
        assert entry.group in ("game", "die", "board") and len(entry.meaning) > 20
        assert entry.meaning[0].isupper() and entry.meaning.endswith((".", ")"))
    assert term("Quatre").said == "cater" and term("gammon").group == "game"
    assert [term(name).word for name in DIE_NAMES.values()] == ["ace", "deuce", "trois", "quatre", "cinque", "six"]
    with pytest.raises(KeyError):
        term("prime")


def test_throws_are_called_as_the_old_texts_call_them():
    assert call(Roll(2, 6)) == "six deuce"
    assert call(Roll(5, 3)) == "cinque trois"
    assert call(Roll(4, 1)) == "quatre ace"
    assert call(Roll(1, 1)) == "aces" and call(Roll(2, 2)) == "deuces"
    assert call(Roll(3, 3)) == "double trois"


# -- the odds of being hit (docs/rules.md section 12) ---------------------------------

TABLE = {
    1: 11,
    2: 12,
    3: 14,
    4: 15,
    5: 15,
    6: 17,
    7: 6,
    8: 6,
    9: 5,
    10: 3,
    11: 2,
    12: 3,
    15: 1,
    16: 1,
    18: 1,
    20: 1,
    24: 1,
}
"""The seeds' table (Britannica, 9th and 11th editions): ways out of 36."""


@pytest.mark.parametrize("distance", range(1, 25))
def test_direct_shots_are_the_seeds_table(distance):
    assert direct_shots(distance) == TABLE.get(distance, 0)


def test_direct_shots_refuse_impossible_distances():
    for distance in (0, 25, -3):
        with pytest.raises(ValueError):
            direct_shots(distance)


def test_the_exposure_of_a_plays_blots():
    # The opening 6-4 played 24/14 leaves blots on our 24 and 14.
    play_position = P({24: 1, 14: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    exposure = blot_exposure(play_position)
    assert set(exposure) == {14, 24}
    theirs = play_position.swap()
    assert exposure == {14: shot_count(theirs, 11), 24: shot_count(theirs, 1)}
    assert all(0 < n <= 36 for n in exposure.values())
    total = total_exposure(play_position)
    assert max(exposure.values()) <= total <= min(36, sum(exposure.values()))
    assert blot_exposure(Position.start()) == {} and total_exposure(Position.start()) == 0


def test_points_in_between_lower_the_odds():
    # A blot on our 7 and the opponent's checker on our 1, six pips behind it: 17 shots.
    open_board = P({7: 1, 6: 14}, {24: 1, 1: 14})  # their 24 = our 1
    assert blot_exposure(open_board) == {7: 17}
    # Holding our 3 and 4 (on the way) shuts the 3-3 and the 2-2 out.
    blocked = P({7: 1, 3: 2, 4: 2, 6: 10}, {24: 1, 1: 14})
    assert blot_exposure(blocked) == {7: 15}
