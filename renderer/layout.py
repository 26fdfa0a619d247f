"""Board geometry: every pixel measure of the picture, in one place.

The picture, top to bottom: the top player's name band, the board (a frame
strip with point numbers, the top points, a middle gap for dice, the bottom
points, a second number strip), the bottom player's name band and a status
line. Left to right inside the board: the cube strip, the outer board
(points 7-12 bottom, 13-18 top), the bar, the home board (1-6 bottom,
19-24 top) and the bear-off tray.

Point numbers here are always the *viewer's* numbering, i.e. the numbering
of the player drawn at the bottom, whose home board is bottom right.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

# -- measures (final-image pixels) --------------------------------------------

POINT_WIDTH = 60
"""Width of one point (triangle base)."""
CHECKER_RADIUS = 28
"""Checker radius; two radii plus a little air make a point's width."""
CHECKER_STEP = 2 * CHECKER_RADIUS
"""Distance between the centres of stacked checkers (they touch)."""
STACK_LIMIT = 5
"""Most checkers drawn on one point; a taller stack shows its count on the top one."""
BAR_LIMIT = 4
"""Most checkers drawn on one half of the bar."""
POINT_HEIGHT = STACK_LIMIT * CHECKER_STEP
"""Height reserved for one point's stack."""
TRIANGLE_HEIGHT = POINT_HEIGHT - 16
"""Drawn triangle height, a bit shorter than the stack so tips stay apart."""
MIDDLE_GAP = 72
"""Space between the top and bottom point tips; the dice sit here."""
BAR_WIDTH = 68
CUBE_STRIP_WIDTH = 68
"""The frame strip left of the board where the doubling cube waits."""
TRAY_GAP = 8
"""Frame between the home board and the bear-off tray."""
TRAY_WIDTH = 64
FRAME = 12
"""Frame thickness on the right edge."""
NUMBER_STRIP = 30
"""Frame strips above and below the points, holding the point numbers."""
BAND_HEIGHT = 60
"""Each player's name band (top player above the board, bottom player below)."""
STATUS_HEIGHT = 46
"""The status line under everything: whose turn, match length."""
DIE_SIZE = 48
CUBE_SIZE = 52
SLAB_HEIGHT = 14
"""A borne-off checker seen edge-on in the tray."""
SLAB_GAP = 3
SUPERSAMPLE = 4
"""Shapes are drawn this many times larger and scaled down, for smooth edges."""

# -- derived positions ---------------------------------------------------------

LEFT_BOARD_X = CUBE_STRIP_WIDTH
"""Left edge of the outer board."""
BAR_X = LEFT_BOARD_X + 6 * POINT_WIDTH
RIGHT_BOARD_X = BAR_X + BAR_WIDTH
"""Left edge of the home board."""
TRAY_X = RIGHT_BOARD_X + 6 * POINT_WIDTH + TRAY_GAP
WIDTH = TRAY_X + TRAY_WIDTH + FRAME
"""Image width."""

BOARD_Y = BAND_HEIGHT
"""Top of the board frame."""
FELT_TOP = BOARD_Y + NUMBER_STRIP
FELT_BOTTOM = FELT_TOP + 2 * POINT_HEIGHT + MIDDLE_GAP
MIDDLE_Y = (FELT_TOP + FELT_BOTTOM) // 2
"""Vertical centre of the playing surface."""
BOARD_BOTTOM = FELT_BOTTOM + NUMBER_STRIP
BOTTOM_BAND_Y = BOARD_BOTTOM
STATUS_Y = BOTTOM_BAND_Y + BAND_HEIGHT
HEIGHT = STATUS_Y + STATUS_HEIGHT
"""Image height."""

SIZE = (WIDTH, HEIGHT)


class PointBox(NamedTuple):
    """Where a point is drawn: its column and whether it hangs from the top."""

    left: int
    right: int
    base_y: int
    """The y of the triangle's base (the board edge)."""
    top: bool
    """True for points 13-24, whose triangles hang down from the top edge."""

    @property
    def center_x(self) -> int:
        return (self.left + self.right) // 2


