"""Charts in the bot's look, drawn with matplotlib (Agg) in the drawing workers.

Two pictures (:class:`~renderer.pictures.Picture` subclasses: plain data in,
PNG bytes out):

- :class:`GameChart`: one game of an analysed match, move by move: each
  player's winning chances (a gammon's share darker) after every move, the
  luck of every roll as bars, and the blunders and cube errors marked with
  their move numbers;
- :class:`RatingChart`: a member's rating and points over time in a server,
  with their record, the trend of their error rate and their best win.

Each is built for a phone: wide, few big words, the board's colours on its
dark frame. Their words are in the picture's ``language`` (axes, legends, the
months of the dates; titles come translated). Matplotlib from 3.11 shapes and
orders right-to-left text with Raqm itself; an older one is handed Arabic
already shaped and in visual order (:func:`renderer.text.visual`). No pyplot (no global state, no GUI backend): a
:class:`matplotlib.figure.Figure` on an Agg canvas per picture, about
20-60 ms each here (``bench/render.py`` prints them).
"""

from __future__ import annotations

import io
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import matplotlib

matplotlib.use("Agg")  # no display: before anything else of matplotlib is imported

from matplotlib import ft2font, rcParams  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402
from PIL import Image  # noqa: E402

from i18n import _, current, locale, pgettext  # noqa: E402
from renderer import text as T  # noqa: E402
from renderer.pictures import Picture, spoken  # noqa: E402
from renderer.themes import CLASSIC  # noqa: E402

rcParams["font.family"] = "DejaVu Sans"  # matplotlib ships it: the board's own face
rcParams["axes.unicode_minus"] = False
rcParams["path.simplify"] = True


def _c(
    rgb: tuple[int, int, int], alpha: float | None = None
) -> tuple[float, float, float] | tuple[float, float, float, float]:
    red, green, blue = (v / 255 for v in rgb)
    return (red, green, blue) if alpha is None else (red, green, blue, alpha)


BACKGROUND = _c(CLASSIC.background)
PANEL = _c((56, 40, 28))
GRID = _c((110, 84, 60))
TEXT = _c(CLASSIC.text)
MUTED = _c(CLASSIC.muted_text)
SIDE = (_c((232, 214, 168)), _c((196, 72, 52)))
"""Each player's colour: the board's cream and red points (player 0 = light checkers)."""
GAMMON = (_c((250, 244, 224)), _c((120, 30, 22)))
BLUNDER = _c(CLASSIC.highlight)
CUBE = _c((120, 200, 255))
LINE = _c(CLASSIC.highlight)

WIDTH, DPI = 9.0, 100
"""Inches at dots per inch: 900 pixels wide, which Discord shows whole on a phone."""
PNG_OPTIONS = {"compress_level": 3}


def _figure(height: float) -> Figure:
    figure = Figure(figsize=(WIDTH, height), dpi=DPI, facecolor=BACKGROUND)
    FigureCanvasAgg(figure)
    return figure


def _style(ax, *, ylabel: str = "") -> None:
    ax.set_facecolor(PANEL)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.tick_params(colors=MUTED, labelsize=12, length=0, pad=6)
    ax.grid(True, color=GRID, linewidth=0.8, alpha=0.6)
    ax.set_axisbelow(True)
    if ylabel:
        ax.set_ylabel(ylabel, color=MUTED, fontsize=12)


def _png(figure: Figure) -> bytes:
    """Drawn once on the Agg canvas, saved as an RGB PNG (no alpha: a quarter fewer bytes to deflate)."""
    canvas = figure.canvas
    assert isinstance(canvas, FigureCanvasAgg)  # set by _figure
    canvas.draw()
    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    out = io.BytesIO()
    image.convert("RGB").save(out, format="PNG", **PNG_OPTIONS)
    return out.getvalue()


MATPLOTLIB_SHAPES = hasattr(ft2font, "__libraqm_version__")
"""Matplotlib lays text out with Raqm (3.11 on): right-to-left text goes in as written."""


def _t(text: str) -> str:
    """Text drawn as written: a ``$`` would start matplotlib's maths; right-to-left
    letters shaped and reordered here when matplotlib does not."""
    text = text.replace("$", r"\$")
    return text if MATPLOTLIB_SHAPES else T.visual(text)


