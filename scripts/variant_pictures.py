"""Draw the pictures of plakoto, fevga and long nardy kept in docs/: each game's start and a
middle position from a seeded game of the computer against itself.

    python -m scripts.variant_pictures [--out docs]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bot.ai.tables import choose_play
from engine.dice import SeededDice
from engine.tables import TablesPosition
from engine.variants import RULES, TablesGame, TablesPhase
from renderer.tables import render_tables

MIDDLE = {"plakoto": (3, 24), "fevga": (5, 40), "nardy": (2, 40)}
"""(seed, turns) of each game's middle position."""


def middle(game: str, seed: int, turns: int, *, want_pin: bool = False) -> tuple[TablesPosition, object]:
    """The position after ``turns`` turns of the computer against itself (for plakoto, the first
    position from then on with a pin), seen from the player on roll, and the roll they face."""
    table = TablesGame(game, dice=SeededDice(seed))
    table.opening_roll()
    played = 0
    while not table.is_over:
        table.roll(table.turn)
        if table.phase is not TablesPhase.PLAY:
            continue
        if played >= turns and (not want_pin or any(table.position.pins)):
            return table.position, table.dice
        table.play(table.turn, choose_play(table.legal_plays(), lookahead=1))
        played += 1
    raise SystemExit(f"{game} seed {seed} ended before a middle position")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs")
    out = Path(parser.parse_args().out)
    for game, (seed, turns) in MIDDLE.items():
        start = RULES[game].start()
        (out / f"{game}-start.png").write_bytes(render_tables(start))
        position, dice = middle(game, seed, turns, want_pin=game == "plakoto")
        (out / f"{game}-middle.png").write_bytes(render_tables(position, dice=dice))
        print(game, "start and middle drawn")


if __name__ == "__main__":
    main()
