"""Moves and plays, and how they are written (docs/rules.md sections 3-6 and 11).

A *move* takes one checker the distance of one die; a *play* is the whole
turn, every move of one roll. This module holds both values and their
canonical spelling, as GNU Backgammon writes a play: moves sorted by source
point, highest first; the moves of one checker joined into a chain whose
intermediate points are left out unless a blot was hit there (``13/7``,
``13/10*/7``); a hit marked ``*``; repeated moves counted (``8/5(2)``);
``bar`` and ``off`` spelled out. Reading a play needs the legal plays, so it
lives in :mod:`engine.notation`; finding them is :mod:`engine.moves`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engine.position import BAR, OFF, Position


class Move(NamedTuple):
    """One checker moved by one die, in the mover's numbering (25 = bar, 0 = off)."""

    source: int
    destination: int
    hit: bool = False
    """True when this move lands on an opposing blot and sends it to the bar."""


@dataclass(frozen=True, slots=True)
class Play:
    """A whole turn: the moves in the order made, and where they lead.

    ``position`` is the result still seen from the mover's side; the opponent
    sees ``position.swap()``. An empty play is the lost turn of a roll that
    cannot be played.
    """

    moves: tuple[Move, ...]
    position: Position

    def __deepcopy__(self, memo: dict[int, object]) -> Play:
        return self  # immutable: copies of a game share it

    @property
    def dice_used(self) -> int:
        return len(self.moves)

    @property
    def hits(self) -> int:
        return sum(1 for move in self.moves if move.hit)

    def __str__(self) -> str:
        return format_play(self)


# -- spelling -----------------------------------------------------------------


def format_point(point: int) -> str:
    """``bar`` for 25, ``off`` for 0, else the number."""
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    return str(point)


def format_play(play: Play) -> str:
    """The canonical GNU Backgammon spelling of a play (empty for a lost turn)."""
    return format_moves(play.moves)


def format_moves(moves: tuple[Move, ...] | list[Move]) -> str:
    """Canonical spelling of a sequence of single-die moves."""
    hops = sorted(moves, key=lambda m: (m.source, m.destination), reverse=True)
    hit_points = {m.destination for m in moves if m.hit}
    # Join the moves of one checker into chains: a chain keeps a point where
    # it hit on the way and drops the others.
    chains: list[list[int]] = []
    used = [False] * len(hops)
    for i, hop in enumerate(hops):
        if used[i]:
            continue
        used[i] = True
        chain = [hop.source, hop.destination]
        extended = True
        while extended:
            extended = False
            end = chain[-1]
            if end == OFF:
                break
            for j in range(i + 1, len(hops)):
                if not used[j] and hops[j].source == end:
                    used[j] = True
                    if end not in hit_points:
                        chain.pop()
                    chain.append(hops[j].destination)
                    extended = True
                    break
        chains.append(chain)
    # Count repeated chains, keeping the order of first appearance.
    counts: Counter[tuple[int, ...]] = Counter(tuple(c) for c in chains)
    marked: set[int] = set()
    parts = []
    seen: set[tuple[int, ...]] = set()
    for chain in chains:
        key = tuple(chain)
        if key in seen:
            continue
        seen.add(key)
        text = format_point(chain[0])
        for point in chain[1:]:
            text += "/" + format_point(point)
            if point in hit_points and point not in marked:
                text += "*"
                marked.add(point)
        if counts[key] > 1:
            text += f"({counts[key]})"
        parts.append(text)
    return " ".join(parts)


# -- building a play one checker step at a time -----------------------------------

Step = tuple[int, int]
"""One checker moved by one die, as (source, destination) in the mover's numbering."""


def next_steps(plays: Sequence[Play], chosen: Sequence[Step]) -> tuple[list[Move], Play | None]:
    """Building a play step by step: what may come next, and what is already built.

    A step is offered when some legal play in ``plays`` still contains it, as
    many times as it is used, after the steps already ``chosen`` (taken in any
    order: a play is its moves, not their order). The steps come back as
    moves, ``hit`` set when the step hits in some play that continues with it,
    highest source first. The play is the legal play the chosen steps make in
    full, or None. Every legal play can be built this way, and nothing else can.
    """
    done = Counter(chosen)
    offered: dict[Step, bool] = {}
    complete: Play | None = None
    for play in plays:
        have = Counter((m.source, m.destination) for m in play.moves)
        if any(have[step] < count for step, count in done.items()):
            continue
        left = have - done
        if not left:
            complete = complete or play
            continue
        hits = {(m.source, m.destination) for m in play.moves if m.hit}
        for step in left:
            offered[step] = offered.get(step, False) or step in hits
    ordered = sorted(offered.items(), key=lambda item: (-item[0][0], -item[0][1]))
    return [Move(source, destination, hit) for (source, destination), hit in ordered], complete
