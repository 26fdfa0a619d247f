"""Draw a backgammon board: :func:`render_board` turns a scene into PNG bytes.

The board without checkers (frame, felt, points, bar, trays, point numbers)
is drawn once per theme, large, scaled down for smooth edges and cached;
only what changes is drawn on it. Checkers, dice and marks are small
pre-drawn sprites, also cached, and so are rendered text (word by word, see
:mod:`renderer.text`), shapes, and "ready patches": each checker, turn band,
point-number frame and tray slab already drawn onto the board at each spot it
can take. Cached images are only ever copied or pasted from, never drawn on
(each thread draws on boards of its own), so rendering is safe in worker
threads, and nothing depends on time or randomness, so the same scene gives
the same bytes.

For the PNG, the static board and the ready patches are also kept as palette
indices; only the other boxes drawn on are mapped to the palette, and
everything is pasted into the indexed board. The mapping is per pixel
(nearest colour, no dithering), so this is exactly the whole picture mapped,
in a fraction of the time. Each thread keeps its own RGB and indexed board
from one PNG to the next and wipes what it drew afterwards, rather than
copying both boards whole for every PNG. ``tests/renderer/test_exact_pixels.py``
holds all of it to the pixels of plain drawing and mapping.

Everything is drawn from the side of the *bottom player*: the player on roll
for viewpoint 0, the opponent for viewpoint 1. Their home board is bottom
right and the point numbers are theirs.

The words on a board (the status line, "pips", "Score", the match) are in the
scene's :attr:`~renderer.scene.BoardScene.language`: the board is drawn inside
:func:`i18n.speaking`, so a drawing worker needs nothing else to know it. Text
caches are keyed by the text, so a label in one language never stands in for
another's. In a right-to-left language the players' bands and the status line
are mirrored (name on the right, pips and score on the left, every text a
right-to-left paragraph); the board itself, its points and their numbers are
the same in every language.
"""

from __future__ import annotations

import functools
import struct
import threading
import types
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.play import Move, format_moves
from engine.position import BAR, OFF, Position
from i18n import _, current, ngettext, pgettext, speaking
from renderer import layout as L
from renderer import text as T
from renderer.scene import DEFAULT_NAMES, ON_ROLL, OPPONENT, BoardScene
from renderer.themes import RGB, Theme

_deflate: types.ModuleType
try:  # ISA-L (python-isal): Intel's deflate, the fastest on these boards
    from isal import isal_zlib as _isal
except ImportError:  # pragma: no cover - a platform without its wheel
    _isal = None  # type: ignore[assignment]
try:  # zlib-ng: the same deflate streams as zlib, about twice as fast on these boards
    from zlib_ng import zlib_ng as _deflate
except ImportError:  # pragma: no cover - a platform without its wheel
    _deflate = zlib

ISAL_LEVEL = 1
"""ISA-L's level for the PNG, when it is installed. On boards from played games
(``bench/render.py``'s varied boards) it deflates a board in 0.32 ms to 39 KB,
where zlib-ng takes 0.51 ms for 49 KB at level 1 and 0.68 ms for 37 KB at 2:
under load the drawing workers' CPU is what the boards wait for. (ISA-L's 2 gave
the same, its 3 took four times as long.)"""
PNG_COMPRESS_LEVEL = 1
"""zlib level for the PNG without ISA-L. On boards from played games level 1
(zlib-ng's quick deflate) draws a whole board in 1.03-1.05 ms against 1.25-1.26
ms at 2, for files of 50 KB against 37 KB (58 KB at most); Discord takes files
of megabytes. (2 was three times as fast as 6, for a third more bytes.)"""
PNG_MEM_LEVEL = 8
"""zlib memory level (the default). With zlib-ng it mostly sets how many symbols
a deflate block gathers: on boards from played games 8 deflates 10-13% faster
than 5, for files 1.6% bigger (fewer, larger blocks)."""
PALETTE_COLOURS = 64
"""Colours kept in the PNG palette. Flat fills plus antialiased edges need few;
64 keeps edges smooth and the file small."""
MERGE_SLACK = 8000
"""Pixels a drawn box may grow by to absorb the next one: mapping that many
pixels to the palette costs about as much as one more crop-map-paste step."""

# Font sizes (pixels), chosen to stay readable with the image shrunk to 400 px wide.
NAME_SIZE = 26
INFO_SIZE = 21
NUMBER_SIZE = 18
COUNT_SIZE = 26
TRAY_COUNT_SIZE = 20
NAME_MAX_WIDTH = 330
"""Longest name in a band; longer names end in an ellipsis."""
STATUS_NAME_MAX_WIDTH = 260


# -- small helpers ---------------------------------------------------------------


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    """Colour ``t`` of the way from ``a`` to ``b``."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def _downscale(big: Image.Image) -> Image.Image:
    """Reduce a supersampled RGBA sprite, averaging colour weighted by alpha
    (premultiplied) so edges don't darken."""
    return big.convert("RGBa").reduce(L.SUPERSAMPLE).convert("RGBA")


# -- sprites (cached, read-only) ------------------------------------------------------


@functools.lru_cache(maxsize=32)
def checker_sprite(theme: Theme, colour: int, radius: int = L.CHECKER_RADIUS) -> Image.Image:
    """A checker of seat ``colour`` seen from above: a disc, its rim and an inner ring."""
    s = L.SUPERSAMPLE
    size = 2 * radius * s
    big = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    fill, edge = theme.checker[colour], theme.checker_edge[colour]
    width = max(1, round(theme.checker_edge_width * radius / L.CHECKER_RADIUS)) * s
    draw.ellipse((s, s, size - 1 - s, size - 1 - s), fill=fill, outline=edge, width=width)
    inset = round(radius * 0.28) * s
    draw.ellipse(
        (inset, inset, size - 1 - inset, size - 1 - inset),
        outline=_mix(fill, edge, 0.3),
        width=max(s, round(1.5 * s)),
    )
    return _downscale(big)


