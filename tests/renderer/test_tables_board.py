"""Boards of plakoto, fevga and nardy (renderer/tables.py): a pinned checker shows under its
captor, the starting points are labelled, the picture is an indexed PNG of the board's size."""

import io

import pytest
from PIL import Image

from engine.tables import tables_position
from engine.variants import RULES
from renderer import layout as L
from renderer.tables import render_tables, render_tables_image
from renderer.themes import CLASSIC


def near(colour, expected, tolerance=40):
    return all(abs(a - b) <= tolerance for a, b in zip(colour, expected, strict=False))


@pytest.mark.parametrize("game", list(RULES))
def test_start_pictures(game):
    data = render_tables(RULES[game].start())
    image = Image.open(io.BytesIO(data))
    assert image.size == L.SIZE and image.mode == "P"
    rgb = render_tables_image(RULES[game].start())
    # The bottom player's fifteen stand on their 24 (top right), the opponent's on their start.
    x, y = L.checker_center(24, 0)
    assert near(rgb.getpixel((x, y)), CLASSIC.checker[0])
    theirs = 1 if game == "plakoto" else 12
    x, y = L.checker_center(theirs, 0)
    assert near(rgb.getpixel((x, y)), CLASSIC.checker[1])


def test_a_pinned_checker_shows_under_its_captor():
    # Ours on top of their pinned checker on our 7 (bottom row).
    position = tables_position("plakoto", {7: 1, 24: 10}, {1: 10}, pins={7: -1})
    rgb = render_tables_image(position)
    x, y = L.checker_center(7, 0)
    # The base shows the pinned (opponent's) checker's lower edge, the captor sits half a checker in.
    assert near(rgb.getpixel((x, y + L.CHECKER_RADIUS - 6)), CLASSIC.checker[1])
    assert near(rgb.getpixel((x, y - L.CHECKER_RADIUS)), CLASSIC.checker[0])
    # Without the pin the same point shows only our checker at its base.
    plain = render_tables_image(tables_position("plakoto", {7: 1, 24: 10}, {1: 10}))
    assert near(plain.getpixel((x, y)), CLASSIC.checker[0])
