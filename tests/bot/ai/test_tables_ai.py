"""The computer in plakoto, fevga and nardy (bot/ai/tables.py): it plays legal plays, takes a
win when it has one, sees the rules' dangers, and beats a random mover in a small sample
(the 500-game figures come from bench/variants_ai.py)."""

import random

import pytest

from bench.variants_ai import match_up
from bot.ai.tables import choose_play, evaluate
from engine.dice import Roll
from engine.tables import GAMES, TablesPosition, legal_tables_plays
from engine.tables import tables_position as board
from engine.variants import RULES


def test_it_pins_the_mother_when_it_can():
    position = board("plakoto", {3: 1, 5: 5, 12: 2}, {1: 1, 20: 5})
    plays = legal_tables_plays(RULES["plakoto"], position, Roll(2, 1))
    chosen = choose_play(plays)
    assert RULES["plakoto"].result(chosen.position) == (2, "mother")


def test_it_does_not_leave_its_own_mother_alone_in_front_of_their_checkers():
    # Two on the head, their checkers below it: leaving one alone there risks a double game.
    position = board("plakoto", {24: 2, 13: 3}, {18: 1, 16: 1, 2: 5})
    plays = legal_tables_plays(RULES["plakoto"], position, Roll(6, 5))
    chosen = choose_play(plays)
    assert chosen.position.points[23] != 1


def test_evaluation_counts_a_finished_game():
    won = board("nardy", {}, {16: 15})
    assert evaluate(won) >= 20_000  # a mars at least


@pytest.mark.parametrize("game", GAMES)
def test_beats_a_random_mover(game):
    times: list[float] = []
    results = [match_up(game, seed, 1, times) for seed in range(4)]
    assert sum(won for won, _, _ in results) >= 3  # 500-game figures: bench/variants_ai.py


@pytest.mark.parametrize("game", GAMES)
def test_always_a_legal_play(game):
    rng = random.Random(7)
    position: TablesPosition = RULES[game].start()
    for _ in range(6):
        roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_tables_plays(RULES[game], position, roll)
        chosen = choose_play(plays, lookahead=2)
        assert chosen in plays
        position = chosen.position.swap()
        if RULES[game].result(chosen.position):
            break