@functools.lru_cache(maxsize=16)
def ghost_sprite(theme: Theme, colour: int) -> Image.Image:
    """Where a checker stood before the last play: a faint disc with a dashed highlight rim."""
    s = L.SUPERSAMPLE
    r = L.CHECKER_RADIUS
    size = 2 * r * s
    big = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.ellipse((s, s, size - 1 - s, size - 1 - s), fill=(*theme.checker[colour], 70))
    box = (2 * s, 2 * s, size - 1 - 2 * s, size - 1 - 2 * s)
    for start in range(0, 360, 30):  # dashes: a shape cue besides the colour
        draw.arc(box, start, start + 18, fill=(*theme.highlight, 255), width=4 * s)
    return _downscale(big)


@functools.lru_cache(maxsize=8)
def ring_sprite(theme: Theme) -> Image.Image:
    """The mark on a checker that arrived in the last play: a bold ring around it."""
    s = L.SUPERSAMPLE
    r = L.CHECKER_RADIUS + 3
    size = 2 * r * s
    big = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    dark = (0, 0, 0, 255)
    draw.ellipse((0, 0, size - 1, size - 1), outline=dark, width=6 * s)
    draw.ellipse((s, s, size - 1 - s, size - 1 - s), outline=(*theme.highlight, 255), width=4 * s)
    return _downscale(big)


@functools.lru_cache(maxsize=8)
def hit_sprite(theme: Theme) -> Image.Image:
    """The mark of a hit: a round badge with a cross, on the hitting checker and the victim."""
    s = L.SUPERSAMPLE
    r = 12
    size = 2 * r * s
    big = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.ellipse((0, 0, size - 1, size - 1), fill=(*theme.hit, 255), outline=(0, 0, 0, 255), width=2 * s)
    a, b = round(size * 0.3), round(size * 0.7)
    draw.line((a, a, b, b), fill=(255, 255, 255, 255), width=3 * s)
    draw.line((a, b, b, a), fill=(255, 255, 255, 255), width=3 * s)
    return _downscale(big)


_PIP_SPOTS = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
    6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)],
}


@functools.lru_cache(maxsize=32)
def die_sprite(theme: Theme, colour: int, value: int) -> Image.Image:
    """A die showing ``value``, in the colours of the seat that threw it."""
    s = L.SUPERSAMPLE
    size = L.DIE_SIZE * s
    big = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    body, pip = theme.die[colour], theme.pip[colour]
    draw.rounded_rectangle(
        (s, s, size - 1 - s, size - 1 - s),
        radius=9 * s,
        fill=body,
        outline=theme.checker_edge[colour],
        width=2 * s,
    )
    pr = round(size * 0.09)
    for fx, fy in _PIP_SPOTS[value]:
        cx, cy = round(fx * size), round(fy * size)
        draw.ellipse((cx - pr, cy - pr, cx + pr, cy + pr), fill=pip)
    return _downscale(big)


@functools.lru_cache(maxsize=8)
def cube_sprite(theme: Theme) -> Image.Image:
    """The doubling cube's face without its number."""
    s = L.SUPERSAMPLE
    size = L.CUBE_SIZE * s
    big = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.rounded_rectangle(
        (s, s, size - 1 - s, size - 1 - s), radius=8 * s, fill=theme.cube, outline=(0, 0, 0), width=3 * s
    )
    return _downscale(big)


@functools.lru_cache(maxsize=64)
def _rounded_rectangle(width: int, height: int, radius: int, fill: RGB, outline: RGB | None, line: int) -> Image.Image:
    """A rounded rectangle as an RGBA sprite. ``ImageDraw`` draws it without
    antialiasing, so it is opaque or clear, and pasting it gives the very pixels
    drawing it would."""
    shape = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    ImageDraw.Draw(shape).rounded_rectangle(
        (0, 0, width - 1, height - 1), radius=radius, fill=fill, outline=outline, width=line
    )
    return shape


# -- the static board -------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def static_board(theme: Theme) -> Image.Image:
    """The empty board of ``theme``: frame, felt, points, bar, trays and point numbers.

    Only ever copied. The same picture serves both viewpoints: point numbers are
    always those of the bottom player (1 bottom right), and viewpoint 1 simply
    puts the other player at the bottom.
    """
    s = L.SUPERSAMPLE
    big = Image.new("RGB", (L.WIDTH * s, L.HEIGHT * s), theme.background)
    draw = ImageDraw.Draw(big)

    def rect(box: tuple[int, int, int, int], fill: RGB, outline: RGB | None = None, width: int = 0) -> None:
        x0, y0, x1, y1 = box
        draw.rectangle((x0 * s, y0 * s, x1 * s - 1, y1 * s - 1), fill=fill, outline=outline, width=width * s)

    rect((0, L.BOARD_Y, L.WIDTH, L.BOARD_BOTTOM), theme.frame, theme.frame_edge, 2)
    for x0 in (L.LEFT_BOARD_X, L.RIGHT_BOARD_X):
        rect((x0, L.FELT_TOP, x0 + 6 * L.POINT_WIDTH, L.FELT_BOTTOM), theme.felt, theme.frame_edge, 2)
    # The two trays: bear-off on the right, the cube's recess on the left.
    for x0, x1 in ((L.TRAY_X, L.TRAY_X + L.TRAY_WIDTH), (8, L.CUBE_STRIP_WIDTH - 8)):
        rect((x0, L.FELT_TOP, x1, L.FELT_BOTTOM), theme.tray, theme.frame_edge, 2)
    rect((L.TRAY_X, L.MIDDLE_Y - 1, L.TRAY_X + L.TRAY_WIDTH, L.MIDDLE_Y + 1), theme.frame_edge)
    # The bar: a slightly darker strip with a seam down the middle.
    rect((L.BAR_X, L.FELT_TOP, L.RIGHT_BOARD_X, L.FELT_BOTTOM), _mix(theme.frame, theme.frame_edge, 0.25))
    mid = L.BAR_X + L.BAR_WIDTH // 2
    rect((mid - 1, L.FELT_TOP, mid + 1, L.FELT_BOTTOM), theme.frame_edge)

    for point in range(1, 25):
        box = L.point_box(point)
        tip = box.base_y + L.TRIANGLE_HEIGHT if box.top else box.base_y - L.TRIANGLE_HEIGHT
        base = box.base_y + (2 if box.top else -2)  # leave the felt's edge line visible
        polygon = [
            ((box.left + 2) * s, base * s),
            ((box.right - 2) * s, base * s),
            (box.center_x * s, tip * s),
        ]
        edge = theme.point_edge
        draw.polygon(polygon, fill=theme.points[point % 2], outline=edge, width=2 * s if edge else 0)

    board = big.reduce(s)
    draw = ImageDraw.Draw(board)
    number_font = T.font(NUMBER_SIZE)
    for point in range(1, 25):
        draw.text(L.number_center(point), str(point), font=number_font, fill=theme.number_text, anchor="mm")
    return board


