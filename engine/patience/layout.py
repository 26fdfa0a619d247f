"""Laying out a deal: the serpent rule, card by card, and the score.

A :class:`Layout` is a deal and the squares its first cards lie on, in deal
order: card ``i`` of the deal lies on ``path[i]``. The rule (Hoyle, "Serpent
Poker Patience"): the first card goes on any square; each later card goes on
a free square a rook's step (up, down, left or right, never corner to corner)
from the card laid just before it. The layout is finished when all 25 cards
lie on the grid, and then scores its five rows and five columns as poker
hands (:mod:`engine.patience.hands`).

A path that obeys the step rule can still run into a dead end, with free
squares it can no longer reach in one go (a corner walled in). The layout
refuses such a square as it would an illegal one, so every layout can be
finished: :meth:`Layout.legal_cells` offers exactly the squares from which
the rest of the grid can still be walked (this is how an interactive player
should offer squares), and :meth:`Layout.place` takes exactly those.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.patience.cards import DEAL_SIZE, Card, Deal, DealError
from engine.patience.grid import CELLS, LINES, SIZE, Cell, Line, completable, format_path, parse_path
from engine.patience.hands import ENGLISH, Category, Scoring, classify
from engine.reasons import Reason


class PlacementError(ValueError):
    """Raised when a card may not go on a square (the serpent rule), or there is no card to take back."""


@dataclass(frozen=True, slots=True)
class LineScore:
    """How one row or column scores: its cards so far and the hand they make."""

    line: Line
    cards: tuple[Card, ...]
    """The cards on the line, in its order (top to bottom, left to right), gaps left out."""
    category: Category
    points: int

    @property
    def complete(self) -> bool:
        """True when all five squares of the line hold a card."""
        return len(self.cards) == SIZE


@dataclass(frozen=True, slots=True)
class Layout:
    """A deal being laid out: immutable, each placement makes a new layout.

    ``path[i]`` is the square of card ``i`` of the deal. Every layout obeys
    the rule in the module docstring, and can be finished.
    """

    deal: Deal
    path: tuple[Cell, ...] = ()

    def __post_init__(self) -> None:
        path = tuple(_as_cell(cell) for cell in self.path)
        object.__setattr__(self, "path", path)
        for count in range(len(path)):
            _check(self.deal, path[:count], path[count])

    # -- construction -------------------------------------------------------

    @classmethod
    def start(cls, deal: Deal) -> Layout:
        """The empty grid, the first card of ``deal`` to be laid."""
        return cls(deal)

    @classmethod
    def parse(cls, deal: Deal, text: str) -> Layout:
        """The layout of ``deal`` along the squares written in ``text`` (``str(layout)``).

        :raises CellError: for a piece that is not a square.
        :raises PlacementError: if the squares break the rule.
        """
        return cls(deal, parse_path(text))

    @classmethod
    def from_grid(cls, deal: Deal, rows: Sequence[Sequence[Card | str]]) -> Layout:
        """The finished layout whose grid is ``rows`` (5 rows of 5 cards, top row first),
        as a book prints one: each card's square is read off the grid.

        :raises CardError: for a spelling that is not a card.
        :raises DealError: if the grid does not hold exactly the deal's cards.
        :raises PlacementError: if the deal's order does not walk a rook's path on it.
        """
        if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
            raise DealError(Reason("a grid has {SIZE} rows of {SIZE} cards", SIZE=SIZE))
        where: dict[Card, Cell] = {}
        for r, row in enumerate(rows):
            for c, card in enumerate(row):
                card = card if isinstance(card, Card) else Card.parse(card)
                if card in where:
                    raise DealError(
                        Reason(
                            "{card} is on the grid twice: {value} and {r}", card=card, value=where[card], r=Cell(r, c)
                        )
                    )
                where[card] = Cell(r, c)
        missing = [card for card in deal if card not in where]
        if missing:
            raise DealError(Reason("the grid lacks cards of the deal: {cards}", cards=" ".join(map(str, missing))))
        return cls(deal, tuple(where[card] for card in deal))

    # -- queries -------------------------------------------------------------

    @property
    def placed(self) -> int:
        """How many cards lie on the grid."""
        return len(self.path)

    @property
    def is_complete(self) -> bool:
        """True when all 25 cards lie on the grid."""
        return len(self.path) == DEAL_SIZE

    @property
    def next_card(self) -> Card | None:
        """The card to lay next, or None when the layout is finished."""
        return None if self.is_complete else self.deal[len(self.path)]

    @property
    def last_cell(self) -> Cell | None:
        """The square of the card laid last, or None on an empty grid."""
        return self.path[-1] if self.path else None

    def legal_cells(self) -> tuple[Cell, ...]:
        """The squares the next card may go on, in reading order: free squares a
        rook's step from the last card (any square for the first card) from
        which the rest of the grid can still be walked. Empty when finished."""
        if self.is_complete:
            return ()
        candidates = CELLS if not self.path else self.path[-1].neighbours()
        taken = set(self.path)
        return tuple(cell for cell in candidates if cell not in taken and completable(self.path + (cell,)))

    def card_at(self, cell: Cell | str) -> Card | None:
        """The card on a square, or None while it is free."""
        found = self.order_at(cell)
        return None if found is None else self.deal[found]

    def order_at(self, cell: Cell | str) -> int | None:
        """Which card of the deal (0 for the first) lies on a square, or None."""
        cell = _as_cell(cell)
        try:
            return self.path.index(cell)
        except ValueError:
            return None

    def grid(self) -> tuple[tuple[Card | None, ...], ...]:
        """The cards by row (top first) and column (left first); None on a free square."""
        cards: list[Card | None] = [None] * len(CELLS)
        for card, cell in zip(self.deal, self.path):
            cards[cell.number] = card
        return tuple(tuple(cards[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE))

    def line_scores(self, scoring: Scoring = ENGLISH) -> tuple[LineScore, ...]:
        """The ten lines (rows top to bottom, then columns left to right) and what each
        scores now; a line still short of five cards scores only its pairs, threes or fours."""
        grid = self.grid()
        scores = []
        for line in LINES:
            cards = tuple(card for card in (grid[r][c] for r, c in line.cells) if card is not None)
            category = classify(cards)
            scores.append(LineScore(line, cards, category, scoring.points(category)))
        return tuple(scores)

    def score(self, scoring: Scoring = ENGLISH) -> int:
        """The layout's score: the sum over its ten lines (final once complete)."""
        return sum(line.points for line in self.line_scores(scoring))

    # -- play ------------------------------------------------------------------

    def place(self, cell: Cell | str) -> Layout:
        """The layout with the next card laid on ``cell`` (a :class:`Cell` or ``"C3"``).

        :raises CellError: if ``cell`` is not a square.
        :raises PlacementError: if the rule forbids the square (saying why).
        """
        cell = _as_cell(cell)
        _check(self.deal, self.path, cell)
        return unchecked_layout(self.deal, self.path + (cell,))

    def undo(self) -> Layout:
        """The layout with the last card taken back.

        :raises PlacementError: on an empty grid.
        """
        if not self.path:
            raise PlacementError(Reason("there is no card to take back: the grid is empty"))
        return unchecked_layout(self.deal, self.path[:-1])

    def __str__(self) -> str:
        return format_path(self.path)

    def __repr__(self) -> str:
        return f"Layout.parse({self.deal!r}, {str(self)!r})"


