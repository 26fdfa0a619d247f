"""Matches (docs/rules.md 10): scores, the Crawford rule, the end, money games, replay."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import Action, Game, GameError, GameSettings, Match, Phase, SeededDice, WinKind


def quick_win(game: Game, winner: int, kind: WinKind = WinKind.SINGLE) -> None:
    """End a game: the loser forfeits at ``kind``."""
    if game.phase is Phase.OPENING:
        game.opening_roll((3, 1))
    game.forfeit(1 - winner, kind)


def test_scores_accumulate():
    match = Match(GameSettings(match_length=7), dice=SeededDice(1))
    assert match.score == (0, 0) and match.game is None
    quick_win(match.new_game(), 0)
    assert match.score == (1, 0)
    quick_win(match.new_game(), 1, WinKind.GAMMON)
    assert match.score == (1, 2)
    game = match.new_game()
    assert game.score == (1, 2)  # the game knows the score before it
    game.opening_roll((3, 1))
    game.play(0, "8/5 6/5")
    game.double(1)
    game.take(0)
    game.forfeit(1, WinKind.BACKGAMMON)
    assert match.score == (7, 2)
    assert match.is_over and match.winner == 0


def test_cannot_start_a_game_before_the_last_one_ends():
    match = Match(GameSettings(match_length=3))
    game = match.new_game()
    game.opening_roll((3, 1))
    with pytest.raises(GameError):
        match.new_game()
    assert len(match.games) == 1


def test_crawford_game_is_the_first_after_reaching_n_minus_1():
    match = Match(GameSettings(match_length=5))
    quick_win(match.new_game(), 0, WinKind.GAMMON)  # 2-0
    assert not match.next_game_is_crawford()
    quick_win(match.new_game(), 1)  # 2-1
    g = match.new_game()
    assert not g.crawford
    quick_win(g, 0, WinKind.GAMMON)  # 4-1: player 0 at N-1
    assert match.next_game_is_crawford()
    crawford = match.new_game()
    assert crawford.crawford and crawford.score == (4, 1)
    assert crawford.match_state().crawford
    crawford.opening_roll((3, 1))
    crawford.play(0, "8/5 6/5")
    assert not crawford.can_double(1)
    with pytest.raises(GameError):
        crawford.double(1)
    quick_win(crawford, 1)  # 4-2
    assert not match.next_game_is_crawford()
    post = match.new_game()
    assert not post.crawford and match.is_post_crawford
    post.opening_roll((3, 1))
    post.play(0, "8/5 6/5")
    assert post.can_double(1)
    post.double(1)
    post.take(0)
    assert post.cube_value == 2
    quick_win(post, 1)  # 4-4
    post2 = match.new_game()
    assert not post2.crawford  # only one Crawford game, even with both at N-1
    quick_win(post2, 1)
    assert match.is_over and match.winner == 1 and match.score == (4, 5)


def test_crawford_when_the_trailer_reaches_n_minus_1_first():
    match = Match(GameSettings(match_length=3))
    quick_win(match.new_game(), 1, WinKind.GAMMON)  # 0-2
    assert match.new_game().crawford


def test_no_crawford_when_a_player_jumps_past_n_minus_1():
    match = Match(GameSettings(match_length=5))
    quick_win(match.new_game(), 0)  # 1-0
    quick_win(match.new_game(), 0, WinKind.BACKGAMMON)  # 4-0
    assert match.new_game().crawford


def test_match_over_at_n_or_more():
    match = Match(GameSettings(match_length=3))
    quick_win(match.new_game(), 1)
    assert not match.is_over and match.winner is None
    quick_win(match.new_game(), 1, WinKind.BACKGAMMON)  # 0-4
    assert match.is_over and match.winner == 1
    with pytest.raises(GameError):
        match.new_game()


def test_one_point_match_has_no_crawford_game():
    match = Match(GameSettings(match_length=1))
    game = match.new_game()
    assert not game.crawford
    quick_win(game, 0)
    assert match.is_over and match.winner == 0


def test_money_game_is_a_match_of_length_zero():
    match = Match()
    assert match.is_money and match.length == 0
    game = match.new_game()
    assert not match.is_over
    game.opening_roll((3, 1))
    game.play(0, "8/5 6/5")
    game.double(1)
    result = game.drop(0)
    assert match.is_over and match.winner == 1 and match.score == (0, 1) and result.points == 1
    with pytest.raises(GameError):
        match.new_game()


def test_match_log_has_game_markers():
    match = Match(GameSettings(match_length=3))
    quick_win(match.new_game(), 0)
    quick_win(match.new_game(), 1)
    log = match.log
    markers = [a for a in log if a.kind == "game"]
    assert markers == [Action("game", value=1), Action("game", value=2)]
    assert log[0] == Action("game", value=1)
    assert log[1].kind == "opening"


def test_log_must_start_with_a_game_marker():
    with pytest.raises(GameError):
        Match.replay([Action("opening", dice=(3, 1))], GameSettings(match_length=3))


def random_match(seed: int, length: int) -> Match:
    rng = random.Random(seed)
    match = Match(GameSettings(match_length=length), dice=SeededDice(seed))
    while not match.is_over:
        game = match.new_game()
        game.opening_roll()
        while not game.is_over:
            if game.phase is Phase.ROLL:
                if game.can_double(game.turn) and rng.random() < 0.1:
                    game.double(game.turn)
                elif rng.random() < 0.01:
                    game.offer_resignation(game.turn, rng.randint(1, 3))
                else:
                    game.roll(game.turn)
            elif game.phase is Phase.PLAY:
                game.play(game.turn, rng.choice(game.legal_plays()))
            elif game.phase is Phase.DOUBLED:
                (game.take if rng.random() < 0.7 else game.drop)(game.turn)
            elif game.phase is Phase.RESIGNATION:
                (game.accept_resignation if rng.random() < 0.5 else game.reject_resignation)(game.turn)
    return match


def _summary(match: Match):
    return (
        match.score,
        match.is_over,
        match.winner,
        len(match.games),
        [(g.crawford, g.score, g.result, g.position, g.cube_value, g.log) for g in match.games],
    )


@pytest.mark.parametrize("seed,length", [(1, 3), (2, 5), (3, 7), (4, 1)])
def test_random_match_rules_and_replay(seed, length):
    match = random_match(seed, length)
    s0, s1 = match.score
    assert max(s0, s1) >= length and match.winner == (0 if s0 > s1 else 1)
    # Scores before each game accumulate the earlier results.
    running = [0, 0]
    crawfords = 0
    for game in match.games:
        assert game.score == tuple(running)
        if game.crawford:
            crawfords += 1
            assert length - 1 in running
            assert all(a.kind != "double" for a in game.log)
        assert game.result is not None
        running[game.result.winner] += game.result.points
    assert crawfords <= 1
    replayed = Match.replay(match.log, match.settings)
    assert _summary(replayed) == _summary(match)
    replayed = Match.replay([a.to_dict() for a in match.log], match.settings)
    assert _summary(replayed) == _summary(match)


def test_crawford_game_detected_in_random_matches():
    # Across a few matches one must have had a Crawford game, and each one is the game
    # right after the first time someone reached N-1.
    seen = 0
    for seed in range(5, 15):
        match = random_match(seed, 5)
        running = [0, 0]
        reached = False
        for game in match.games:
            expected = reached is False and 4 in running
            if expected:
                reached = True
            assert game.crawford == expected
            seen += game.crawford
            assert game.result is not None
            running[game.result.winner] += game.result.points
    assert seen > 0


@pytest.mark.parametrize("field", [{"automatic_doubles": 1}, {"jacoby": True}, {"beavers": True}])
def test_money_only_settings_are_refused_in_matches(field):
    with pytest.raises(ValueError):
        GameSettings(match_length=3, **field)


def test_gammons_count_in_matches():
    match = Match(GameSettings(match_length=5))
    quick_win(match.new_game(), 0, WinKind.GAMMON)
    assert match.score == (2, 0)


def test_the_score_stops_at_the_match_length():
    """A cube far past the match length wins the match, not a score of 3-196."""
    match = Match(GameSettings(match_length=5))
    quick_win(match.new_game(), 1, WinKind.GAMMON)
    quick_win(match.new_game(), 0)
    game = match.new_game()
    game.opening_roll((3, 1))
    game.play(0, "8/5 6/5")
    for player in (1, 0, 1, 0, 1, 0):
        game.double(player)
        game.take(1 - player)
        game.roll(player, (1, 1) if player else (2, 2))
        game.play(player, game.legal_plays()[0])
    assert game.cube_value == 64
    game.forfeit(0, WinKind.BACKGAMMON)  # 192 points
    assert game.result is not None
    assert game.result.points == 192
    assert match.score == (1, 5) and match.is_over and match.winner == 1
    assert game.match_state().score == (1, 5)


def test_an_old_match_log_replays_under_skip():
    """A stored match from before closed_out existed replays, and so do its later games."""
    from engine.position import Position

    closed = Position.from_counts({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 10: 3}, {25: 1, 13: 14})
    from engine.gnubgid import MatchState, encode_match_id

    setup = f"{closed.position_id()}:{encode_match_id(MatchState(jacoby=False))}"
    log: list[dict[str, Any]] = [
        {"kind": "game", "value": 1},
        {"kind": "setup", "text": setup},
        {"kind": "roll", "player": 0, "dice": [2, 1]},
        {"kind": "play", "player": 0, "text": "10/8 10/9"},
        {"kind": "closed_out", "player": 1, "auto": True},
    ]
    match = Match.replay(log)  # the bot passes today's settings: no closed_out given
    assert match.game is not None
    assert match.settings.closed_out == "skip" and match.game.settings.closed_out == "skip"
    assert match.game.turn == 0