# -- what the scene means on the board -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Marks:
    """The last play turned into marks, in the bottom player's numbering.

    Keys are places: ``("point", p)``, ``("bar", side)``, ``("off", side)``
    where side 0 is the bottom player.
    """

    mover: int
    """0 = the bottom player made the last play, 1 = the top player."""
    arrived: Counter[tuple[str, int]]
    left: Counter[tuple[str, int]]
    hits: Counter[tuple[str, int]]
    """Points where the mover hit, and the victim's bar (how many each)."""


def _marks(scene: BoardScene, bottom: int) -> _Marks | None:
    if not scene.last_play:
        return None
    mover = 0 if scene.last_play_by == bottom else 1

    def place(point: int) -> tuple[str, int]:
        if point == BAR:
            return ("bar", mover)
        if point == OFF:
            return ("off", mover)
        return ("point", point if mover == 0 else 25 - point)

    # Net movement per place, so a checker touching down on its way (13/8/5)
    # marks only where it left and where it finally stands.
    net: Counter[tuple[str, int]] = Counter()
    hits: Counter[tuple[str, int]] = Counter()
    for move in scene.last_play:
        net[place(move.source)] -= 1
        net[place(move.destination)] += 1
        if move.hit:
            hits[place(move.destination)] += 1
            hits[("bar", 1 - mover)] += 1
    arrived = Counter({k: n for k, n in net.items() if n > 0})
    left = Counter({k: -n for k, n in net.items() if n < 0})
    return _Marks(mover, arrived, left, hits)


def last_play_text(scene: BoardScene) -> str | None:
    """What the mover's band says of the last play: the engine's canonical
    notation, as the message beside the picture writes it (``13/4``, not ``13/7 7/4``)."""
    if not scene.last_play:
        return None
    play = format_moves(scene.last_play)
    if T.rtl_language():
        play = f"\u2066{play}\u2069"  # notation reads left to right, as a block, inside a right-to-left line
    return _("played {play}").format(play=play)


# -- the canvas: a copy of the static board, and what was drawn where -----------------------


Box = tuple[int, int, int, int]
"""(x0, y0, x1, y1), x1 and y1 exclusive."""


def _area(box: Box) -> int:
    return (box[2] - box[0]) * (box[3] - box[1])


class _Patch:
    """A ready patch: something already drawn on the bare static board at a fixed
    box, as RGB and mapped to the theme's palette. Laid where nothing was drawn
    yet, it gives the pixels of drawing the thing there, at a fraction of the
    cost, and its pixels need no mapping. Cached, so read-only."""

    __slots__ = ("_indexed", "rgb", "theme")

    def __init__(self, theme: Theme, box: Box, sprite: Image.Image) -> None:
        """The RGBA ``sprite`` blended onto the bare board at ``box``."""
        self.theme = theme
        self.rgb = static_board(theme).crop(box)
        self.rgb.paste(sprite, (0, 0), sprite)
        self._indexed: Image.Image | None = None

    def indexed(self) -> Image.Image:
        """The patch mapped to the palette, made on first use: the palette itself
        is learnt from boards drawn with patches. (Two threads may both make it:
        the same image either way.)"""
        if self._indexed is None:
            self._indexed = self.rgb.quantize(palette=_palette_here(self.theme), dither=Image.Dither.NONE)
        return self._indexed


@functools.lru_cache(maxsize=1024)  # 2 colours x 128 spots (points and bar) x up to 4 themes
def _checker_patch(theme: Theme, colour: int, center: tuple[int, int]) -> _Patch:
    """A checker of seat ``colour`` on the bare board at ``center``."""
    sprite = checker_sprite(theme, colour)
    x, y = center[0] - sprite.width // 2, center[1] - sprite.height // 2
    return _Patch(theme, (x, y, x + sprite.width, y + sprite.height), sprite)


@functools.lru_cache(maxsize=512)  # per theme: 2 turn bands, 24 number frames, 30 slabs x 2 colours x 2 rims
def _rounded_rectangle_patch(theme: Theme, box: Box, radius: int, fill: RGB, outline: RGB | None, line: int) -> _Patch:
    """A rounded rectangle (``box`` inclusive, as in ``ImageDraw``) on the bare board."""
    x0, y0, x1, y1 = box
    shape = _rounded_rectangle(x1 - x0 + 1, y1 - y0 + 1, radius, fill, outline, line)
    return _Patch(theme, (x0, y0, x1 + 1, y1 + 1), shape)


