"""PR as this bot computes it against GNU Backgammon's own analysis of the same games.

Plays ``--matches`` matches between two noisy computer players (the beginner
level: real mistakes, some cube errors), exports each as ``.mat``, grades it
with the bot's analyst (its defaults: 0-ply plays and cube, as the bot's post-game
analysis) and has the Debian ``gnubg`` analyse the same file (``analyse match``,
0-ply, checker plays cubeless, its default Kazaross-XG2 table).
gnubg's PR is computed from its own per-player totals: 500 × (checker + cube
EMG error) / (unforced moves + close cube decisions). Prints both per player,
the differences and their checker-play and cube shares (in PR, over the bot's
decisions).

    PYTHONPATH=. python -m bench.pr_vs_gnubg --matches 20
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
from pathlib import Path
from typing import cast

from bot.ai.analyst import Analyst
from bot.ai.pr import PR_PER_EQUITY, pr_of
from engine import Game, GameSettings, Match, Phase, Play, SeededDice
from engine.mat import export_games
from tests.engine.gnubg_oracle import find_gnubg, run_gnubg

NAMES = ("Zero", "One")
ANALYSIS_MET = "/usr/share/gnubg/met/Kazaross-XG2.xml"
"""The table the bot's analysis grades with (bgsage's; GNU Backgammon's own default)."""
NOISE = 0.06
"""Checker-play noise: players of a PR between about 5 and 20, where PR is quoted."""


def _noisy_play(analyst: Analyst, game: Game, rng: random.Random, noise: float) -> Play:
    """The best 0-ply play after Gaussian noise of ``noise`` (equity) on each: a player of some PR."""
    assert game.dice is not None
    ranked = analyst.play_equities(game.position, game.dice, ply=0)
    return max(ranked, key=lambda c: c.equity + rng.gauss(0.0, noise)).play


def computer_match(seed: int, analyst: Analyst, length: int, noise: float = NOISE) -> Match:
    """A match between two noisy computer players (checker noise ``noise``), a few cube whims added."""
    rng = random.Random(seed)
    match = Match(GameSettings(match_length=length), dice=SeededDice(seed))
    while not match.is_over:
        game = match.new_game()
        game.opening_roll()
        for _ in range(2000):
            if game.is_over:
                break
            if game.phase is Phase.ROLL:
                player = game.turn
                if game.can_double(player):
                    advice = analyst.cube_action(game, level="beginner")
                    if (advice.double and rng.random() < 0.8) or rng.random() < 0.02:
                        game.double(player)
                        continue
                game.roll(player)
            elif game.phase is Phase.PLAY:
                game.play(game.turn, _noisy_play(analyst, game, rng, noise))
            elif game.phase is Phase.DOUBLED:
                advice = analyst.cube_action(game, level="beginner")
                if advice.take == (rng.random() < 0.9):
                    game.take(game.turn)
                else:
                    game.drop(game.turn)
            else:
                raise RuntimeError(f"unexpected phase {game.phase}")
    return match


def bot_totals(match: Match, analyst: Analyst) -> list[dict[str, float]]:
    """Per player over the match's games: equity lost (all of it, and on checker plays) and
    the decisions PR counts."""
    totals = [{"lost": 0.0, "checker": 0.0, "decisions": 0}, {"lost": 0.0, "checker": 0.0, "decisions": 0}]
    for game in match.games:
        analysis = analyst.analyse_game(game)
        for p in analysis.players:
            totals[p.player]["lost"] += p.equity_lost
            totals[p.player]["checker"] += sum(m.equity_lost for m in p.mistakes if m.kind == "checker")
            totals[p.player]["decisions"] += p.pr_decisions
    return totals


def bot_pr(match: Match, analyst: Analyst) -> list[tuple[float, int]]:
    """Per player (equity lost, decisions PR counts) over the match's games."""
    return [(t["lost"], int(t["decisions"])) for t in bot_totals(match, analyst)]