def _key(figure: Figure, items: Sequence[tuple[str, tuple[float, ...]]], start: float, y: float) -> None:
    """A chart's key: ``items`` one after another in a line from ``start`` (figure
    fraction), each placed after the last one's measured width, whatever its
    alphabet. Right to left (from the right edge) in a right-to-left language."""
    rtl = _rtl()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    width = figure.bbox.width
    x = 1 - 0.015 if rtl else start
    for text, colour in items:
        drawn = figure.text(x, y, text, color=colour, fontsize=12, va="center", ha="right" if rtl else "left")
        extent = drawn.get_window_extent(renderer)
        x = extent.x0 / width - 0.018 if rtl else extent.x1 / width + 0.018


def _rtl() -> bool:
    """The picture's language is written right to left: titles go on the right."""
    return T.rtl_language() is not None


def _short(name: str, limit: int = 18) -> str:
    name = " ".join(name.split()) or "?"
    return _t(name if len(name) <= limit else name[: limit - 1] + "…")


def _quietly(draw):
    """Draw without the warnings of glyphs the font lacks (emoji in names): they are left out."""

    def drawn(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return draw(self)

    drawn.__doc__ = draw.__doc__
    return drawn


@dataclass(frozen=True, slots=True)
class Mark:
    """A decision marked on a game chart: a blunder or a cube error."""

    move: int
    player: int
    kind: str
    """``checker``, or a cube decision: ``double``, ``take``, ``pass``, ``beaver``."""
    loss: float

    @property
    def is_cube(self) -> bool:
        return self.kind != "checker"


@dataclass(frozen=True, slots=True)
class GameChart(Picture):
    """One game, move by move (player 0 plays the light checkers)."""

    title: str
    names: tuple[str, str]
    moves: tuple[int, ...]
    """Move numbers (1, 2, 3, ... across both players), one per move drawn."""
    movers: tuple[int, ...]
    """Who made each move."""
    win: tuple[float, ...]
    """Player 0's chance of winning after each move (0..1)."""
    gammons: tuple[tuple[float, float], ...]
    """Each player's chance of winning a gammon (or more) after each move."""
    luck: tuple[float, ...]
    """The luck of each move's roll for its mover (equity; 0 when none was measured)."""
    marks: tuple[Mark, ...] = ()
    footer: str = ""
    language: str = field(default_factory=current)
    """The language of the chart's words (see :mod:`renderer.pictures`)."""

    @spoken
    @_quietly
    def draw(self) -> bytes:
        figure = _figure(5.6)
        grid = figure.add_gridspec(
            2, 1, height_ratios=(3.2, 1.2), hspace=0.08, left=0.085, right=0.985, top=0.84, bottom=0.12
        )
        chances = figure.add_subplot(grid[0])
        luck = figure.add_subplot(grid[1], sharex=chances)
        xs = [0, *self.moves]
        win = [0.5, *self.win]
        g0 = [0.0, *(g[0] for g in self.gammons)]
        g1 = [0.0, *(g[1] for g in self.gammons)]
        # Stacked from the bottom: player 0's gammons, player 0's other wins, player 1's wins, player 1's gammons.
        layers = (
            [100 * g for g in g0],
            [100 * max(w - g, 0.0) for w, g in zip(win, g0)],
            [100 * max(1 - w - g, 0.0) for w, g in zip(win, g1)],
            [100 * g for g in g1],
        )
        colours = (GAMMON[0], SIDE[0], SIDE[1], GAMMON[1])
        chances.stackplot(xs, *layers, colors=colours, linewidth=0, antialiased=False)
        chances.plot(xs, [100 * w for w in win], color=BACKGROUND, linewidth=1.6)
        chances.axhline(50, color=BACKGROUND, linewidth=1, linestyle=(0, (4, 4)), alpha=0.7)
        _style(chances, ylabel=_t(_("wins %")))
        chances.set_ylim(0, 100)
        chances.set_xlim(0, max(xs[-1], 1))
        chances.yaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
        chances.tick_params(labelbottom=False)
        by_move = dict(zip(self.moves, self.win))
        for mark in self.marks:
            y = 100 * by_move.get(mark.move, by_move.get(mark.move - 1, 0.5))
            shape = "D" if mark.is_cube else "v"
            colour = CUBE if mark.is_cube else BLUNDER
            chances.plot(
                [mark.move],
                [y],
                marker=shape,
                markersize=11,
                color=colour,
                clip_on=False,
                markeredgecolor=BACKGROUND,
                markeredgewidth=1.5,
                zorder=5,
            )
            above = y < 80
            chances.annotate(
                str(mark.move),
                (mark.move, y),
                xytext=(0, 14 if above else -16),
                textcoords="offset points",
                ha="center",
                va="center",
                fontsize=12,
                fontweight="bold",
                color=TEXT,
                zorder=6,
                bbox={"boxstyle": "round,pad=0.15", "fc": BACKGROUND, "ec": colour, "lw": 1.2},
            )
        bars = list(self.luck)
        # Each player's bars as one stepped area (not a patch per bar: a long game has hundreds of moves).
        for seat in (0, 1):
            heights = [v if p == seat else 0.0 for v, p in zip(bars, self.movers)]
            luck.fill_between(self.moves, heights, step="mid", color=SIDE[seat], linewidth=0)
        luck.axhline(0, color=MUTED, linewidth=0.8)
        _style(luck, ylabel=_t(_("luck")))
        top = max((abs(v) for v in bars), default=0.1)
        luck.set_ylim(-max(top, 0.1) * 1.1, max(top, 0.1) * 1.1)
        luck.yaxis.set_major_locator(MaxNLocator(nbins=3, symmetric=True))
        luck.yaxis.set_major_formatter(FuncFormatter(lambda v, _position: f"{v:+.1f}" if v else "0"))
        luck.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
        luck.set_xlabel(_t(pgettext("chart", "move")), color=MUTED, fontsize=12, labelpad=2)
        left, align = (0.985, "right") if _rtl() else (0.085, "left")
        figure.text(left, 0.935, _t(self.title), color=TEXT, fontsize=17, fontweight="bold", va="center", ha=align)
        legend = [
            (f"■ {_short(self.names[0])}", SIDE[0]),
            (f"■ {_short(self.names[1])}", SIDE[1]),
            ("▼ " + _t(_("blunder")), BLUNDER),
            ("◆ " + _t(_("cube error")), CUBE),
            (_t(_("darker/lighter: gammons")), MUTED),
        ]
        _key(figure, legend, 0.085, 0.875)
        if self.footer:
            figure.text(left, 0.03, _t(self.footer), color=MUTED, fontsize=11, va="center", ha=align)
        return _png(figure)


@dataclass(frozen=True, slots=True)
class RatingChart(Picture):
    """A member's rated matches in one server, oldest first."""

    title: str
    times: tuple[float, ...]
    """When each rated match ended (Unix seconds)."""
    ratings: tuple[float, ...]
    """The rating after each match."""
    points: tuple[int, ...]
    """Net points each match won or lost (stake included)."""
    won: tuple[bool, ...]
    start_rating: float = 1500.0
    error_times: tuple[float, ...] = ()
    """When each analysed match ended."""
    error_rates: tuple[float, ...] = ()
    """The member's error rate in each analysed match (millipoints per decision)."""
    best_win: int | None = None
    """Index (in :attr:`times`) of the best win: the highest-rated opponent beaten."""
    best_win_label: str = ""
    subtitle: str = ""
    footer: str = ""
    language: str = field(default_factory=current)
    """The language of the chart's words (see :mod:`renderer.pictures`)."""

    @spoken
    @_quietly
    def draw(self) -> bytes:
        figure = _figure(6.4)
        grid = figure.add_gridspec(
            3, 1, height_ratios=(2.4, 1.3, 1.1), hspace=0.12, left=0.1, right=0.985, top=0.84, bottom=0.1
        )
        rating = figure.add_subplot(grid[0])
        points = figure.add_subplot(grid[1], sharex=rating)
        errors = figure.add_subplot(grid[2], sharex=rating)
        days = [t / 86400.0 for t in self.times]
        first = days[0] - 0.5 if days else 0.0
        xs = [first, *days]
        ys = [self.start_rating, *self.ratings]
        rating.plot(xs, ys, color=LINE, linewidth=2.2)
        rating.scatter(
            days, self.ratings, s=26, zorder=4, linewidths=0, color=[SIDE[0] if w else SIDE[1] for w in self.won]
        )
        if self.best_win is not None and 0 <= self.best_win < len(days):
            x, y = days[self.best_win], self.ratings[self.best_win]
            rating.plot([x], [y], marker="*", markersize=20, color=BLUNDER, markeredgecolor=BACKGROUND, zorder=5)
            if self.best_win_label:
                rating.annotate(
                    _t(self.best_win_label),
                    (x, y),
                    xytext=(0, 20),
                    textcoords="offset points",
                    ha="center",
                    fontsize=12,
                    color=TEXT,
                    fontweight="bold",
                    bbox={"boxstyle": "round,pad=0.2", "fc": BACKGROUND, "ec": BLUNDER, "lw": 1.2},
                )
        _style(rating, ylabel=_t(_("rating")))
        low, high = min(ys), max(ys)
        pad = max((high - low) * 0.18, 12.0)
        rating.set_ylim(low - pad, high + pad * 1.6)
        rating.tick_params(labelbottom=False)
        total = 0
        cumulative = []
        for p in self.points:
            total += p
            cumulative.append(total)
        points.fill_between(xs, [0, *cumulative], step="post", color=SIDE[0], alpha=0.35, linewidth=0)
        points.plot(xs, [0, *cumulative], drawstyle="steps-post", color=SIDE[0], linewidth=1.8)
        points.axhline(0, color=MUTED, linewidth=0.8)
        _style(points, ylabel=_t(pgettext("chart", "points")))
        points.yaxis.set_major_locator(MaxNLocator(nbins=3, integer=True))
        points.tick_params(labelbottom=False)
        _style(errors, ylabel=_t(_("error rate")))
        if self.error_rates:
            edays = [t / 86400.0 for t in self.error_times]
            errors.scatter(edays, self.error_rates, s=22, color=CUBE, linewidths=0, zorder=3)
            trend = _moving_average(self.error_rates, 5)
            errors.plot(edays, trend, color=CUBE, linewidth=2)
            errors.set_ylim(0, max(max(self.error_rates) * 1.15, 5))
            errors.yaxis.set_major_locator(MaxNLocator(nbins=3, integer=True))
        else:
            errors.set_yticks([])
            errors.text(
                0.5,
                0.5,
                _t(_("no analysed match yet")),
                transform=errors.transAxes,
                ha="center",
                va="center",
                color=MUTED,
                fontsize=12,
            )
        span = (days[-1] - first) if days else 1.0
        errors.set_xlim(first, (days[-1] if days else 1.0) + max(span * 0.03, 0.3))
        errors.xaxis.set_major_locator(MaxNLocator(nbins=6))
        errors.xaxis.set_major_formatter(FuncFormatter(_day_label))
        rtl = _rtl()
        left, align = (0.985, "right") if rtl else (0.1, "left")
        figure.text(left, 0.94, _t(self.title), color=TEXT, fontsize=17, fontweight="bold", va="center", ha=align)
        if self.subtitle:
            figure.text(left, 0.885, _t(self.subtitle), color=MUTED, fontsize=12.5, va="center", ha=align)
        # The key sits opposite the title.
        key = ((0.1, "● " + _t(_("won")), SIDE[0]), (0.19, "● " + _t(_("lost")), SIDE[1]))
        for x, text, colour in key if rtl else ((0.80, key[0][1], SIDE[0]), (0.89, key[1][1], SIDE[1])):
            figure.text(x, 0.94, text, color=colour, fontsize=12, va="center")
        if self.footer:
            figure.text(left, 0.03, _t(self.footer), color=MUTED, fontsize=11, va="center", ha=align)
        return _png(figure)


def _moving_average(values: tuple[float, ...], window: int) -> list[float]:
    out = []
    for i in range(len(values)):
        part = values[max(0, i - window + 1) : i + 1]
        out.append(sum(part) / len(part))
    return out


def _day_label(day: float, _position: object) -> str:
    """A date on the time axis, "3 Jan", with the month in the chart's language."""
    if not math.isfinite(day):
        return ""
    moment = datetime.fromtimestamp(day * 86400.0, UTC)
    month = locale().months["format"]["abbreviated"][moment.month]
    return _t(f"{moment.day} {month}")


def warm_up() -> None:
    """Draw a small chart once: fonts and caches load before the first real one."""
    GameChart("", ("", ""), (1, 2), (0, 1), (0.5, 0.5), ((0.1, 0.1), (0.1, 0.1)), (0.0, 0.0)).draw()


@dataclass(frozen=True, slots=True)
class WarmUp(Picture):
    """Sent to each drawing worker at start: matplotlib loads before the first chart is asked for."""

    def draw(self) -> bytes:
        warm_up()
        return b""


__all__ = ["GameChart", "Mark", "RatingChart", "WarmUp", "warm_up"]
