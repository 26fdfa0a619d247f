"""Cards and deals, and how they are written.

A card is written suit first, then rank: ``D6``, ``H10``, ``SK``, ``HA``
(suits ``C D H S``; ranks ``A 2 3 4 5 6 7 8 9 10 J Q K``). That is the
canonical spelling, the one ``str(card)`` gives. Reading is kinder: case does
not matter; Hoyle's spelling with a period and words (``D.6``, ``H. ace``,
``C.knave``) is read, and so are the suit symbols (``♥10``), ``T`` for ten
and the rank-first order (``6D``, ``10♥``, ``AS``). No spelling is ambiguous,
because no suit letter is also a rank.

A *deal* is 25 distinct cards in the fixed order they are laid out. It is
written as its cards with spaces between them; reading a deal also accepts
commas and Hoyle's periods between the cards.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum, IntEnum

from engine.reasons import Reason

DEAL_SIZE = 25
"""Cards in a deal: one for each square of the 5 by 5 grid."""


class CardError(ValueError):
    """Raised when a text is not a card."""


class DealError(ValueError):
    """Raised when cards do not make a deal: not 25 of them, or one repeated."""


class Suit(Enum):
    """The four suits, in bridge order (clubs, diamonds, hearts, spades)."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def letter(self) -> str:
        """The suit's letter in the canonical spelling: ``C``, ``D``, ``H`` or ``S``."""
        return self.value

    @property
    def symbol(self) -> str:
        """The suit's symbol: ``♣``, ``♦``, ``♥`` or ``♠``."""
        return _SYMBOLS[self]

    @property
    def red(self) -> bool:
        """True for hearts and diamonds."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)


_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}


class Rank(IntEnum):
    """The thirteen ranks, valued ace 1 to king 13 (an ace also counts high in
    a straight: :mod:`engine.patience.hands`)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def letter(self) -> str:
        """The rank in the canonical spelling: ``A``, ``2`` .. ``10``, ``J``, ``Q``, ``K``."""
        return _RANK_LETTERS.get(self, str(int(self)))


_RANK_LETTERS = {Rank.ACE: "A", Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K"}

_SUIT_WORDS = {
    "c": Suit.CLUBS,
    "♣": Suit.CLUBS,
    "♧": Suit.CLUBS,
    "d": Suit.DIAMONDS,
    "♦": Suit.DIAMONDS,
    "♢": Suit.DIAMONDS,
    "h": Suit.HEARTS,
    "♥": Suit.HEARTS,
    "♡": Suit.HEARTS,
    "s": Suit.SPADES,
    "♠": Suit.SPADES,
    "♤": Suit.SPADES,
}
_RANK_WORDS = {
    "a": Rank.ACE,
    "ace": Rank.ACE,
    **{str(n): Rank(n) for n in range(2, 11)},
    "t": Rank.TEN,
    "j": Rank.JACK,
    "jack": Rank.JACK,
    "knave": Rank.JACK,
    "q": Rank.QUEEN,
    "queen": Rank.QUEEN,
    "k": Rank.KING,
    "king": Rank.KING,
}
_SUIT = "[CDHS♣♦♥♠♧♢♡♤]"
_RANK = "10|[2-9]|ace|knave|jack|queen|king|[AJQKT]"
_END = r"(?![A-Za-z0-9])"
_CARD = re.compile(
    rf"(?:(?P<suit>{_SUIT})\s*\.?\s*(?P<rank>{_RANK}){_END}|(?P<rank2>{_RANK})(?P<suit2>{_SUIT}){_END})",
    re.IGNORECASE,
)
_SEPARATORS = re.compile(r"[\s,;.]*")
_WORD = re.compile(r"[^\s,;]+")


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card: immutable, hashable, spelled suit first (``H10``)."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read one card in any spelling the module docstring lists.

        :raises CardError: if ``text`` is not exactly one card.
        """
        match = _CARD.fullmatch(text.strip())
        if match is None:
            raise CardError(
                Reason("{text!r} is not a card: write the suit, then the rank, as D6, H10, SK or HA", text=text)
            )
        return _card_from(match)

    def __str__(self) -> str:
        return self.suit.letter + self.rank.letter

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @property
    def label(self) -> str:
        """The card for people: rank then suit symbol, as ``10♥``."""
        return self.rank.letter + self.suit.symbol


def _card_from(match: re.Match[str]) -> Card:
    suit = match.group("suit") or match.group("suit2")
    rank = match.group("rank") or match.group("rank2")
    return Card(_RANK_WORDS[rank.lower()], _SUIT_WORDS[suit.lower()])


FULL_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)
"""The 52 cards in bridge order: clubs ace to king, then diamonds, hearts, spades."""


def parse_cards(text: str) -> list[Card]:
    """Read cards separated by spaces, commas, semicolons or periods, in order.

    Hoyle's list reads as written: ``D.6, S.5, ... H. ace, H.5``.

    :raises CardError: naming the first piece of text that is not a card.
    """
    cards: list[Card] = []
    position = 0
    while True:
        position = _SEPARATORS.match(text, position).end()  # type: ignore[union-attr]
        if position >= len(text):
            return cards
        match = _CARD.match(text, position)
        if match is None:
            word = _WORD.match(text, position)
            piece = word.group() if word else text[position:]
            raise CardError(
                Reason(
                    "card {value}: {piece!r} is not a card: write the suit, then the rank, as D6, H10, SK or HA",
                    value=len(cards) + 1,
                    piece=piece,
                )
            )
        cards.append(_card_from(match))
        position = match.end()


@dataclass(frozen=True, slots=True)
class Deal:
    """25 distinct cards in the order they must be laid out; written as the
    cards with spaces between them."""

    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        if len(self.cards) != DEAL_SIZE:
            raise DealError(
                Reason("a deal has {DEAL_SIZE} cards, not {cards}", DEAL_SIZE=DEAL_SIZE, cards=len(self.cards))
            )
        repeated = [card for card, count in Counter(self.cards).items() if count > 1]
        if repeated:
            raise DealError(
                Reason("a deal has 25 different cards; repeated: {cards}", cards=" ".join(map(str, repeated)))
            )

    @classmethod
    def of(cls, cards: Iterable[Card | str]) -> Deal:
        """A deal from cards or their spellings.

        :raises CardError: for a spelling that is not a card.
        :raises DealError: unless there are 25 distinct cards.
        """
        return cls(tuple(card if isinstance(card, Card) else Card.parse(card) for card in cards))

    @classmethod
    def parse(cls, text: str) -> Deal:
        """Read a deal as :func:`parse_cards` reads cards.

        :raises CardError: for a piece of text that is not a card.
        :raises DealError: unless there are 25 distinct cards.
        """
        return cls(tuple(parse_cards(text)))

    def __str__(self) -> str:
        return " ".join(map(str, self.cards))

    def __repr__(self) -> str:
        return f"Deal.parse({str(self)!r})"

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, index: int) -> Card:
        return self.cards[index]

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)