class _Canvas:
    """The static board being drawn on, and what was drawn where.

    :func:`render_board` maps only the boxes in :attr:`dirty` to the palette;
    everything else is the static board or a ready patch in :attr:`patches`
    (checkers, the turn band, tray slabs), both mapped once and cached. The
    patches go onto the RGB image only when something is drawn over them (a
    ring, a hit badge, a name), so the PNG path mostly never touches the RGB
    image with them; :meth:`paint_patches` puts the rest on for a caller that
    wants the whole RGB picture.
    """

    __slots__ = ("dirty", "draw", "image", "painted", "patches", "rtl", "theme", "unpainted", "unpainted_reach")

    def __init__(self, theme: Theme, image: Image.Image | None = None) -> None:
        """Draw on ``image``, which must show the bare static board; None: on a fresh copy of it."""
        self.theme = theme
        self.rtl = T.rtl_language()
        """The language in force when it is written right to left: texts are drawn as its paragraphs."""
        self.image = static_board(theme).copy() if image is None else image
        self.draw = ImageDraw.Draw(self.image)
        self.dirty: list[Box] = []
        """Covers every drawn pixel but the patches; boxes may overlap and reach past the edges."""
        self.patches: list[tuple[_Patch, Box]] = []
        """Ready patches laid, and where."""
        self.unpainted: list[tuple[Image.Image, Box]] = []
        """RGB ready patches laid but not yet on the RGB image, and where. None lies
        in a box of :attr:`dirty`."""
        self.unpainted_reach: Box | None = None
        """A box around all of :attr:`unpainted` (maybe more), to pass over most drawing quickly."""
        self.painted: list[Box] = []
        """Boxes of patches put on the RGB image."""

    def _touch(self, box: Box) -> None:
        """Record ``box`` as drawn on, before drawing: patches lying under the
        box it ends up in go onto the RGB image first, since that box will be
        mapped from the RGB image."""
        # Drawing goes place by place, so growing the last box is enough to keep
        # the list short (a stack of checkers becomes one box).
        if self.dirty:
            last = self.dirty[-1]
            union = _union(last, box)
            if _area(union) <= _area(last) + _area(box) + MERGE_SLACK:
                self.dirty[-1] = box = union
            else:
                self.dirty.append(box)
        else:
            self.dirty.append(box)
        reach = self.unpainted_reach
        if reach is not None and box[0] < reach[2] and reach[0] < box[2] and box[1] < reach[3] and reach[1] < box[3]:
            self._paint_patches_under(box)

    def _paint_patches_under(self, box: Box) -> None:
        x0, y0, x1, y1 = box
        if not any(x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1 for _, b in self.unpainted):
            return  # the usual case: patches around the box, none under it
        kept: list[tuple[Image.Image, Box]] = []
        for patch, b in self.unpainted:
            if x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1:
                self.image.im.paste(patch.im, b)
                self.painted.append(b)
            else:
                kept.append((patch, b))
        self.unpainted = kept
        if not kept:  # else the reach stays as it was: still around them all
            self.unpainted_reach = None

    def paint_patches(self) -> None:
        """Put every patch still missing from the RGB image on it."""
        for patch, box in self.unpainted:
            self.image.im.paste(patch.im, box)
            self.painted.append(box)
        self.unpainted = []
        self.unpainted_reach = None

    def _lay(self, patch: _Patch, box: Box) -> bool:
        """Lay ``patch`` at ``box`` if nothing was drawn there yet; False, laying
        nothing, if something was. Patches laid never overlap one another (checkers
        by the layout, the shapes lie off the points), which is not checked here:
        ``tests/renderer/test_exact_pixels.py`` checks it on many boards."""
        x0, y0, x1, y1 = box
        for b in self.dirty:
            if x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1:
                return False
        for b in self.painted:
            if x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1:
                return False
        self.patches.append((patch, box))
        self.unpainted.append((patch.rgb, box))
        reach = self.unpainted_reach
        self.unpainted_reach = box if reach is None else _union(reach, box)
        return True

    def paste(self, sprite: Image.Image, x: int, y: int) -> None:
        """Blend an RGBA ``sprite`` with its top left at (x, y): ``Image.paste`` with
        the sprite as its own mask, minus the Python overhead."""
        core = sprite.im
        box = (x, y, x + core.size[0], y + core.size[1])
        self._touch(box)
        self.image.im.paste(core, box, core)

    def sprite(self, sprite: Image.Image, center: tuple[int, int]) -> None:
        """Blend an RGBA ``sprite`` centred on ``center``."""
        self.paste(sprite, center[0] - sprite.width // 2, center[1] - sprite.height // 2)

    def checker(self, colour: int, center: tuple[int, int]) -> None:
        """A checker on the board at ``center``: its ready patch where nothing but
        other checkers (which never overlap) was drawn yet, which skips the blend
        and, in :func:`render_board`, the palette mapping; else blended like any
        sprite (a hit badge may reach over from the point before)."""
        r = L.CHECKER_RADIUS
        x, y = center
        if not self._lay(_checker_patch(self.theme, colour, center), (x - r, y - r, x + r, y + r)):
            self.sprite(checker_sprite(self.theme, colour), center)

    def text(self, xy: tuple[int, int], text: str, size: int, fill: RGB, anchor: str) -> None:
        """Exactly ``ImageDraw.text(xy, text, font=T.font(size), fill=fill, anchor=anchor,
        **T.layout(self.rtl))``, from cached masks (of its words, mostly)."""
        x, y = xy
        laid = T.masks(text, size, anchor, self.rtl)
        box: Box | None = None
        for mask, (dx, dy) in laid:
            width, height = mask.size
            part = (x + dx, y + dy, x + dx + width, y + dy + height)
            box = part if box is None else _union(box, part)
        if box is None:
            return
        self._touch(box)
        draw = self.draw.draw
        ink = draw.draw_ink(fill)
        for mask, (dx, dy) in laid:
            draw.draw_bitmap((x + dx, y + dy), mask, ink)

    def rounded_rectangle(self, box: Box, radius: int, fill: RGB, outline: RGB | None = None, width: int = 1) -> None:
        """Exactly ``ImageDraw.rounded_rectangle`` (``box`` inclusive, as there): a
        ready patch where nothing was drawn yet, else blended from a cached shape."""
        x0, y0, x1, y1 = box
        inside = 0 <= x0 and 0 <= y0 and x1 < L.WIDTH and y1 < L.HEIGHT
        patch = _rounded_rectangle_patch(self.theme, box, radius, fill, outline, width) if inside else None
        if patch is None or not self._lay(patch, (x0, y0, x1 + 1, y1 + 1)):
            self.paste(_rounded_rectangle(x1 - x0 + 1, y1 - y0 + 1, radius, fill, outline, width), x0, y0)


def _union(a: Box, b: Box) -> Box:
    """The smallest box around ``a`` and ``b`` (without min and max: this runs often)."""
    return (
        a[0] if a[0] < b[0] else b[0],
        a[1] if a[1] < b[1] else b[1],
        a[2] if a[2] > b[2] else b[2],
        a[3] if a[3] > b[3] else b[3],
    )


# -- drawing -----------------------------------------------------------------------------------


def _draw_count(canvas: _Canvas, center: tuple[int, int], count: int, colour: RGB) -> None:
    canvas.text(center, str(count), COUNT_SIZE, colour, "mm")


def _draw_points(
    canvas: _Canvas, scene: BoardScene, board: Position, colours: tuple[int, int], marks: _Marks | None
) -> None:
    theme = scene.theme
    ring, badge = ring_sprite(theme), hit_sprite(theme)
    # Points the last play touched: the others need no look at the marks.
    marked = {p for kind, p in (*marks.arrived, *marks.left, *marks.hits) if kind == "point"} if marks else set()
    for point in range(1, 25):
        n = board.board[point - 1]
        side = 0 if n > 0 else 1
        count = abs(n)
        shown = min(count, L.STACK_LIMIT)
        colour = colours[side]
        for index in range(shown):
            canvas.checker(colour, L.checker_center(point, index))
        if count > L.STACK_LIMIT:
            _draw_count(canvas, L.checker_center(point, shown - 1), count, theme.checker_text[colour])
        if marks is None or point not in marked:
            continue
        key = ("point", point)
        if marks.left[key]:
            ghost = ghost_sprite(theme, colours[marks.mover])
            start = shown if (count == 0 or side == marks.mover) else L.STACK_LIMIT
            for index in range(start, min(start + marks.left[key], L.STACK_LIMIT)):
                canvas.sprite(ghost, L.checker_center(point, index))
        if marks.arrived[key] and side == marks.mover:
            for index in range(max(0, shown - marks.arrived[key]), shown):
                canvas.sprite(ring, L.checker_center(point, index))
        if marks.hits[key] and count:
            x, y = L.checker_center(point, shown - 1)
            # On the stack's outer side, so it does not cover the count.
            canvas.sprite(badge, (x + L.CHECKER_RADIUS - 6, y + (6 if point > 12 else -6)))


def _draw_bar(
    canvas: _Canvas, scene: BoardScene, board: Position, colours: tuple[int, int], marks: _Marks | None
) -> None:
    theme = scene.theme
    for side in (0, 1):
        count = board.bar[side]
        shown = min(count, L.BAR_LIMIT)
        colour = colours[side]
        bottom = side == 0
        for index in range(shown):
            canvas.checker(colour, L.bar_center(bottom, index))
        if count > L.BAR_LIMIT:
            _draw_count(canvas, L.bar_center(bottom, shown - 1), count, theme.checker_text[colour])
        if marks is None:
            continue
        key = ("bar", side)
        if marks.hits[key] and shown:
            for index in range(max(0, shown - marks.hits[key]), shown):
                x, y = L.bar_center(bottom, index)
                canvas.sprite(hit_sprite(theme), (x + L.CHECKER_RADIUS - 6, y))
        if marks.left[key] and side == marks.mover:
            ghost = ghost_sprite(theme, colour)
            for index in range(shown, min(shown + marks.left[key], L.BAR_LIMIT)):
                canvas.sprite(ghost, L.bar_center(bottom, index))


def _draw_trays(
    canvas: _Canvas, scene: BoardScene, board: Position, colours: tuple[int, int], marks: _Marks | None
) -> None:
    theme = scene.theme
    for side in (0, 1):
        count = board.off[side]
        colour = colours[side]
        bottom = side == 0
        fresh = marks.arrived[("off", side)] if marks and marks.mover == side else 0
        for index in range(count):
            new = index >= count - fresh
            canvas.rounded_rectangle(
                L.tray_slab(bottom, index),
                radius=4,
                fill=theme.checker[colour],
                outline=theme.highlight if new else theme.checker_edge[colour],
                width=3 if new else 1,
            )
        if count:
            canvas.text(L.tray_count_center(bottom), str(count), TRAY_COUNT_SIZE, theme.text, "mm")


def _draw_cube(canvas: _Canvas, scene: BoardScene, bottom: int) -> None:
    theme = scene.theme
    if scene.cube_offered:
        # The doubler puts the turned cube in the middle of their own half.
        center = L.half_board_center(right=bottom == ON_ROLL)
        label = str(scene.cube_value * 2)
    elif scene.cube_owner is None:
        center = L.cube_center(None)
        label = "64" if scene.cube_value == 1 else str(scene.cube_value)
    else:
        center = L.cube_center(scene.cube_owner == bottom)
        label = str(scene.cube_value)
    canvas.sprite(cube_sprite(theme), center)
    size = 28 if len(label) <= 2 else 22 if len(label) == 3 else 17
    canvas.text(center, label, size, theme.cube_text, "mm")


def _draw_dice(canvas: _Canvas, scene: BoardScene, bottom: int, colours_by_side: tuple[int, int]) -> None:
    if scene.dice is None or scene.cube_offered:
        return
    theme = scene.theme
    if scene.opening:
        # One die each, on the thrower's own right-hand side: the bottom player's
        # right is the home board (right half), the top player's is the left half.
        for side, value in ((ON_ROLL, scene.dice[0]), (OPPONENT, scene.dice[1])):
            (center,) = L.dice_centers(right=side == bottom, count=1)
            canvas.sprite(die_sprite(theme, colours_by_side[side], value), center)
        return
    centers = L.dice_centers(right=bottom == ON_ROLL, count=2)
    for center, value in zip(centers, scene.dice):
        canvas.sprite(die_sprite(theme, colours_by_side[ON_ROLL], value), center)


def _name(scene: BoardScene, side: int) -> str:
    return T.clean(scene.names[side], _(DEFAULT_NAMES[side]))


def _status_text(scene: BoardScene) -> str:
    if scene.to_act_label is not None:
        return T.clean(scene.to_act_label)
    me = T.fit(_name(scene, ON_ROLL), INFO_SIZE, STATUS_NAME_MAX_WIDTH)
    them = T.fit(_name(scene, OPPONENT), INFO_SIZE, STATUS_NAME_MAX_WIDTH)
    if scene.cube_offered:
        return _("{player} doubles to {value}: {opponent} to take or pass").format(
            player=me, value=scene.cube_value * 2, opponent=them
        )
    if scene.dice is not None:
        dice = "{}-{}".format(*scene.dice)
        if scene.opening:
            return _("Opening roll {dice}: {player} to play").format(dice=dice, player=me)
        return _("{player} to play {dice}").format(player=me, dice=dice)
    may_double = not scene.crawford and scene.cube_owner in (None, ON_ROLL)
    return (_("{player} to roll or double") if may_double else _("{player} to roll")).format(player=me)


def _match_text(scene: BoardScene) -> str:
    if scene.match_length:
        text = _("Match to {length}").format(length=scene.match_length)
        return text + " · " + pgettext("match", "Crawford") if scene.crawford else text
    if scene.stake:
        return _("Money game · {stake} per point").format(stake=scene.stake)
    return _("Money game")


def _at(x: int, anchor: str, rtl: str | None) -> tuple[int, str]:
    """``x`` and ``anchor`` of a header text, mirrored for a right-to-left language."""
    if rtl is None:
        return x, anchor
    return L.WIDTH - x, {"l": "r", "r": "l"}.get(anchor[0], anchor[0]) + anchor[1]


def _draw_band(
    canvas: _Canvas, scene: BoardScene, side: int, bottom_player: bool, colour: int, pips: int, last: str | None
) -> None:
    """One player's band: checker colour, name, last play, score and pip count."""
    theme = scene.theme
    rtl = canvas.rtl
    y0 = L.band_y(bottom_player)
    cy = y0 + L.BAND_HEIGHT // 2
    if side == scene.to_act:
        canvas.rounded_rectangle((4, y0 + 5, L.WIDTH - 5, y0 + L.BAND_HEIGHT - 6), radius=10, fill=theme.turn_band)
    # A light rim under the colour chip keeps the dark checker visible on a dark band.
    chip = _at(30, "mm", rtl)[0]
    canvas.sprite(checker_sprite(theme, 0, 18), (chip, cy))
    canvas.sprite(checker_sprite(theme, colour, 16), (chip, cy))
    name_x, name_anchor = _at(56, "lm", rtl)
    name = T.for_drawing(T.fit(_name(scene, side), NAME_SIZE, NAME_MAX_WIDTH, name_anchor, rtl))
    canvas.text((name_x, cy), name, NAME_SIZE, theme.text, name_anchor)
    right_parts = []
    if scene.match_length:
        right_parts.append(_("Score {score}").format(score=scene.score[side]))
    right_parts.append(ngettext("{count} pip", "{count} pips", pips).format(count=pips))
    right = "  ·  ".join(right_parts)
    right_x = L.WIDTH - 16
    info_x, info_anchor = _at(right_x, "rm", rtl)
    canvas.text((info_x, cy), right, INFO_SIZE, theme.text, info_anchor)
    if last:
        x = 56 + round(T.length(name, NAME_SIZE)) + 18
        room = right_x - round(T.length(right, INFO_SIZE)) - 18 - x
        if room > 60:
            last_x, last_anchor = _at(x, "lm", rtl)
            fitted = T.fit(last, INFO_SIZE, room, last_anchor, rtl)
            canvas.text((last_x, cy), fitted, INFO_SIZE, theme.highlight, last_anchor)


def _draw_status(canvas: _Canvas, scene: BoardScene) -> None:
    theme = scene.theme
    rtl = canvas.rtl
    cy = L.STATUS_Y + L.STATUS_HEIGHT // 2
    match = _match_text(scene)
    match_width = round(T.length(match, INFO_SIZE))
    match_x, match_anchor = _at(L.WIDTH - 16, "rm", rtl)
    canvas.text((match_x, cy), match, INFO_SIZE, theme.muted_text, match_anchor)
    status_x, status_anchor = _at(16, "lm", rtl)
    arrow = "◀ " if rtl else "▶ "  # pointing at the text, on its reading side
    status = T.fit(arrow + _status_text(scene), INFO_SIZE, L.WIDTH - 16 - match_width - 32 - 16, status_anchor, rtl)
    canvas.text((status_x, cy), T.for_drawing(status), INFO_SIZE, theme.text, status_anchor)


def _draw(scene: BoardScene, image: Image.Image | None = None) -> _Canvas:
    """The board of ``scene`` drawn on ``image`` (the bare static board), or on a copy of it,
    with its words in the scene's language."""
    if scene.language == current():  # the usual case: drawn where the scene was made
        return _draw_spoken(scene, image)
    with speaking(scene.language):
        return _draw_spoken(scene, image)


def _draw_spoken(scene: BoardScene, image: Image.Image | None) -> _Canvas:
    theme = scene.theme
    bottom = scene.viewpoint  # the side drawn at the bottom (0 = on roll)
    board = scene.position if bottom == ON_ROLL else scene.position.swap()
    # Checker colour of each scene side, then of each drawn side (0 = bottom).
    by_side = (scene.on_roll_colour, 1 - scene.on_roll_colour)
    by_drawn = (by_side[bottom], by_side[1 - bottom])
    marks = _marks(scene, bottom)

    canvas = _Canvas(theme, image)

    if marks is not None:
        # Frame the numbers of the points the last play touched.
        touched = {p for kind, p in (*marks.arrived, *marks.left, *marks.hits) if kind == "point"}
        for point in sorted(touched):
            x, y = L.number_center(point)
            canvas.rounded_rectangle((x - 20, y - 13, x + 20, y + 13), radius=7, fill=theme.highlight)
            canvas.text((x, y), str(point), NUMBER_SIZE, theme.highlight_text, "mm")

    _draw_points(canvas, scene, board, by_drawn, marks)
    _draw_bar(canvas, scene, board, by_drawn, marks)
    _draw_trays(canvas, scene, board, by_drawn, marks)
    _draw_cube(canvas, scene, bottom)
    _draw_dice(canvas, scene, bottom, by_side)

    pips = scene.position.pip_counts()
    last = last_play_text(scene)
    for side in (ON_ROLL, OPPONENT):
        _draw_band(
            canvas,
            scene,
            side,
            bottom_player=side == bottom,
            colour=by_side[side],
            pips=pips[side],
            last=last if side == scene.last_play_by else None,
        )
    _draw_status(canvas, scene)
    return canvas


def render_image(scene: BoardScene) -> Image.Image:
    """The board of ``scene`` as an RGB Pillow image of :data:`renderer.layout.SIZE`."""
    canvas = _draw(scene)
    canvas.paint_patches()
    return canvas.image


@functools.lru_cache(maxsize=8)
def theme_palette(theme: Theme) -> Image.Image:
    """A fixed palette for ``theme``, learnt once from boards that show every
    element: both checker colours, stacks and counts, the bar, borne-off
    checkers, dice, an offered cube, and a highlighted last play with a hit."""
    samples = [
        # In English whatever language is in force: the palette is the same for every board.
        BoardScene(Position.start(), names=("Ann", "Bob"), dice=(6, 5), theme=theme, language="en"),
        BoardScene(
            Position.from_position_id("jGfkATDgc/ABMA"),
            names=("Ann", "Bob"),
            dice=(3, 3),
            cube_value=2,
            cube_owner=1,
            last_play=(Move(13, 9, True), Move(24, 23, False)),
            theme=theme,
            language="en",
        ),
        BoardScene(
            Position((0, -1, 3, 2, 4, 1) + (0,) * 17 + (-2,), (1, 2), (4, 10)),
            names=("Ann", "Bob"),
            cube_offered=True,
            cube_value=4,
            match_length=7,
            score=(3, 5),
            crawford=True,
            last_play=(Move(6, 2, False), Move(25, 22, False)),
            last_play_by=0,
            theme=theme,
            language="en",
        ),
    ]
    images = [render_image(scene) for scene in samples]
    width, height = images[0].size
    strip = Image.new("RGB", (width, height * len(images)))
    for index, image in enumerate(images):
        strip.paste(image, (0, height * index))
    # The theme's own colours exactly, then the blends its edges need.
    exact = list(dict.fromkeys(_theme_colours(theme)))
    learnt = strip.quantize(PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    flat = learnt.getpalette() or []
    blends = [tuple(flat[i : i + 3]) for i in range(0, 3 * PALETTE_COLOURS, 3)]
    colours = exact + [c for c in blends if c not in exact]
    colours = colours[:256]
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for colour in colours for v in colour])
    return palette


