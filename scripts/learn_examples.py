"""Draw the example pictures of ``/bglearn`` and the charts into docs/ (README).

    .venv/bin/python -m scripts.learn_examples [--out docs]

- ``chart-game.png``: the game chart of a long game two computers played
  (seeded dice, a little noise on every play: they err now and then), analysed at 0-ply;
- ``chart-rating.png``: the rating chart of a member after 80 simulated
  rated matches (the FIBS formula against opponents of varied ratings);
- ``puzzle.png``: that game's biggest error as a puzzle (names hidden);
- ``opening-3-3.png``: Hoyle's 3-3 on the bar point, as ``/bglearn openings roll:3-3`` shows it.

Needs the engines (gnubg-nn, bgsage) for the analysis.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from types import SimpleNamespace
from typing import cast

from bot.ai import Analyst
from bot.core.model import GameSummary, PlayerRef
from bot.core.openings import verdict
from bot.core.progress import ErrorPoint, RatingHistory, mistake_of, timeline
from bot.core.puzzles import decision_of
from bot.discord import lessons
from bot.store import RatingPoint
from engine import Game, GameSettings, Position, Roll, SeededDice
from engine.ratings import Rating, rate_match
from renderer import render_board

NOISE = 0.05
"""The players' noise on each play's equity: club players who err now and then."""


def long_game(seed: int) -> Game:
    """A game two slightly noisy computers play to the end, with the cube."""
    analyst = Analyst(rng=random.Random(seed))
    game = Game(GameSettings(), dice=SeededDice(seed))
    game.opening_roll()
    rng = random.Random(seed)
    while not game.is_over:
        seat = game.turn
        if game.phase.value == "roll":
            if game.can_double(seat) and analyst.cube_action(game, level="beginner").double and rng.random() < 0.6:
                game.double(seat)
            else:
                game.roll(seat)
        elif game.phase.value == "doubled":
            (game.take if analyst.cube_action(game, level="beginner").take else game.drop)(seat)
        else:
            assert game.dice is not None
            ranked = analyst.play_equities(game.position, game.dice, ply=0)
            game.play(seat, max(ranked, key=lambda c: c.equity + rng.gauss(0, NOISE)).play)
    return game


def rating_history() -> RatingHistory:
    rng = random.Random(5)
    me = Rating(1500.0, 0)
    matches = []
    start = 1_767_225_600.0  # 1 Jan 2026
    names = ["ann", "bo", "cy", "dee", "eli", "fay", "gus"]
    for i in range(80):
        opponent = Rating(rng.gauss(1530, 70), 400)
        length = rng.choice((1, 3, 5, 7))
        won = rng.random() < 0.5 + (me.rating - opponent.rating) / 2000 + 0.06
        new_me, _ = rate_match(me, opponent, length) if won else reversed(rate_match(opponent, me, length))
        points = length if won else -length
        matches.append(
            RatingPoint(
                i,
                start + i * 86400 * 1.3,
                me.rating,
                new_me.rating,
                won,
                points,
                1000 + i % 7,
                opponent.rating,
                rng.choice(names),
            )
        )
        me = new_me
    errors = tuple(
        ErrorPoint(m.game_id, m.at, max(2.0, 14 - i * 0.08 + rng.gauss(0, 3)), 60)
        for i, m in enumerate(matches)
        if i % 2 == 0
    )
    wins = sum(m.won for m in matches)
    return RatingHistory(1, 555, tuple(matches), errors, wins, len(matches) - wins)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs"))
    parser.add_argument("--seed", type=int, default=4)
    out = Path(parser.parse_args().out)
    seed = parser.parse_args().seed
    game = long_game(seed)
    analysis = Analyst().analyse_game(game, ply=0, cube_level="0ply")
    detail = analysis.detail()
    # the chart reads only these of a match: a stand-in rather than a stored match
    state = SimpleNamespace(id=1234, game_count=1, players=(PlayerRef(1, "alice"), PlayerRef(2, "bob")))
    ((_, chart),) = lessons.game_charts(cast(GameSummary, state), {1: detail})
    (out / "chart-game.png").write_bytes(chart.draw())
    print(f"chart-game.png: {len(analysis.moves)} moves, {len(chart.marks)} marks")

    rating = lessons.rating_chart("alice", "Backgammon Club", rating_history())
    assert rating is not None
    (out / "chart-rating.png").write_bytes(rating.draw())

    line = timeline(1, detail)
    biggest = max(line.mistakes, key=lambda m: m.lost)
    mistakes = detail["mistakes"]
    assert isinstance(mistakes, list)
    decision = decision_of(mistake_of(mistakes[line.mistakes.index(biggest)]), ("alice", "bob"), 1234, 1)
    assert decision is not None
    (out / "puzzle.png").write_bytes(render_board(lessons.decision_scene(decision, False)))
    print(f"puzzle.png: {decision.kind}, loss {biggest.lost:.3f}, choices {[c.label for c in decision.choices]}")

    ranked = Analyst().play_equities(Position.start(), Roll(3, 3), ply=0)
    item = verdict((3, 3), [(c.text, c.equity) for c in ranked], 0)
    (out / "opening-3-3.png").write_bytes(render_board(lessons.opening_scene(item)))


if __name__ == "__main__":
    main()
