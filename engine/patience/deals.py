"""Where deals come from: Hoyle's example, and deals drawn from a committed seed.

A deal from a seed is provably fair the way the dice are
(:mod:`engine.fairdice`): publish ``commitment(seed)`` (SHA-256, hex) before
the deal is played, reveal the seed afterwards, and anyone can recompute the
deal. The rule of :func:`deal_from_seed`:

1. Start from the 52 cards in bridge order (clubs ace to king, then
   diamonds, hearts, spades: :data:`engine.patience.cards.FULL_DECK`).
2. Card ``k`` of the deal (k = 0 .. 24) is drawn from the ``52 - k`` cards
   still in the deck, kept in that order. With
   ``HMAC-SHA256(key=seed, msg=f"{nonce}:{k}")``, the first byte below the
   largest multiple of ``52 - k`` that fits in a byte picks the card
   ``byte % (52 - k)`` of those left (bytes from that multiple up are
   rejected, so every card is equally likely). If all 32 bytes are
   rejected, the message ``f"{nonce}:{k}:{j}"`` for j = 1, 2, ... is used
   the same way.

The seed is bytes, or text taken as its UTF-8 bytes. The nonce names what
the seed is for, say ``"patience:2025-01-31"``, so one seed can serve
several deals.
"""

from __future__ import annotations

import hashlib
import hmac

from engine.patience.cards import DEAL_SIZE, FULL_DECK, Card, Deal

HOYLE_DEAL = Deal.parse("D6 S5 CQ DQ HQ H10 C10 H6 C3 HJ HA H5 H8 HK SQ H4 C2 D2 H7 SJ S3 H3 D3 S6 H2")
"""The deal of Hoyle's worked example ("Hoyle's Games Modernized", Serpent
Poker Patience): a few trials find 78, the best layout makes 81 (English)."""

HOYLE_BEST = 81
"""Hoyle's answer for :data:`HOYLE_DEAL` under the English table, which the solver confirms."""


def draw_index(seed: bytes, nonce: str, k: int, left: int) -> int:
    """Which of the ``left`` cards still in the deck card ``k`` of the deal is (0 .. left - 1)."""
    limit = 256 - 256 % left
    attempt = 0
    while True:
        message = f"{nonce}:{k}" if attempt == 0 else f"{nonce}:{k}:{attempt}"
        for byte in hmac.new(seed, message.encode("utf-8"), hashlib.sha256).digest():
            if byte < limit:
                return byte % left
        attempt += 1


def deal_from_seed(seed: bytes | str, nonce: str = "patience") -> Deal:
    """The deal a seed and nonce make (the rule is in the module docstring): the
    same every time, and any 25 distinct cards in any order equally likely.

    :raises ValueError: for an empty seed.
    """
    key = seed.encode("utf-8") if isinstance(seed, str) else bytes(seed)
    if not key:
        raise ValueError("a seed needs at least one byte")
    deck: list[Card] = list(FULL_DECK)
    cards = [deck.pop(draw_index(key, nonce, k, len(deck))) for k in range(DEAL_SIZE)]
    return Deal(tuple(cards))
