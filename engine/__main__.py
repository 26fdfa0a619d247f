"""Command line: ``python -m engine plays --jsonl`` and ``python -m engine patience solve``.

Reads lines ``{"position_id": "<ID, player on roll to move>", "dice": [d1, d2]}``
and writes, for each, ``{"plays": [{"play": "<canonical notation>",
"position_id": "<ID after the play, opponent on roll>"}, ...]}``. A line that
cannot be handled gets ``{"error": "..."}`` and the rest go on. The exit
status is 0 when every line was answered with plays, 1 otherwise.

``python -m engine patience solve --deal "D6 S5 CQ ..." [--scoring english|american]``
prints one JSON line for a best layout of a Serpent Poker Patience deal
(:mod:`engine.patience.cli`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from engine.dice import Roll
from engine.moves import legal_plays
from engine.patience.cli import run_solve
from engine.patience.hands import SCORINGS
from engine.play import format_play
from engine.position import Position


def plays_for_line(line: str) -> dict[str, Any]:
    """Answer one JSON line (never raises)."""
    try:
        request = json.loads(line)
        if not isinstance(request, dict):
            raise ValueError("each line must be a JSON object")
        position_id = request.get("position_id")
        dice = request.get("dice")
        if not isinstance(position_id, str):
            raise ValueError("position_id must be a string")
        if (
            not isinstance(dice, list)
            or len(dice) != 2
            or not all(isinstance(d, int) and not isinstance(d, bool) for d in dice)
        ):
            raise ValueError("dice must be a list of two integers")
        position = Position.from_position_id(position_id)
        roll = Roll(dice[0], dice[1])
    except ValueError as error:  # json.JSONDecodeError is a ValueError
        return {"error": str(error)}
    plays = legal_plays(position, roll)
    answer = [{"play": format_play(play), "position_id": play.position.swap().position_id()} for play in plays]
    answer.sort(key=lambda entry: entry["play"])
    return {"plays": answer}


def run_plays(source: TextIO, out: TextIO) -> int:
    status = 0
    for line in source:
        if not line.strip():
            continue
        answer = plays_for_line(line)
        if "error" in answer:
            status = 1
        out.write(json.dumps(answer) + "\n")
        out.flush()
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description="Backgammon rules engine tools.")
    commands = parser.add_subparsers(dest="command", required=True)
    plays = commands.add_parser("plays", help="list the legal plays of positions and dice")
    plays.add_argument("--jsonl", action="store_true", required=True, help="read JSON lines on stdin")
    patience = commands.add_parser("patience", help="Serpent Poker Patience")
    patience_commands = patience.add_subparsers(dest="patience_command", required=True)
    solve = patience_commands.add_parser("solve", help="print a best layout of a deal as one JSON line")
    solve.add_argument("--deal", required=True, help='the 25 cards in deal order, as "D6 S5 CQ ..."')
    solve.add_argument("--scoring", choices=sorted(SCORINGS), default="english", help="the score table")
    args = parser.parse_args(argv)
    if args.command == "plays":
        return run_plays(sys.stdin, sys.stdout)
    if args.command == "patience":
        return run_solve(args.deal, args.scoring, sys.stdout)
    return 2


if __name__ == "__main__":
    sys.exit(main())