_this_thread = threading.local()
_copying = threading.Lock()


def _palette_here(theme: Theme) -> Image.Image:
    """This thread's copy of the theme's palette. Mapping colours to it fills a
    lookup cache inside the palette, which Pillow does not guard against other
    threads (two threads mapping through one palette can fail with "empty palette")."""
    palettes: dict[Theme, Image.Image] = _this_thread.__dict__.setdefault("palettes", {})
    palette = palettes.get(theme)
    if palette is None:
        shared = theme_palette(theme)
        with _copying:  # Image.copy loads the image first, which may write to it
            palette = palettes[theme] = shared.copy()
    return palette


def _theme_colours(theme: Theme) -> list[RGB]:
    """Every RGB colour named in a theme."""
    found: list[RGB] = []
    for name in theme.__dataclass_fields__:
        value = getattr(theme, name)
        candidates = value if isinstance(value, tuple) and value and isinstance(value[0], tuple) else (value,)
        for colour in candidates:
            if isinstance(colour, tuple) and len(colour) == 3 and all(isinstance(v, int) for v in colour):
                found.append(colour)
    return found


# -- the PNG -------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _indexed_board(theme: Theme) -> Image.Image:
    """The static board of ``theme`` mapped to its palette, behind one extra column
    of zeros on the left: each row's PNG filter byte (0, no filter), so the
    image's bytes are the PNG's scanlines as they stand. Only ever copied."""
    mapped = static_board(theme).quantize(palette=_palette_here(theme), dither=Image.Dither.NONE)
    indexed = Image.new("P", (L.WIDTH + 1, L.HEIGHT), 0)
    indexed.paste(mapped, (1, 0))
    return indexed