def point_box(point: int) -> PointBox:
    """The column of ``point`` (1..24, viewer's numbering).

    1-6 run right to left along the bottom of the home board, 7-12 continue
    along the bottom of the outer board, 13-18 come back along the top-left and
    19-24 finish top right, so 24 sits above 1.
    """
    if not 1 <= point <= 24:
        raise ValueError(f"a point is 1..24, not {point}")
    if point <= 6:
        left, top = RIGHT_BOARD_X + (6 - point) * POINT_WIDTH, False
    elif point <= 12:
        left, top = LEFT_BOARD_X + (12 - point) * POINT_WIDTH, False
    elif point <= 18:
        left, top = LEFT_BOARD_X + (point - 13) * POINT_WIDTH, True
    else:
        left, top = RIGHT_BOARD_X + (point - 19) * POINT_WIDTH, True
    return PointBox(left, left + POINT_WIDTH, FELT_TOP if top else FELT_BOTTOM, top)


@functools.cache  # a few hundred spots, asked for on every board
def checker_center(point: int, index: int) -> tuple[int, int]:
    """Centre of the ``index``-th checker (0 = at the board edge) on ``point``."""
    box = point_box(point)
    offset = CHECKER_RADIUS + index * CHECKER_STEP
    y = box.base_y + offset if box.top else box.base_y - offset
    return box.center_x, y


def number_center(point: int) -> tuple[int, int]:
    """Centre of the printed number of ``point``, on the frame strip beside its base."""
    box = point_box(point)
    y = BOARD_Y + NUMBER_STRIP // 2 if box.top else FELT_BOTTOM + NUMBER_STRIP // 2
    return box.center_x, y


def bar_center(bottom_player: bool, index: int) -> tuple[int, int]:
    """Centre of the ``index``-th checker on the bar.

    The bottom player's checkers wait in the upper half of the bar, next to the
    top-right board where they must enter; the top player's in the lower half.
    Both stack outward from the middle.
    """
    x = BAR_X + BAR_WIDTH // 2
    offset = MIDDLE_GAP // 2 + CHECKER_RADIUS + index * CHECKER_STEP
    return x, (MIDDLE_Y - offset if bottom_player else MIDDLE_Y + offset)


def tray_slab(bottom_player: bool, index: int) -> tuple[int, int, int, int]:
    """Rectangle (x0, y0, x1, y1) of the ``index``-th borne-off checker in the tray.

    The bottom player's tray is the lower half, filled from the bottom edge up.
    """
    x0, x1 = TRAY_X + 6, TRAY_X + TRAY_WIDTH - 6
    offset = 4 + index * (SLAB_HEIGHT + SLAB_GAP)
    if bottom_player:
        y1 = FELT_BOTTOM - offset
        return x0, y1 - SLAB_HEIGHT, x1, y1
    y0 = FELT_TOP + offset
    return x0, y0, x1, y0 + SLAB_HEIGHT


def tray_count_center(bottom_player: bool) -> tuple[int, int]:
    """Where the number of borne-off checkers is written (the tray's middle part)."""
    x = TRAY_X + TRAY_WIDTH // 2
    return x, (MIDDLE_Y + MIDDLE_GAP // 4 if bottom_player else MIDDLE_Y - MIDDLE_GAP // 4)


def cube_center(owner_at_bottom: bool | None) -> tuple[int, int]:
    """Centre of the doubling cube in its strip: middle when nobody owns it,
    else at the owner's edge."""
    x = CUBE_STRIP_WIDTH // 2
    if owner_at_bottom is None:
        return x, MIDDLE_Y
    if owner_at_bottom:
        return x, FELT_BOTTOM - CUBE_SIZE // 2 - 8
    return x, FELT_TOP + CUBE_SIZE // 2 + 8


def half_board_center(right: bool) -> tuple[int, int]:
    """Middle of the gap in the right (home) or left (outer) half: where dice land."""
    x0 = RIGHT_BOARD_X if right else LEFT_BOARD_X
    return x0 + 3 * POINT_WIDTH, MIDDLE_Y


def dice_centers(right: bool, count: int) -> list[tuple[int, int]]:
    """Centres of ``count`` dice lying side by side in one half's middle gap."""
    cx, cy = half_board_center(right)
    spacing = DIE_SIZE + 14
    first = cx - (count - 1) * spacing // 2
    return [(first + k * spacing, cy) for k in range(count)]


def band_y(bottom_player: bool) -> int:
    """Top of the name band of the bottom or top player."""
    return BOTTOM_BAND_Y if bottom_player else 0
