"""Draw a Serpent Poker Patience layout: :func:`render_patience` turns a
:class:`engine.patience.Layout` into PNG bytes, in the board's look.

The picture, top to bottom: a band with the title, the score table and the
score; the column letters; the 5 by 5 grid on the felt, each card with its
place in the deal in a corner, and the serpent (the path the cards were laid
along) drawn as a line between the cards, from card 1 to the last; each
column's hand and points under it; a status line (the next card, or the
best possible score). Each row's hand and points stand right of it. A hand
still being filled is written in the muted colour.

While the layout is unfinished, the squares the next card may go on show
that card faintly inside a dashed outline, the card laid last is ringed, and
the status line names the next card.

Card faces and other shapes are drawn once (supersampled for smooth edges)
and cached; only pasting and text happen per picture, so a picture takes a
few milliseconds plus the PNG encoding (colours mapped to a palette of 64 by
Pillow's fast octree, no dithering), and is safe to draw in worker threads
(cached images are only pasted from). The same layout gives the same bytes.

:class:`PatiencePicture` is a layout to draw in the bot's drawing workers
(:mod:`renderer.pictures`), so no drawing happens on its event loop. Its words
(the hands' names, the header and the status line) are in its ``language``;
the cards keep their ranks' letters and the columns theirs.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from engine.patience import ENGLISH, SIZE, Card, Cell, Deal, Layout, LineScore, Scoring, Suit, scoring_named
from engine.patience.hands import Category
from i18n import N_, _, current, ngettext, pgettext
from renderer import text as T
from renderer.pictures import Picture, spoken
from renderer.themes import CLASSIC, HIGH_CONTRAST, RGB, Theme

# -- geometry (final-image pixels) ----------------------------------------------------------

WIDTH = 940
PAD = 16
HEADER_HEIGHT = 70
LETTER_HEIGHT = 30
ROW_NUMBER_WIDTH = 30
CELL_WIDTH = 128
CELL_HEIGHT = 140
CARD_WIDTH = 104
CARD_HEIGHT = 120
CARD_RADIUS = 10
FELT_MARGIN = 10
"""Felt around the grid's outer cards."""
COLUMN_LABEL_HEIGHT = 100
STATUS_HEIGHT = 52
SUPERSAMPLE = 4

GRID_LEFT = PAD + ROW_NUMBER_WIDTH + FELT_MARGIN
GRID_TOP = HEADER_HEIGHT + LETTER_HEIGHT + FELT_MARGIN
GRID_WIDTH = SIZE * CELL_WIDTH
GRID_HEIGHT = SIZE * CELL_HEIGHT
LABEL_LEFT = GRID_LEFT + GRID_WIDTH + FELT_MARGIN + 12
"""Where the rows' hands may start (each is centred between here and the right edge's padding)."""
HEIGHT = GRID_TOP + GRID_HEIGHT + FELT_MARGIN + COLUMN_LABEL_HEIGHT + STATUS_HEIGHT
SIZE_PX = (WIDTH, HEIGHT)
"""The picture's size: 940 by 972 pixels."""

PATH_WIDTH = 14

# Font sizes, readable with the picture shrunk to 400 pixels wide (as the board's).
TITLE_SIZE = 28
SUBTITLE_SIZE = 20
SCORE_SIZE = 34
LETTER_SIZE = 20
RANK_SIZE = 46
SUIT_SIZE = 44
ORDER_SIZE = 16
POINTS_SIZE = 28
HAND_SIZE = 22
COLUMN_HAND_SIZE = 20
STATUS_SIZE = 22
TITLE_MAX_WIDTH = 560

DEFAULT_TITLE = N_("Serpent Poker Patience")

PALETTE_COLOURS = 64
"""Colours in the PNG's palette: flat fills and antialiased edges need few, and
an indexed PNG is under half the size of an RGB one, and quicker to write."""
PNG_COMPRESS_LEVEL = 2


# -- colours ---------------------------------------------------------------------------------


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


_CLASSIC_INK = {
    Suit.CLUBS: (24, 24, 24),
    Suit.SPADES: (24, 24, 24),
    Suit.HEARTS: (196, 24, 36),
    Suit.DIAMONDS: (196, 24, 36),
}
# High contrast: a four-colour deck (Okabe-Ito), so no suit rests on red against black alone.
_FOUR_COLOUR_INK = {
    Suit.CLUBS: (0, 120, 80),
    Suit.SPADES: (0, 0, 0),
    Suit.HEARTS: (200, 60, 0),
    Suit.DIAMONDS: (0, 100, 170),
}


