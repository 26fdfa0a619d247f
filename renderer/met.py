"""A match equity table around a score: each cell the first player's chance to win
the match at that many points away against the column's, the score marked.
Its words ("3-away") are in the picture's ``language`` (see :mod:`renderer.pictures`)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from i18n import _, current
from renderer import text as T
from renderer.pictures import Picture, spoken
from renderer.themes import CLASSIC, RGB, THEMES

CELL_W, CELL_H, PAD, TITLE_H, FOOT_H = 64, 34, 16, 58, 30


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


@dataclass(frozen=True, slots=True)
class MetPicture(Picture):
    """``grid[i][j]``: the row player's chance at ``origin[0] + i`` away against ``origin[1] + j`` away."""

    title: str
    names: tuple[str, str]
    grid: tuple[tuple[float, ...], ...]
    origin: tuple[int, int]
    marked: tuple[int, int] | None = None
    """The score's cell (points away each), drawn outlined."""
    footer: str = ""
    theme: str = CLASSIC.name
    language: str = field(default_factory=current)
    """The language of the picture's words (see :mod:`renderer.pictures`)."""

    @spoken
    def draw(self) -> bytes:
        theme = THEMES.get(self.theme, CLASSIC)
        rows = len(self.grid)
        cols = len(self.grid[0]) if rows else 0
        label_w = CELL_W + 24
        width = PAD * 2 + label_w + cols * CELL_W
        height = PAD * 2 + TITLE_H + (rows + 1) * CELL_H + (FOOT_H if self.footer else 0)
        image = Image.new("RGB", (width, height), theme.background)
        draw = ImageDraw.Draw(image)
        text, light = theme.text, _mix(theme.background, theme.text, 0.12)
        layout = T.layout(T.rtl_language())
        draw.text(
            (PAD, PAD),
            T.for_drawing(T.fit(T.clean(self.title, "?"), 22, width - 2 * PAD)),
            font=T.font(22),
            fill=text,
            **layout,
        )
        top = PAD + TITLE_H
        head = (
            f"{T.fit(T.clean(self.names[0], '?'), 13, label_w - 8)} ↓ · {T.fit(T.clean(self.names[1], '?'), 13, 90)} →"
        )
        draw.text((PAD, top - 22), T.for_drawing(head), font=T.font(13), fill=text, **layout)
        left = PAD + label_w
        for j in range(cols):
            cx = left + j * CELL_W + CELL_W // 2
            away = _("{count}-away").format(count=self.origin[1] + j)
            draw.text((cx, top + CELL_H // 2), away, font=T.font(14), fill=text, anchor="mm", **layout)
        for i in range(rows):
            y = top + (i + 1) * CELL_H
            draw.text(
                (PAD + label_w - 10, y + CELL_H // 2),
                _("{count}-away").format(count=self.origin[0] + i),
                font=T.font(14),
                fill=text,
                anchor="rm",
                **layout,
            )
            for j in range(cols):
                x = left + j * CELL_W
                chance = self.grid[i][j]
                fill = _mix(
                    theme.background,
                    (46, 160, 67) if chance >= 0.5 else (207, 34, 46),
                    min(abs(chance - 0.5) * 1.6, 0.75),
                )
                draw.rectangle((x + 1, y + 1, x + CELL_W - 2, y + CELL_H - 2), fill=fill if chance != 0.5 else light)
                draw.text(
                    (x + CELL_W // 2, y + CELL_H // 2), f"{100 * chance:.1f}", font=T.font(15), fill=text, anchor="mm"
                )
                if self.marked == (self.origin[0] + i, self.origin[1] + j):
                    draw.rectangle((x, y, x + CELL_W - 1, y + CELL_H - 1), outline=text, width=3)
        if self.footer:
            draw.text(
                (PAD, height - PAD - 18),
                T.for_drawing(T.fit(T.clean(self.footer), 13, width - 2 * PAD)),
                font=T.font(13),
                fill=text,
                **layout,
            )
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=False)
        return out.getvalue()
