"""Property tests: random games and matches replay exactly from their logs, and keep their invariants."""

from __future__ import annotations

import copy
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CHECKERS, Game, GameSettings, Match, Phase, SeededDice, WinKind, format_play

SETTINGS = settings(max_examples=15, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def state(game: Game) -> dict:
    return copy.deepcopy({k: v for k, v in vars(game).items() if k not in ("dice_source", "_plays", "_cursor")})


def check_invariants(game: Game) -> None:
    pos = game.position
    pos.validate()
    assert game.turn in (0, 1) and game.player_on_roll in (0, 1)
    if game.phase is Phase.ROLL:
        assert game.dice is None and game.turn == game.player_on_roll
        if game.settings.closed_out == "skip":  # a closed-out player never waits to roll
            assert not pos.is_closed_out() or pos.swap().is_closed_out()
        assert game.opening_offer is None or game.settings.opening_choice
    elif game.phase is Phase.PLAY:
        assert game.dice is not None and game.turn == game.player_on_roll
        plays = game.legal_plays()
        assert plays and plays[0].moves  # a roll with no play never waits for input
    elif game.phase is Phase.DOUBLED:
        assert game.turn != game.player_on_roll and game.offered_cube == 2 * game.cube_value
    elif game.phase is Phase.RESIGNATION:
        assert game.resignation is not None and game.turn != game.resignation[0]
    elif game.phase is Phase.OVER:
        r = game.result
        assert r is not None and r.cube == game.cube_value
        if r.reason == "bearoff":
            winner_side = game.position_for(r.winner)
            assert winner_side.off[0] == CHECKERS
            mult = {1: 1, 2: 2, 3: game.settings.backgammon_value}[int(r.kind)]
            assert r.points == mult * r.cube
            assert r.kind == game.counted_kind(game.loss_value(1 - r.winner))
    assert 1 <= game.cube_value <= game.settings.cube_limit
    assert game.cube_value & (game.cube_value - 1) == 0


def play_randomly(game: Game, rng: random.Random, checks: bool = True) -> None:
    if game.phase is Phase.OPENING:
        game.opening_roll()
    while not game.is_over:
        if checks:
            check_invariants(game)
        version = game.version
        if game.phase is Phase.ROLL:
            if game.opening_offer is not None and rng.random() < 0.5:
                game.use_opening(game.turn)
            elif game.can_double(game.turn) and rng.random() < 0.1:
                game.double(game.turn)
            elif rng.random() < 0.01:
                game.offer_resignation(rng.randint(0, 1), rng.randint(1, 3))
            else:
                game.roll(game.turn)
        elif game.phase is Phase.PLAY:
            choice = rng.choice(game.legal_plays())
            if rng.random() < 0.005:
                game.forfeit(game.turn, WinKind(rng.randint(1, 3)), "timeout")
            else:
                game.play(game.turn, format_play(choice) if rng.random() < 0.5 else choice)
        elif game.phase is Phase.DOUBLED:
            r = rng.random()
            if game.can_beaver(game.turn) and r < 0.15:
                game.beaver(game.turn)
            elif r < 0.85:
                game.take(game.turn)
            else:
                game.drop(game.turn)
        else:
            (game.reject_resignation if rng.random() < 0.6 else game.accept_resignation)(game.turn)
        assert game.version > version
    check_invariants(game)


money_settings = st.builds(
    GameSettings,
    jacoby=st.booleans(),
    beavers=st.booleans(),
    automatic_doubles=st.integers(-1, 3),
    opening_reroll=st.just(False),
    cube_limit=st.sampled_from([1, 2, 8, 64]),
    backgammon_value=st.sampled_from([3, 4]),
    cube=st.booleans(),
    closed_out=st.sampled_from(["roll", "skip"]),
    opening_choice=st.booleans(),
    double_before_first_play=st.booleans(),
) | st.builds(GameSettings, opening_reroll=st.just(True), automatic_doubles=st.integers(-1, 3))


@SETTINGS
@given(seed=st.integers(0, 2**32), game_settings=money_settings)
def test_random_money_games_replay_exactly(seed, game_settings):
    assert GameSettings.from_dict(json.loads(json.dumps(game_settings.to_dict()))) == game_settings
    game = Game(game_settings, dice=SeededDice(seed))
    play_randomly(game, random.Random(seed))
    replayed = Game.replay(game.log, game_settings)
    assert state(replayed) == state(game)
    # Through JSON, as the bot stores logs.
    stored = json.loads(json.dumps([a.to_dict() for a in game.log]))
    assert state(Game.replay(stored, game_settings)) == state(game)
    # Every prefix of the log replays to a consistent game too.
    cut = random.Random(seed).randrange(len(game.log))
    partial = Game.replay(game.log[:cut], game_settings)
    check_invariants(partial)


@SETTINGS
@given(
    seed=st.integers(0, 2**32), length=st.integers(1, 9), hoyle=st.booleans(), rule=st.sampled_from(["roll", "skip"])
)
def test_random_matches_replay_exactly(seed, length, hoyle, rule):
    rng = random.Random(seed)
    rules = GameSettings.hoyle() if hoyle else GameSettings(match_length=length, closed_out=rule)
    length = rules.match_length
    match = Match(rules, dice=SeededDice(seed))
    while not match.is_over:
        game = match.new_game()
        assert game.score == match.score
        play_randomly(game, rng, checks=False)
    assert max(match.score) >= length
    assert match.winner == (0 if match.score[0] > match.score[1] else 1)
    assert sum(g.crawford for g in match.games) <= (1 if length > 1 else 0)
    replayed = Match.replay(json.loads(json.dumps([a.to_dict() for a in match.log])), match.settings)
    assert [state(g) for g in replayed.games] == [state(g) for g in match.games]
    assert (replayed.score, replayed.winner, replayed.is_over) == (match.score, match.winner, True)


@SETTINGS
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 120))
def test_gnubg_id_reproduces_the_game_state(seed, steps):
    rng = random.Random(seed)
    game = Game(dice=SeededDice(seed))
    game.opening_roll()
    for _ in range(steps):
        if game.is_over:
            break
        if game.phase is Phase.ROLL:
            if game.can_double(game.turn) and rng.random() < 0.1:
                game.double(game.turn)
            else:
                game.roll(game.turn)
        elif game.phase is Phase.PLAY:
            game.play(game.turn, rng.choice(game.legal_plays()))
        elif game.phase is Phase.DOUBLED:
            game.take(game.turn)
    if game.is_over:
        return
    copy_ = Game.from_gnubg_id(game.gnubg_id())
    assert copy_.gnubg_id() == game.gnubg_id()
    assert (copy_.position, copy_.phase, copy_.turn, copy_.player_on_roll, copy_.cube_value, copy_.cube_owner) == (
        game.position,
        game.phase,
        game.turn,
        game.player_on_roll,
        game.cube_value,
        game.cube_owner,
    )
    assert {format_play(p) for p in copy_.legal_plays()} == {format_play(p) for p in game.legal_plays()}
