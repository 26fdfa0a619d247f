"""The old masters' openings beside the neural net's: what each play gives up.

:mod:`engine.openings` holds the texts' plays; here each is valued with the
neural net (:meth:`bot.core.advice.Advice.openings`), against the best play
of the same throw from the opening position. A throw's values never change,
so each is worked out once per process.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine import Position, Roll, format_play
from engine.openings import OpeningAdvice, advice_for, opening_play


@dataclass(frozen=True, slots=True)
class ValuedPlay:
    """A play of an opening throw with its equity and what it gives up against the best."""

    text: str
    equity: float | None
    """Cubeless money equity for the mover (None: the neural net is not installed here)."""
    loss: float | None

    @property
    def is_best(self) -> bool:
        return self.loss is not None and self.loss < 0.0005


@dataclass(frozen=True, slots=True)
class OpeningVerdict:
    """One opening throw: the texts' plays and the neural net's best."""

    roll: tuple[int, int]
    old: tuple[tuple[OpeningAdvice, ValuedPlay], ...]
    best: ValuedPlay | None
    """The neural net's best play (None without the neural net)."""
    ply: int | None = None

    @property
    def roll_text(self) -> str:
        return f"{self.roll[0]}-{self.roll[1]}"

    @property
    def worst_loss(self) -> float:
        """The most any of the texts' plays of this throw gives up (0 without the neural net)."""
        return max((valued.loss or 0.0 for _, valued in self.old), default=0.0)


def verdict(
    roll: tuple[int, int], ranked: Sequence[tuple[str, float]] | None, ply: int | None = None
) -> OpeningVerdict:
    """The verdict of ``roll`` from every legal play's ``(notation, equity)``, best
    first (None: no values, the texts' plays alone)."""
    entries = advice_for(roll)
    if not ranked:
        return OpeningVerdict(roll, tuple((e, ValuedPlay(e.play, None, None)) for e in entries), None, ply)
    equities = dict(ranked)
    top_text, top = ranked[0]
    best = ValuedPlay(top_text, top, 0.0)
    old = []
    for entry in entries:
        equity = equities[format_play(opening_play(entry))]
        old.append((entry, ValuedPlay(entry.play, equity, max(top - equity, 0.0))))
    return OpeningVerdict(roll, tuple(old), best, ply)


def start_and_roll(roll: tuple[int, int]) -> tuple[Position, Roll]:
    return Position.start(), Roll(*roll)
