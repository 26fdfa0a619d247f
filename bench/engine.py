"""Benchmark the rules engine.

Run: .venv/bin/python -m bench.engine [--pairs 2000] [--seconds 5]

1. Legal-play generation on a fixed set of (position, roll) pairs reached by
   seeded random self-play: our ``legal_plays`` against gnubg_nn's C move
   generator (``gnubg_nn.moves``, board conversion included), same run, same
   pairs. Target: ours within 10x of gnubg's.
2. Complete random self-play games per second on one core, our engine only
   (a random legal play each turn until someone has borne off 15). Target:
   at least 100 games a second.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from engine.dice import Roll
from engine.moves import legal_plays
from engine.position import Position

SEED = 12345


def sample_pairs(count: int, seed: int = SEED) -> list[tuple[Position, Roll]]:
    rng = random.Random(seed)
    pairs: list[tuple[Position, Roll]] = []
    while len(pairs) < count:
        position = Position.start()
        while len(pairs) < count:
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
            pairs.append((position, roll))
            play = rng.choice(legal_plays(position, roll))
            if play.position.off[0] == 15:
                break
            position = play.position.swap()
    return pairs


def best_of(repeats: int, fn) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_generation(pairs: list[tuple[Position, Roll]], repeats: int) -> None:
    def ours() -> None:
        for position, roll in pairs:
            legal_plays(position, roll)

    n = len(pairs)
    plays = sum(len(legal_plays(p, r)) for p, r in pairs)
    t_ours = best_of(repeats, ours) / n * 1e6
    print(
        f"legal-play generation, {n} (position, roll) pairs from seeded self-play "
        f"({plays / n:.1f} plays per pair on average), best of {repeats}:"
    )
    print(f"  ours  engine.moves.legal_plays        {t_ours:8.1f} us/position")
    try:
        import gnubg_nn as g
    except ImportError:
        print("  gnubg_nn is not installed: no comparison")
        return

    def theirs() -> None:
        for position, roll in pairs:
            board = [position.side_counts(on_roll=False), position.side_counts(on_roll=True)]
            for key in g.moves(board, roll.die1, roll.die2):
                g.board_from_position_key(key)

    def theirs_bare() -> None:
        for board, d1, d2 in boards:
            g.moves(board, d1, d2)

    boards = [([p.side_counts(on_roll=False), p.side_counts(on_roll=True)], r.die1, r.die2) for p, r in pairs]
    t_theirs = best_of(repeats, theirs) / n * 1e6
    t_bare = best_of(repeats, theirs_bare) / n * 1e6
    print(f"  gnubg gnubg_nn.moves + conversions    {t_theirs:8.1f} us/position")
    print(f"  gnubg gnubg_nn.moves alone            {t_bare:8.1f} us/position")
    ratio = t_ours / t_theirs
    verdict = "OK" if ratio <= 10 else "MISSED"
    print(f"  ratio ours / gnubg (with conversions) {ratio:8.2f}x   target <= 10x: {verdict}")
    print(f"  ratio ours / gnubg (moves alone)      {t_ours / t_bare:8.2f}x")


def bench_games(seconds: float, seed: int = SEED) -> None:
    rng = random.Random(seed)
    games = turns = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while time.perf_counter() < deadline:
        position = Position.start()
        while True:
            play = rng.choice(legal_plays(position, Roll(rng.randint(1, 6), rng.randint(1, 6))))
            turns += 1
            if play.position.off[0] == 15:
                break
            position = play.position.swap()
        games += 1
    elapsed = time.perf_counter() - t0
    rate = games / elapsed
    verdict = "OK" if rate >= 100 else "MISSED"
    print(f"random self-play, our engine only, one core, {elapsed:.1f} s:")
    print(f"  {games} complete games, {turns} turns ({turns / games:.1f} per game)")
    print(f"  {rate:8.1f} games/s   {turns / elapsed:8.0f} turns/s   target >= 100 games/s: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]} on {sys.platform}")
    bench_generation(sample_pairs(args.pairs), args.repeats)
    bench_games(args.seconds)


if __name__ == "__main__":
    main()
