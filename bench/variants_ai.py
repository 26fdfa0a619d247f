"""The computer against a random mover in plakoto, fevga and long nardy, and its decision time.

    PYTHONPATH=. python -m bench.variants_ai [--games 500] [--lookahead 1] [--game nardy]

For each game: ``--games`` seeded games of the computer (:func:`bot.ai.tables.choose_play`)
against a mover that picks a legal play at random, the computer taking
either side in turn; prints the computer's share of games won, the points
each side scored, and the median, p95 and longest time of a decision (a
roll with more than one legal play), wall clock on this machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from bot.ai.tables import choose_play
from engine.dice import SeededDice
from engine.tables import GAMES
from engine.variants import TablesGame, TablesPhase


def match_up(game: str, seed: int, lookahead: int, times: list[float]) -> tuple[bool, int, int]:
    """One game; (the computer won, its points, the random mover's points)."""
    computer = seed % 2
    rng = random.Random(seed)
    table = TablesGame(game, dice=SeededDice(seed))
    table.opening_roll()
    while not table.is_over:
        player = table.turn
        table.roll(player)
        if table.phase is not TablesPhase.PLAY:
            continue
        plays = table.legal_plays()
        if player == computer:
            started = time.perf_counter()
            play = choose_play(plays, lookahead=lookahead)
            if len(plays) > 1:
                times.append(time.perf_counter() - started)
        else:
            play = rng.choice(plays)
        table.play(player, play)
    result = table.result
    assert result is not None
    won = result.winner == computer
    return won, result.points if won else 0, 0 if won else result.points


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--lookahead", type=int, default=1)
    parser.add_argument("--game", choices=GAMES, action="append")
    args = parser.parse_args(argv)
    short = False
    for game in args.game or GAMES:
        times: list[float] = []
        wins = ours = theirs = 0
        started = time.perf_counter()
        for seed in range(args.games):
            won, a, b = match_up(game, seed, args.lookahead, times)
            wins, ours, theirs = wins + won, ours + a, theirs + b
        took = time.perf_counter() - started
        times.sort()
        p95 = times[int(0.95 * (len(times) - 1))] if times else 0.0
        share = wins / args.games
        short |= share < 0.9
        print(
            f"{game}: the computer won {wins}/{args.games} ({share:.1%}), points {ours}-{theirs}; "
            f"decision median {statistics.median(times) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"max {times[-1] * 1000:.0f} ms over {len(times)} decisions; {took:.0f} s"
        )
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
