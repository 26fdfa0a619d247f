"""Poker hands and the two score tables of poker patience.

Each row and each column of the finished grid is a poker hand of five cards
(Hoyle's Games Modernized, "Poker Patience"). The categories, best first in
poker's own order:

- *royal flush*: a straight flush ten to ace;
- *straight flush*: a straight in one suit; the ace counts low
  (A-2-3-4-5, "the wheel") or high (10-J-Q-K-A), never both at once, so
  Q-K-A-2-3 is no straight;
- *fours*: four cards of one rank;
- *full house* (Hoyle's "full hand"): threes and a pair;
- *flush*: five cards of one suit;
- *straight*: five ranks in a row, the ace low or high as above;
- *threes*, *two pairs*, *pair*, and *nothing*.

A line that is not yet full (a layout still being laid out) is judged on the
cards it holds: pairs, threes and fours count as soon as they are there; a
straight or a flush needs all five.

Two score tables are in use. The English one (Hoyle's) values a straight
above a full house and a flush below threes and scores a royal flush as any
straight flush; the American one follows the poker order.

========================  =======  ========
hand                      English  American
========================  =======  ========
royal flush               30       100
straight flush            30       75
fours                     16       50
full house                10       25
flush                     5        20
straight                  12       15
threes                    6        10
two pairs                 3        5
pair                      1        2
nothing                   0        0
========================  =======  ========
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from engine.patience.cards import Card, Rank
from engine.reasons import Reason

HAND_SIZE = 5


class HandError(ValueError):
    """Raised when more than five cards are judged as one hand."""


class Category(IntEnum):
    """The poker hands, in poker's order (the English table scores them in another)."""

    NOTHING = 0
    PAIR = 1
    TWO_PAIRS = 2
    THREES = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOURS = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def label(self) -> str:
        """The hand's name in lower case: ``two pairs``, ``full house``, ..."""
        return self.name.lower().replace("_", " ")


def is_straight(ranks: Iterable[Rank]) -> bool:
    """Five different ranks in a row, the ace low (A-2-3-4-5) or high (10-J-Q-K-A)."""
    values = sorted(set(ranks))
    if len(values) != HAND_SIZE:
        return False
    if values[-1] - values[0] == HAND_SIZE - 1:
        return True
    return values == [Rank.ACE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING]


def classify(cards: Iterable[Card]) -> Category:
    """The poker hand that up to five cards make (see the module docstring).

    :raises HandError: for more than five cards.
    """
    hand = list(cards)
    if len(hand) > HAND_SIZE:
        raise HandError(Reason("a hand has at most {HAND_SIZE} cards, not {hand}", HAND_SIZE=HAND_SIZE, hand=len(hand)))
    counts = sorted(Counter(card.rank for card in hand).values(), reverse=True) + [0, 0]
    if counts[0] == 4:
        return Category.FOURS
    if counts[0] == 3:
        return Category.FULL_HOUSE if counts[1] == 2 else Category.THREES
    if counts[0] == 2:
        return Category.TWO_PAIRS if counts[1] == 2 else Category.PAIR
    if len(hand) < HAND_SIZE:
        return Category.NOTHING
    flush = len({card.suit for card in hand}) == 1
    straight = is_straight(card.rank for card in hand)
    if straight and flush:
        ranks = {card.rank for card in hand}
        return Category.ROYAL_FLUSH if Rank.ACE in ranks and Rank.KING in ranks else Category.STRAIGHT_FLUSH
    if flush:
        return Category.FLUSH
    if straight:
        return Category.STRAIGHT
    return Category.NOTHING


@dataclass(frozen=True, slots=True)
class Scoring:
    """A score table: points for each :class:`Category`."""

    name: str
    """The table's name on command lines: ``english`` or ``american``."""
    table: tuple[int, ...]
    """Points indexed by category (``table[Category.PAIR]``)."""

    def __post_init__(self) -> None:
        if len(self.table) != len(Category):
            raise ValueError(f"a score table has {len(Category)} entries, not {len(self.table)}")

    def points(self, category: Category) -> int:
        """What one line of this category scores."""
        return self.table[category]

    def score(self, cards: Iterable[Card]) -> int:
        """What one line of these cards scores."""
        return self.table[classify(cards)]

    def __str__(self) -> str:
        return self.name


ENGLISH = Scoring("english", (0, 1, 3, 6, 12, 5, 10, 16, 30, 30))
"""Hoyle's table: straight flush 30, fours 16, straight 12, full house 10,
threes 6, flush 5, two pairs 3, pair 1 (a royal flush is a straight flush)."""

AMERICAN = Scoring("american", (0, 2, 5, 10, 15, 20, 25, 50, 75, 100))
"""Royal flush 100, straight flush 75, fours 50, full house 25, flush 20,
straight 15, threes 10, two pairs 5, pair 2."""

SCORINGS: dict[str, Scoring] = {ENGLISH.name: ENGLISH, AMERICAN.name: AMERICAN}
"""The score tables by name."""


def scoring_named(name: str) -> Scoring:
    """The score table called ``name`` (any case).

    :raises ValueError: for a name that is not ``english`` or ``american``.
    """
    found = SCORINGS.get(name.strip().lower())
    if found is None:
        raise ValueError(f"no score table {name!r}: choose " + " or ".join(SCORINGS))
    return found