def suit_ink(theme: Theme, suit: Suit) -> RGB:
    """The colour a suit's cards are printed in."""
    return (_FOUR_COLOUR_INK if theme == HIGH_CONTRAST else _CLASSIC_INK)[suit]


def face_colour(theme: Theme) -> RGB:
    """A card's face."""
    return (255, 255, 255) if theme == HIGH_CONTRAST else (250, 246, 236)


def face_edge_colour(theme: Theme) -> RGB:
    """A card's edge."""
    return (0, 0, 0) if theme == HIGH_CONTRAST else (120, 108, 90)


def slot_colour(theme: Theme) -> RGB:
    """An empty square: the felt, darker."""
    return _mix(theme.felt, (0, 0, 0), 0.28)


# -- sprites (cached, read-only) ------------------------------------------------------------


def _rounded(
    size: tuple[int, int], fill: RGB | tuple[int, int, int, int], outline: RGB | None, width: int
) -> Image.Image:
    """A rounded rectangle of ``size``, supersampled and reduced (RGBA)."""
    s = SUPERSAMPLE
    big = Image.new("RGBA", (size[0] * s, size[1] * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    fill_rgba = fill if len(fill) == 4 else (*fill, 255)
    draw.rounded_rectangle(
        (0, 0, size[0] * s - 1, size[1] * s - 1),
        radius=CARD_RADIUS * s,
        fill=fill_rgba,
        outline=None if outline is None else (*outline, 255),
        width=width * s,
    )
    return big.convert("RGBa").reduce(s).convert("RGBA")


@functools.lru_cache(maxsize=128)
def card_sprite(card: Card, theme: Theme) -> Image.Image:
    """A card's face: the rank large above the suit's symbol, in the suit's ink."""
    edge_width = 3 if theme == HIGH_CONTRAST else 2
    sprite = _rounded((CARD_WIDTH, CARD_HEIGHT), face_colour(theme), face_edge_colour(theme), edge_width)
    draw = ImageDraw.Draw(sprite)
    ink = suit_ink(theme, card.suit)
    middle = CARD_WIDTH // 2
    draw.text((middle, 48), card.rank.letter, font=T.font(RANK_SIZE), fill=ink, anchor="mm")
    draw.text((middle, 94), card.suit.symbol, font=T.font(SUIT_SIZE), fill=ink, anchor="mm")
    return sprite


@functools.lru_cache(maxsize=128)
def ghost_sprite(card: Card, theme: Theme) -> Image.Image:
    """Where the next card may go: the card, faint, inside a dashed outline."""
    sprite = card_sprite(card, theme).copy()
    alpha = sprite.getchannel("A").point(lambda a: a * 45 // 100)
    sprite.putalpha(alpha)
    draw = ImageDraw.Draw(sprite)
    _dashed_box(draw, (1, 1, CARD_WIDTH - 2, CARD_HEIGHT - 2), theme.highlight, 4)
    return sprite


@functools.lru_cache(maxsize=8)
def slot_sprite(theme: Theme) -> Image.Image:
    """An empty square: a recess in the felt."""
    return _rounded((CARD_WIDTH, CARD_HEIGHT), slot_colour(theme), None, 0)


@functools.lru_cache(maxsize=8)
def ring_sprite(theme: Theme) -> Image.Image:
    """The mark on the card laid last: a bold ring in the highlight colour."""
    return _rounded((CARD_WIDTH + 12, CARD_HEIGHT + 12), (0, 0, 0, 0), theme.highlight, 5)


def _dashed_box(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], colour: RGB, width: int) -> None:
    left, top, right, bottom = box
    dash, gap = 14, 9
    for x in range(left, right, dash + gap):
        end = min(x + dash, right)
        draw.rectangle((x, top, end, top + width - 1), fill=colour)
        draw.rectangle((x, bottom - width + 1, end, bottom), fill=colour)
    for y in range(top, bottom, dash + gap):
        end = min(y + dash, bottom)
        draw.rectangle((left, y, left + width - 1, end), fill=colour)
        draw.rectangle((right - width + 1, y, right, end), fill=colour)


# -- geometry of a square ---------------------------------------------------------------------


def cell_center(cell: Cell) -> tuple[int, int]:
    """The centre of a square in the picture."""
    return GRID_LEFT + cell.col * CELL_WIDTH + CELL_WIDTH // 2, GRID_TOP + cell.row * CELL_HEIGHT + CELL_HEIGHT // 2


def card_box(cell: Cell) -> tuple[int, int, int, int]:
    """Where the card on a square is drawn (left, top, right, bottom; right and bottom excluded)."""
    x, y = cell_center(cell)
    left, top = x - CARD_WIDTH // 2, y - CARD_HEIGHT // 2
    return left, top, left + CARD_WIDTH, top + CARD_HEIGHT


# -- drawing ----------------------------------------------------------------------------------

_SCORING_NAMES = {"english": N_("English scoring"), "american": N_("American scoring")}


def hand_name(category: Category) -> str:
    """The hand's name in the language in force (the message context "poker hand": "pair",
    "straight" and "flush" are poker's words here)."""
    names = {
        Category.NOTHING: pgettext("poker hand", "nothing"),
        Category.PAIR: pgettext("poker hand", "pair"),
        Category.TWO_PAIRS: pgettext("poker hand", "two pairs"),
        Category.THREES: pgettext("poker hand", "threes"),
        Category.STRAIGHT: pgettext("poker hand", "straight"),
        Category.FLUSH: pgettext("poker hand", "flush"),
        Category.FULL_HOUSE: pgettext("poker hand", "full house"),
        Category.FOURS: pgettext("poker hand", "fours"),
        Category.STRAIGHT_FLUSH: pgettext("poker hand", "straight flush"),
        Category.ROYAL_FLUSH: pgettext("poker hand", "royal flush"),
    }
    return names[category]


def _two_lines(name: str) -> tuple[str, ...]:
    """A hand's name under a column: a word a line, at most two lines."""
    words = name.split(" ")
    if len(words) <= 2:
        return tuple(words)
    half = len(words) // 2
    return " ".join(words[:half]), " ".join(words[half:])


def _text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, size: int, fill: RGB, anchor: str) -> None:
    rtl = T.rtl_language()
    draw.text(xy, T.for_drawing(text), font=T.font(size), fill=fill, anchor=anchor, **T.layout(rtl))


def _hand_colours(theme: Theme, points: int, complete: bool) -> tuple[RGB, RGB]:
    """Colours for a line's points and hand name: bright when it scores and is complete."""
    if not complete:
        return theme.muted_text, theme.muted_text
    if points:
        return theme.highlight, theme.text
    return theme.muted_text, theme.muted_text


def _draw_background(image: Image.Image, theme: Theme) -> ImageDraw.ImageDraw:
    draw = ImageDraw.Draw(image)
    felt_box = (
        GRID_LEFT - FELT_MARGIN,
        GRID_TOP - FELT_MARGIN,
        GRID_LEFT + GRID_WIDTH + FELT_MARGIN - 1,
        GRID_TOP + GRID_HEIGHT + FELT_MARGIN - 1,
    )
    frame = 6
    draw.rounded_rectangle(
        (felt_box[0] - frame, felt_box[1] - frame, felt_box[2] + frame, felt_box[3] + frame),
        radius=12,
        fill=theme.frame,
        outline=theme.frame_edge,
        width=2,
    )
    draw.rectangle(felt_box, fill=theme.felt)
    for n in range(SIZE):
        x, y = cell_center(Cell(n, n))
        _text(draw, (x, HEADER_HEIGHT + LETTER_HEIGHT // 2 - 4), "ABCDE"[n], LETTER_SIZE, theme.muted_text, "mm")
        _text(draw, (PAD + ROW_NUMBER_WIDTH // 2 - 4, y), str(n + 1), LETTER_SIZE, theme.muted_text, "mm")
    return draw


def _draw_path(draw: ImageDraw.ImageDraw, layout: Layout, theme: Theme) -> None:
    """The serpent: a thick line from square to square in deal order (behind the cards)."""
    half = PATH_WIDTH // 2
    for a, b in zip(layout.path, layout.path[1:]):
        (ax, ay), (bx, by) = cell_center(a), cell_center(b)
        draw.rectangle(
            (min(ax, bx) - half, min(ay, by) - half, max(ax, bx) + half, max(ay, by) + half), fill=theme.highlight
        )


def _draw_order(draw: ImageDraw.ImageDraw, cell: Cell, number: int, theme: Theme, mark: bool) -> None:
    """The card's place in the deal, in a small tab at its top left corner."""
    left, top, _right, _bottom = card_box(cell)
    label = str(number)
    width = 14 + 10 * len(label)
    box = (left + 4, top + 4, left + 4 + width, top + 25)
    if mark:
        draw.rounded_rectangle(box, radius=6, fill=theme.highlight)
        colour = theme.highlight_text
    else:
        colour = (110, 100, 86) if theme == CLASSIC else (60, 60, 60)
    _text(draw, ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2 + 1), label, ORDER_SIZE, colour, "mm")


def _draw_cards(image: Image.Image, draw: ImageDraw.ImageDraw, layout: Layout, theme: Theme, show_legal: bool) -> None:
    legal = set(layout.legal_cells()) if show_legal and not layout.is_complete else set()
    next_card = layout.next_card
    for row in range(SIZE):
        for col in range(SIZE):
            cell = Cell(row, col)
            left, top, _right, _bottom = card_box(cell)
            order = layout.order_at(cell)
            if order is None:
                image.paste(slot_sprite(theme), (left, top), slot_sprite(theme))
                if cell in legal and next_card is not None:
                    sprite = ghost_sprite(next_card, theme)
                    image.paste(sprite, (left, top), sprite)
                continue
            if order == layout.placed - 1 and not layout.is_complete:
                ring = ring_sprite(theme)
                image.paste(ring, (left - 6, top - 6), ring)
            sprite = card_sprite(layout.deal[order], theme)
            image.paste(sprite, (left, top), sprite)
            _draw_order(draw, cell, order + 1, theme, mark=order in (0, layout.placed - 1))


def _shown(score: LineScore) -> bool:
    """A line's hand is written once the line is full, or sooner if it already scores."""
    return score.complete or score.points > 0


def _draw_hands(draw: ImageDraw.ImageDraw, layout: Layout, scoring: Scoring, theme: Theme) -> None:
    lines = layout.line_scores(scoring)
    middle = (LABEL_LEFT + WIDTH - PAD) // 2
    for row, score in enumerate(lines[:SIZE]):
        if not _shown(score):
            continue
        _x, y = cell_center(Cell(row, 0))
        points_colour, name_colour = _hand_colours(theme, score.points, score.complete)
        _text(draw, (middle, y - 16), str(score.points), POINTS_SIZE, points_colour, "mm")
        _text(
            draw,
            (middle, y + 16),
            T.fit(hand_name(score.category), HAND_SIZE, WIDTH - PAD - LABEL_LEFT),
            HAND_SIZE,
            name_colour,
            "mm",
        )
    top = GRID_TOP + GRID_HEIGHT + FELT_MARGIN
    for col, score in enumerate(lines[SIZE:]):
        if not _shown(score):
            continue
        x, _y = cell_center(Cell(0, col))
        points_colour, name_colour = _hand_colours(theme, score.points, score.complete)
        _text(draw, (x, top + 26), str(score.points), POINTS_SIZE, points_colour, "mm")
        for n, word in enumerate(_two_lines(hand_name(score.category))):
            _text(draw, (x, top + 56 + 22 * n), word, COLUMN_HAND_SIZE, name_colour, "mm")


def _draw_header(draw: ImageDraw.ImageDraw, layout: Layout, scoring: Scoring, theme: Theme, title: str) -> None:
    title = T.fit(T.clean(_(title) if title == DEFAULT_TITLE else title, _(DEFAULT_TITLE)), TITLE_SIZE, TITLE_MAX_WIDTH)
    _text(draw, (PAD, 26), title, TITLE_SIZE, theme.text, "lm")
    table = _(_SCORING_NAMES.get(scoring.name, scoring.name.capitalize() + " scoring"))
    if layout.is_complete:
        progress = _("all 25 cards laid")
    else:
        progress = _("{count} of 25 cards laid").format(count=layout.placed)
    _text(draw, (PAD, 54), f"{table} · {progress}", SUBTITLE_SIZE, theme.muted_text, "lm")
    score = layout.score(scoring)
    if layout.is_complete:
        label = ngettext("{count} point", "{count} points", score).format(count=score)
    else:
        label = _("{count} so far").format(count=score)
    _text(draw, (WIDTH - PAD, HEADER_HEIGHT // 2), label, SCORE_SIZE, theme.highlight, "rm")


def _draw_status(draw: ImageDraw.ImageDraw, layout: Layout, scoring: Scoring, theme: Theme, best: int | None) -> None:
    top = HEIGHT - STATUS_HEIGHT
    draw.rectangle((0, top, WIDTH - 1, HEIGHT - 1), fill=_mix(theme.background, (0, 0, 0), 0.25))
    y = top + STATUS_HEIGHT // 2
    card = layout.next_card
    if card is not None:
        text = "▶ " + _("Next: card {number} of 25, {card}").format(number=layout.placed + 1, card=card.label)
        hint = _("on a marked square") if layout.placed else _("on any marked square")
    else:
        score = layout.score(scoring)
        text = "▶ " + _("Finished")
        hint = ""
        if best is not None:
            hint = _("the best possible score") if score >= best else _("best possible: {score}").format(score=best)
    _text(draw, (PAD, y), text, STATUS_SIZE, theme.text, "lm")
    if hint:
        _text(draw, (WIDTH - PAD, y), hint, STATUS_SIZE, theme.muted_text, "rm")


def render_patience_image(
    layout: Layout,
    scoring: Scoring = ENGLISH,
    *,
    theme: Theme = CLASSIC,
    title: str = DEFAULT_TITLE,
    best: int | None = None,
    show_legal: bool = True,
) -> Image.Image:
    """The picture of ``layout`` (see the module docstring) as an RGB image of :data:`SIZE_PX`.

    ``title`` heads the picture (cleaned and cut to fit: it may be a server's
    name); ``best``, when given for a finished layout, is the best possible
    score (:func:`engine.patience.best_score`), said in the status line;
    ``show_legal`` marks the squares the next card may go on.
    """
    image = Image.new("RGB", SIZE_PX, theme.background)
    draw = _draw_background(image, theme)
    _draw_path(draw, layout, theme)
    _draw_cards(image, draw, layout, theme, show_legal)
    _draw_hands(draw, layout, scoring, theme)
    _draw_header(draw, layout, scoring, theme, title)
    _draw_status(draw, layout, scoring, theme, best)
    return image


def render_patience(
    layout: Layout,
    scoring: Scoring = ENGLISH,
    *,
    theme: Theme = CLASSIC,
    title: str = DEFAULT_TITLE,
    best: int | None = None,
    show_legal: bool = True,
) -> bytes:
    """The picture of ``layout`` as PNG bytes (:func:`render_patience_image`)."""
    image = render_patience_image(layout, scoring, theme=theme, title=title, best=best, show_legal=show_legal)
    indexed = image.quantize(PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    indexed.save(out, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


@dataclass(frozen=True)
class PatiencePicture(Picture):
    """A layout to draw in a drawing worker (:meth:`renderer.pool.RenderWorkers.picture`):
    the deal and the squares as text, so it pickles small; :meth:`draw` is
    :func:`render_patience` of it."""

    deal: str
    """The 25 cards in order, as ``str(deal)``."""
    path: str = ""
    """The squares laid so far, as ``str(layout)``."""
    scoring: str = ENGLISH.name
    title: str = DEFAULT_TITLE
    best: int | None = None
    show_legal: bool = True
    language: str = field(default_factory=current)
    """The language of the picture's words (see :mod:`renderer.pictures`)."""

    @classmethod
    def of(
        cls,
        layout: Layout,
        scoring: Scoring = ENGLISH,
        *,
        title: str = DEFAULT_TITLE,
        best: int | None = None,
        show_legal: bool = True,
    ) -> PatiencePicture:
        return cls(str(layout.deal), str(layout), scoring.name, title, best, show_legal)

    def layout(self) -> Layout:
        return Layout.parse(Deal.parse(self.deal), self.path)

    @spoken
    def draw(self) -> bytes:
        return render_patience(
            self.layout(), scoring_named(self.scoring), title=self.title, best=self.best, show_legal=self.show_legal
        )
