"""Sum a sampling profile of the bot (``E2E_PROFILE``, see tests/e2e/launcher.py) by function.

    python -m bench.profile_report PROFILE [--top 40] [--under NAME]

Prints the functions with the most samples on the stack (inclusive: where the
time goes, callees included) and at the top of it (self), as shares of all
samples. ``--under NAME`` keeps only stacks through a function whose name
contains NAME (e.g. ``publish``).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path


def read(path: Path, under: str | None = None) -> list[tuple[list[str], int]]:
    stacks = []
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if under is not None and not any(under in f for f in frames):
            continue
        stacks.append((frames, int(count)))
    return stacks


def report(stacks: list[tuple[list[str], int]], top: int) -> str:
    total = sum(n for _, n in stacks) or 1
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for frames, n in stacks:
        for frame in set(frames):
            inclusive[frame] += n
        own[frames[-1]] += n
    lines = [f"{total} samples"]
    for title, counter in (("inclusive (callees included)", inclusive), ("self", own)):
        lines.append(f"-- {title}")
        lines.extend(f"{100 * n / total:6.1f}%  {frame}" for frame, n in counter.most_common(top))
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--under", default=None)
    args = parser.parse_args()
    print(report(read(args.profile, args.under), args.top))
