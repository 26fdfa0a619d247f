"""bot.ai: plays mapped to our legal plays, levels ordered, analysis names blunders,
and a friendly path when the engines are missing."""

from __future__ import annotations

import builtins
import multiprocessing
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from engine import Game, GameSettings, Position, Roll, ScriptedDice, SeededDice, legal_plays

g = pytest.importorskip("gnubg_nn")
pytest.importorskip("bgsage")

from bot import ai  # noqa: E402
from bot.ai import (  # noqa: E402
    Analyst,
    Level,
    engines,  # noqa: E402
    gnubg_board,
)


def random_positions(count: int, seed: int) -> list[tuple[Position, Roll]]:
    """Positions reached by random self-play (every one built by our engine)."""
    rng = random.Random(seed)
    cases: list[tuple[Position, Roll]] = []
    while len(cases) < count:
        position = Position.start()
        for _ in range(400):
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
            plays = legal_plays(position, roll)
            cases.append((position, roll))
            play = rng.choice(plays)
            if play.position.off[0] == 15 or len(cases) >= count:
                break
            position = play.position.swap()
    return cases


def gnubg_best_board(position: Position, roll: Roll, ply: int):
    moves, key = g.best_move(gnubg_board(position), roll.die1, roll.die2, n=ply, b=1)
    return tuple(tuple(side) for side in g.board_from_position_key(key))


@pytest.mark.parametrize("ply", [0, 1])
def test_best_plays_are_legal_and_match_gnubg(ply):
    analyst = Analyst()
    checked = ties = 0
    for position, roll in random_positions(250, seed=11 + ply):
        plays = legal_plays(position, roll)
        ranked = analyst.best_plays(position, roll, level=ply, n=3)
        assert 1 <= len(ranked) <= 3
        for candidate in ranked:
            assert candidate.play in plays  # identity by resulting position (Play equality)
        assert [c.equity for c in ranked] == sorted((c.equity for c in ranked), reverse=True)
        if len(plays) > 1:
            theirs = gnubg_best_board(position, roll, ply)
            boards = [tuple(map(tuple, gnubg_board(c.play.position.swap()))) for c in ranked]
            if boards[0] != theirs:
                # gnubg-nn's own best_move(b=1) and its list can order near-ties
                # differently at 1-ply; tolerate that rarely, never at 0-ply.
                assert ply > 0, (position.position_id(), roll)
                ties += 1
            checked += 1
    assert checked >= 200
    assert ties <= checked // 20


def test_choose_play_at_each_level_is_legal():
    analyst = Analyst(rng=random.Random(3))
    for position, roll in random_positions(40, seed=5):
        plays = legal_plays(position, roll)
        for level in (Level.BEGINNER, Level.INTERMEDIATE):
            assert analyst.choose_play(position, roll, level=level) in plays


def test_evaluate_and_cube_on_known_positions():
    analyst = Analyst()
    start = analyst.evaluate(Position.start())
    assert 0.45 < start.win < 0.6 and abs(start.equity) < 0.2
    # A crushing position (15 checkers home against a closed-out opponent): double, pass.
    crushing = Position.from_position_id("2+4OAAC3bQAAEA")
    for level in (Level.BEGINNER, Level.INTERMEDIATE):
        advice = analyst.cube_action(ai.CubeState(crushing), level=level)
        assert advice.double and not advice.take, advice
    opening = analyst.cube_action(ai.CubeState(Position.start()), level=Level.BEGINNER)
    assert not opening.double and opening.take


async def test_async_wrappers_and_process_pool():
    analyst = Analyst()
    try:
        position, roll = Position.start(), Roll(6, 4)
        expert = await analyst.abest_plays(position, roll, level=Level.EXPERT)
        assert expert[0].play in legal_plays(position, roll)
        assert [c.play for c in expert] == [c.play for c in analyst.best_plays(position, roll, level=2)]
        chosen = await analyst.achoose_play(position, roll, level=Level.INTERMEDIATE)
        assert chosen in legal_plays(position, roll)
        probs = await analyst.aevaluate(position)
        assert 0.4 < probs.win < 0.6
    finally:
        await analyst.aclose()


def play_games(analyst, levels, games, seed):
    """Engine-only games between two levels (each seat alternates); returns wins of levels[0]."""
    rng = random.Random(seed)
    dice = SeededDice(seed)
    wins = 0
    for number in range(games):
        game = Game(GameSettings(cube=False), dice=dice)
        game.opening_roll()
        seat_of_first = number % 2
        while not game.is_over:
            seat = game.turn
            level = levels[0] if seat == seat_of_first else levels[1]
            if game.phase.value == "roll":
                game.roll(seat)
                continue
            play = analyst.choose_play(game.position, game.dice, level=level, rng=rng)
            game.play(seat, play)
        assert game.result is not None
        wins += game.result.winner == seat_of_first
    return wins


