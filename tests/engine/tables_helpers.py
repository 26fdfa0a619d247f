"""Positions of plakoto, fevga and nardy written as the tests read them."""

from engine.tables import CHECKERS, TablesPosition


def board(
    game: str, ours: dict[int, int], theirs: dict[int, int], pins: dict[int, int] | None = None
) -> TablesPosition:
    """``ours`` and ``theirs`` as {point: checkers on top} in the mover's numbering;
    ``pins`` as {point: 1 (ours pinned) or -1 (theirs pinned)}; the rest are off."""
    points = [0] * 24
    for point, n in ours.items():
        points[point - 1] = n
    for point, n in theirs.items():
        assert not points[point - 1]
        points[point - 1] = -n
    pin_list = [0] * 24
    for point, value in (pins or {}).items():
        pin_list[point - 1] = value
    mine = sum(ours.values()) + sum(1 for v in pin_list if v == 1)
    other = sum(theirs.values()) + sum(1 for v in pin_list if v == -1)
    return TablesPosition(game, tuple(points), tuple(pin_list), (CHECKERS - mine, CHECKERS - other))