@functools.lru_cache(maxsize=8)
def _bare_scanlines(theme: Theme) -> bytes:
    """The PNG scanlines of the bare board of ``theme``: the bytes of :func:`_indexed_board`."""
    return _indexed_board(theme).tobytes()


def _row_spans(boxes: Iterable[Box]) -> list[tuple[int, int]]:
    """The rows ``boxes`` cover, as sorted, disjoint (y0, y1) spans."""
    spans: list[tuple[int, int]] = []
    for _x0, y0, _x1, y1 in sorted(boxes, key=lambda box: box[1]):
        if spans and y0 <= spans[-1][1]:
            if y1 > spans[-1][1]:
                spans[-1] = (spans[-1][0], y1)
        else:
            spans.append((y0, y1))
    return spans


@functools.lru_cache(maxsize=8)
def _plte(theme: Theme) -> bytes:
    """The PNG palette chunk's data for ``theme``."""
    return bytes(theme_palette(theme).getpalette() or [])


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def _png(scanlines: bytes | bytearray, plte: bytes) -> bytes:
    """A minimal 8-bit palette PNG of :data:`renderer.layout.SIZE` around ready
    scanlines: what Pillow writes for a P image, without its per-call overhead."""
    header = struct.pack(">IIBBBBB", L.WIDTH, L.HEIGHT, 8, 3, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", plte),
            _chunk(b"IDAT", _zlib_stream(scanlines)),
            _chunk(b"IEND", b""),
        )
    )


