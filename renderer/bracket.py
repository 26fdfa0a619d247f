"""Tournament pictures, in the boards' look: a knockout's bracket, a Swiss or round
robin's standings.

:class:`BracketPicture` and :class:`StandingsPicture` are
:class:`~renderer.pictures.Picture` s: plain data (names already chosen by
the bot, no engine or bot types), drawn by the drawing workers with
:meth:`~renderer.pictures.Picture.draw`, or by tests and tools directly.

The bracket runs left to right, a column per round, each match a box of two
lines (seed, name); the winner's line is marked in the highlight colour and
the loser's muted, a match being played is outlined, a bye says so. Lines join
each pair of matches to the one its winners meet in. The standings are a table
(place, name, points, wins and losses, Buchholz and Sonneborn-Berger for a
Swiss) with the current round's tables under it.

Sizes are chosen to read on a phone: names at 21 pixels in boxes 250 wide, the
picture at least as wide as a board (940), and the 64-player bracket about
1,700 by 2,700 (Discord shows it full size with a tap). The PNG is indexed:
each theme's picture uses a few flat colours and, for the antialiased text,
ramps from each background to each text colour drawn on it, so the RGB
drawing maps onto a fixed palette (a lookup, far quicker than learning a
palette from 4.6 million pixels): the 64-player bracket takes well under 50 ms
(``bench/render.py``).

The pictures' own words ("champion", "Player", the columns' heads, "bye", the
rounds' names) are in the picture's ``language`` (see
:mod:`renderer.pictures`); titles and names come from the bot as they are.
"""

from __future__ import annotations

import functools
import io
import threading
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from i18n import N_, _, current, pgettext
from renderer import text as T
from renderer.pictures import Picture, spoken
from renderer.themes import CLASSIC, RGB, THEMES, Theme

PAD = 22
HEADER_HEIGHT = 96
TITLE_SIZE = 32
SUBTITLE_SIZE = 20
ROUND_LABEL_HEIGHT = 36
ROUND_LABEL_SIZE = 20
BOX_WIDTH = 250
LINE_HEIGHT = 32
BOX_HEIGHT = 2 * LINE_HEIGHT
BOX_GAP = 14
COLUMN_GAP = 34
SEED_WIDTH = 42
NAME_SIZE = 21
SEED_SIZE = 16
RADIUS = 8
FOOTER_HEIGHT = 44
MIN_WIDTH = 940

ROW_HEIGHT = 38
TABLE_SIZE = 21
PAIRING_HEIGHT = 34

PNG_COMPRESS_LEVEL = 1
RAMP_STEPS = 8
"""Colours between a background and a text colour on it (the text's antialiased edges)."""

TROPHY = "★"


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


@dataclass(frozen=True, slots=True)
class Slot:
    """A player's line in a bracket box."""

    name: str
    seed: int | None = None
    withdrawn: bool = False


@dataclass(frozen=True, slots=True)
class BracketMatch:
    """A box of the bracket: ``top`` against ``bottom`` (None: not known yet, or a bye).

    ``state``: ``waiting`` (its players are not known yet), ``playing``, ``done``,
    ``bye`` (``top`` goes through), or ``void`` (nobody won)."""

    top: Slot | None
    bottom: Slot | None
    winner: int | None = None
    """0 for ``top``, 1 for ``bottom``."""
    state: str = "waiting"


@dataclass(frozen=True, slots=True)
class BracketPicture(Picture):
    """A knockout's bracket: ``rounds[r]`` are round r+1's boxes in table order
    (half as many each round)."""

    title: str
    subtitle: str
    rounds: tuple[tuple[BracketMatch, ...], ...]
    round_names: tuple[str, ...] = ()
    champion: str | None = None
    footer: str = ""
    theme: str = CLASSIC.name
    language: str = field(default_factory=current)
    """The language of the picture's own words (see :mod:`renderer.pictures`)."""

    @spoken
    def draw(self) -> bytes:
        theme = THEMES.get(self.theme, CLASSIC)
        return _png(render_bracket_image(self), theme)


@dataclass(frozen=True, slots=True)
class StandingRow:
    place: int
    name: str
    score: int
    wins: int
    losses: int
    buchholz: int | None = None
    sonneborn_berger: int | None = None
    withdrawn: bool = False


