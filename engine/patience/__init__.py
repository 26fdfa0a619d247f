"""Serpent Poker Patience, pure and synchronous (Hoyle's Games Modernized).

Twenty-five cards, dealt face up in a known order, are laid one by one on a
5 by 5 grid, each a rook's step from the one before (:mod:`.layout`); the
five rows and five columns then score as poker hands (:mod:`.hands`). The
solver finds the best layout of any deal exactly (:mod:`.solver`)::

    >>> from engine.patience import HOYLE_DEAL, ENGLISH, Layout, solve
    >>> solve(HOYLE_DEAL).score(ENGLISH)
    81
    >>> layout = Layout.start(HOYLE_DEAL).place("D4")
    >>> [str(cell) for cell in layout.legal_cells()]
    ['D3', 'C4', 'E4', 'D5']
    >>> str(layout.next_card)
    'S5'
"""

from engine.patience.cards import DEAL_SIZE, FULL_DECK, Card, CardError, Deal, DealError, Rank, Suit, parse_cards
from engine.patience.deals import HOYLE_BEST, HOYLE_DEAL, deal_from_seed
from engine.patience.grid import (
    CELLS,
    COLUMNS,
    LINES,
    ROWS,
    SIZE,
    Cell,
    CellError,
    Line,
    completable,
    format_path,
    parse_path,
    rook_paths,
)
from engine.patience.hands import (
    AMERICAN,
    ENGLISH,
    SCORINGS,
    Category,
    HandError,
    Scoring,
    classify,
    is_straight,
    scoring_named,
)
from engine.patience.layout import Layout, LineScore, PlacementError, unchecked_layout
from engine.patience.solver import Tables, best_score, prepare, solve

__all__ = [
    "AMERICAN",
    "CELLS",
    "COLUMNS",
    "DEAL_SIZE",
    "ENGLISH",
    "FULL_DECK",
    "HOYLE_BEST",
    "HOYLE_DEAL",
    "LINES",
    "ROWS",
    "SCORINGS",
    "SIZE",
    "Card",
    "CardError",
    "Category",
    "Cell",
    "CellError",
    "Deal",
    "DealError",
    "HandError",
    "Layout",
    "Line",
    "LineScore",
    "PlacementError",
    "Rank",
    "Scoring",
    "Suit",
    "Tables",
    "best_score",
    "classify",
    "completable",
    "deal_from_seed",
    "format_path",
    "is_straight",
    "parse_cards",
    "parse_path",
    "prepare",
    "rook_paths",
    "scoring_named",
    "solve",
    "unchecked_layout",
]