def _zlib_stream(data: bytes | bytearray) -> bytes:
    """``data`` deflated as a zlib stream (a PNG's image data), by ISA-L where installed."""
    if _isal is not None:
        return _isal.compress(data, ISAL_LEVEL)
    deflate = _deflate.compressobj(PNG_COMPRESS_LEVEL, zlib.DEFLATED, zlib.MAX_WBITS, PNG_MEM_LEVEL)
    return deflate.compress(data) + deflate.flush()


class _Surfaces:
    """One thread's two pictures of one theme's board, kept from board to board:
    the RGB picture drawn on and the palette-indexed one written out. Copying
    both whole for every board cost more than anything but the deflate (the
    RGB one is 3 MB, more than the CPU's cache); instead, after each board,
    only what was drawn on is put back from the bare boards.

    The indexed picture lives in :attr:`scanlines`, a buffer Pillow draws into
    directly (``Image.frombuffer``), so the PNG is deflated straight from it
    with no ``tobytes`` copy. Pillow marks such an image read-only, which only
    its Python-level methods heed; we write through ``Image.im`` alone.
    """

    __slots__ = ("indexed", "picture", "scanlines")

    def __init__(self, theme: Theme) -> None:
        self.picture = static_board(theme).copy()
        self.scanlines = bytearray(_bare_scanlines(theme))
        self.indexed = Image.frombuffer("P", (L.WIDTH + 1, L.HEIGHT), self.scanlines, "raw", "P", 0, 1)

    def wipe_rows(self, theme: Theme, rows: list[tuple[int, int]]) -> None:
        """Put the bare board back on rows ``y0 <= y < y1`` of each of ``rows`` of the indexed picture."""
        bare = memoryview(_bare_scanlines(theme))
        stride = L.WIDTH + 1
        for y0, y1 in rows:
            self.scanlines[y0 * stride : y1 * stride] = bare[y0 * stride : y1 * stride]