@dataclass(frozen=True, slots=True)
class PairingLine:
    """One table of the current round: ``a`` against ``b`` (None: a bye); ``result`` as shown."""

    a: str
    b: str | None
    result: str = ""
    winner: int | None = None


@dataclass(frozen=True, slots=True)
class StandingsPicture(Picture):
    """A Swiss or round robin's standings, and the current round's tables."""

    title: str
    subtitle: str
    rows: tuple[StandingRow, ...]
    tie_breaks: bool = True
    """Show the Buchholz and Sonneborn-Berger columns."""
    round_title: str = ""
    pairings: tuple[PairingLine, ...] = ()
    champion: str | None = None
    footer: str = ""
    theme: str = CLASSIC.name
    language: str = field(default_factory=current)
    """The language of the picture's own words (see :mod:`renderer.pictures`)."""

    @spoken
    def draw(self) -> bytes:
        theme = THEMES.get(self.theme, CLASSIC)
        return _png(render_standings_image(self), theme)


# -- drawing helpers -------------------------------------------------------------------------------


def _header_fill(theme: Theme) -> RGB:
    return _mix(theme.background, theme.frame, 0.45)


def _footer_fill(theme: Theme) -> RGB:
    return _mix(theme.background, (0, 0, 0), 0.25)


def _waiting_fill(theme: Theme) -> RGB:
    return _mix(theme.felt, theme.background, 0.45)


def _stripe_fill(theme: Theme) -> RGB:
    return _mix(theme.felt, theme.tray, 0.6)


def _lost_ink(theme: Theme) -> RGB:
    return _mix(theme.muted_text, theme.felt, 0.3)


def _faint_ink(theme: Theme) -> RGB:
    return _mix(theme.muted_text, theme.felt, 0.35)


def _connector_ink(theme: Theme) -> RGB:
    return _mix(theme.frame, theme.muted_text, 0.35)


@functools.lru_cache(maxsize=8)
def theme_palette(theme: Theme) -> Image.Image:
    """The palette every picture of ``theme`` is mapped to: its flat colours, and a
    ramp from each background to each ink drawn on it."""
    grounds = [
        theme.background,
        _header_fill(theme),
        _footer_fill(theme),
        theme.felt,
        _waiting_fill(theme),
        _stripe_fill(theme),
    ]
    inks = [theme.text, theme.muted_text, theme.highlight, _lost_ink(theme), _faint_ink(theme)]
    flats = [*grounds, *inks, theme.frame_edge, theme.tray, _connector_ink(theme), theme.frame]
    colours: list[RGB] = list(dict.fromkeys(flats))
    for ground in grounds:
        for ink in inks:
            colours += [_mix(ground, ink, step / (RAMP_STEPS + 1)) for step in range(1, RAMP_STEPS + 1)]
    colours = list(dict.fromkeys(colours))[:256]
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for colour in colours for v in colour] + [0] * (3 * (256 - len(colours))))
    return palette


_this_thread = threading.local()


def _palette_here(theme: Theme) -> Image.Image:
    """This thread's copy of the theme's palette (mapping to it fills a lookup cache
    in the palette, which Pillow does not guard against other threads)."""
    palettes: dict[Theme, Image.Image] = _this_thread.__dict__.setdefault("palettes", {})
    palette = palettes.get(theme)
    if palette is None:
        palette = palettes[theme] = theme_palette(theme).copy()
    return palette


def _png(image: Image.Image, theme: Theme) -> bytes:
    indexed = image.quantize(palette=_palette_here(theme), dither=Image.Dither.NONE)
    out = io.BytesIO()
    indexed.save(out, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


def _text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, size: int, fill: RGB, anchor: str) -> None:
    rtl = T.rtl_language()
    draw.text(xy, T.for_drawing(text), font=T.font(size), fill=fill, anchor=anchor, **T.layout(rtl))


def _fitted(text: str, size: int, width: int, fallback: str = "?") -> str:
    return T.fit(T.clean(text, fallback), size, width)


