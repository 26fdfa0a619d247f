"""Benchmark the board renderer: milliseconds per PNG and PNG size.

Renders a fixed set of positions (the start, a mid-game with a hit and
checkers on the bar, a 15-checker stack, a bear-off) many times on one core
and prints, per position and overall, the median and 95th percentile time per
board including PNG encoding, the median CPU time of this process (steadier
than wall time when other work shares the machine), and the PNG size.
Targets: median <= 25 ms, PNG <= 100 KB.

    python bench/render.py [--rounds 60]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.moves import Move  # noqa: E402
from engine.position import Position  # noqa: E402
from renderer.board import render_board  # noqa: E402
from renderer.scene import BoardScene  # noqa: E402
from renderer.themes import HIGH_CONTRAST  # noqa: E402

TARGET_MS = 25.0
TARGET_KB = 100.0


def scenes() -> dict[str, BoardScene]:
    """The benchmark boards, named."""
    midgame = Position.from_counts(
        {25: 2, 13: 3, 8: 3, 6: 5, 24: 2},
        {24: 1, 22: 1, 16: 1, 13: 4, 8: 3, 6: 4, 5: 1},
    )
    return {
        "start": BoardScene(Position.start(), names=("Alice", "Bob"), dice=(3, 1), opening=True),
        "midgame": BoardScene(
            midgame,
            names=("Alice 🎲", "Bob"),
            dice=(5, 3),
            cube_value=2,
            cube_owner=1,
            match_length=7,
            score=(3, 5),
            last_play=(Move(13, 9, True), Move(24, 23)),
        ),
        "stack15": BoardScene(
            Position.from_counts({6: 15}, {25: 3, 1: 12}), names=("Stacker", "Barred"), theme=HIGH_CONTRAST
        ),
        "bearoff": BoardScene(
            Position.from_counts({1: 2, 2: 3, 3: 1}, {1: 4, 2: 2, 4: 1}),
            names=("Ann", "Bo"),
            dice=(6, 6),
            stake=5,
            last_play=(Move(5, 0), Move(4, 0), Move(6, 2)),
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60, help="renders per position")
    args = parser.parse_args()

    boards = scenes()
    for scene in boards.values():  # warm the caches: static board, sprites, fonts
        render_board(scene)
    all_ms: list[float] = []
    all_cpu: list[float] = []
    sizes: list[int] = []
    print(f"{'board':<10} {'median ms':>10} {'p95 ms':>8} {'CPU ms':>8} {'PNG KB':>8}")
    for name, scene in boards.items():
        times: list[float] = []
        cpu: list[float] = []
        for _ in range(args.rounds):
            start, start_cpu = time.perf_counter(), time.process_time()
            png = render_board(scene)
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        sizes.append(len(png))
        all_ms.extend(times)
        all_cpu.extend(cpu)
        p95 = statistics.quantiles(times, n=20)[-1]
        print(
            f"{name:<10} {statistics.median(times):>10.2f} {p95:>8.2f} {statistics.median(cpu):>8.2f}"
            f" {len(png) / 1024:>8.1f}"
        )
    median = statistics.median(all_ms)
    p95 = statistics.quantiles(all_ms, n=20)[-1]
    largest = max(sizes) / 1024
    print(f"{'all':<10} {median:>10.2f} {p95:>8.2f} {statistics.median(all_cpu):>8.2f} {largest:>8.1f}  (largest PNG)")
    ok = median <= TARGET_MS and largest <= TARGET_KB
    print(f"targets: median <= {TARGET_MS:.0f} ms, PNG <= {TARGET_KB:.0f} KB: {'met' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
