"""Seconds per computer decision at each level, and gnubg-nn against bgsage.

    python -m bench.ai [--positions 60] [--games 20] [--tables-games 40]

Prints, for each level, the median and p95 time of a checker-play decision
and of a cube decision over a fixed, seeded set of positions; then a
fixed-seed cubeless match between gnubg-nn (0-ply) and bgsage (1ply, its
static level: comparable), and how often the two agree on cube decisions
(at a 7-away/7-away match score, where gnubg-nn's cube works); then the
computer's decision time in plakoto, fevga and long nardy (no net: a search
over each game's own evaluation, :mod:`bot.ai.tables`) over ``--tables-games``
games a game against a random mover (``bench/variants_ai.py`` plays 500 and
reports the wins).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bot.ai import Analyst, CubeState, Level, engines, gnubg_board, sage_board
from engine import Game, GameSettings, Position, Roll, SeededDice, legal_plays


def sample(count: int, seed: int) -> list[tuple[Position, Roll]]:
    rng = random.Random(seed)
    analyst = Analyst(rng=rng)
    cases: list[tuple[Position, Roll]] = []
    while len(cases) < count:
        position = Position.start()
        for _ in range(300):
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
            if len(legal_plays(position, roll)) > 1 and rng.random() < 0.3:
                cases.append((position, roll))
            play = analyst.choose_play(position, roll, level=Level.BEGINNER)
            if play.position.off[0] == 15 or len(cases) >= count:
                break
            position = play.position.swap()
    return cases


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def time_levels(cases: list[tuple[Position, Roll]]) -> None:
    analyst = Analyst(rng=random.Random(1))
    print(f"seconds per decision over {len(cases)} positions (median / p95):")
    for level in Level:
        checker, cube = [], []
        for position, roll in cases:
            t = time.perf_counter()
            analyst.choose_play(position, roll, level=level)
            checker.append(time.perf_counter() - t)
            t = time.perf_counter()
            analyst.cube_action(CubeState(position), level=level)
            cube.append(time.perf_counter() - t)
        print(
            f"  {level.value:12s} checker {statistics.median(checker):.4f} / {pct(checker, 0.95):.4f}"
            f"   cube {statistics.median(cube):.4f} / {pct(cube, 0.95):.4f}"
        )
    for name in ("3ply",):
        times = []
        for position, _ in cases[:20]:
            t = time.perf_counter()
            engines._cube(CubeState(position), name)
            times.append(time.perf_counter() - t)
        print(f"  (bgsage {name} cube, 20 positions: {statistics.median(times):.4f} / {pct(times, 0.95):.4f})")


def engine_match(games: int, seed: int) -> None:
    import bgsage

    sage = bgsage.create_analyzer("1ply", parallel_threads=1)
    analyst = Analyst()
    dice = SeededDice(seed)
    wins = 0
    started = time.perf_counter()
    for number in range(games):
        game = Game(GameSettings(cube=False), dice=dice)
        game.opening_roll()
        gnubg_seat = number % 2
        while not game.is_over:
            seat = game.turn
            if game.phase.value == "roll":
                game.roll(seat)
                continue
            plays = game.legal_plays()
            if seat == gnubg_seat:
                assert game.dice is not None
                play = analyst.choose_play(game.position, game.dice, level=0)
            else:
                assert game.dice is not None
                result = sage.checker_play(sage_board(game.position), game.dice.die1, game.dice.die2)
                by_board = {tuple(sage_board(p.position)): p for p in plays}
                # bgsage returns the unchanged board when nothing can be played: map by position only.
                play = by_board.get(tuple(result.moves[0].board), plays[0]) if result.moves else plays[0]
            game.play(seat, play)
        assert game.result is not None
        wins += game.result.winner == gnubg_seat
    print(
        f"gnubg-nn 0-ply vs bgsage 1ply, {games} cubeless games, seats alternating: "
        f"gnubg-nn won {wins}, bgsage won {games - wins} ({time.perf_counter() - started:.1f} s)"
    )


def cube_agreement(cases: list[tuple[Position, Roll]]) -> None:
    import gnubg_nn as g

    g.set.score(7, 7)
    agree_double = agree_take = 0
    for position, _ in cases:
        key = g.key_of_board(gnubg_board(position))
        double, take, *_ = g.evaluate_cube_decision(key, n=0, i=1)
        sage = engines._cube(CubeState(position, away=(7, 7)), "1ply")
        agree_double += bool(double) == sage["double"]
        agree_take += bool(take) == sage["take"]
    g.set.score(0, 0)
    n = len(cases)
    print(
        f"cube agreement at 7-away/7-away over {n} positions (gnubg-nn 0-ply vs bgsage 1ply): "
        f"double {agree_double}/{n} ({100 * agree_double / n:.0f}%), take {agree_take}/{n} "
        f"({100 * agree_take / n:.0f}%)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--tables-games", type=int, default=40)
    args = parser.parse_args()
    cases = sample(args.positions, 20240907)
    time_levels(cases)
    engine_match(args.games, 77)
    cube_agreement(cases)
    time_tables(args.tables_games)


def time_tables(games: int) -> None:
    """Median, p95 and longest decision of the computer in each tables game (a roll with a choice)."""
    from bench.variants_ai import match_up
    from engine.tables import GAMES

    for game in GAMES:
        times: list[float] = []
        for seed in range(games):
            match_up(game, seed, 1, times)
        times.sort()
        p95 = times[int(0.95 * (len(times) - 1))]
        print(
            f"{game}: decision median {statistics.median(times) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, "
            f"max {times[-1] * 1000:.0f} ms over {len(times)} decisions ({games} games)"
        )


if __name__ == "__main__":
    main()
