"""Draw a backgammon board: :func:`render_board` turns a scene into PNG bytes.

The board without checkers (frame, felt, points, bar, trays, point numbers)
is drawn once per theme, large, scaled down for smooth edges and cached;
every call copies it and draws only what changes. Checkers, dice and marks
are small pre-drawn sprites, also cached. Cached images are only ever copied
or pasted from, never drawn on, so rendering is safe in worker threads, and
nothing depends on time or randomness, so the same scene gives the same bytes.

Everything is drawn from the side of the *bottom player*: the player on roll
for viewpoint 0, the opponent for viewpoint 1. Their home board is bottom
right and the point numbers are theirs.
"""

from __future__ import annotations

import functools
import io
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.moves import Move
from engine.position import BAR, OFF, Position
from renderer import layout as L
from renderer import text as T
from renderer.scene import ON_ROLL, OPPONENT, BoardScene
from renderer.themes import RGB, Theme

PNG_COMPRESS_LEVEL = 3
"""zlib level for the PNG: on a 64-colour palette image 3 is about twice as fast
as 6 for a file a quarter bigger (still far below Discord's limits)."""
PALETTE_COLOURS = 64
"""Colours kept in the PNG palette. Flat fills plus antialiased edges need few;
64 keeps edges smooth and the file small."""

# Font sizes (pixels), chosen to stay readable with the image shrunk to 400 px wide.
NAME_SIZE = 26
INFO_SIZE = 21
NUMBER_SIZE = 18
COUNT_SIZE = 26
TRAY_COUNT_SIZE = 20
NAME_MAX_WIDTH = 330
"""Longest name in a band; longer names end in an ellipsis."""
STATUS_NAME_MAX_WIDTH = 260
DEFAULT_NAMES = ("Player", "Opponent")


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


def _paste(canvas: Image.Image, sprite: Image.Image, center: tuple[int, int]) -> None:
    x = center[0] - sprite.width // 2
    y = center[1] - sprite.height // 2
    canvas.paste(sprite, (x, y), sprite)


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


def format_moves(moves: Iterable[Move]) -> str:
    """A play in the usual notation, in the mover's numbering: ``bar/22 13/7* 6/off(2)``."""
    grouped: list[tuple[str, int]] = []  # (word, times): 8/5 8/5 -> 8/5(2), in the order played
    for move in moves:
        source = "bar" if move.source == BAR else str(move.source)
        destination = "off" if move.destination == OFF else str(move.destination)
        word = f"{source}/{destination}{'*' if move.hit else ''}"
        if grouped and grouped[-1][0] == word:
            grouped[-1] = (word, grouped[-1][1] + 1)
        else:
            grouped.append((word, 1))
    return " ".join(w if n == 1 else f"{w}({n})" for w, n in grouped)


# -- drawing -----------------------------------------------------------------------------------


def _draw_count(draw: ImageDraw.ImageDraw, center: tuple[int, int], count: int, colour: RGB) -> None:
    draw.text(center, str(count), font=T.font(COUNT_SIZE), fill=colour, anchor="mm")


def _draw_points(
    canvas: Image.Image, draw: ImageDraw.ImageDraw, scene: BoardScene, board: Position,
    colours: tuple[int, int], marks: _Marks | None,
) -> None:
    theme = scene.theme
    ring, badge = ring_sprite(theme), hit_sprite(theme)
    for point in range(1, 25):
        n = board.board[point - 1]
        side = 0 if n > 0 else 1
        count = abs(n)
        shown = min(count, L.STACK_LIMIT)
        colour = colours[side]
        sprite = checker_sprite(theme, colour)
        for index in range(shown):
            _paste(canvas, sprite, L.checker_center(point, index))
        if count > L.STACK_LIMIT:
            _draw_count(draw, L.checker_center(point, shown - 1), count, theme.checker_text[colour])
        if marks is None:
            continue
        key = ("point", point)
        if marks.left[key]:
            ghost = ghost_sprite(theme, colours[marks.mover])
            start = shown if (count == 0 or side == marks.mover) else L.STACK_LIMIT
            for index in range(start, min(start + marks.left[key], L.STACK_LIMIT)):
                _paste(canvas, ghost, L.checker_center(point, index))
        if marks.arrived[key] and side == marks.mover:
            for index in range(max(0, shown - marks.arrived[key]), shown):
                _paste(canvas, ring, L.checker_center(point, index))
        if marks.hits[key] and count:
            x, y = L.checker_center(point, shown - 1)
            # On the stack's outer side, so it does not cover the count.
            _paste(canvas, badge, (x + L.CHECKER_RADIUS - 6, y + (6 if point > 12 else -6)))


