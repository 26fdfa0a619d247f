"""Snapshots (engine.snapshot): a match parsed from one, then given the rest of its
log, is the match a replay of the whole log gives; malformed ones are refused."""

from __future__ import annotations

import doctest
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine.snapshot
from engine import (
    Action,
    Game,
    GameSettings,
    Match,
    Phase,
    SeededDice,
    SnapshotError,
    WinKind,
    format_play,
    format_snapshot,
    parse_snapshot,
)
from engine.snapshot import FORMAT, snapshot_format
from tests.engine.test_replay_properties import money_settings, state

SETTINGS = settings(max_examples=25, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def full_state(match: Match) -> dict:
    return {
        "settings": match.settings,
        "games": [{**state(g), "cursor": g._cursor, "version": g.version} for g in match.games],
        "log": match.log,
    }


def step(match: Match, rng: random.Random) -> None:
    """One decision of a live match (what a player or the bot does), as the service
    does it: the engine's own calls, not ``apply``."""
    game = match.game
    if game is None or game.is_over:
        game = match.new_game()
        if game.phase is Phase.OPENING:
            game.opening_roll()
        return
    if game.phase is Phase.ROLL:
        if game.opening_offer is not None and rng.random() < 0.5:
            game.use_opening(game.turn)
        elif game.can_double(game.turn) and rng.random() < 0.15:
            game.double(game.turn)
        elif rng.random() < 0.03:
            game.offer_resignation(rng.randint(0, 1), rng.randint(1, 3))
        else:
            game.roll(game.turn)
    elif game.phase is Phase.PLAY:
        if rng.random() < 0.01:
            game.forfeit(game.turn, WinKind(rng.randint(1, 3)), "timeout")
        elif rng.random() < 0.03:
            game.offer_resignation(game.turn, rng.randint(1, 3))
        else:
            game.play(game.turn, rng.choice(game.legal_plays()))
    elif game.phase is Phase.DOUBLED:
        r = rng.random()
        if game.can_beaver(game.turn) and r < 0.15:
            game.beaver(game.turn)
        elif r < 0.85:
            game.take(game.turn)
        else:
            game.drop(game.turn)
    else:
        (game.reject_resignation if rng.random() < 0.7 else game.accept_resignation)(game.turn)


def check_snapshots(rules: GameSettings, seed: int, steps: int, setup: str | None = None) -> None:
    rng = random.Random(seed)
    live = Match(rules, dice=SeededDice(seed))
    if setup is not None:
        live.new_game().apply(Action("setup", text=setup))
    taken: list[tuple[int, str]] = []
    for _ in range(steps):
        if live.is_over:
            break
        step(live, rng)
        if rng.random() < 0.3 or live.is_over:
            taken.append((live.version, format_snapshot(live)))
    log = json.loads(json.dumps([a.to_dict() for a in live.log]))  # as stored
    whole = Match.replay(log, rules)
    for version, text in rng.sample(taken, min(len(taken), 6)) + taken[-1:]:
        assert snapshot_format(text) == FORMAT
        resumed = parse_snapshot(text)
        assert format_snapshot(resumed) == text  # round trip
        assert full_state(resumed) == full_state(Match.replay(log[:version], rules))
        for action in log[version:]:
            resumed.apply(action)
        assert full_state(resumed) == full_state(whole)
        assert (resumed.score, resumed.is_over, resumed.winner) == (whole.score, whole.is_over, whole.winner)
        if resumed.game is not None:
            assert whole.game is not None
            assert resumed.game.legal_plays() == whole.game.legal_plays()
            assert resumed.game.gnubg_id() == whole.game.gnubg_id()


@SETTINGS
@given(seed=st.integers(0, 2**32), game_settings=money_settings, steps=st.integers(1, 300))
def test_money_snapshot_and_tail_equal_the_replay(seed, game_settings, steps):
    check_snapshots(game_settings, seed, steps)


@SETTINGS
@given(
    seed=st.integers(0, 2**32),
    length=st.integers(1, 7),
    hoyle=st.booleans(),
    rule=st.sampled_from(["roll", "skip"]),
    steps=st.integers(1, 400),
)
def test_match_snapshot_and_tail_equal_the_replay(seed, length, hoyle, rule, steps):
    rules = GameSettings.hoyle() if hoyle else GameSettings(match_length=length, closed_out=rule)
    check_snapshots(rules, seed, steps)


@pytest.mark.parametrize(
    "setup",
    [
        "4HPwATDgc/ABMA:cIkKAAAAAAAA",  # a 7-point match position with dice to play
        "4HPwATDgc/ABMA",  # money, player 0 to roll
    ],
)
def test_a_set_up_game_snapshots_with_its_own_settings(setup):
    check_snapshots(GameSettings(), 5, 120, setup=setup)
    match = Match(GameSettings())
    match.new_game().apply(Action("setup", text=setup))
    parsed = parse_snapshot(format_snapshot(match))
    assert parsed.game is not None
    assert match.game is not None
    assert parsed.game.settings == match.game.settings and parsed.game.log == match.game.log


def test_the_dice_go_on_from_the_source_given():
    match = Match(dice=SeededDice(3))
    match.new_game().opening_roll()
    text = format_snapshot(match)
    a, b = parse_snapshot(text, dice=SeededDice(9)), parse_snapshot(text, dice=SeededDice(9))
    for m in (a, b):
        assert m.game is not None
        while m.game.phase is not Phase.ROLL:
            m.game.play(m.game.turn, m.game.legal_plays()[0])
        m.game.roll(m.game.turn)
    assert a.game is not None
    assert b.game is not None
    assert a.game.dice == b.game.dice and a.dice_source is a.game.dice_source


def test_a_pending_resignation_comes_back_with_what_it_interrupted():
    match = Match(dice=SeededDice(11))
    game = match.new_game()
    game.opening_roll()
    game.offer_resignation(game.turn, 2)
    parsed = parse_snapshot(format_snapshot(match))
    assert parsed.game is not None
    parsed.game.reject_resignation(parsed.game.turn)
    game.reject_resignation(game.turn)
    assert state(parsed.game) == state(game)
    assert format_play(parsed.game.legal_plays()[0]) == format_play(game.legal_plays()[0])


def _good() -> dict:
    match = Match(GameSettings(match_length=3), dice=SeededDice(2))
    match.new_game().opening_roll()
    return json.loads(format_snapshot(match))


@pytest.mark.parametrize(
    "spoil, message",
    [
        (lambda d: "not json{", "is JSON"),
        (lambda d: [1, 2], "JSON object"),
        (lambda d: {**d, "format": FORMAT + 1}, "format"),
        (lambda d: {k: v for k, v in d.items() if k != "games"}, "'games'"),
        (lambda d: {**d, "settings": {"match_length": -1}}, "settings"),
        (lambda d: {**d, "games": [{**d["games"][0], "position": "nonsense!"}]}, "game 1"),
        (lambda d: {**d, "games": [{**d["games"][0], "phase": "sleeping"}]}, "game 1"),
        (lambda d: {**d, "games": [{**d["games"][0], "dice": [7, 1]}]}, "game 1"),
        (lambda d: {**d, "games": [{**d["games"][0], "turn": 2}]}, "player 0 or 1"),
        (lambda d: {**d, "games": [{**d["games"][0], "cube": [1, None]}]}, "cube"),
        (lambda d: {**d, "games": [{**d["games"][0], "log": [{"no": "kind"}]}]}, "kind"),
        (lambda d: {**d, "games": [{**d["games"][0], "dice": None}]}, "dice to play"),
        (
            lambda d: {
                **d,
                "games": [
                    {**d["games"][0], "result": {"winner": 0, "kind": 1, "cube": 1, "points": 1, "reason": "pass"}}
                ],
            },
            "result",
        ),
        (lambda d: {**d, "games": [d["games"][0], d["games"][0]]}, "only the last game"),
    ],
)
def test_malformed_snapshots_are_refused(spoil, message):
    spoiled = spoil(_good())
    text = spoiled if isinstance(spoiled, str) else json.dumps(spoiled)
    with pytest.raises(SnapshotError, match=message):
        parse_snapshot(text)


def test_snapshot_format_reads_only_the_version():
    assert snapshot_format(json.dumps(_good())) == FORMAT
    assert (
        snapshot_format("{}") is None and snapshot_format("[") is None and snapshot_format('{"format": true}') is None
    )


def test_docstring_examples():
    assert doctest.testmod(engine.snapshot).failed == 0


def test_an_empty_match_and_a_finished_one_round_trip():
    empty = Match(GameSettings(match_length=1))
    assert parse_snapshot(format_snapshot(empty)).games == []
    done = Match(GameSettings(match_length=1), dice=SeededDice(4))
    game = done.new_game()
    game.opening_roll()
    game.forfeit(game.turn, WinKind.GAMMON)
    parsed = parse_snapshot(format_snapshot(done))
    assert parsed.is_over and parsed.winner == done.winner and parsed.score == done.score
    assert isinstance(parsed.game, Game) and parsed.game.result == game.result
