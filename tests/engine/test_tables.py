"""What plakoto, fevga and nardy share (engine/tables.py): notation and position IDs that
round-trip, the game and its log, random self-play invariants, and the tavli match."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.dice import Roll, SeededDice
from engine.game import GameError, LogError, Phase
from engine.notation import IllegalPlayError, NotationError
from engine.tables import (
    GAMES,
    TablesIdError,
    TablesPosition,
    TablesPositionError,
    audit_play,
    decode_tables_id,
    format_tables_play,
    legal_tables_plays,
    match_tables_play,
)
from engine.tables import tables_position as board
from engine.tavli import Tavli
from engine.variants import RULES, TablesGame, TablesPhase


def random_game(game: str, seed: int, *, check=None) -> TablesGame:
    """A game of two random movers to its end; ``check(before, play, roll, first)`` after every play."""
    rng = random.Random(seed)
    table = TablesGame(game, dice=SeededDice(seed))
    table.opening_roll()
    for _ in range(3000):
        if table.is_over:
            return table
        player = table.turn
        first = table.plays_made[player] == 0
        before = table.position
        roll = table.roll(player)
        if table.phase is TablesPhase.PLAY:
            play = rng.choice(table.legal_plays())
            table.play(player, play)
            if check:
                check(before, play, roll, first)
    raise AssertionError(f"{game} seed {seed} did not end")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32))
def test_random_self_play_keeps_every_rule_and_ends(game, seed):
    rules = RULES[game]

    def check(before, play, roll, first):
        assert audit_play(rules, before, play, roll, first_turn=first) == []
        after = play.position
        assert decode_tables_id(after.position_id()) == after
        assert after.swap().swap() == after
        assert sum(after.pip_counts()) <= 720

    table = random_game(game, seed, check=check)
    assert table.result is not None and table.result.points in (1, 2, 3)
    # The log rebuilds the same game.
    again = TablesGame.replay(game, [a.to_dict() for a in table.log])
    assert again.position == table.position and again.result == table.result


@settings(max_examples=10, deadline=None)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32), turns=st.integers(0, 40))
def test_every_play_reads_back_from_its_spelling(game, seed, turns):
    rng = random.Random(seed)
    table = TablesGame(game, dice=SeededDice(seed))
    table.opening_roll()
    for _ in range(turns):
        if table.is_over:
            return
        table.roll(table.turn)
        if table.phase is TablesPhase.PLAY:
            plays = table.legal_plays()
            for play in plays:
                text = format_tables_play(play)
                assert table.dice is not None
                assert match_tables_play(table.position, table.dice, text, plays) is play
                # Single hops in any order, without the pin marks, read the same.
                hops = " ".join(f"{m.source}/{m.destination}" for m in reversed(play.moves))
                assert match_tables_play(table.position, table.dice, hops, plays) is play
            table.play(table.turn, rng.choice(plays))


def test_notation_errors_are_precise():
    position = RULES["nardy"].start()
    plays = legal_tables_plays(RULES["nardy"], position, Roll(6, 5), first_turn=True)
    with pytest.raises(NotationError):
        match_tables_play(position, Roll(6, 5), "24/?", plays)
    with pytest.raises(IllegalPlayError, match="no bar"):
        match_tables_play(position, Roll(6, 5), "bar/20", plays)
    with pytest.raises(IllegalPlayError, match="not a legal play"):
        match_tables_play(position, Roll(6, 5), "24/18 24/19", plays)  # one checker off the head


@pytest.mark.parametrize("game", GAMES)
def test_a_die_higher_than_the_highest_checker_bears_it_off(game):
    theirs = {"plakoto": {20: 15}, "fevga": {16: 15}, "nardy": {16: 15}}[game]
    position = board(game, {3: 1, 2: 1}, theirs)
    plays = legal_tables_plays(RULES[game], position, Roll(6, 5))
    assert [format_tables_play(play) for play in plays] == ["3/off 2/off"]


def test_position_ids():
    for game in GAMES:
        start = RULES[game].start()
        assert decode_tables_id(start.position_id()) == start
        assert len(start.position_id()) == 43
    pinned = board("plakoto", {10: 2}, {10 - 3: 1, 20: 2}, pins={10: -1})
    assert decode_tables_id(pinned.position_id()) == pinned
    with pytest.raises(TablesIdError):
        decode_tables_id("AAAA")
    with pytest.raises(TablesIdError):
        decode_tables_id("!" * 43)
    with pytest.raises(TablesIdError):  # the game byte names no game
        decode_tables_id("BwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA8AAAAAAAAAA")


def test_impossible_positions_are_refused():
    with pytest.raises(TablesPositionError, match="15 checkers"):
        TablesPosition("nardy", (1,) + (0,) * 23)
    with pytest.raises(TablesPositionError, match="only plakoto"):
        board("fevga", {10: 1}, {9: 1}, pins={10: -1})
    with pytest.raises(TablesPositionError, match="under the other side"):
        board("plakoto", {10: 1}, {9: 1}, pins={10: 1})


def test_game_refuses_out_of_turn_and_bad_logs():
    game = TablesGame("fevga", dice=SeededDice(1))
    with pytest.raises(GameError):
        game.roll(0)
    game.opening_roll((5, 2))
    with pytest.raises(GameError):
        game.roll(1)
    game.roll(0, (6, 6))
    assert game.legal_play_texts() == ("24/18",)
    game.play(0, "24/18")
    assert game.turn == 1 and game.position == game.position_for(1)
    with pytest.raises(LogError):
        TablesGame.replay("fevga", [{"kind": "double", "player": 0}])
    with pytest.raises(GameError):
        TablesGame("backgammon")


def test_a_roll_with_no_play_is_a_logged_lost_turn():
    position = board("plakoto", {10: 1, 9: 1}, {7: 2, 6: 1}, pins={6: 1})
    game = TablesGame.from_position(position)
    game.roll(0, (3, 3))
    assert game.turn == 1 and game.log[-1].kind == "play" and game.log[-1].auto


def play_out(game, rng):
    if game.phase in (TablesPhase.OPENING, Phase.OPENING):
        game.opening_roll()
    while not game.is_over:
        game.roll(game.turn)
        if game.phase in (TablesPhase.PLAY, Phase.PLAY):
            game.play(game.turn, rng.choice(game.legal_plays()))


@pytest.mark.parametrize("length", [3, 5])
def test_tavli_cycles_the_three_games_with_one_score(length):
    rng = random.Random(length)
    match = Tavli(length, dice=SeededDice(length))
    kinds = []
    while not match.is_over:
        game = match.new_game()
        kinds.append(match.kind_of(len(match.games)))
        if len(match.games) > 1:  # the winner of the last game starts, no opening throw
            assert match.games[-2].result is not None
            assert game.turn == match.games[-2].result.winner
        play_out(game, rng)
    assert kinds[:3] == ["portes", "plakoto", "fevga"][: len(kinds)]
    assert max(match.score) == length and match.winner == (0 if match.score[0] == length else 1)
    again = Tavli.replay([a.to_dict() for a in match.log], length)
    assert again.score == match.score and again.winner == match.winner
    with pytest.raises(GameError):
        match.new_game()


def test_tavli_lengths():
    with pytest.raises(ValueError):
        Tavli(4)
    assert Tavli(7).length == 7


def test_each_rule_mutant_still_finds_its_line():
    """scripts/variant_mutants.py drops each special rule by replacing one line: the lines must still exist
    (its run, about five minutes, shows every dropped rule caught by a test above or in test_plakoto,
    test_fevga and test_nardy)."""
    from scripts.variant_mutants import MUTANTS, ROOT

    for name, path, old, _new in MUTANTS:
        assert (ROOT / path).read_text().count(old) == 1, name
