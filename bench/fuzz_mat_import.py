"""1,000 fuzzed .mat files through the importer: each must read, or be refused with
:class:`engine.mat_import.MatImportError` naming a line; anything else is a failure.

    PYTHONPATH=. python -m bench.fuzz_mat_import --files 1000
"""

from __future__ import annotations

import argparse
import random
import time

from engine.mat import export_games
from engine.mat_import import MatImportError, read_mat
from tests.engine.gnubg_oracle import random_match

JUNK = ["", "x", "99)", "Doubles => 2", "Takes", "Drops", "Wins 3 points", "66: 25/1", "\x00", "Game 7", "é", ":" * 9]


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 5)):
        if not lines:
            break
        where = rng.randrange(len(lines))
        how = rng.choice(["drop", "garble", "insert", "swap", "digits"])
        if how == "drop":
            del lines[where]
        elif how == "garble":
            line = lines[where]
            at = rng.randrange(len(line) + 1)
            lines[where] = line[:at] + rng.choice(JUNK) + line[at + 1 :]
        elif how == "insert":
            lines.insert(where, rng.choice(JUNK))
        elif how == "swap":
            other = rng.randrange(len(lines))
            lines[where], lines[other] = lines[other], lines[where]
        else:
            lines[where] = "".join(str(rng.randint(0, 9)) if c.isdigit() else c for c in lines[where])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    bases = []
    for seed in range(1, 11):
        sample = random_match(seed)
        bases.append(export_games(sample.games, ("A", "B"), match_length=sample.length))
    read = refused = failed = 0
    started = time.perf_counter()
    for _ in range(args.files):
        text = mutate(rng.choice(bases), rng)
        try:
            read_mat(text)
            read += 1
        except MatImportError as error:
            refused += 1
            assert error.line >= 1
        except Exception as error:  # the importer's bug: it must word every refusal
            failed += 1
            print(f"FAILED: {type(error).__name__}: {error}")
    took = time.perf_counter() - started
    print(f"{args.files} fuzzed files: {read} read, {refused} refused with a line, {failed} other errors; {took:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