def _surfaces_here(theme: Theme) -> _Surfaces:
    """This thread's surfaces for ``theme``, showing the bare board."""
    found: dict[Theme, _Surfaces] = _this_thread.__dict__.setdefault("surfaces", {})
    surfaces = found.get(theme)
    if surfaces is None:
        surfaces = found[theme] = _Surfaces(theme)
    return surfaces


def _drop_surfaces_here(theme: Theme) -> None:
    """Forget this thread's surfaces for ``theme``: after a failed board they may
    hold drawing that nobody recorded, and the next board starts from fresh copies."""
    _this_thread.__dict__.get("surfaces", {}).pop(theme, None)


def _drawn_boxes(canvas: _Canvas) -> list[Box]:
    """The boxes drawn on, each clipped to the picture (empty ones left out)."""
    boxes = []
    for x0, y0, x1, y1 in canvas.dirty:
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, L.WIDTH), min(y1, L.HEIGHT)
        if x0 < x1 and y0 < y1:
            boxes.append((x0, y0, x1, y1))
    return boxes


def render_board(scene: BoardScene) -> bytes:
    """The PNG image of ``scene``: the pure entry point the bot calls (also from threads)."""
    theme = scene.theme
    surfaces = _surfaces_here(theme)
    drawn, out = surfaces.picture.im, surfaces.indexed.im
    written: list[Box] = []  # boxes of the indexed picture written on
    try:
        canvas = _draw(scene, surfaces.picture)
        palette = _palette_here(theme).im
        # Map only what was drawn; the Image.im calls skip Pillow's per-call checks.
        # x + 1 everywhere: the indexed board's column 0 holds the filter bytes.
        for patch, (x0, y0, x1, y1) in canvas.patches:
            shifted = (x0 + 1, y0, x1 + 1, y1)
            written.append(shifted)
            out.paste(patch.indexed().im, shifted)
        boxes = _drawn_boxes(canvas)
        for box in boxes:
            x0, y0, x1, y1 = box
            shifted = (x0 + 1, y0, x1 + 1, y1)
            written.append(shifted)
            out.paste(drawn.crop(box).convert("P", Image.Dither.NONE, palette), shifted)
        png = _png(surfaces.scanlines, _plte(theme))
    except BaseException:
        _drop_surfaces_here(theme)
        raise
    # Wipe both pictures for the next board.
    bare = static_board(theme).im
    for box in (*boxes, *canvas.painted):
        drawn.paste(bare.crop(box), box)
    surfaces.wipe_rows(theme, _row_spans(written))
    return png
