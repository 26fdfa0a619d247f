"""The 5 by 5 grid, its ten lines and its rook's paths.

Squares are written as in a spreadsheet: a column letter ``A`` to ``E`` (left
to right) and a row number ``1`` to ``5`` (top to bottom), so ``A1`` is the
top left square and ``E5`` the bottom right. In code a square is a
:class:`Cell` ``(row, col)`` counted from 0, the same top left origin.

The serpent rule (Hoyle): each card is laid *vertically or horizontally* next
to the one laid before it, never corner to corner, so the 25 cards make a
"rook's path" through every square once: a directed Hamiltonian path of the
grid graph, beginning and ending where the player pleases. Colour the grid
like a chessboard with dark corners: there are 13 dark squares and 12 light
ones, and a rook's step always changes colour, so every such path starts and
ends on a dark square (``(row + col)`` even). There are 8,648 of them (4,324
undirected, each walked either way); :func:`rook_paths` lists them all.
"""

from __future__ import annotations

import bisect
import functools
from typing import NamedTuple

from engine.reasons import Reason

SIZE = 5
"""Rows and columns of the grid."""

SQUARES = SIZE * SIZE

COLUMN_LETTERS = "ABCDE"


class CellError(ValueError):
    """Raised when a text or a pair of numbers is not a square of the grid."""


class Cell(NamedTuple):
    """A square of the grid: ``row`` and ``col`` from 0 to 4, row 0 at the top."""

    row: int
    col: int

    @classmethod
    def parse(cls, text: str) -> Cell:
        """Read a square written as ``C3`` (column letter, row number; any case).

        :raises CellError: if ``text`` is not a square of the grid.
        """
        cleaned = text.strip().upper()
        if len(cleaned) == 2 and cleaned[0] in COLUMN_LETTERS and cleaned[1] in "12345":
            return cls(int(cleaned[1]) - 1, COLUMN_LETTERS.index(cleaned[0]))
        raise CellError(Reason("{text!r} is not a square: write a column A-E and a row 1-5, as C3", text=text))

    @classmethod
    def at(cls, row: int, col: int) -> Cell:
        """The square at ``row`` and ``col``, checked.

        :raises CellError: if either is outside 0 to 4.
        """
        if not (isinstance(row, int) and isinstance(col, int) and 0 <= row < SIZE and 0 <= col < SIZE):
            raise CellError(
                Reason(
                    "({row!r}, {col!r}) is not a square: row and column run from 0 to {value}",
                    row=row,
                    col=col,
                    value=SIZE - 1,
                )
            )
        return cls(row, col)

    @property
    def number(self) -> int:
        """The square's number in reading order, 0 (``A1``) to 24 (``E5``)."""
        return self.row * SIZE + self.col

    @property
    def dark(self) -> bool:
        """True on the 13 squares of the corners' colour, where rook's paths start and end."""
        return (self.row + self.col) % 2 == 0

    def neighbours(self) -> tuple[Cell, ...]:
        """The squares a rook's step away (up, down, left, right), in reading order."""
        return _NEIGHBOURS[self.number]

    def touches(self, other: Cell) -> bool:
        """True when ``other`` is a rook's step away: one square up, down, left or right."""
        return abs(self.row - other.row) + abs(self.col - other.col) == 1

    def __str__(self) -> str:
        return f"{COLUMN_LETTERS[self.col]}{self.row + 1}"


CELLS: tuple[Cell, ...] = tuple(Cell(row, col) for row in range(SIZE) for col in range(SIZE))
"""The 25 squares in reading order (``CELLS[i].number == i``)."""

_NEIGHBOURS: tuple[tuple[Cell, ...], ...] = tuple(
    tuple(other for other in CELLS if cell.touches(other)) for cell in CELLS
)


class Line(NamedTuple):
    """A row or a column: a poker hand once it holds five cards."""

    name: str
    """``row 1`` to ``row 5``, ``column A`` to ``column E``."""
    cells: tuple[Cell, ...]


