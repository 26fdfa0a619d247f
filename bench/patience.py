"""Benchmark Serpent Poker Patience: the exact solver and the picture.

Run: .venv/bin/python -m bench.patience [--deals 100] [--pictures 60]

1. The one-time tables: listing the 8,648 rook's paths, grouping them into
   the 1,081 classes the solver scores, and each score table's points by
   hand (paid once per process).
2. The solver: milliseconds per deal (median and max) over seeded random
   deals, for the English and the American table, each deal checked to give
   a finished layout of the score it reports. Target: well under a second.
3. The picture: milliseconds per PNG (median and max) of finished and
   half-laid layouts, PNG included, and the PNG size. Target: under 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

from engine.patience import AMERICAN, ENGLISH, HOYLE_DEAL, Layout, best_score, deal_from_seed, solve
from engine.patience.grid import rook_path_numbers
from engine.patience.solver import prepare
from renderer.patience import render_patience

TARGET_SOLVE_MS = 1000.0
TARGET_PICTURE_MS = 50.0


def bench_tables() -> None:
    t0 = time.perf_counter()
    paths = rook_path_numbers()
    t1 = time.perf_counter()
    tables = prepare(ENGLISH, AMERICAN)
    t2 = time.perf_counter()
    print(f"rook's paths: {len(paths)} directed ({len(paths) // 2} undirected), listed in {(t1 - t0) * 1000:.0f} ms")
    print(
        f"solver tables: {tables.classes} classes of 8 paths, {tables.line_sets} line sets, "
        f"the two score tables' points by hand, built in {(t2 - t1) * 1000:.0f} ms"
    )
    print(
        f"Hoyle's deal: best {best_score(HOYLE_DEAL, ENGLISH)} (english), {best_score(HOYLE_DEAL, AMERICAN)} (american)"
    )


def bench_solver(deals: int) -> None:
    for scoring in (ENGLISH, AMERICAN):
        times, scores = [], []
        for n in range(deals):
            deal = deal_from_seed(f"bench {n}")
            t0 = time.perf_counter()
            layout = solve(deal, scoring)
            times.append((time.perf_counter() - t0) * 1000)
            assert layout.is_complete
            scores.append(layout.score(scoring))
        median, worst = statistics.median(times), max(times)
        verdict = "OK" if worst < TARGET_SOLVE_MS else "SLOW"
        print(
            f"solve ({scoring.name}): {deals} deals, median {median:.2f} ms, max {worst:.2f} ms "
            f"[{verdict}, target < {TARGET_SOLVE_MS:.0f} ms]; best scores median {statistics.median(scores):.0f}, "
            f"range {min(scores)}-{max(scores)}"
        )


def bench_pictures(count: int) -> None:
    layouts = []
    for n in range(count):
        finished = solve(deal_from_seed(f"picture {n}"))
        layouts.append(finished if n % 2 else Layout(finished.deal, finished.path[: 5 + n % 17]))
    render_patience(layouts[0])  # warm the sprite caches once
    times, sizes = [], []
    for layout in layouts:
        t0 = time.perf_counter()
        png = render_patience(layout, best=25)
        times.append((time.perf_counter() - t0) * 1000)
        sizes.append(len(png))
    median, worst = statistics.median(times), max(times)
    verdict = "OK" if median < TARGET_PICTURE_MS else "SLOW"
    print(
        f"picture: {count} layouts, median {median:.1f} ms, max {worst:.1f} ms per PNG "
        f"[{verdict}, target < {TARGET_PICTURE_MS:.0f} ms]; PNG median {statistics.median(sizes) / 1024:.0f} KB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--pictures", type=int, default=60)
    args = parser.parse_args()
    bench_tables()
    bench_solver(args.deals)
    bench_pictures(args.pictures)


if __name__ == "__main__":
    main()
