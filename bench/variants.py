"""Random self-play of plakoto, fevga and long nardy: every play audited, every game ended.

    PYTHONPATH=. python -m bench.variants [--games N] [--workers W] [--game plakoto|fevga|nardy]

Each game is played by two random movers from a seeded opening to its end;
every play is checked by :func:`engine.tables.audit_play` (fifteen checkers a
side, pins only under the other side, the opponent untouched, the dice
thrown, the game's block and head rules), every game must end within
:data:`TURN_LIMIT` turns. Prints, per game: games, ended, illegal states
found, turns per game, how the games were won, and the time taken.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from engine.dice import SeededDice
from engine.tables import GAMES, TablesPlay, audit_play
from engine.variants import RULES, TablesGame, TablesPhase

TURN_LIMIT = 5000


def play_games(game: str, first_seed: int, count: int) -> tuple[int, int, list[str], int, Counter[str]]:
    """(games, ended, the first few errors, turns, results) of ``count`` seeded random games."""
    rules = RULES[game]
    ended = turns = 0
    errors: list[str] = []
    results: Counter[str] = Counter()
    for seed in range(first_seed, first_seed + count):
        rng = random.Random(seed)
        table = TablesGame(game, dice=SeededDice(seed))
        table.opening_roll()
        for _ in range(TURN_LIMIT):
            if table.is_over:
                break
            player = table.turn
            first = table.plays_made[player] == 0
            before = table.position
            roll = table.roll(player)
            play: TablesPlay | None
            if table.phase is TablesPhase.PLAY:
                play = rng.choice(table.legal_plays())
                table.play(player, play)
            else:
                play = table.last_play[1] if table.last_play else None
            turns += 1
            if play is not None:
                found = audit_play(rules, before, play, roll, first_turn=first)
                if found and len(errors) < 5:
                    errors.append(f"{game} seed {seed}: {'; '.join(found)}")
        if table.is_over and table.result is not None:
            ended += 1
            results[f"{table.result.points} ({table.result.reason})"] += 1
        elif len(errors) < 5:
            errors.append(f"{game} seed {seed}: no end after {TURN_LIMIT} turns")
    return count, ended, errors, turns, results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="games per game (default 100000)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--game", choices=GAMES, action="append", help="one game (repeatable); default all")
    args = parser.parse_args(argv)
    bad = 0
    chunk = max(1, min(2000, args.games // (args.workers * 4) or 1))
    for game in args.game or GAMES:
        started = time.perf_counter()
        total = ended = turns = 0
        errors: list[str] = []
        results: Counter[str] = Counter()
        with ProcessPoolExecutor(args.workers) as pool:
            jobs = [
                pool.submit(play_games, game, seed, min(chunk, args.games - seed))
                for seed in range(0, args.games, chunk)
            ]
            for job in jobs:
                n, e, errs, t, res = job.result()
                total, ended, turns = total + n, ended + e, turns + t
                errors.extend(errs[: max(0, 5 - len(errors))])
                results.update(res)
        took = time.perf_counter() - started
        shown = ", ".join(f"{k}: {v}" for k, v in sorted(results.items()))
        print(
            f"{game}: {total} games, {ended} ended, {len(errors)} illegal or endless, "
            f"{turns / max(total, 1):.1f} turns a game, won by points (reason) {shown}; {took:.0f} s"
        )
        for error in errors:
            print("  " + error)
        bad += len(errors) + total - ended
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
