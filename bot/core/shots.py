"""The odds of being hit, as the old texts counted them (``/bg shots``).

For each player's blots: how many of the 36 throws would let the other side
hit each one if that side were to throw now, and how many hit at least one.
Pure counting by the engine's rules (:func:`engine.blot_exposure`), so it is
no hint: a player could count it on their fingers, as the seeds' readers did.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.core.model import GameState
from engine import Position, blot_exposure, total_exposure


@dataclass(frozen=True, slots=True)
class BlotOdds:
    """One player's blots (points in their own numbering) and the throws that hit them."""

    seat: int
    blots: tuple[tuple[int, int], ...]
    """(point, throws out of 36 that hit it), nearest the player's home first."""
    any_hit: int
    """Throws out of 36 that hit at least one of them."""


def blot_odds(position: Position, seat: int) -> BlotOdds:
    """The blots of the player on roll in ``position`` (who sits at ``seat``)."""
    exposure = blot_exposure(position)
    return BlotOdds(seat, tuple(sorted(exposure.items())), total_exposure(position))


def both_sides(state: GameState) -> tuple[BlotOdds, BlotOdds]:
    """Each player's blots in the game as it stands."""
    game = state.game
    mover = game.player_on_roll
    positions = {mover: game.position, 1 - mover: game.position.swap()}
    return blot_odds(positions[0], 0), blot_odds(positions[1], 1)


async def shots(state: GameState) -> tuple[BlotOdds, BlotOdds]:
    """:func:`both_sides`, counted off the event loop (each count tries every throw)."""
    return await asyncio.to_thread(both_sides, state)
