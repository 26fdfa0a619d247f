"""Shot counts (engine.analysis.shot_count) against docs/rules.md section 12."""

from __future__ import annotations

import pytest

analysis = pytest.importorskip("engine.analysis")

from engine.position import Position  # noqa: E402

P = Position.from_counts

# docs/rules.md 12: ways out of 36 to hit a lone blot at distance n, nothing in between
TABLE = {
    1: 11,
    2: 12,
    3: 14,
    4: 15,
    5: 15,
    6: 17,
    7: 6,
    8: 6,
    9: 5,
    10: 3,
    11: 2,
    12: 3,
    15: 1,
    16: 1,
    18: 1,
    20: 1,
    24: 1,
}


def lone_shooter(distance: int) -> tuple[Position, int]:
    """One of our checkers ``distance`` pips from the opponent's only checker, all
    else borne off. The blot sits on our 7 (outside our home, so no bear-off
    interferes); for distances over 18 the shooter is on the bar."""
    blot = 7 if distance <= 18 else 25 - distance
    return P({blot + distance: 1}, {25 - blot: 1}), blot


@pytest.mark.parametrize("distance, shots", sorted(TABLE.items()))
def test_shot_table(distance, shots):
    position, blot = lone_shooter(distance)
    assert analysis.shot_count(position, blot) == shots


@pytest.mark.parametrize("distance", [13, 14, 17, 19, 21, 22, 23])
def test_distances_no_roll_reaches(distance):
    position, blot = lone_shooter(distance)
    assert analysis.shot_count(position, blot) == 0


def test_blocks_in_between_reduce_the_shots():
    # distance 7 from 14 to 7: block 13 and 8 (6-1 both ways) -> 5-2 and 4-3 remain
    position = P({14: 1}, {18: 1, 12: 2, 17: 2})  # their 18 = our 7, 12 = our 13, 17 = our 8
    assert analysis.shot_count(position, 7) == 4


def test_no_blot_there_raises():
    with pytest.raises(ValueError):
        analysis.shot_count(Position.start(), 7)
    with pytest.raises(ValueError):
        analysis.shot_count(Position.start(), 1)  # two opposing checkers: not a blot
