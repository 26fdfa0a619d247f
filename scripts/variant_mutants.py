"""Drop each special rule of plakoto, fevga and long nardy in turn and check that a test fails.

    python -m scripts.variant_mutants [--only NAME ...] [--list]

For each rule in :data:`MUTANTS`: copy the project (without .git) to a
temporary folder, change the one line that carries the rule, run the tables
games' tests there, and print which test caught it, or ``SURVIVED``. Exit
status 1 if a rule survived or its line is no longer found (the code moved:
update the mutant). About ten seconds a rule on one free core.

Not listed because no test can catch it: ``blocks_trapped``'s shortcut for a
checker borne off (an opponent who has borne off has every checker in their
home board, past any block we can hold, so the shortcut changes no verdict).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = (
    "tests/engine/test_plakoto.py",
    "tests/engine/test_fevga.py",
    "tests/engine/test_nardy.py",
    "tests/engine/test_tables.py",
)

MUTANTS: tuple[tuple[str, str, str, str], ...] = (
    # (the rule, the file, the line as it is, the line without the rule)
    ("plakoto: a blot is pinned", "engine/plakoto.py", "    single_holds = False\n", "    single_holds = True\n"),
    ("plakoto: the mother", "engine/plakoto.py", "if position.pins[0] == -1:", "if False:"),
    (
        "plakoto: no bearing off while pinned",
        "engine/tables.py",
        "home = all(n <= 0 for n in a[7:25]) and 1 not in pins",
        "home = all(n <= 0 for n in a[7:25])",
    ),
    (
        "plakoto: the pinner leaving frees",
        "engine/tables.py",
        "    if b[source] == 0 and pins[source] == -1:",
        "    if False:",
    ),
    ("plakoto: a pinner is not pinned", "engine/tables.py", "n == -1 and pins[destination] == 0", "n == -1"),
    (
        "plakoto: a double game",
        "engine/plakoto.py",
        'return (1 if position.off[1] else 2), "bearoff"',
        'return 1, "bearoff"',
    ),
    (
        "fevga: the first checker alone",
        "engine/fevga.py",
        "        if a[HEAD] + a[0] == CHECKERS",
        "        return True\n        if a[HEAD] + a[0] == CHECKERS",
    ),
    ("fevga: the starting quarter", "engine/fevga.py", "if destination >= 19 and", "if False and"),
    (
        "fevga: no trapping prime",
        "engine/fevga.py",
        "        return not blocks_trapped(a, off_theirs, destination)",
        "        return True",
    ),
    (
        "fevga and nardy: a double game",
        "engine/tables.py",
        'return (1 if position.off[1] else 2), "bearoff"',
        'return 1, "bearoff"',
    ),
    (
        "nardy: one checker off the head",
        "engine/nardy.py",
        "        return start_head - a[HEAD] < limit",
        "        return True",
    ),
    ("nardy: the opening doubles", "engine/nardy.py", "limit = 2 if first_turn", "limit = 1 if first_turn"),
    ("nardy: only 6-6, 4-4 and 3-3", "engine/nardy.py", "roll.die1 in OPENING_DOUBLES", "True"),
    (
        "nardy: the first turn only",
        "engine/variants.py",
        "first = self.plays_made[self.player_on_roll] == 0",
        "first = True",
    ),
    (
        "nardy: each player's first turn",
        "engine/variants.py",
        "first = self.plays_made[self.player_on_roll] == 0",
        "first = False",
    ),
    (
        "nardy: six in a row",
        "engine/nardy.py",
        "        return not blocks_trapped(a, off_theirs, destination)",
        "        return True",
    ),
    ("nardy: koks", "engine/nardy.py", "if self.koks and", "if False and"),
    (
        "nardy: mars",
        "engine/nardy.py",
        '        return 2, "bearoff"\n\n    def win_name',
        '        return 1, "bearoff"\n\n    def win_name',
    ),
    ("all: the larger die", "engine/tables.py", "larger_only = best == 1 and", "larger_only = False and"),
    ("all: as many dice as can be played", "engine/tables.py", "if len(moves) != best or", "if False or"),
    (
        "all: bearing off from the highest point",
        "engine/tables.py",
        "(destination == 0 or source == highest)",
        "(destination == 0)",
    ),
    (
        "fevga and nardy: the block rules after the first die too",
        "engine/tables.py",
        "        if not allowed(b, off_theirs, move[1]):\n            continue\n        went = False",
        "        went = False",
    ),
)


def run(name: str, path: str, old: str, new: str, python: str) -> str:
    """What the tests say with ``old`` replaced by ``new`` in ``path``: the failing test, or SURVIVED."""
    with tempfile.TemporaryDirectory(prefix="bg-mutant-") as folder:
        tree = Path(folder) / "tree"
        shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(".git", "__pycache__", ".venv", "*.png", "data"))
        target = tree / path
        text = target.read_text()
        if text.count(old) != 1:
            return f"LINE NOT FOUND ({text.count(old)} matches)"
        target.write_text(text.replace(old, new))
        done = subprocess.run(
            [python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *TESTS],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree)},
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            return "SURVIVED"
        failed = [line.split()[1] for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
        return "caught by " + (failed[0] if failed else f"exit status {done.returncode}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="rules whose name holds one of these words")
    parser.add_argument("--list", action="store_true", help="list the rules and stop")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.only or any(word in m[0] for word in args.only)]
    if args.list:
        for name, *_ in chosen:
            print(name)
        return 0
    bad = 0
    for name, path, old, new in chosen:
        verdict = run(name, path, old, new, sys.executable)
        bad += not verdict.startswith("caught")
        print(f"{name}: {verdict}", flush=True)
    print(f"{len(chosen) - bad} of {len(chosen)} rules caught")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