def _draw_bar(
    canvas: Image.Image, draw: ImageDraw.ImageDraw, scene: BoardScene, board: Position,
    colours: tuple[int, int], marks: _Marks | None,
) -> None:
    theme = scene.theme
    for side in (0, 1):
        count = board.bar[side]
        shown = min(count, L.BAR_LIMIT)
        colour = colours[side]
        bottom = side == 0
        for index in range(shown):
            _paste(canvas, checker_sprite(theme, colour), L.bar_center(bottom, index))
        if count > L.BAR_LIMIT:
            _draw_count(draw, L.bar_center(bottom, shown - 1), count, theme.checker_text[colour])
        if marks is None:
            continue
        key = ("bar", side)
        if marks.hits[key] and shown:
            for index in range(max(0, shown - marks.hits[key]), shown):
                x, y = L.bar_center(bottom, index)
                _paste(canvas, hit_sprite(theme), (x + L.CHECKER_RADIUS - 6, y))
        if marks.left[key] and side == marks.mover:
            ghost = ghost_sprite(theme, colour)
            for index in range(shown, min(shown + marks.left[key], L.BAR_LIMIT)):
                _paste(canvas, ghost, L.bar_center(bottom, index))


def _draw_trays(
    draw: ImageDraw.ImageDraw, scene: BoardScene, board: Position, colours: tuple[int, int],
    marks: _Marks | None,
) -> None:
    theme = scene.theme
    count_font = T.font(TRAY_COUNT_SIZE)
    for side in (0, 1):
        count = board.off[side]
        colour = colours[side]
        bottom = side == 0
        fresh = marks.arrived[("off", side)] if marks and marks.mover == side else 0
        for index in range(count):
            new = index >= count - fresh
            draw.rounded_rectangle(
                L.tray_slab(bottom, index),
                radius=4,
                fill=theme.checker[colour],
                outline=theme.highlight if new else theme.checker_edge[colour],
                width=3 if new else 1,
            )
        if count:
            draw.text(L.tray_count_center(bottom), str(count), font=count_font, fill=theme.text, anchor="mm")


def _draw_cube(canvas: Image.Image, draw: ImageDraw.ImageDraw, scene: BoardScene, bottom: int) -> None:
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
    _paste(canvas, cube_sprite(theme), center)
    size = 28 if len(label) <= 2 else 22 if len(label) == 3 else 17
    draw.text(center, label, font=T.font(size), fill=theme.cube_text, anchor="mm")


def _draw_dice(canvas: Image.Image, scene: BoardScene, bottom: int, colours_by_side: tuple[int, int]) -> None:
    if scene.dice is None or scene.cube_offered:
        return
    theme = scene.theme
    if scene.opening:
        # One die each, on the thrower's own right-hand side: the bottom player's
        # right is the home board (right half), the top player's is the left half.
        for side, value in ((ON_ROLL, scene.dice[0]), (OPPONENT, scene.dice[1])):
            (center,) = L.dice_centers(right=side == bottom, count=1)
            _paste(canvas, die_sprite(theme, colours_by_side[side], value), center)
        return
    centers = L.dice_centers(right=bottom == ON_ROLL, count=2)
    for center, value in zip(centers, scene.dice):
        _paste(canvas, die_sprite(theme, colours_by_side[ON_ROLL], value), center)


def _name(scene: BoardScene, side: int) -> str:
    return T.clean(scene.names[side], DEFAULT_NAMES[side])


def _status_text(scene: BoardScene) -> str:
    if scene.to_act_label is not None:
        return T.clean(scene.to_act_label)
    me = T.fit(_name(scene, ON_ROLL), INFO_SIZE, STATUS_NAME_MAX_WIDTH)
    them = T.fit(_name(scene, OPPONENT), INFO_SIZE, STATUS_NAME_MAX_WIDTH)
    if scene.cube_offered:
        return f"{me} doubles to {scene.cube_value * 2}: {them} to take or pass"
    if scene.dice is not None:
        a, b = scene.dice
        if scene.opening:
            return f"Opening roll {a}-{b}: {me} to play"
        return f"{me} to play {a}-{b}"
    may_double = not scene.crawford and scene.cube_owner in (None, ON_ROLL)
    return f"{me} to roll or double" if may_double else f"{me} to roll"


def _match_text(scene: BoardScene) -> str:
    if scene.match_length:
        text = f"Match to {scene.match_length}"
        return text + " · Crawford" if scene.crawford else text
    if scene.stake:
        return f"Money game · {scene.stake} per point"
    return "Money game"


def _draw_band(
    canvas: Image.Image, draw: ImageDraw.ImageDraw, scene: BoardScene, side: int, bottom_player: bool,
    colour: int, pips: int, last: str | None,
) -> None:
    """One player's band: checker colour, name, last play, score and pip count."""
    theme = scene.theme
    y0 = L.band_y(bottom_player)
    cy = y0 + L.BAND_HEIGHT // 2
    if side == scene.to_act:
        draw.rounded_rectangle((4, y0 + 5, L.WIDTH - 5, y0 + L.BAND_HEIGHT - 6), radius=10, fill=theme.turn_band)
    # A light rim under the colour chip keeps the dark checker visible on a dark band.
    _paste(canvas, checker_sprite(theme, 0, 18), (30, cy))
    _paste(canvas, checker_sprite(theme, colour, 16), (30, cy))
    name = T.fit(_name(scene, side), NAME_SIZE, NAME_MAX_WIDTH)
    name_font = T.font(NAME_SIZE)
    draw.text((56, cy), T.for_drawing(name), font=name_font, fill=theme.text, anchor="lm")
    right_parts = []
    if scene.match_length:
        right_parts.append(f"Score {scene.score[side]}")
    right_parts.append(f"{pips} pips")
    right = "  ·  ".join(right_parts)
    info_font = T.font(INFO_SIZE)
    right_x = L.WIDTH - 16
    draw.text((right_x, cy), right, font=info_font, fill=theme.text, anchor="rm")
    if last:
        x = 56 + round(name_font.getlength(T.for_drawing(name))) + 18
        room = right_x - round(info_font.getlength(right)) - 18 - x
        if room > 60:
            draw.text((x, cy), T.fit(last, INFO_SIZE, room), font=info_font, fill=theme.highlight, anchor="lm")