def _header(
    draw: ImageDraw.ImageDraw, width: int, theme: Theme, title: str, subtitle: str, champion: str | None
) -> None:
    draw.rectangle((0, 0, width - 1, HEADER_HEIGHT - 1), fill=_header_fill(theme))
    draw.rectangle((0, HEADER_HEIGHT - 4, width - 1, HEADER_HEIGHT - 1), fill=theme.frame_edge)
    right = width - PAD
    if champion:
        label = f"{TROPHY} {_fitted(champion, TITLE_SIZE - 6, 360)}"
        _text(draw, (right, 36), label, TITLE_SIZE - 6, theme.highlight, "rm")
        _text(draw, (right, 70), _("champion"), SUBTITLE_SIZE, theme.muted_text, "rm")
        right -= int(T.length(T.for_drawing(label), TITLE_SIZE - 6)) + 30
    _text(draw, (PAD, 36), _fitted(title, TITLE_SIZE, right - PAD, _("Tournament")), TITLE_SIZE, theme.text, "lm")
    _text(draw, (PAD, 70), _fitted(subtitle, SUBTITLE_SIZE, right - PAD, ""), SUBTITLE_SIZE, theme.muted_text, "lm")


def _footer(draw: ImageDraw.ImageDraw, width: int, height: int, theme: Theme, footer: str) -> None:
    top = height - FOOTER_HEIGHT
    draw.rectangle((0, top, width - 1, height - 1), fill=_footer_fill(theme))
    if footer:
        _text(
            draw,
            (PAD, top + FOOTER_HEIGHT // 2),
            _fitted(footer, SUBTITLE_SIZE, width - 2 * PAD, ""),
            SUBTITLE_SIZE,
            theme.muted_text,
            "lm",
        )


# -- the bracket ----------------------------------------------------------------------------------------


def bracket_size(picture: BracketPicture) -> tuple[int, int]:
    """The bracket picture's width and height in pixels."""
    columns = max(len(picture.rounds), 1)
    first = max(len(picture.rounds[0]) if picture.rounds else 1, 1)
    width = max(2 * PAD + columns * BOX_WIDTH + (columns - 1) * COLUMN_GAP, MIN_WIDTH)
    height = HEADER_HEIGHT + ROUND_LABEL_HEIGHT + PAD + first * (BOX_HEIGHT + BOX_GAP) + FOOTER_HEIGHT
    return width, height


def _box_top(round_index: int, match_index: int) -> int:
    """A box's top: the first round's boxes one under another, each later box midway between its two."""
    pitch = BOX_HEIGHT + BOX_GAP
    span = 1 << round_index
    centre = (match_index * span + (span - 1) / 2) * pitch + BOX_HEIGHT / 2
    return HEADER_HEIGHT + ROUND_LABEL_HEIGHT + PAD // 2 + round(centre - BOX_HEIGHT / 2)


def _column_left(round_index: int) -> int:
    return PAD + round_index * (BOX_WIDTH + COLUMN_GAP)


def _slot_line(
    draw: ImageDraw.ImageDraw,
    theme: Theme,
    left: int,
    top: int,
    slot: Slot | None,
    *,
    won: bool,
    lost: bool,
    placeholder: str,
) -> None:
    middle = top + LINE_HEIGHT // 2
    if won:
        draw.rectangle((left + 1, top + 1, left + 6, top + LINE_HEIGHT - 1), fill=theme.highlight)
    if slot is None:
        _text(draw, (left + SEED_WIDTH, middle), placeholder, NAME_SIZE - 3, _faint_ink(theme), "lm")
        return
    if slot.seed is not None:
        _text(draw, (left + SEED_WIDTH - 9, middle), str(slot.seed), SEED_SIZE, theme.muted_text, "rm")
    colour = theme.highlight if won else (_lost_ink(theme) if lost else theme.text)
    name = _fitted(slot.name, NAME_SIZE, BOX_WIDTH - SEED_WIDTH - 10)
    _text(draw, (left + SEED_WIDTH, middle), name, NAME_SIZE, colour, "lm")
    if lost:  # struck through, so it reads without colour
        width = int(T.length(T.for_drawing(name), NAME_SIZE))
        draw.line((left + SEED_WIDTH, middle + 1, left + SEED_WIDTH + width, middle + 1), fill=colour, width=2)


def _draw_box(draw: ImageDraw.ImageDraw, theme: Theme, left: int, top: int, match: BracketMatch) -> None:
    live = match.state == "playing"
    fill = theme.felt if match.state != "waiting" else _waiting_fill(theme)
    outline = theme.highlight if live else theme.frame_edge
    draw.rounded_rectangle(
        (left, top, left + BOX_WIDTH - 1, top + BOX_HEIGHT - 1),
        radius=RADIUS,
        fill=fill,
        outline=outline,
        width=3 if live else 2,
    )
    draw.line((left + 8, top + LINE_HEIGHT, left + BOX_WIDTH - 9, top + LINE_HEIGHT), fill=theme.tray, width=1)
    decided = match.state in ("done", "bye", "void")
    for index, (slot, y) in enumerate(((match.top, top), (match.bottom, top + LINE_HEIGHT))):
        won = match.winner == index
        lost = decided and not won and slot is not None
        placeholder = pgettext("tournament", "bye") if match.state == "bye" or (decided and slot is None) else "—"
        _slot_line(draw, theme, left, y, slot, won=won, lost=lost, placeholder=placeholder)


def _connectors(draw: ImageDraw.ImageDraw, theme: Theme, rounds: int, first: int) -> None:
    colour = _connector_ink(theme)
    for r in range(rounds - 1):
        count = first >> r
        x0 = _column_left(r) + BOX_WIDTH
        x2 = _column_left(r + 1)
        x1 = (x0 + x2) // 2
        for k in range(0, count - 1, 2):
            y_a = _box_top(r, k) + BOX_HEIGHT // 2
            y_b = _box_top(r, k + 1) + BOX_HEIGHT // 2
            y_p = _box_top(r + 1, k // 2) + BOX_HEIGHT // 2
            draw.line((x0, y_a, x1, y_a), fill=colour, width=3)
            draw.line((x0, y_b, x1, y_b), fill=colour, width=3)
            draw.line((x1, y_a, x1, y_b), fill=colour, width=3)
            draw.line((x1, y_p, x2, y_p), fill=colour, width=3)


def default_round_names(rounds: int) -> tuple[str, ...]:
    """ "Round 1", ..., "Quarter-finals", "Semi-finals", "Final", in the language in force."""
    names = []
    for r in range(rounds):
        left = rounds - r
        last = {1: N_("Final"), 2: N_("Semi-finals"), 3: N_("Quarter-finals")}.get(left)
        names.append(_(last) if last else _("Round {number}").format(number=r + 1))
    return tuple(names)


def render_bracket_image(picture: BracketPicture) -> Image.Image:
    """The bracket as an RGB image (see the module docstring)."""
    theme = THEMES.get(picture.theme, CLASSIC)
    width, height = bracket_size(picture)
    image = Image.new("RGB", (width, height), theme.background)
    draw = ImageDraw.Draw(image)
    _header(draw, width, theme, picture.title, picture.subtitle, picture.champion)
    names = picture.round_names or default_round_names(len(picture.rounds))
    first = len(picture.rounds[0]) if picture.rounds else 0
    for r, name in enumerate(names[: len(picture.rounds)]):
        _text(
            draw,
            (_column_left(r) + BOX_WIDTH // 2, HEADER_HEIGHT + ROUND_LABEL_HEIGHT // 2 + 4),
            name,
            ROUND_LABEL_SIZE,
            theme.muted_text,
            "mm",
        )
    _connectors(draw, theme, len(picture.rounds), first)
    for r, matches in enumerate(picture.rounds):
        for k, match in enumerate(matches):
            _draw_box(draw, theme, _column_left(r), _box_top(r, k), match)
    _footer(draw, width, height, theme, picture.footer)
    return image


def render_bracket(picture: BracketPicture) -> bytes:
    return picture.draw()


# -- standings ---------------------------------------------------------------------------------------


def standings_size(picture: StandingsPicture) -> tuple[int, int]:
    height = HEADER_HEIGHT + PAD + ROW_HEIGHT * (len(picture.rows) + 1) + PAD
    if picture.pairings:
        height += ROUND_LABEL_HEIGHT + PAIRING_HEIGHT * len(picture.pairings) + PAD
    return MIN_WIDTH, height + FOOTER_HEIGHT


def render_standings_image(picture: StandingsPicture) -> Image.Image:
    """The standings as an RGB image (see the module docstring)."""
    theme = THEMES.get(picture.theme, CLASSIC)
    width, height = standings_size(picture)
    image = Image.new("RGB", (width, height), theme.background)
    draw = ImageDraw.Draw(image)
    _header(draw, width, theme, picture.title, picture.subtitle, picture.champion)
    right = width - PAD
    # Heads of narrow columns: short words, with a context for the translators.
    columns = [(pgettext("standings: points", "Pts"), 70), (pgettext("standings: wins-losses", "W-L"), 96)]
    if picture.tie_breaks:
        columns += [(pgettext("standings: Buchholz", "Bh"), 70), (pgettext("standings: Sonneborn-Berger", "SB"), 70)]
    xs: list[int] = []
    x = right
    for _label, column_width in reversed(columns):
        xs.append(x - column_width // 2)
        x -= column_width
    xs.reverse()
    name_right = x - 10
    top = HEADER_HEIGHT + PAD
    # the table's felt, with a head row
    draw.rounded_rectangle(
        (PAD - 8, top - 6, right + 8, top + ROW_HEIGHT * (len(picture.rows) + 1) + 6),
        radius=RADIUS,
        fill=theme.felt,
        outline=theme.frame_edge,
        width=2,
    )
    middle = top + ROW_HEIGHT // 2
    _text(draw, (PAD + 30, middle), "#", SUBTITLE_SIZE, theme.muted_text, "mm")
    _text(draw, (PAD + 64, middle), _("Player"), SUBTITLE_SIZE, theme.muted_text, "lm")
    for (label, _width), cx in zip(columns, xs):
        _text(draw, (cx, middle), label, SUBTITLE_SIZE, theme.muted_text, "mm")
    stripe = _stripe_fill(theme)
    for n, row in enumerate(picture.rows):
        y = top + ROW_HEIGHT * (n + 1)
        if n % 2 == 0:
            draw.rectangle((PAD - 6, y, right + 6, y + ROW_HEIGHT - 1), fill=stripe)
        middle = y + ROW_HEIGHT // 2
        podium = row.place <= 3 and not row.withdrawn
        colour = theme.highlight if row.place == 1 and not row.withdrawn else theme.text
        if row.withdrawn:
            colour = theme.muted_text
        _text(
            draw, (PAD + 30, middle), str(row.place), TABLE_SIZE, theme.highlight if podium else theme.muted_text, "mm"
        )
        name = _("{player} (withdrew)").format(player=row.name) if row.withdrawn else row.name
        _text(draw, (PAD + 64, middle), _fitted(name, TABLE_SIZE, name_right - PAD - 64), TABLE_SIZE, colour, "lm")
        values = [str(row.score), f"{row.wins}-{row.losses}"]
        if picture.tie_breaks:
            values += [
                str(row.buchholz if row.buchholz is not None else ""),
                str(row.sonneborn_berger if row.sonneborn_berger is not None else ""),
            ]
        for value, cx in zip(values, xs):
            _text(draw, (cx, middle), value, TABLE_SIZE, colour, "mm")
    y = top + ROW_HEIGHT * (len(picture.rows) + 1) + PAD
    if picture.pairings:
        _text(draw, (PAD, y + ROUND_LABEL_HEIGHT // 2), picture.round_title, ROUND_LABEL_SIZE + 2, theme.text, "lm")
        y += ROUND_LABEL_HEIGHT
        half = (width - 2 * PAD - 120) // 2
        for line in picture.pairings:
            middle = y + PAIRING_HEIGHT // 2
            won_a, won_b = line.winner == 0, line.winner == 1
            muted = theme.muted_text
            _text(
                draw,
                (PAD + half, middle),
                _fitted(line.a, TABLE_SIZE - 1, half - 10),
                TABLE_SIZE - 1,
                theme.highlight if won_a else (muted if won_b else theme.text),
                "rm",
            )
            _text(
                draw,
                (width // 2, middle),
                line.result or ("" if line.b is None else pgettext("pairing", "v")),
                SUBTITLE_SIZE,
                muted,
                "mm",
            )
            other = line.b if line.b is not None else pgettext("tournament", "bye")
            _text(
                draw,
                (width - PAD - half, middle),
                _fitted(other, TABLE_SIZE - 1, half - 10),
                TABLE_SIZE - 1,
                theme.highlight if won_b else (muted if (won_a or line.b is None) else theme.text),
                "lm",
            )
            y += PAIRING_HEIGHT
    _footer(draw, width, height, theme, picture.footer)
    return image


def render_standings(picture: StandingsPicture) -> bytes:
    return picture.draw()


__all__ = [
    "BracketMatch",
    "BracketPicture",
    "PairingLine",
    "Slot",
    "StandingRow",
    "StandingsPicture",
    "bracket_size",
    "default_round_names",
    "render_bracket",
    "render_bracket_image",
    "render_standings",
    "render_standings_image",
    "standings_size",
]