@pytest.mark.soak  # some 50 s of two cores: the levels' plays are checked against gnubg in the suite
def test_stronger_level_beats_beginner():
    """Checker play only (no cube), 40 games, seats alternating: 1-ply
    (intermediate) against the beginner's noisy 0-ply. (Expert 2-ply against
    beginner takes minutes on this machine: see bench/ai.py.)"""
    started = time.perf_counter()
    wins = play_games(Analyst(), (Level.INTERMEDIATE, Level.BEGINNER), 40, seed=2024)
    print(f"\nintermediate won {wins}/40 against beginner in {time.perf_counter() - started:.1f} s")
    assert wins >= 26  # 65%


# -- analysis -------------------------------------------------------------------------


def test_analysis_names_a_planted_blunder():
    """Player 0 opens 3-1 with 24/21 24/23 instead of making the 5 point (8/5 6/5)...
    then, with 6-4 from a quiet position, leaves a direct shot on purpose."""
    # Opening throw 3 (player 0) vs 1: player 0 plays 3-1.
    dice = ScriptedDice([3, 1, 6, 4, 5, 2])
    game = Game(GameSettings(cube=False), dice=dice)
    game.opening_roll()
    assert game.dice == Roll(3, 1)
    game.play(0, "13/10 6/5")  # leaves two blots in the home board area instead of 8/5 6/5
    game.roll(1)
    game.play(1, game.legal_plays()[0])
    game.roll(0)
    game.play(0, game.legal_plays()[0])
    analysis = Analyst().analyse_game(game, ply=0, cube_level="0ply")
    first = analysis.players[0]
    assert first.checker_decisions >= 1
    blunder = next(m for m in first.blunders if m.turn == 1)
    assert blunder.kind == "checker"
    assert blunder.played == "13/10 6/5"
    assert blunder.best == "8/5 6/5"
    assert blunder.equity_lost > ai.BLUNDER_THRESHOLD
    assert first.error_rate > 0
    assert "8/5 6/5" in analysis.summary(("alice", "bob"))


def test_analysis_of_a_whole_game_adds_up():
    analyst = Analyst(rng=random.Random(1))
    dice = SeededDice(99)
    game = Game(dice=dice)
    game.opening_roll()
    rng = random.Random(4)
    while not game.is_over:
        seat = game.turn
        if game.phase.value == "roll":
            game.roll(seat)
        elif game.phase.value == "play":
            assert game.dice is not None
            game.play(seat, analyst.choose_play(game.position, game.dice, level=Level.BEGINNER, rng=rng))
    analysis = analyst.analyse_game(game, ply=0, cube_level="0ply")
    for player in analysis.players:
        assert player.checker_decisions > 0
        assert player.equity_lost >= 0
        assert abs(player.error_rate - 1000 * player.equity_lost / player.decisions) < 1e-9
        assert -5 < player.luck < 5
    assert all(b.equity_lost > ai.BLUNDER_THRESHOLD for b in analysis.blunders)


def test_the_timeline_of_a_game_adds_up():
    """Every move of the game, in order, with chances after it; the luck of the
    moves sums to each player's luck; the mistakes kept carry their move and choices."""
    analyst = Analyst(rng=random.Random(2))
    game = Game(GameSettings(cube=False), dice=SeededDice(7))
    game.opening_roll()
    rng = random.Random(5)
    while not game.is_over:
        if game.phase.value == "roll":
            game.roll(game.turn)
        else:
            assert game.dice is not None
            game.play(game.turn, analyst.choose_play(game.position, game.dice, level=Level.BEGINNER, rng=rng))
    analysis = analyst.analyse_game(game, ply=0, cube_level="0ply")
    plays = [a for a in game.log if a.kind == "play"]
    assert [m.move for m in analysis.moves] == list(range(1, len(plays) + 1))
    assert [m.player for m in analysis.moves] == [a.player for a in plays]
    for seat in (0, 1):
        luck = sum(m.luck for m in analysis.moves if m.player == seat)
        assert luck == pytest.approx(analysis.players[seat].luck, abs=1e-9)
    for m in analysis.moves:
        assert 0.0 <= m.gammons[0] <= m.win <= 1.0 and 0.0 <= m.gammons[1] <= 1.0 - m.win + 1e-9
    last = analysis.moves[-1]
    assert game.result is not None
    assert last.win == float(game.result.winner == 0)  # the game's end: certain
    detail = analysis.detail()
    assert len(detail["moves"]) == len(analysis.moves)
    assert detail["players"][0]["rate"] == round(analysis.players[0].error_rate, 2)
    for kept in detail["mistakes"]:
        assert kept["lost"] >= ai.values.KEPT_MISTAKE and kept["id"] and 1 <= kept["move"] <= last.move
        choices = kept["choices"]
        assert choices[0][1] == max(e for _, e in choices) and kept["played"] in [t for t, _ in choices]
        assert choices[0][1] - dict(choices)[kept["played"]] == pytest.approx(kept["lost"], abs=2e-4)


