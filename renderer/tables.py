"""Draw a board of plakoto, fevga or long nardy (:mod:`engine.tables`).

The same board, sprites and layout as backgammon's (:mod:`renderer.board`),
seen from the player on roll (at the bottom, home board bottom right), with
what these games need shown plainly:

- a **pinned** checker (plakoto) lies at the base of its point under its
  captor, which is drawn half a checker further in, so the pinned checker
  peeks out beneath it, ringed in the theme's hit colour;
- the **head** or starting point of each side (nardy's head, fevga's
  starting corners, plakoto's mother point) is labelled in the middle gap
  next to it, and a stack taller than the point shows its count;
- the checkers borne off are counted in the tray, the dice and a title line
  (game, whose turn, pip counts) drawn in the bands.

Its words are in the language in force (:func:`i18n.speaking`).
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.dice import Roll
from engine.tables import HEAD, TablesPosition
from i18n import N_, _, ngettext
from renderer import layout as L
from renderer import text as T
from renderer.board import checker_sprite, die_sprite, static_board, theme_palette
from renderer.pictures import Picture
from renderer.themes import CLASSIC, Theme

GAME_NAMES = {"plakoto": N_("Plakoto"), "fevga": N_("Fevga"), "nardy": N_("Long nardy")}
START_WORDS = {"plakoto": N_("mother"), "fevga": N_("start"), "nardy": N_("head")}
"""What each game calls the point every checker starts on."""

TITLE_SIZE = 24
LABEL_SIZE = 16
COUNT_SIZE = 22


@functools.lru_cache(maxsize=4)
def _empty(theme: Theme) -> Image.Image:
    return static_board(theme)


def start_point(position: TablesPosition, bottom: bool) -> int:
    """The starting point of the bottom (or top) player, in the bottom player's numbering."""
    if bottom:
        return HEAD
    return 1 if position.game == "plakoto" else 12


def render_tables_image(
    position: TablesPosition,
    *,
    theme: Theme = CLASSIC,
    dice: Roll | None = None,
    names: tuple[str, str] | None = None,
    caption: str | None = None,
) -> Image.Image:
    """The board of ``position`` with the player it is seen from at the bottom."""
    image = _empty(theme).copy()
    draw = ImageDraw.Draw(image)
    sprites = (checker_sprite(theme, 0), checker_sprite(theme, 1))
    radius = L.CHECKER_RADIUS

    def checker(side: int, center: tuple[int, int]) -> None:
        sprite = sprites[side]
        image.paste(sprite, (center[0] - sprite.width // 2, center[1] - sprite.height // 2), sprite)

    for point in range(1, 25):
        n = position.points[point - 1]
        pin = position.pins[point - 1]
        if not n:
            continue
        side = 0 if n > 0 else 1
        count = abs(n)
        box = L.point_box(point)
        step = 1 if box.top else -1
        shift = 0
        if pin:
            # The pinned checker (the other side's) at the base, its captor half a checker in.
            checker(1 - side, L.checker_center(point, 0))
            shift = radius
        shown = min(count, L.STACK_LIMIT - (1 if pin else 0))
        for index in range(shown):
            x, y = L.checker_center(point, index)
            checker(side, (x, y + step * shift))
        last = L.checker_center(point, shown - 1)
        last = (last[0], last[1] + step * shift)
        if count > shown:
            draw.text(last, str(count), font=T.font(COUNT_SIZE), fill=theme.checker_text[side], anchor="mm")
        if pin:
            # A ring in the theme's hit colour round the part of the pinned checker that shows.
            x, y = L.checker_center(point, 0)
            draw.ellipse((x - radius, y - radius, x + radius, y + radius), outline=theme.hit, width=4)
            sprite = sprites[side]
            cx, cy = L.checker_center(point, 0)
            cy += step * shift
            image.paste(sprite, (cx - sprite.width // 2, cy - sprite.height // 2), sprite)

    # Each side's starting point, labelled in the middle gap beside it.
    for bottom in (True, False):
        point = start_point(position, bottom)
        x, _y = L.checker_center(point, 0)
        top_row = L.point_box(point).top
        y = L.MIDDLE_Y - 22 if top_row else L.MIDDLE_Y + 22
        word = _(START_WORDS[position.game])
        draw.text((x, y), word, font=T.font(LABEL_SIZE), fill=theme.text, anchor="mm", **T.layout(T.rtl_language()))

    # Borne off: a count in each half of the tray.
    for side, bottom in ((0, True), (1, False)):
        if position.off[side]:
            draw.text(
                L.tray_count_center(bottom),
                str(position.off[side]),
                font=T.font(COUNT_SIZE),
                fill=theme.text,
                anchor="mm",
            )
    if dice is not None:
        values = dice.moves()[:2] if not dice.is_double else (dice.die1, dice.die2)
        for value, center in zip(values, L.dice_centers(True, 2), strict=True):
            sprite = die_sprite(theme, 0, value)
            image.paste(sprite, (center[0] - sprite.width // 2, center[1] - sprite.height // 2), sprite)

    ours, theirs = position.pip_counts()
    title = caption or _(GAME_NAMES[position.game])
    names = names or (_("on roll"), _("opponent"))
    draw.text(
        (L.WIDTH // 2, L.BAND_HEIGHT // 2),
        f"{title}  ·  "
        + ngettext("{player}: {count} pip", "{player}: {count} pips", theirs).format(player=names[1], count=theirs),
        font=T.font(TITLE_SIZE),
        fill=theme.text,
        anchor="mm",
        **T.layout(T.rtl_language()),
    )
    draw.text(
        (L.WIDTH // 2, L.BOTTOM_BAND_Y + L.BAND_HEIGHT // 2),
        ngettext("{player}: {count} pip", "{player}: {count} pips", ours).format(player=names[0], count=ours),
        font=T.font(TITLE_SIZE),
        fill=theme.text,
        anchor="mm",
        **T.layout(T.rtl_language()),
    )
    return image


def render_tables(position: TablesPosition, *, theme: Theme = CLASSIC, **options: object) -> bytes:
    """:func:`render_tables_image` as PNG bytes, mapped to the theme's palette
    (nearest colour, no dithering) as backgammon's boards are: an indexed PNG
    is a fraction of the time and size of an RGB one."""
    image = render_tables_image(position, theme=theme, **options)  # type: ignore[arg-type]
    indexed = image.quantize(palette=theme_palette(theme), dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    indexed.save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


@dataclass(frozen=True, slots=True)
class TablesPicture(Picture):
    """A board of plakoto, fevga or nardy for a drawing worker (:mod:`renderer.pool`):
    ``position_id`` (:meth:`engine.tables.TablesPosition.position_id`) seen from the
    bottom player, ``dice`` the roll to play (high, low) or None."""

    position_id: str
    names: tuple[str, str] = ("on roll", "opponent")
    dice: tuple[int, int] | None = None
    caption: str | None = None
    theme: Theme = CLASSIC

    def draw(self) -> bytes:
        from engine.tables import decode_tables_id

        position = decode_tables_id(self.position_id)
        roll = Roll(*self.dice) if self.dice else None
        return render_tables(position, theme=self.theme, dice=roll, names=self.names, caption=self.caption)
