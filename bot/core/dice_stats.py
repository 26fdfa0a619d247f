"""Are a player's dice fair? Tests of their logged rolls against fair dice."""

from __future__ import annotations

from engine.fairdice import chi_square_survival

ROLL_KINDS = [(high, low) for high in range(1, 7) for low in range(1, high + 1)]
"""The 21 kinds of roll: 15 non-doubles (2 ways in 36 each) and 6 doubles (1 way)."""


def roll_kinds_p_value(counts: dict[tuple[int, int], int]) -> tuple[float, float]:
    """Chi-square of the 21 roll kinds against fair dice (a double is 1/36, a non-double 2/36)."""
    total = sum(counts.get(kind, 0) for kind in ROLL_KINDS)
    if total == 0:
        return 0.0, 1.0
    statistic = 0.0
    for high, low in ROLL_KINDS:
        expected = total * (1 if high == low else 2) / 36
        statistic += (counts.get((high, low), 0) - expected) ** 2 / expected
    return statistic, chi_square_survival(statistic, len(ROLL_KINDS) - 1)


def face_counts(counts: dict[tuple[int, int], int]) -> list[int]:
    """How often each face 1-6 came up, counting both dice of every roll (a double's face twice)."""
    faces = [0] * 6
    for (high, low), n in counts.items():
        faces[high - 1] += n
        faces[low - 1] += n
    return faces