def _as_cell(cell: Cell | str | Iterable[int]) -> Cell:
    if isinstance(cell, Cell):
        return cell
    if isinstance(cell, str):
        return Cell.parse(cell)
    row, col = cell
    return Cell.at(row, col)


def _check(deal: Deal, path: tuple[Cell, ...], cell: Cell) -> None:
    """Raise :class:`PlacementError` unless the next card of ``deal`` may go on
    ``cell`` after ``path`` (which obeys the rule)."""
    count = len(path)
    if count >= DEAL_SIZE:
        raise PlacementError(Reason("all {DEAL_SIZE} cards are laid out", DEAL_SIZE=DEAL_SIZE))
    card = deal[count]
    if cell in path:
        holder = path.index(cell)
        raise PlacementError(
            Reason("{cell} already holds card {value} ({value2})", cell=cell, value=holder + 1, value2=deal[holder])
        )
    if path and not path[-1].touches(cell):
        raise PlacementError(
            Reason(
                "card {value} ({card}) goes a rook's step (up, down, left or right) from card {count} ({value2}) on {value3}, and {cell} is not",
                value=count + 1,
                card=card,
                count=count,
                value2=deal[count - 1],
                value3=path[-1],
                cell=cell,
            )
        )
    if not completable(path + (cell,)):
        raise PlacementError(
            Reason(
                "card {value} ({card}) on {cell} would leave free squares that one rook's path cannot all reach",
                value=count + 1,
                card=card,
                cell=cell,
            )
        )


def unchecked_layout(deal: Deal, path: tuple[Cell, ...]) -> Layout:
    """A Layout built without checks: only for paths known to obey the rule
    (checked step by step, or a rook's path from :mod:`engine.patience.grid`)."""
    layout = object.__new__(Layout)
    object.__setattr__(layout, "deal", deal)
    object.__setattr__(layout, "path", path)
    return layout
