"""The Game state machine (docs/rules.md 2, 4, 5, 7, 8, 9): opening, turns, cube, results, log, IDs."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from engine import (
    Action,
    Game,
    GameError,
    GameSettings,
    IdError,
    IllegalPlayError,
    LogError,
    Match,
    MatchState,
    Phase,
    Position,
    Roll,
    ScriptedDice,
    SeededDice,
    SetupError,
    WinKind,
    decode_match_id,
    encode_match_id,
    format_play,
    legal_plays,
)

P = Position.from_counts


def state(game: Game) -> dict:
    """Everything a game holds (deep copy), except the dice source, the plays cache and the replay cursor."""
    data = {k: v for k, v in vars(game).items() if k not in ("dice_source", "_plays", "_cursor")}
    return copy.deepcopy(data)


def gid(position: Position, **fields) -> str:
    """A GNU Backgammon ID: ``position`` is seen from the player on roll."""
    fields.setdefault("turn", fields.get("player_on_roll", 0))
    fields.setdefault("jacoby", False)
    return f"{position.position_id()}:{encode_match_id(MatchState(**fields))}"


def opened(settings: GameSettings | None = None) -> Game:
    """Player 0 opened 3-1 with 8/5 6/5; player 1 to roll."""
    game = Game(settings, dice=ScriptedDice([]))
    game.opening_roll((3, 1))
    game.play(0, "8/5 6/5")
    return game


# -- the opening throw ------------------------------------------------------------


def test_opening_ties_are_thrown_again_and_logged():
    game = Game(dice=ScriptedDice([3, 3, 6, 6, 2, 5]))
    assert game.phase is Phase.OPENING
    assert game.opening_roll() == (2, 5)
    assert [a for a in game.log if a.kind == "opening"] == [
        Action("opening", dice=(3, 3)),
        Action("opening", dice=(6, 6)),
        Action("opening", dice=(2, 5)),
    ]
    # Player 1 threw higher: starts and plays both dice just thrown.
    assert game.phase is Phase.PLAY
    assert game.turn == game.player_on_roll == 1
    assert game.dice == Roll(5, 2)
    assert game.opening_dice == (2, 5)
    assert game.cube_value == 1  # no automatic doubles by default


def test_opening_winner_plays_both_dice():
    game = Game(dice=ScriptedDice([]))
    game.opening_roll((6, 1))
    assert (game.phase, game.turn, game.dice) == (Phase.PLAY, 0, Roll(6, 1))
    game.play(0, "13/7 8/7")
    assert game.phase is Phase.ROLL and game.turn == 1
    assert game.log[-1] == Action("play", 0, text="13/7 8/7")


def test_opening_with_given_tie_stays_in_opening():
    game = Game(dice=ScriptedDice([]))
    assert game.opening_roll((4, 4)) == (4, 4)
    assert game.phase is Phase.OPENING
    game.opening_roll((1, 2))
    assert game.phase is Phase.PLAY and game.turn == 1


def test_opening_reroll_winner_goes_to_roll():
    game = Game(GameSettings(opening_reroll=True), dice=ScriptedDice([5, 5, 4, 6, 3, 2]))
    game.opening_roll()
    assert game.phase is Phase.ROLL
    assert game.turn == game.player_on_roll == 1
    assert game.dice is None
    with pytest.raises(GameError):
        game.roll(0)
    assert game.roll(1) == Roll(3, 2)
    assert game.phase is Phase.PLAY and game.dice == Roll(3, 2)


def test_automatic_doubles_double_per_tie_up_to_the_limit():
    game = Game(GameSettings(automatic_doubles=2), dice=ScriptedDice([1, 1, 2, 2, 3, 3, 6, 5]))
    game.opening_roll()
    assert sum(1 for a in game.log if a.kind == "opening") == 4
    assert game.cube_value == 4  # three ties, limit 2
    assert game.cube_owner is None  # stays in the middle
    assert game.turn == 0 and game.phase is Phase.PLAY


def test_automatic_doubles_one_tie():
    game = Game(GameSettings(automatic_doubles=5), dice=ScriptedDice([4, 4, 1, 6]))
    game.opening_roll()
    assert game.cube_value == 2 and game.cube_owner is None and game.turn == 1


def test_automatic_doubles_respect_cube_limit():
    game = Game(GameSettings(automatic_doubles=10, cube_limit=4), dice=ScriptedDice([1, 1, 2, 2, 3, 3, 4, 4, 6, 5]))
    game.opening_roll()
    assert game.cube_value == 4


@pytest.mark.parametrize("field", [{"automatic_doubles": 1}, {"jacoby": True}, {"beavers": True}])
def test_money_only_settings_refused_in_matches(field):
    with pytest.raises(ValueError):
        GameSettings(match_length=5, **field)
    GameSettings(match_length=0, **field)  # fine for money


# -- out of turn / out of phase ---------------------------------------------------


def _phase_games() -> dict[str, Game]:
    games = {}
    g = Game(dice=ScriptedDice([]))
    games["opening"] = g
    g = Game(dice=ScriptedDice([]))
    g.opening_roll((3, 1))
    games["play"] = g
    games["roll"] = opened()
    g = opened()
    g.double(1)
    games["doubled"] = g
    g = opened()
    g.offer_resignation(0, 2)
    games["resignation"] = g
    g = opened()
    g.double(1)
    g.drop(0)
    games["over"] = g
    return games


FORBIDDEN = {
    "opening": [
        ("roll", 0),
        ("roll", 1),
        ("play", 0, "8/5 6/5"),
        ("double", 0),
        ("take", 1),
        ("drop", 1),
        ("beaver", 1),
        ("offer_resignation", 0),
        ("accept_resignation", 1),
        ("reject_resignation", 1),
    ],
    "play": [
        ("roll", 0),
        ("roll", 1),
        ("play", 1, "8/5 6/5"),
        ("double", 0),
        ("double", 1),
        ("take", 1),
        ("drop", 1),
        ("accept_resignation", 1),
        ("reject_resignation", 0),
        ("opening_roll",),
    ],
    "roll": [
        ("roll", 0),
        ("play", 1, "8/5 6/5"),
        ("play", 0, "8/5 6/5"),
        ("double", 0),
        ("take", 0),
        ("take", 1),
        ("drop", 0),
        ("beaver", 0),
        ("accept_resignation", 0),
        ("reject_resignation", 0),
        ("opening_roll",),
        ("offer_resignation", 1, 4),
    ],
    "doubled": [
        ("roll", 0),
        ("roll", 1),
        ("play", 1, "24/21 24/23"),
        ("double", 0),
        ("double", 1),
        ("take", 1),
        ("drop", 1),
        ("beaver", 0),
        ("offer_resignation", 0),
        ("offer_resignation", 1),
        ("accept_resignation", 0),
        ("opening_roll",),
    ],
    "resignation": [
        ("roll", 1),
        ("play", 1, "24/21 24/23"),
        ("double", 1),
        ("take", 1),
        ("drop", 1),
        ("accept_resignation", 0),
        ("reject_resignation", 0),
        ("offer_resignation", 1),
        ("opening_roll",),
    ],
    "over": [
        ("roll", 0),
        ("roll", 1),
        ("double", 1),
        ("take", 0),
        ("drop", 0),
        ("offer_resignation", 0),
        ("accept_resignation", 1),
        ("reject_resignation", 1),
        ("forfeit", 0),
        ("forfeit", 1),
        ("opening_roll",),
    ],
}


@pytest.mark.parametrize(
    "phase,call",
    [(p, c) for p, calls in FORBIDDEN.items() for c in calls],
    ids=lambda x: x if isinstance(x, str) else "-".join(map(str, x)),
)
def test_forbidden_actions_raise_and_change_nothing(phase, call):
    game = _phase_games()[phase]
    before = state(game)
    name, *args = call
    with pytest.raises(GameError):
        getattr(game, name)(*args)
    assert state(game) == before


def test_wrong_player_may_not_play_a_legal_text():
    game = Game(dice=ScriptedDice([]))
    game.opening_roll((3, 1))
    before = state(game)
    with pytest.raises(GameError, match="player 0"):
        game.play(1, "8/5 6/5")
    assert state(game) == before


def test_illegal_play_changes_nothing():
    game = Game(dice=ScriptedDice([]))
    game.opening_roll((3, 1))
    before = state(game)
    with pytest.raises(IllegalPlayError):
        game.play(0, "8/3")
    with pytest.raises(IllegalPlayError):
        game.play(0, "13/7")
    assert state(game) == before


# -- dances and closed boards -----------------------------------------------------


def test_dance_is_recorded_automatically_and_turn_passes():
    # Player 1 on roll with a checker on the bar; player 0 holds its 1..5 points.
    board = P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 8: 5})
    game = Game.from_gnubg_id(gid(board, player_on_roll=1))
    assert game.phase is Phase.ROLL and game.turn == 1
    game.roll(1, (5, 4))
    assert game.log[-2:] == [Action("roll", 1, dice=(5, 4)), Action("play", 1, text="", auto=True)]
    assert game.phase is Phase.ROLL and game.turn == game.player_on_roll == 0
    assert game.dice is None
    assert game.position_for(1) == board  # nothing moved


def test_roll_with_an_entry_is_not_a_dance():
    board = P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 8: 5})
    game = Game.from_gnubg_id(gid(board, player_on_roll=1))
    game.roll(1, (6, 5))
    assert game.phase is Phase.PLAY and game.turn == 1
    plays = game.legal_plays()
    assert sorted(format_play(p) for p in plays) == ["bar/14", "bar/19 13/8"]
    assert all(p.moves[0].source == 25 for p in plays)


CLOSED = P({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 10: 3}, {25: 1, 13: 14})
"""Player 0 holds all six home points; player 1 is on the bar."""


def test_closed_out_player_rolls_and_dances_by_default():
    game = Game.from_gnubg_id(gid(CLOSED, player_on_roll=0))
    assert game.settings.closed_out == "roll"
    game.roll(0, (2, 1))
    game.play(0, "10/8 10/9")
    assert game.phase is Phase.ROLL and game.turn == game.player_on_roll == 1
    assert game.position.is_closed_out()
    game.roll(1, (6, 6))  # the roll is shown, and danced
    assert game.log[-2:] == [Action("roll", 1, dice=(6, 6)), Action("play", 1, text="", auto=True)]
    assert game.phase is Phase.ROLL and game.turn == 0


def test_closed_out_player_may_double_before_rolling():
    game = Game.from_gnubg_id(gid(CLOSED, player_on_roll=0))
    game.roll(0, (2, 1))
    game.play(0, "10/8 10/9")
    assert game.can_double(1)
    game.double(1)
    game.take(0)
    assert (game.cube_value, game.cube_owner, game.turn) == (2, 0, 1)
    game.roll(1, (3, 2))
    assert game.log[-1] == Action("play", 1, text="", auto=True)


def test_closed_out_skip_setting_passes_the_turn_without_a_roll():
    game = Game.from_gnubg_id(gid(CLOSED, player_on_roll=0), GameSettings(closed_out="skip"))
    game.roll(0, (2, 1))
    game.play(0, "10/8 10/9")
    assert game.log[-1] == Action("closed_out", 1, auto=True)
    assert game.phase is Phase.ROLL
    assert game.turn == game.player_on_roll == 0
    with pytest.raises(GameError):
        game.roll(1)
    game.roll(0, (4, 3))
    assert game.phase is Phase.PLAY


def test_closed_out_skip_at_setup():
    # Set up with the closed-out player on roll: under skip they never throw.
    game = Game.from_gnubg_id(gid(CLOSED.swap(), player_on_roll=1), GameSettings(closed_out="skip"))
    assert game.log[-1] == Action("closed_out", 1, auto=True)
    assert game.turn == game.player_on_roll == 0


def test_closed_out_replays():
    for rule in ("roll", "skip"):
        settings = GameSettings(closed_out=rule)
        game = Game.from_gnubg_id(gid(CLOSED), settings)
        game.roll(0, (2, 1))
        game.play(0, "10/8 10/9")
        if rule == "roll":
            game.roll(1, (5, 5))
        game.roll(0, (6, 6))
        assert state(Game.replay(game.log, settings)) == state(game)
    # A log claiming a closed-out turn that did not happen is refused.
    fake = list(game.log[:2]) + [Action("closed_out", 0, auto=True)]
    with pytest.raises(GameError):
        Game.replay(fake, settings)


def test_a_log_from_before_the_setting_replays_under_skip():
    """Stored games were played under skip, with no closed_out in their settings."""
    old_settings = {"match_length": 0, "jacoby": False}  # as stored then: no closed_out key
    assert GameSettings.from_dict(old_settings).closed_out == "skip"
    assert GameSettings.from_dict(GameSettings().to_dict()).closed_out == "roll"
    log: list[dict[str, Any]] = [
        {"kind": "setup", "text": gid(CLOSED)},
        {"kind": "roll", "player": 0, "dice": [2, 1]},
        {"kind": "play", "player": 0, "text": "10/8 10/9"},
        {"kind": "closed_out", "player": 1, "auto": True},
        {"kind": "roll", "player": 0, "dice": [6, 6]},
    ]
    under_skip = Game.replay(log, GameSettings.from_dict(old_settings))
    # Even replayed with today's default (a caller that passes no setting),
    # the logged closed-out turn replays, and the game goes on under skip.
    game = Game.replay(log)
    assert state(game) == state(under_skip)
    assert game.settings.closed_out == "skip" and game.phase is Phase.PLAY and game.turn == 0


# -- the cube ---------------------------------------------------------------------


def test_double_take_gives_ownership_and_doubles():
    game = opened()
    assert game.can_double(1) and not game.can_double(0)
    assert game.double(1) == 2
    assert game.phase is Phase.DOUBLED and game.turn == 0 and game.player_on_roll == 1
    assert game.log[-1] == Action("double", 1, value=2)
    game.take(0)
    assert (game.cube_value, game.cube_owner, game.cube_turned) == (2, 0, True)
    assert game.phase is Phase.ROLL and game.turn == 1
    # Only the owner may redouble: player 1 no longer can.
    assert not game.can_double(1)
    with pytest.raises(GameError, match="owner"):
        game.double(1)
    game.roll(1, (6, 5))
    game.play(1, "24/13")
    assert game.can_double(0)
    assert game.double(0) == 4
    game.take(1)
    assert (game.cube_value, game.cube_owner) == (4, 1)


def test_double_only_before_rolling():
    game = opened()
    game.roll(1, (6, 5))
    before = state(game)
    assert not game.can_double(1)
    with pytest.raises(GameError):
        game.double(1)
    assert state(game) == before


def test_pass_ends_game_for_current_value_as_single():
    game = opened()
    game.double(1)
    game.take(0)
    game.roll(1, (6, 5))
    game.play(1, "24/13")
    game.double(0)
    result = game.drop(1)
    assert game.phase is Phase.OVER and game.is_over
    assert (result.winner, result.kind, result.cube, result.points, result.reason) == (0, WinKind.SINGLE, 2, 2, "pass")
    assert game.log[-1] == Action("pass", 1)


def test_pass_of_first_double_scores_one():
    game = opened()
    game.double(1)
    result = game.drop(0)
    assert (result.winner, result.points, result.kind) == (1, 1, WinKind.SINGLE)


def test_cube_limit_default_64():
    board = Position.start()
    game = Game.from_gnubg_id(gid(board, cube=32, cube_owner=0))
    assert game.can_double(0)
    game.double(0)
    game.take(1)
    assert game.cube_value == 64
    game.roll(0, (3, 1))
    game.play(0, "8/5 6/5")
    before = state(game)
    assert not game.can_double(1)
    with pytest.raises(GameError, match="limit"):
        game.double(1)
    assert state(game) == before


def test_cube_limit_setting():
    game = opened(GameSettings(cube_limit=2))
    game.double(1)
    game.take(0)
    game.roll(1, (6, 5))
    game.play(1, "24/13")
    assert not game.can_double(0)
    with pytest.raises(GameError):
        game.double(0)


def test_no_cube_setting():
    game = opened(GameSettings(cube=False))
    assert not game.can_double(1)
    with pytest.raises(GameError):
        game.double(1)


def test_crawford_game_refuses_doubling():
    game = Game(GameSettings(match_length=5), dice=ScriptedDice([]), score=(4, 2), crawford=True)
    game.opening_roll((3, 1))
    game.play(0, "8/5 6/5")
    before = state(game)
    assert not game.can_double(1)
    with pytest.raises(GameError, match="Crawford"):
        game.double(1)
    assert state(game) == before


def test_beaver():
    game = opened(GameSettings(beavers=True))
    game.double(1)
    assert game.can_beaver(0) and not game.can_beaver(1)
    game.beaver(0)
    assert game.log[-1] == Action("beaver", 0, value=4)
    assert (game.cube_value, game.cube_owner, game.cube_turned) == (4, 0, True)
    # The doubler now rolls.
    assert game.phase is Phase.ROLL and game.turn == game.player_on_roll == 1
    assert not game.can_double(1)
    game.roll(1, (6, 5))
    game.play(1, "24/13")
    assert game.double(0) == 8
    result = game.drop(1)
    assert result.points == 4 and result.winner == 0


def test_beaver_refused_without_setting():
    game = opened()
    game.double(1)
    before = state(game)
    assert not game.can_beaver(0)
    with pytest.raises(GameError):
        game.beaver(0)
    assert state(game) == before


def test_beaver_respects_cube_limit():
    game = opened(GameSettings(beavers=True, cube_limit=2))
    game.double(1)
    with pytest.raises(GameError):
        game.beaver(0)


# -- results ----------------------------------------------------------------------

# Player 0 on roll bears off its last checker from the 1-point with any roll.
LAST = {1: 1}


def finish(
    theirs: dict[int, int],
    settings: GameSettings | None = None,
    *,
    cube: int = 1,
    owner: int | None = None,
    last: dict[int, int] = LAST,
):
    game = Game.from_gnubg_id(gid(P(last, theirs), cube=cube, cube_owner=owner), settings)
    game.roll(0, (6, 5))
    if game.phase is Phase.PLAY:
        game.play(0, game.legal_plays()[0])
    return game


@pytest.mark.parametrize(
    "theirs,kind,multiplier",
    [
        ({12: 14}, WinKind.SINGLE, 1),  # one borne off
        ({12: 15}, WinKind.GAMMON, 2),  # none off, all outside our home board
        ({7: 15}, WinKind.GAMMON, 2),  # their 7 = our 18: still not our home
        ({12: 14, 25: 1}, WinKind.BACKGAMMON, 3),  # on the bar
        ({12: 14, 19: 1}, WinKind.BACKGAMMON, 3),  # their 19 = our 6: in our home board
        ({12: 14, 23: 1}, WinKind.BACKGAMMON, 3),  # their 23 = our 2
    ],
)
@pytest.mark.parametrize("cube", [1, 2, 8])
def test_results_single_gammon_backgammon_times_cube(theirs, kind, multiplier, cube):
    game = finish(theirs, cube=cube, owner=None if cube == 1 else 1)
    assert game.is_over
    result = game.result
    assert (result.winner, result.kind, result.cube, result.points, result.reason) == (
        0,
        kind,
        cube,
        multiplier * cube,
        "bearoff",
    )


def test_backgammon_value_4():
    game = finish({12: 14, 25: 1}, GameSettings(backgammon_value=4), cube=2, owner=1)
    assert (game.result.kind, game.result.points) == (WinKind.BACKGAMMON, 8)
    game = finish({12: 15}, GameSettings(backgammon_value=4))
    assert game.result.points == 2  # a gammon is still 2
    with pytest.raises(ValueError):
        GameSettings(backgammon_value=5)


def test_jacoby_gammon_counts_single_with_centred_cube():
    game = finish({12: 15}, GameSettings(jacoby=True))
    assert (game.result.kind, game.result.points) == (WinKind.SINGLE, 1)
    game = finish({12: 14, 25: 1}, GameSettings(jacoby=True))
    assert (game.result.kind, game.result.points) == (WinKind.SINGLE, 1)


def test_jacoby_gammon_counts_after_the_cube_was_turned():
    game = Game.from_gnubg_id(gid(P(LAST, {12: 15})), GameSettings(jacoby=True))
    assert not game.cube_turned
    game.double(0)
    game.take(1)
    game.roll(0, (2, 1))
    game.play(0, game.legal_plays()[0])
    assert game.result is not None
    assert (game.result.kind, game.result.cube, game.result.points) == (WinKind.GAMMON, 2, 4)


def test_jacoby_off_counts_gammons_with_centred_cube():
    game = finish({12: 15})
    assert game.result.points == 2


def test_rules_example_4_3_hit_3_off():
    # Last checker on the 4-point, 5-1, an opposing blot on our 3-point (their 22).
    board = P({4: 1}, {22: 1, 1: 14})
    plays = legal_plays(board, Roll(5, 1))
    assert [format_play(p) for p in plays] == ["4/3*/off"]
    assert len(plays[0].moves) == 2
    game = Game.from_gnubg_id(gid(board))
    game.roll(0, (5, 1))
    with pytest.raises(IllegalPlayError):
        game.play(0, "4/off 3/off")
    game.play(0, "4/3* 3/off")
    assert game.log[-1].text == "4/3*/off"
    assert game.position.swap().bar[0] == 1  # the hit checker is on the bar at the end
    assert game.result is not None
    assert (game.result.winner, game.result.kind, game.result.points) == (0, WinKind.BACKGAMMON, 3)


def test_loss_value():
    game = Game(dice=ScriptedDice([]))
    assert game.loss_value(0) is WinKind.BACKGAMMON  # checkers on the opponent's home board (24-point)
    game = Game.from_gnubg_id(gid(P({1: 1}, {12: 15})))
    assert game.loss_value(1) is WinKind.GAMMON
    assert game.loss_value(0) is WinKind.SINGLE
    game = Game.from_gnubg_id(gid(P({1: 1}, {12: 14, 25: 1})))
    assert game.loss_value(1) is WinKind.BACKGAMMON
    game = Game.from_gnubg_id(gid(P({1: 1}, {12: 14, 20: 1})))  # their 20 = our 5
    assert game.loss_value(1) is WinKind.BACKGAMMON
    game = Game.from_gnubg_id(gid(P({1: 1}, {12: 13, 25: 1})))
    assert game.loss_value(1) is WinKind.SINGLE  # one borne off already


def test_points_for():
    game = Game.from_gnubg_id(gid(Position.start(), cube=4, cube_owner=1), GameSettings(backgammon_value=4))
    assert [game.points_for(k) for k in WinKind] == [4, 8, 16]
    game = Game(GameSettings(jacoby=True))
    assert [game.points_for(k) for k in WinKind] == [1, 1, 1]


# -- resigning and forfeits --------------------------------------------------------


@pytest.mark.parametrize("level,kind", [(1, WinKind.SINGLE), (2, WinKind.GAMMON), (3, WinKind.BACKGAMMON)])
def test_resignation_accepted_scores_level_times_cube(level, kind):
    game = opened()
    game.double(1)
    game.take(0)
    game.offer_resignation(1, level)
    assert game.phase is Phase.RESIGNATION and game.turn == 0 and game.resignation == (1, level)
    assert game.log[-1] == Action("resign", 1, value=level)
    result = game.accept_resignation(0)
    assert (result.winner, result.kind, result.cube, result.points, result.reason) == (
        0,
        kind,
        2,
        [1, 2, 3][level - 1] * 2,
        "resign",
    )
    assert game.log[-1] == Action("accept", 0)


def test_jacoby_resignation_counts_as_the_win_would():
    """docs/rules.md 9: under Jacoby, with the cube never turned, an accepted
    gammon (or backgammon) resignation scores single, as a gammon played out
    would. (GNU Backgammon scores the level times the cube; the .mat we write
    says "Wins 1 point", which it reads as a single resignation.)"""
    game = opened(GameSettings(jacoby=True))
    game.offer_resignation(1, 2)
    result = game.accept_resignation(0)
    assert (result.points, result.kind) == (1, WinKind.SINGLE)
    assert game.match_state().resignation == 1
    game = opened(GameSettings(jacoby=True))
    game.double(1)
    game.take(0)
    game.offer_resignation(0, 3)
    result = game.accept_resignation(1)
    assert (result.points, result.kind) == (6, WinKind.BACKGAMMON)


def test_resignation_backgammon_value_4():
    game = opened(GameSettings(backgammon_value=4))
    game.offer_resignation(0, 3)
    assert game.accept_resignation(1).points == 4


def test_resignation_rejected_returns_to_previous_phase_and_turn():
    game = opened()
    game.roll(1, (6, 5))
    before = state(game)
    # Player 0 (not on roll) offers while player 1 has dice to play.
    game.offer_resignation(0, 1)
    assert game.phase is Phase.RESIGNATION and game.turn == 1
    game.reject_resignation(1)
    assert game.log[-1] == Action("reject", 1)
    after = state(game)
    after["log"] = after["log"][:-2]
    assert after == before
    assert game.phase is Phase.PLAY and game.turn == 1 and game.dice == Roll(6, 5)
    game.play(1, "24/13")


def test_resignation_rejected_in_roll_phase():
    game = opened()
    game.offer_resignation(1, 2)
    game.reject_resignation(0)
    assert game.phase is Phase.ROLL and game.turn == 1 and game.resignation is None
    game.double(1)


def test_bad_resignation_level_refused():
    game = opened()
    before = state(game)
    for level in (0, 4):
        with pytest.raises(GameError):
            game.offer_resignation(1, level)
    assert state(game) == before


@pytest.mark.parametrize("setup", ["opening", "play", "roll", "doubled", "resignation"])
def test_forfeit_in_any_phase(setup):
    game = _phase_games()[setup]
    result = game.forfeit(1, WinKind.GAMMON, "timeout")
    assert game.phase is Phase.OVER
    assert (result.winner, result.kind, result.points, result.reason) == (0, WinKind.GAMMON, 2, "timeout")
    assert game.log[-1] == Action("forfeit", 1, text="timeout", value=2)
    assert game.offered_cube is None and game.resignation is None


# -- log, replay and IDs -----------------------------------------------------------


def random_game(seed: int, settings: GameSettings | None = None, stop_at: int | None = None) -> Game:
    """Random legal actions (cube and resignations included) with seeded dice."""
    rng = random.Random(seed)
    game = Game(settings, dice=SeededDice(seed))
    game.opening_roll()
    steps = 0
    while not game.is_over and (stop_at is None or steps < stop_at):
        steps += 1
        if game.phase is Phase.ROLL:
            if game.can_double(game.turn) and rng.random() < 0.08:
                game.double(game.turn)
            elif rng.random() < 0.01:
                game.offer_resignation(game.turn, rng.randint(1, 3))
            else:
                game.roll(game.turn)
        elif game.phase is Phase.PLAY:
            choice = rng.choice(game.legal_plays())
            game.play(game.turn, choice if rng.random() < 0.5 else format_play(choice))
        elif game.phase is Phase.DOUBLED:
            r = rng.random()
            if game.can_beaver(game.turn) and r < 0.2:
                game.beaver(game.turn)
            elif r < 0.9:
                game.take(game.turn)
            else:
                game.drop(game.turn)
        elif game.phase is Phase.RESIGNATION:
            if rng.random() < 0.7:
                game.reject_resignation(game.turn)
            else:
                game.accept_resignation(game.turn)
    return game


@pytest.mark.parametrize("seed", range(12))
def test_replay_random_games(seed):
    settings = GameSettings(beavers=seed % 2 == 0, jacoby=seed % 3 == 0, automatic_doubles=seed % 4)
    game = random_game(seed, settings)
    assert game.is_over
    replayed = Game.replay(game.log, settings)
    assert state(replayed) == state(game)
    # Through dicts (JSON-like) too.
    assert state(Game.replay([a.to_dict() for a in game.log], settings)) == state(game)


def test_replay_scripted_game():
    game = opened()
    game.double(1)
    game.take(0)
    game.roll(1, (6, 4))
    game.play(1, "24/14")
    game.offer_resignation(0, 1)
    game.reject_resignation(1)
    game.roll(0, (5, 5))
    game.play(0, "13/3(2)")
    game.forfeit(1)
    replayed = Game.replay(game.log)
    assert state(replayed) == state(game)
    assert replayed.result == game.result


def test_replay_of_a_partial_game_continues_alike():
    game = random_game(3, stop_at=40)
    replayed = Game.replay(game.log)
    assert state(replayed) == state(game)


def test_replay_refuses_a_bad_log():
    game = opened()
    log = list(game.log) + [Action("roll", 0, dice=(1, 2))]  # player 1 is on roll
    with pytest.raises(GameError):
        Game.replay(log)


@pytest.mark.parametrize(
    "entry",
    [
        {"player": 0},  # no kind (once a KeyError)
        {"kind": None},
        "roll",
        {"kind": "opening"},  # no dice (once an AssertionError)
        {"kind": "opening", "dice": [7, 1]},
        {"kind": "opening", "dice": [True, 1]},
        {"kind": "opening", "dice": [3]},
        {"kind": "opening", "dice": "31"},
        {"kind": "warp", "player": 0},
        {"kind": "roll", "player": "0"},
        {"kind": "play", "player": 0, "text": 31},
    ],
)
def test_a_malformed_stored_log_raises_a_log_error(entry):
    with pytest.raises(LogError) as info:
        Game.replay([entry])
    assert isinstance(info.value, GameError) and isinstance(info.value, ValueError)
    with pytest.raises(LogError):
        Match.replay([{"kind": "game", "value": 1}, entry])


def test_log_errors_after_the_opening():
    log = [a.to_dict() for a in opened().log]
    for bad in (
        {"kind": "roll", "player": 1, "dice": [0, 3]},
        {"kind": "resign", "player": 1, "value": 9},
        {"kind": "forfeit", "player": 1, "value": 4},
    ):
        with pytest.raises(LogError):
            Game.replay([*log, bad])
    with pytest.raises(LogError):
        Match.replay([log[0]])  # an action before any game marker
    with pytest.raises(LogError) as info:
        Game.replay([{"kind": "x" * 10_000}])
    assert len(str(info.value)) < 100


def _id_fields(game: Game):
    dice = (game.dice.high, game.dice.low) if game.dice else None
    return (
        game.position,
        game.cube_value,
        game.cube_owner,
        dice,
        game.score,
        game.turn,
        game.player_on_roll,
        game.phase,
        game.crawford,
        game.offered_cube,
    )


@pytest.mark.parametrize("seed", range(6))
def test_gnubg_id_round_trip_along_random_games(seed):
    settings = GameSettings(match_length=7) if seed % 2 else GameSettings()
    rng = random.Random(seed)
    score = (rng.randint(0, 6), rng.randint(0, 6)) if settings.match_length else (0, 0)
    game = Game(settings, dice=SeededDice(seed), score=score)
    game.opening_roll()
    checked = 0
    # Random plays make long games (one took over a minute of the suite): 120 positions each are
    # a few hundred across the seeds, every phase and cube state included.
    while not game.is_over and checked < 120:
        if game.phase in (Phase.ROLL, Phase.PLAY, Phase.DOUBLED):
            copy_ = Game.from_gnubg_id(game.gnubg_id(), settings)
            assert _id_fields(copy_) == _id_fields(game)
            assert copy_.gnubg_id() == game.gnubg_id()
            checked += 1
        if game.phase is Phase.ROLL:
            if game.can_double(game.turn) and rng.random() < 0.1:
                game.double(game.turn)
            else:
                game.roll(game.turn)
        elif game.phase is Phase.PLAY:
            game.play(game.turn, rng.choice(game.legal_plays()))
        elif game.phase is Phase.DOUBLED:
            if rng.random() < 0.9:
                game.take(game.turn)
            else:
                game.drop(game.turn)
    assert checked >= 3


def test_gnubg_id_known_values():
    game = Game(dice=ScriptedDice([]))
    game.opening_roll((3, 1))
    assert game.gnubg_id() == "4HPwATDgc/ABMA:" + game.match_id()
    assert game.match_id() == "MIEFAAAAAAAE"  # money, centred, player 0 rolled 3-1, no Jacoby
    assert game.position.position_id() == "4HPwATDgc/ABMA"
    game.play(0, "8/5 6/5")
    assert game.position.position_id() == "sGfwATDgc/ABMA"
    assert game.match_state().player_on_roll == 1 and game.match_state().dice == (0, 0)


def test_from_gnubg_id_sets_up_a_doubled_position():
    game = opened()
    game.double(1)
    copy_ = Game.from_gnubg_id(game.gnubg_id())
    assert copy_.phase is Phase.DOUBLED and copy_.turn == 0 and copy_.offered_cube == 2
    copy_.take(0)
    assert copy_.cube_value == 2 and copy_.cube_owner == 0


def test_from_gnubg_id_match_score_and_crawford():
    text = gid(Position.start(), match_length=5, score=(4, 2), crawford=True, dice=(5, 3))
    game = Game.from_gnubg_id(text)
    assert game.settings.match_length == 5 and game.score == (4, 2) and game.crawford
    assert game.dice is not None
    assert game.phase is Phase.PLAY and game.dice.high == 5 and game.dice.low == 3
    assert game.gnubg_id() == text


def test_gnubg_id_round_trip_with_pending_resignation():
    game = opened()
    game.offer_resignation(1, 2)
    copy_ = Game.from_gnubg_id(game.gnubg_id())
    assert (copy_.phase, copy_.turn, copy_.resignation) == (Phase.RESIGNATION, 0, (1, 2))
    assert copy_.gnubg_id() == game.gnubg_id()


def test_from_gnubg_id_of_a_money_session_with_a_score():
    # GNU Backgammon's second money game: the session's score is in the ID.
    game = Game.from_gnubg_id("4HPwATDgc/ABMA:MIEOADAAAAAE")
    assert game.is_money and game.score == (3, 0) and game.phase is Phase.PLAY
    assert game.gnubg_id() == "4HPwATDgc/ABMA:MIEOADAAAAAE"


def test_from_gnubg_id_with_padding_inside_is_an_id_error():
    with pytest.raises(IdError):  # once an IndexError, past the bot's "except ValueError"
        Game.from_gnubg_id("4HPwATDgc/ABMA:cAkAAAAAAAA=")
    with pytest.raises(IdError):
        Game.from_gnubg_id("4HPwATDgc/AB==")


@pytest.mark.parametrize(
    "gnubg_id, reason",
    [
        ("27YBANC2bQAABA", "both sides are on the bar"),  # GNU Backgammon: "Illegal position"
        ("AAAAAAAAAAAAAA", "borne off all 15"),
        ("4P8PAAAAAAAAAA", "borne off all 15"),
        ("4HPwATDgc/ABMA:cKMqABAAAAAE", "finished"),  # a finished 1-point match
        (gid(Position.start(), match_length=5, score=(5, 2)), "already won"),
        (gid(Position.start(), cube=128), "past this game's limit"),
        (gid(Position.start(), cube=64, double_offered=True, turn=1), "cube limit"),
        (gid(Position.start(), cube=2, cube_owner=1, double_offered=True, turn=1), "owner"),
        (gid(Position.start(), match_length=5, crawford=True, double_offered=True, turn=1), "no double"),
        (gid(Position.start(), dice=(3, 1), double_offered=True, turn=1), "before rolling"),
        (gid(Position.start(), dice=(3, 1), turn=1), "player on roll"),
    ],
)
def test_setups_no_game_can_go_on_from_are_refused(gnubg_id, reason):
    with pytest.raises(SetupError, match=reason):
        Game.from_gnubg_id(gnubg_id)


def test_setups_count_missing_checkers_as_borne_off():
    # As GNU Backgammon reads a Position ID: 15 a side at most, the rest are off.
    game = Game.from_gnubg_id("6RoAALYtAAAAAA")
    assert game.position.off == (6, 7) and game.phase is Phase.ROLL
    assert Game.from_gnubg_id("4HPwATDgc/ABMA", GameSettings(cube_limit=128)).cube_value == 1


def test_a_centred_cube_above_one_was_never_turned():
    # Automatic doubles leave the cube in the middle: Jacoby still counts gammons single.
    game = Game.from_gnubg_id(gid(Position.start(), cube=2), GameSettings(jacoby=True))
    assert not game.cube_turned and game.points_for(WinKind.GAMMON) == 2


def test_game_over_match_ids_show_the_score_after_and_the_resignation():
    game = Game(GameSettings(match_length=5), dice=ScriptedDice([]), score=(3, 1))
    game.opening_roll((3, 1))
    game.play(0, "8/5 6/5")
    game.offer_resignation(1, 2)
    game.accept_resignation(0)
    state = game.match_state()
    assert (state.game_state, state.score, state.resignation) == (3, (5, 1), 2)
    assert state.turn == state.player_on_roll == 1
    assert decode_match_id(game.match_id()) == state


def test_game_over_match_id_after_a_bear_off_has_the_loser_on_roll():
    home = P({1: 1}, {23: 2, 13: 13})  # their 23 = our 2, in our home board
    game = Game.from_gnubg_id(gid(home, dice=(2, 1)))
    game.play(0, "1/off")
    state = game.match_state()
    assert (state.game_state, state.player_on_roll, state.turn, state.score) == (2, 1, 1, (3, 0))  # backgammon
    assert game.gnubg_id().split(":")[0] == game.position_for(1).position_id()


def test_game_over_match_score_stops_at_the_match_length():
    game = Game(GameSettings(match_length=5), dice=ScriptedDice([]), score=(3, 4))
    game.opening_roll((3, 1))
    game.play(0, "8/5 6/5")
    game.double(1)
    game.take(0)
    game.offer_resignation(0, 3)
    game.accept_resignation(1)
    assert game.result is not None
    assert game.result.points == 6
    assert game.match_state().score == (3, 5)


def test_resigning_after_a_roll_keeps_the_dice_in_the_match_id():
    game = opened()
    game.roll(1, (6, 4))
    game.offer_resignation(1, 1)
    game.accept_resignation(0)
    assert game.dice is None and game.unplayed_dice == Roll(6, 4)
    assert game.match_state().dice == (6, 4)


def test_replay_refuses_a_repeated_auto_action():
    board = P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 8: 5})
    game = Game.from_gnubg_id(gid(board, player_on_roll=1))
    game.roll(1, (5, 4))  # dances: auto play by player 1
    game.roll(0, (6, 5))
    game.play(0, "8/3 8/2")
    game.roll(1, (6, 1))  # enters: player 1 must play
    forged = list(game.log) + [Action("play", 1, text="", auto=True)]
    with pytest.raises(GameError):
        Game.replay(forged)


def test_a_deep_copy_plays_on_without_touching_the_original():
    from engine import Match

    for seed in range(30):
        match = Match(dice=SeededDice(seed))
        game = match.new_game()
        game.opening_roll()
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 12)):  # somewhere in the game, plays cached or not
            if game.phase is Phase.ROLL:
                game.roll(game.turn)
            elif game.phase is Phase.PLAY:
                game.play(game.turn, rng.choice(game.legal_plays()))
            else:
                break
        before, log, version = state(game), list(game.log), match.version
        clone = copy.deepcopy(match)
        twin = clone.game
        assert twin is not None
        assert twin is not game and state(twin) == before
        assert twin.dice_source is clone.dice_source and twin.dice_source is not game.dice_source
        for _ in range(6):  # the copy goes on, drawing its own dice
            if twin.phase is Phase.ROLL:
                twin.roll(twin.turn)
            elif twin.phase is Phase.PLAY:
                twin.play(twin.turn, twin.legal_plays()[-1])
            else:
                break
        assert state(game) == before and game.log == log and match.version == version
        # both dice sources stood at the same place: the original draws what the copy drew
        first = twin.log[len(log)] if len(twin.log) > len(log) else None
        if first is not None and first.kind == "roll":
            game.roll(game.turn)
            assert game.log[-1] == first


def test_a_deep_copy_of_a_match_on_fair_dice_draws_the_same_dice_on_its_own_counter():
    from engine import Match
    from engine.fairdice import FairDice

    match = Match(dice=FairDice(bytes(range(32)), "game-1"))
    game = match.new_game()
    game.opening_roll()
    clone = copy.deepcopy(match)
    twin = clone.game
    assert twin is not None
    assert twin.dice_source is clone.dice_source and clone.dice_source is not match.dice_source
    assert vars(clone.dice_source) == vars(match.dice_source)
    assert twin.dice_source is not None
    drawn = [twin.dice_source.die() for _ in range(5)]
    assert match.dice_source is not None
    assert isinstance(clone.dice_source, FairDice) and isinstance(match.dice_source, FairDice)
    assert clone.dice_source.counter == match.dice_source.counter + 5  # its own counter
    assert [match.dice_source.die() for _ in range(5)] == drawn  # the original goes on with the same dice


def test_forgotten_legal_plays_are_found_again():
    game = Game(starter=0)
    game.roll(0, (3, 1))
    plays = game.legal_plays()
    game.forget_legal_plays()
    again = game.legal_plays()
    assert again == plays and again is not plays
    assert game.play(0, "8/5 6/5").position == next(p.position for p in plays if format_play(p) == "8/5 6/5")


def test_forgotten_legal_plays_keep_their_spellings():
    game = Game(starter=0)
    game.roll(0, (3, 1))
    texts = sorted(format_play(p) for p in game.legal_plays())
    game.forget_legal_plays()
    assert game.legal_play_texts() == tuple(texts)
    assert game._plays is None  # spelling them searched nothing again
    # any other spelling of a legal play still reads, by a search
    twin = copy.deepcopy(game)
    assert twin.play(0, "6/5 8/5").position == game.play(0, "8/5 6/5").position
    # and an illegal one is still refused
    again = Game(starter=0)
    again.roll(0, (3, 1))
    again.forget_legal_plays()
    with pytest.raises(IllegalPlayError):
        again.play(0, "24/18")
    assert again.legal_play_texts() == tuple(texts)  # nothing changed by the refusal


@pytest.mark.parametrize("seed", range(12))
def test_a_game_that_forgets_its_plays_plays_the_same(seed):
    """Forgetting the plays at every turn (as the bot's cache does) changes
    nothing a game does: the same plays, spellings, positions and log."""
    rng = random.Random(seed)
    kept = Game(dice=SeededDice(seed))
    kept.opening_roll()
    forgetful = copy.deepcopy(kept)
    while not kept.is_over:
        if kept.phase is Phase.PLAY:
            forgetful.forget_legal_plays()
            assert forgetful.legal_play_texts() == tuple(sorted(format_play(p) for p in kept.legal_plays()))
            text = format_play(rng.choice(kept.legal_plays()))
            assert forgetful.play(forgetful.turn, text) == kept.play(kept.turn, text)
            assert forgetful.last_play == kept.last_play
        elif kept.phase is Phase.ROLL:
            kept.roll(kept.turn)
            forgetful.roll(forgetful.turn)
        else:
            raise AssertionError(kept.phase)
        assert forgetful.position == kept.position and forgetful.log == kept.log
    assert forgetful.result == kept.result
