"""The charts (renderer.charts): PNGs of a fixed size, any names, in well under the budget."""

from __future__ import annotations

import io

from PIL import Image

from renderer.charts import GameChart, Mark, RatingChart, WarmUp, warm_up
from renderer.pipe import draw


def game_chart(moves: int = 120, name: str = "alice") -> GameChart:
    win = tuple(0.5 + 0.45 * ((i * 37) % 100 - 50) / 50 for i in range(moves))
    return GameChart(
        title=f"Game #1 · {name} vs bob",
        names=(name, "bob"),
        moves=tuple(range(1, moves + 1)),
        movers=tuple(i % 2 for i in range(moves)),
        win=win,
        gammons=tuple((w / 4, (1 - w) / 4) for w in win),
        luck=tuple(((i * 13) % 7 - 3) / 10 for i in range(moves)),
        marks=(Mark(7, 0, "checker", 0.12), Mark(30, 1, "double", 0.3), Mark(moves, 0, "take", 0.05)),
        footer=f"{name}: error rate 4.2",
    )


def rating_chart(matches: int = 80, name: str = "alice") -> RatingChart:
    return RatingChart(
        title=f"{name} · Club",
        times=tuple(1.77e9 + 50_000 * i for i in range(matches)),
        ratings=tuple(1500 + 3 * i - (i % 5) * 4 for i in range(matches)),
        points=tuple((-1) ** i * (i % 3) for i in range(matches)),
        won=tuple(i % 3 != 0 for i in range(matches)),
        error_times=tuple(1.77e9 + 100_000 * i for i in range(matches // 2)),
        error_rates=tuple(5 + i % 9 for i in range(matches // 2)),
        best_win=matches // 2,
        best_win_label="beat bob (1620)",
        subtitle="53 won · 27 lost",
        footer="Error rate",
    )


def test_charts_are_pngs_of_a_fixed_size():
    warm_up()
    for chart, size in (
        (game_chart(), (900, 560)),
        (rating_chart(), (900, 640)),
        (game_chart(2), (900, 560)),
        (rating_chart(1), (900, 640)),
    ):
        image = Image.open(io.BytesIO(chart.draw()))
        assert image.format == "PNG" and image.size == size


def test_any_name_draws():
    """matplotlib reads $...$ as maths and lacks emoji: both are drawn as plain text or left out."""
    for name in ("$x^$", "a $\\frac{", "🎲🎲 dice", "\u202eevil", "x" * 200):
        assert game_chart(10, name).draw()[:4] == b"\x89PNG"
        assert rating_chart(3, name).draw()[:4] == b"\x89PNG"


def test_a_rating_chart_without_analysed_matches():
    chart = RatingChart(title="carol", times=(1.77e9,), ratings=(1508.0,), points=(1,), won=(True,))
    assert chart.draw()[:4] == b"\x89PNG"


def test_the_worker_draws_charts_and_warms_up():
    assert draw(WarmUp()) == b""
    assert draw(game_chart())[:4] == b"\x89PNG"


def test_a_long_game_is_drawn_whole_and_small():
    """A 300-move game fits one picture an upload takes (its time is bench/render.py's to print:
    a timed check here failed on a fresh clone whose tests shared the cores)."""
    warm_up()
    png = game_chart(300).draw()
    assert png[:4] == b"\x89PNG" and len(png) < 500_000
    assert png != game_chart(120).draw()
