"""Command line: ``python -m engine patience solve --deal "D6 S5 CQ ..." [--scoring english|american]``.

Prints one JSON line for a best layout of the deal::

    {"score": 81, "grid": [["H8", "H5", ...], ...], "path": [[3, 3], [3, 4], ...]}

``grid`` is the five rows, top first, of five cards each, left first;
``path`` is the 25 squares as ``[row, col]`` from the top left (0 to 4), card
``i`` of the deal on ``path[i]``. A deal that cannot be read (a spelling
that is not a card, not 25 cards, a card twice) prints ``{"error": "..."}``
and the exit status is 1; otherwise it is 0.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from engine.patience.cards import Deal
from engine.patience.hands import Scoring, scoring_named
from engine.patience.layout import Layout
from engine.patience.solver import solve


def layout_json(layout: Layout, scoring: Scoring) -> dict[str, Any]:
    """A layout as the command prints it: score, grid and path."""
    return {
        "score": layout.score(scoring),
        "grid": [[None if card is None else str(card) for card in row] for row in layout.grid()],
        "path": [[cell.row, cell.col] for cell in layout.path],
    }


def solve_answer(deal_text: str, scoring_name: str = "english") -> dict[str, Any]:
    """The answer for one deal (never raises for a bad deal or table name)."""
    try:
        deal = Deal.parse(deal_text)
        scoring = scoring_named(scoring_name)
    except ValueError as error:
        return {"error": str(error)}
    return layout_json(solve(deal, scoring), scoring)


def run_solve(deal_text: str, scoring_name: str, out: TextIO) -> int:
    answer = solve_answer(deal_text, scoring_name)
    out.write(json.dumps(answer, ensure_ascii=False) + "\n")
    out.flush()
    return 1 if "error" in answer else 0
