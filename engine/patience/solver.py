"""The best layout of a deal, found exactly.

A finished layout is a rook's path (:mod:`engine.patience.grid`) with the
deal's cards laid along it in order, so trying all 8,648 paths finds the
best score. Three facts make that quick:

1. A layout's score depends only on which cards share each row and each
   column. For a path, "which cards" is, per line, the set of deal positions
   (card 0 to 24) on its five squares: ten 5-card sets. Over all paths only
   2,427 different sets occur.
2. Turning or mirroring the grid maps rows and columns onto rows and columns,
   so the eight paths a symmetry of the square relates score alike. The 8,648
   paths fall into 1,081 classes of eight with the same ten sets (checked when
   the tables are built).
3. A 5-card set's hand is read from two numbers: the product of a prime per
   rank (equal exactly when the ranks are, as multisets) and whether the
   five suits agree. Each score table is turned, once, into a dictionary from
   the product to points, one for mixed suits and one for a single suit,
   filled by :func:`engine.patience.hands.classify` itself.

So a deal costs 2,427 lookups and 1,081 sums of ten: under a millisecond
(``bench/patience.py``), once the tables are built (:func:`prepare`).
Among layouts of equal score the one returned is the first in the order of
:func:`engine.patience.grid.rook_paths`, so the answer is the same every time.
"""

from __future__ import annotations

import functools
from itertools import combinations_with_replacement
from math import prod
from typing import NamedTuple

from engine.patience.cards import Card, Deal, Rank, Suit
from engine.patience.grid import CELLS, LINES, SIZE, rook_path_numbers
from engine.patience.hands import ENGLISH, HAND_SIZE, Scoring, classify
from engine.patience.layout import Layout, unchecked_layout

_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
"""A prime per rank, ace to king."""
_PRIME = {rank: _PRIMES[rank - 1] for rank in Rank}
_SUIT_BIT = {suit: 1 << n for n, suit in enumerate(Suit)}


@functools.cache
def _tables() -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """The line sets (deal positions, ascending); per class of rook's paths, its
    ten set numbers (rows, then columns); and the first path of each class."""
    sets: dict[tuple[int, ...], int] = {}
    classes: dict[frozenset[int], tuple[tuple[int, ...], tuple[int, ...]]] = {}
    for path in rook_path_numbers():
        members: list[list[int]] = [[] for _ in LINES]
        for position, square in enumerate(path):
            members[square // SIZE].append(position)
            members[SIZE + square % SIZE].append(position)
        numbers = tuple(sets.setdefault(tuple(m), len(sets)) for m in members)
        classes.setdefault(frozenset(numbers), (numbers, path))
    if len(classes) * 8 != len(rook_path_numbers()):  # pragma: no cover - a broken path list
        raise AssertionError("the rook's paths should fall into classes of eight")
    return tuple(sets), tuple(n for n, _ in classes.values()), tuple(p for _, p in classes.values())


@functools.cache
def _points_by_product(scoring: Scoring) -> tuple[dict[int, int], dict[int, int]]:
    """Points for five cards by the product of their rank primes: (mixed suits, one suit)."""
    mixed: dict[int, int] = {}
    suited: dict[int, int] = {}
    suits = list(Suit)
    for ranks in combinations_with_replacement(Rank, HAND_SIZE):
        if max(ranks.count(rank) for rank in ranks) > 4:
            continue
        key = prod(_PRIME[rank] for rank in ranks)
        mixed[key] = scoring.points(classify(Card(rank, suits[n % 4]) for n, rank in enumerate(ranks)))
        if len(set(ranks)) == HAND_SIZE:
            suited[key] = scoring.points(classify(Card(rank, Suit.HEARTS) for rank in ranks))
    return mixed, suited


class Tables(NamedTuple):
    """What :func:`prepare` built: the sizes the module docstring gives."""

    paths: int
    """Directed rook's paths: 8,648."""
    classes: int
    """Classes of eight paths that score alike: 1,081."""
    line_sets: int
    """Different 5-card sets (by deal position) a line can hold: 2,427."""


def prepare(*scorings: Scoring) -> Tables:
    """Build the solver's tables now (about a fifth of a second, once per
    process, and a few hundredths more per score table, English if none is
    named) rather than in the first :func:`solve`; say, in a worker thread at
    start-up."""
    sets, classes, _ = _tables()
    for scoring in scorings or (ENGLISH,):
        _points_by_product(scoring)
    return Tables(len(rook_path_numbers()), len(classes), len(sets))


def best_score(deal: Deal, scoring: Scoring = ENGLISH) -> int:
    """The highest score any layout of ``deal`` makes."""
    return _best(deal, scoring)[0]


def solve(deal: Deal, scoring: Scoring = ENGLISH) -> Layout:
    """A finished layout of ``deal`` with the highest score (the first such in
    the order of the rook's paths)."""
    _, path = _best(deal, scoring)
    return unchecked_layout(deal, tuple(CELLS[square] for square in path))


def _best(deal: Deal, scoring: Scoring) -> tuple[int, tuple[int, ...]]:
    sets, class_sets, paths = _tables()
    mixed, suited = _points_by_product(scoring)
    primes = [_PRIME[card.rank] for card in deal]
    suit_bits = [_SUIT_BIT[card.suit] for card in deal]
    points = [
        suited[primes[a] * primes[b] * primes[c] * primes[d] * primes[e]]
        if suit_bits[a] & suit_bits[b] & suit_bits[c] & suit_bits[d] & suit_bits[e]
        else mixed[primes[a] * primes[b] * primes[c] * primes[d] * primes[e]]
        for a, b, c, d, e in sets
    ]
    best, best_at = -1, 0
    for at, (r1, r2, r3, r4, r5, c1, c2, c3, c4, c5) in enumerate(class_sets):
        total = (
            points[r1]
            + points[r2]
            + points[r3]
            + points[r4]
            + points[r5]
            + points[c1]
            + points[c2]
            + points[c3]
            + points[c4]
            + points[c5]
        )
        if total > best:
            best, best_at = total, at
    return best, paths[best_at]