def test_cube_mistakes_keep_both_actions():
    """A double far too early is a cube error with its two choices."""
    game = Game(GameSettings(), dice=ScriptedDice([3, 1, 6, 4]))
    game.opening_roll()
    game.play(0, "8/5 6/5")
    game.double(1)  # bob doubles after one move: far too early
    game.take(0)
    analysis = Analyst().analyse_game(game, ply=0, cube_level="0ply")
    (error,) = [m for m in analysis.players[1].mistakes if m.kind == "double"]
    assert error.move == 2 and error.played == "double"
    assert [text for text, _ in error.choices] == ["No double", "Double"]
    assert error.choices[0][1] - error.choices[1][1] == pytest.approx(error.equity_lost)


# -- no engines -------------------------------------------------------------------------


def test_unavailable_path(monkeypatch):
    real_import = builtins.__import__

    def no_engines(name, *args, **kwargs):
        if name.split(".")[0] in ("gnubg_nn", "bgsage"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    engines._reset_engines_for_tests()
    monkeypatch.setattr(builtins, "__import__", no_engines)
    try:
        assert ai.available() is False
        analyst = Analyst()
        with pytest.raises(ai.AnalysisUnavailable) as info:
            analyst.best_plays(Position.start(), Roll(3, 1))
        assert str(info.value) == "analysis is not available on this server"
        assert info.value.message == ai.UNAVAILABLE_MESSAGE
        with pytest.raises(ai.AnalysisUnavailable):
            analyst.evaluate(Position.start())
    finally:
        monkeypatch.undo()
        engines._reset_engines_for_tests()
    assert ai.available() is True


@pytest.mark.skipif(not hasattr(os, "sched_getscheduler"), reason="Linux scheduling classes")
def test_analyses_run_in_the_idle_class_so_a_busy_bot_keeps_its_cores(monkeypatch):
    """Whole-game analyses only take a core nothing else wants: at nice 19 alone
    they still took a third of a core from a saturated bot."""
    monkeypatch.setenv("WORKER_PRIORITY", "low")  # the bot's default (the tests run at normal)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        1, mp_context=context, initializer=engines._lower_priority, initargs=(os.getpid(),)
    ) as pool:
        policy = pool.submit(os.sched_getscheduler, 0).result(timeout=60)
        priority = pool.submit(os.getpriority, os.PRIO_PROCESS, 0).result(timeout=60)
    assert policy == os.SCHED_IDLE
    assert priority == 19
    assert os.sched_getscheduler(0) != os.SCHED_IDLE  # the bot itself is as it was


@pytest.mark.skipif(not hasattr(os, "sched_getscheduler"), reason="Linux scheduling classes")
def test_an_analysis_worker_is_lowered_before_its_start_up(monkeypatch):
    """The worker's start-up (a fresh interpreter importing the bot and the engines)
    is already in the idle class: its parent lowers it as soon as it exists, before
    any of its own code (here no initializer at all) runs."""
    from bot.ai.engines import LowPriorityContext

    monkeypatch.setenv("WORKER_PRIORITY", "low")
    with ProcessPoolExecutor(1, mp_context=LowPriorityContext()) as pool:
        policy = pool.submit(os.sched_getscheduler, 0).result(timeout=60)
        priority = pool.submit(os.getpriority, os.PRIO_PROCESS, 0).result(timeout=60)
    assert (policy, priority) == (os.SCHED_IDLE, 19)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert pool.submit(os.sched_getscheduler, 0).result(timeout=60) != os.SCHED_IDLE  # plain spawn is not


@pytest.mark.skipif(not hasattr(os, "sched_getscheduler"), reason="Linux scheduling classes")
async def test_the_analysts_analysis_worker_is_started_lowered(monkeypatch):
    from bot.ai.engines import LowPriorityContext

    monkeypatch.setenv("WORKER_PRIORITY", "low")
    analyst = Analyst()
    try:
        assert await analyst._analyse(os.sched_getscheduler, 0) == os.SCHED_IDLE
        assert isinstance(analyst._analysis_pool._mp_context, LowPriorityContext)  # type: ignore[union-attr]
    finally:
        analyst.close()
