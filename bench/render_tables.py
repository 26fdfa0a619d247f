"""Milliseconds per board picture of plakoto, fevga and long nardy (renderer/tables.py).

    PYTHONPATH=. python -m bench.render_tables [--rounds 30]

Draws each game's start and a middle position (scripts/variant_pictures.py's)
with dice, PNG included, and prints the median and p95 wall time and the
median CPU time of this process per board (steadier when other work shares
the machine), and the mean PNG size. The backgammon board's target
(bench/render.py): median <= 25 ms, PNG <= 100 KB.
"""

from __future__ import annotations

import argparse
import statistics
import time

from engine.dice import Roll
from engine.variants import RULES
from renderer.tables import render_tables
from scripts.variant_pictures import MIDDLE, middle


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    rounds = parser.parse_args(argv).rounds
    positions = [RULES[game].start() for game in RULES]
    positions += [middle(game, *MIDDLE[game], want_pin=game == "plakoto")[0] for game in RULES]
    wall: list[float] = []
    cpu: list[float] = []
    sizes: list[int] = []
    for _ in range(rounds):
        for position in positions:
            started, used = time.perf_counter(), time.process_time()
            sizes.append(len(render_tables(position, dice=Roll(5, 3))))
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - used)
    wall.sort()
    print(
        f"{len(wall)} boards: median {statistics.median(wall) * 1000:.1f} ms, "
        f"p95 {wall[int(0.95 * (len(wall) - 1))] * 1000:.1f} ms wall; "
        f"median {statistics.median(cpu) * 1000:.1f} ms CPU; PNG {statistics.mean(sizes) / 1000:.0f} KB"
    )


if __name__ == "__main__":
    main()
