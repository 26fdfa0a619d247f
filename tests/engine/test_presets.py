"""The backgammon presets (docs/rules.md sections 16-19): tavla, takhteh, portes, nackgammon."""

import pytest

from engine import Game, GameSettings, Match, Position, WinKind
from engine.game import GameError
from engine.position import NACKGAMMON_POSITION


@pytest.mark.parametrize("preset", [GameSettings.tavla, GameSettings.takhteh, GameSettings.portes])
def test_traditional_presets_have_no_cube_and_reroll(preset):
    settings = preset()
    assert not settings.cube and settings.opening_reroll and settings.winner_throws_first
    assert settings.backgammon_value == 2
    game = Game(settings)
    game.opening_roll((5, 3))
    with pytest.raises(GameError):
        game.double(0)
    assert game.dice is None  # the opening winner throws both dice again
    assert game.turn == 0


def test_customary_lengths():
    assert GameSettings.tavla().match_length == 5
    assert GameSettings.takhteh().match_length == 7
    assert GameSettings.portes().match_length == 5
    assert GameSettings.portes(7).match_length == 7
    with pytest.raises(ValueError):
        GameSettings.tavla(0)


def test_backgammon_counts_as_gammon_in_tavla():
    # Player 0 has one checker left on their 1-point; the loser has all 15 in the winner's home board.
    settings = GameSettings.tavla()
    game = Game(settings)
    game.position = Position.from_counts({1: 1}, {20: 15})
    game.phase = game.phase.ROLL
    game.player_on_roll = game.turn = 0
    game.roll(0, (1, 2))
    game.play(0, "1/off")
    assert game.result is not None
    assert game.result.kind is WinKind.GAMMON and game.result.points == 2
    # With the agreed backgammon, three.
    game = Game(GameSettings.portes(backgammon_value=3))
    game.position = Position.from_counts({1: 1}, {20: 15})
    game.phase = game.phase.ROLL
    game.roll(0, (1, 2))
    game.play(0, "1/off")
    assert game.result is not None
    assert game.result.kind is WinKind.BACKGAMMON and game.result.points == 3


def test_winner_of_a_gammon_starts_the_next_game():
    match = Match(GameSettings.tavla())
    game = match.new_game()
    game.opening_roll((2, 6))  # player 1 wins the opening throw
    game.forfeit(0, WinKind.GAMMON)
    assert match.score == (0, 2)
    nxt = match.new_game()
    assert nxt.starter == 1 and nxt.turn == 1  # a gammon's winner starts too (unlike Hoyle's hit rule)


def test_hoyle_rule_still_restarts_after_a_gammon():
    match = Match(GameSettings.hoyle())
    game = match.new_game()
    game.opening_roll((2, 6))
    game.forfeit(0, WinKind.GAMMON)
    assert match.score == (0, 2) and match.is_over  # Hoyle's rubber is a match to 2


def test_nackgammon_start():
    game = Game(GameSettings(start="nackgammon"))
    assert game.position == NACKGAMMON_POSITION
    assert NACKGAMMON_POSITION.ours(23) == 2 and NACKGAMMON_POSITION.ours(13) == 4
    assert NACKGAMMON_POSITION.ours(6) == 4 and NACKGAMMON_POSITION.pip_counts() == (194, 194)  # 48 + 46 + 52 + 24 + 24
    game.opening_roll((3, 1))
    assert {"8/5 6/5", "23/22 23/20", "24/20"} <= set(game.legal_play_texts())


def test_settings_refuse_unknown_start_and_two_starter_rules():
    with pytest.raises(ValueError):
        GameSettings(start="hypergammon")
    with pytest.raises(ValueError):
        GameSettings(hit_winner_throws_first=True, winner_throws_first=True)
    with pytest.raises(ValueError):
        GameSettings(backgammon_value=5)


def test_settings_round_trip_through_dict():
    for settings in (GameSettings.tavla(), GameSettings.portes(3), GameSettings(start="nackgammon")):
        assert GameSettings.from_dict(settings.to_dict()) == settings
