"""FIBS-style match ratings (pure functions, no I/O).

The formula is the one the FIBS server prints for ``help formula``::

    n       = match length (points); a money game counts as a 1-point match
    D       = |r1 - r2|
    P_upset = 1 / (10 ** (D * sqrt(n) / 2000) + 1)   # chance the underdog wins
    P       = 1 - P_upset  if the underdog won
            = P_upset      if the favourite won       (0.5 when ratings are equal)
    K       = max(1, 5 - experience / 100)           # per player, own experience
    winner += 4 * K_winner * sqrt(n) * P
    loser  -= 4 * K_loser  * sqrt(n) * P

Choice of K: we use the experience *before* the match, as the FIBS server help
text does (the primary source).  The MacFIBS glossary counts the current
match's length too (``5 - (E + n) / 100``); we do not.  Experience is the sum
of the lengths of all matches the player has finished.

Because the two players can have different K, the system is not zero-sum for
newcomers: a new player's rating moves up to five times faster than a
veteran's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "DEFAULT_RATING",
    "Rating",
    "effective_length",
    "k_factor",
    "rate_match",
    "upset_probability",
    "win_probability",
]

DEFAULT_RATING: float = 1500.0


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating and experience (sum of finished match lengths)."""

    rating: float = DEFAULT_RATING
    experience: int = 0


def effective_length(match_length: int) -> int:
    """Return the length used by the formula: money games (0) count as 1 point."""
    if match_length < 0:
        raise ValueError(f"match length must be >= 0, got {match_length}")
    return max(1, match_length)


def k_factor(experience: int) -> float:
    """Return the FIBS experience factor ``max(1, 5 - experience / 100)``."""
    return max(1.0, 5.0 - experience / 100.0)


def upset_probability(rating_diff: float, match_length: int) -> float:
    """Probability that the lower-rated player wins a match of ``match_length``.

    ``rating_diff`` is the absolute difference between the two ratings.
    """
    n = effective_length(match_length)
    return 1.0 / (10.0 ** (abs(rating_diff) * math.sqrt(n) / 2000.0) + 1.0)


def win_probability(player: float, opponent: float, match_length: int) -> float:
    """Probability that a player rated ``player`` beats one rated ``opponent``."""
    p_upset = upset_probability(player - opponent, match_length)
    return p_upset if player < opponent else 1.0 - p_upset


def rate_match(winner: Rating, loser: Rating, match_length: int) -> tuple[Rating, Rating]:
    """Return the new ``(winner, loser)`` ratings after a finished match.

    ``match_length`` is the match length in points; 0 (a money game) counts as
    a 1-point match, both for the rating change and for experience.
    """
    n = effective_length(match_length)
    p_upset = upset_probability(winner.rating - loser.rating, n)
    # The winner was the underdog iff their rating is lower.  With equal
    # ratings P_upset is exactly 0.5, so either branch gives 0.5.
    p = 1.0 - p_upset if winner.rating < loser.rating else p_upset
    factor = 4.0 * math.sqrt(n) * p
    new_winner = Rating(
        rating=winner.rating + k_factor(winner.experience) * factor,
        experience=winner.experience + n,
    )
    new_loser = Rating(
        rating=loser.rating - k_factor(loser.experience) * factor,
        experience=loser.experience + n,
    )
    return new_winner, new_loser