def gnubg_totals(program: str, texts: list[str], work: Path, options: list[dict] | None = None) -> list[dict]:
    """GNU Backgammon's own statistics of each .mat text, per player name: unforced moves,
    close or actual cube decisions, checker and cube error (EMG)."""
    paths = []
    for i, text in enumerate(texts):
        path = work / f"pr{i}.mat"
        path.write_text(text)
        paths.append(str(path))
    # gnubg's analysis as it grades by default (cubeful plays, its Kazaross-XG2 table), at 0-ply
    job = {"paths": paths, "plies": 0, "cubeful": True, "met": ANALYSIS_MET, "options": options or [{}] * len(paths)}
    return cast(list[dict], run_gnubg(program, job, work, script="gnubg_pr.py"))  # one answer per file


def gnubg_prs(
    program: str, texts: list[str], work: Path, options: list[dict] | None = None
) -> list[dict[str, tuple[float | None, int]]]:
    """GNU Backgammon's PR of each player (by name) in each .mat text, with the decisions it counts:
    500 × (checker + cube EMG error) / (unforced moves + close or actual cube decisions)."""
    out = []
    for stats in gnubg_totals(program, texts, work, options):
        per_name = {}
        for name, t in stats.items():
            decisions = t["unforced"] + t["close_cube"]
            per_name[name] = (pr_of(t["checker_error"] + t["cube_error"], decisions), decisions)
        out.append(per_name)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    program = find_gnubg()
    if program is None:
        print("no gnubg: nothing to compare with")
        return 1
    analyst = Analyst()
    ours, texts = [], []
    for i in range(args.matches):
        seed = args.seed + i
        length = random.Random(seed).choice([3, 5, 7])
        match = computer_match(seed, analyst, length)
        texts.append(export_games(match.games, NAMES, match_length=length))
        ours.append(bot_totals(match, analyst))
    with tempfile.TemporaryDirectory() as folder:
        answers = gnubg_totals(program, texts, Path(folder))
    diffs = []
    print(
        f"{'match':>5} {'player':>6} {'bot PR':>7} {'gnubg PR':>8} {'diff':>6} {'plays':>6} {'cube':>6}"
        "  decisions bot/gnubg"
    )
    for i, (mine, theirs) in enumerate(zip(ours, answers, strict=True)):
        for seat, name in enumerate(NAMES):
            t = theirs[name]
            g_decisions = t["unforced"] + t["close_cube"]
            g_pr = pr_of(t["checker_error"] + t["cube_error"], g_decisions)
            b_pr = pr_of(mine[seat]["lost"], int(mine[seat]["decisions"]))
            if g_pr is None or b_pr is None:
                continue
            diffs.append(b_pr - g_pr)
            # Where the difference comes from: the checker plays' share and the cube's, in PR.
            n = int(mine[seat]["decisions"])
            plays = PR_PER_EQUITY * (mine[seat]["checker"] - t["checker_error"]) / n
            cube = PR_PER_EQUITY * (mine[seat]["lost"] - mine[seat]["checker"] - t["cube_error"]) / n
            print(
                f"{i + 1:>5} {name:>6} {b_pr:7.2f} {g_pr:8.2f} {b_pr - g_pr:+6.2f} {plays:+6.2f} {cube:+6.2f}"
                f"  {n}/{g_decisions}"
            )
    absolute = [abs(d) for d in diffs]
    print(
        f"{len(diffs)} player-matches: mean |diff| {statistics.mean(absolute):.2f} PR, "
        f"median {statistics.median(absolute):.2f}, max {max(absolute):.2f}, mean diff {statistics.mean(diffs):+.2f}; "
        f"within 0.5 PR: {sum(a <= 0.5 for a in absolute)}/{len(absolute)}"
    )
    print(json.dumps({"mean_abs": statistics.mean(absolute), "max_abs": max(absolute)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