ROWS: tuple[Line, ...] = tuple(Line(f"row {r + 1}", tuple(Cell(r, c) for c in range(SIZE))) for r in range(SIZE))
COLUMNS: tuple[Line, ...] = tuple(
    Line(f"column {COLUMN_LETTERS[c]}", tuple(Cell(r, c) for r in range(SIZE))) for c in range(SIZE)
)
LINES: tuple[Line, ...] = ROWS + COLUMNS
"""The ten hands that score: the five rows, top to bottom, then the five columns, left to right."""


def format_path(path: tuple[Cell, ...] | list[Cell]) -> str:
    """Squares with spaces between them: ``D4 E4 E3``."""
    return " ".join(map(str, path))


def parse_path(text: str) -> tuple[Cell, ...]:
    """Read squares separated by spaces or commas (no rule checked here).

    :raises CellError: for a piece that is not a square.
    """
    return tuple(Cell.parse(piece) for piece in text.replace(",", " ").split())


def _walk(found: list[tuple[int, ...]], path: list[int], used: int, degree: list[int]) -> None:
    """Extend ``path`` to every rook's path over all squares, into ``found``.

    ``degree[s]`` counts the squares next to ``s`` that are still free or the
    path's head. A free square next to the head that would be left with no
    such neighbour can never be reached; two left with one each would both
    have to be the path's last square: either way the branch is dead.
    """
    if len(path) == SQUARES:
        found.append(tuple(path))
        return
    head = path[-1]
    free = [n for n in _NEIGHBOUR_INDEXES[head] if not used >> n & 1]
    for n in free:
        degree[n] -= 1
    for step in free:
        ends = 0
        for other in free:
            if other != step:
                if degree[other] == 0:
                    break
                ends += degree[other] == 1
        else:
            if ends <= 1:
                path.append(step)
                _walk(found, path, used | 1 << step, degree)
                path.pop()
    for n in free:
        degree[n] += 1


_NEIGHBOUR_INDEXES: tuple[tuple[int, ...], ...] = tuple(tuple(n.number for n in cell.neighbours()) for cell in CELLS)


SYMMETRIES: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        (c if transpose else r) * SIZE + (r if transpose else c)
        for r0, c0 in ((cell.row, cell.col) for cell in CELLS)
        for r, c in [((SIZE - 1 - r0) if flip_rows else r0, (SIZE - 1 - c0) if flip_cols else c0)]
    )
    for transpose in (False, True)
    for flip_rows in (False, True)
    for flip_cols in (False, True)
)
"""The eight symmetries of the square (turns and mirrors), each as where it
sends square number ``n``; rows go to rows or columns, columns likewise."""


@functools.cache
def rook_path_numbers() -> tuple[tuple[int, ...], ...]:
    """Every directed rook's path over the 25 squares, as square numbers (:attr:`Cell.number`), sorted.

    Walked from one square of each kind (corner ``A1``, edge ``C1``, ``B2`` and
    the centre ``C3``; the other dark squares are their turns and mirrors),
    then turned and mirrored: computed once per process (about 0.15 s) and kept.
    """
    walked: list[tuple[int, ...]] = []
    degree = [len(n) for n in _NEIGHBOUR_INDEXES]
    for start in (Cell(0, 0), Cell(0, 2), Cell(1, 1), Cell(2, 2)):
        _walk(walked, [start.number], 1 << start.number, degree)
    found = {tuple(symmetry[square] for square in path) for path in walked for symmetry in SYMMETRIES}
    return tuple(sorted(found))


def rook_paths() -> tuple[tuple[Cell, ...], ...]:
    """Every directed rook's path over the 25 squares (8,648), sorted."""
    return tuple(tuple(CELLS[i] for i in path) for path in rook_path_numbers())


def completable(path: tuple[Cell, ...] | list[Cell]) -> bool:
    """True when ``path`` is the beginning of some rook's path over all 25
    squares: it steps from square to neighbouring square, never twice on
    one, and the squares still free can be walked in one go from its end."""
    prefix = tuple(cell.number for cell in path)
    paths = rook_path_numbers()
    at = bisect.bisect_left(paths, prefix)
    return at < len(paths) and paths[at][: len(prefix)] == prefix