def _draw_status(draw: ImageDraw.ImageDraw, scene: BoardScene) -> None:
    theme = scene.theme
    cy = L.STATUS_Y + L.STATUS_HEIGHT // 2
    info_font = T.font(INFO_SIZE)
    match = _match_text(scene)
    match_width = round(info_font.getlength(match))
    draw.text((L.WIDTH - 16, cy), match, font=info_font, fill=theme.muted_text, anchor="rm")
    status = T.fit("▶ " + _status_text(scene), INFO_SIZE, L.WIDTH - 16 - match_width - 32 - 16)
    draw.text((16, cy), T.for_drawing(status), font=info_font, fill=theme.text, anchor="lm")


def render_image(scene: BoardScene) -> Image.Image:
    """The board of ``scene`` as an RGB Pillow image of :data:`renderer.layout.SIZE`."""
    theme = scene.theme
    bottom = scene.viewpoint  # the side drawn at the bottom (0 = on roll)
    board = scene.position if bottom == ON_ROLL else scene.position.swap()
    # Checker colour of each scene side, then of each drawn side (0 = bottom).
    by_side = (scene.on_roll_colour, 1 - scene.on_roll_colour)
    by_drawn = (by_side[bottom], by_side[1 - bottom])
    marks = _marks(scene, bottom)

    canvas = static_board(theme).copy()
    draw = ImageDraw.Draw(canvas)

    if marks is not None:
        # Frame the numbers of the points the last play touched.
        number_font = T.font(NUMBER_SIZE)
        touched = {p for kind, p in (*marks.arrived, *marks.left, *marks.hits) if kind == "point"}
        for point in sorted(touched):
            x, y = L.number_center(point)
            draw.rounded_rectangle((x - 20, y - 13, x + 20, y + 13), radius=7, fill=theme.highlight)
            draw.text((x, y), str(point), font=number_font, fill=theme.highlight_text, anchor="mm")

    _draw_points(canvas, draw, scene, board, by_drawn, marks)
    _draw_bar(canvas, draw, scene, board, by_drawn, marks)
    _draw_trays(draw, scene, board, by_drawn, marks)
    _draw_cube(canvas, draw, scene, bottom)
    _draw_dice(canvas, scene, bottom, by_side)

    pips = scene.position.pip_counts()
    last = None
    if scene.last_play:
        last = "played " + format_moves(scene.last_play)
    for side in (ON_ROLL, OPPONENT):
        _draw_band(
            canvas, draw, scene, side, bottom_player=side == bottom, colour=by_side[side],
            pips=pips[side], last=last if side == scene.last_play_by else None,
        )
    _draw_status(draw, scene)
    return canvas


def encode_png(image: Image.Image, palette: Image.Image | None = None) -> bytes:
    """PNG bytes of a board image, reduced to a small palette (boards are flat colours).

    With ``palette`` (a theme's fixed palette) the colours are only mapped,
    which is several times faster than choosing a palette for each image.
    """
    if palette is None:
        paletted = image.quantize(PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    else:
        paletted = image.quantize(palette=palette, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    paletted.save(buffer, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buffer.getvalue()


@functools.lru_cache(maxsize=8)
def theme_palette(theme: Theme) -> Image.Image:
    """A fixed palette for ``theme``, learnt once from boards that show every
    element: both checker colours, stacks and counts, the bar, borne-off
    checkers, dice, an offered cube, and a highlighted last play with a hit."""
    samples = [
        BoardScene(Position.start(), names=("Ann", "Bob"), dice=(6, 5), theme=theme),
        BoardScene(
            Position.from_position_id("jGfkATDgc/ABMA"),
            names=("Ann", "Bob"),
            dice=(3, 3),
            cube_value=2,
            cube_owner=1,
            last_play=(Move(13, 9, True), Move(24, 23, False)),
            theme=theme,
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
    blends = [tuple(flat[i:i + 3]) for i in range(0, 3 * PALETTE_COLOURS, 3)]
    colours = exact + [c for c in blends if c not in exact]
    colours = colours[:256]
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for colour in colours for v in colour])
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


def render_board(scene: BoardScene) -> bytes:
    """The PNG image of ``scene``: the pure entry point the bot calls (also from threads)."""
    return encode_png(render_image(scene), theme_palette(scene.theme))
