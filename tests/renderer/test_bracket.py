"""Tournament pictures (renderer/bracket.py): the bracket and the standings are PNGs
of their stated size in the boards' colours, the same data gives the same bytes,
anything in a name is drawn without a crash, and the drawing workers draw them."""

from __future__ import annotations

import io
import pickle

import pytest
from PIL import Image

from renderer.bracket import (
    BracketMatch,
    BracketPicture,
    PairingLine,
    Slot,
    StandingRow,
    StandingsPicture,
    bracket_size,
    default_round_names,
    render_bracket_image,
    standings_size,
    theme_palette,
)
from renderer.pool import RenderWorkers
from renderer.themes import CLASSIC, HIGH_CONTRAST

HOSTILE = ["", "‮evil", "👑👑👑", "a" * 300, "<@123> @everyone", "שלום עולם", "\x00\n\t", "Zoë"]


def knockout(players: int, played: int, names: list[str] | None = None) -> BracketPicture:
    size = 2
    while size < players:
        size *= 2
    slots: list[Slot | None] = [
        Slot((names or [])[i % len(names)] if names else f"P{i + 1}", i + 1) for i in range(size)
    ]
    rounds = []
    for number in range(size.bit_length() - 1):
        boxes, following = [], []
        for k in range(len(slots) // 2):
            a, b = slots[2 * k], slots[2 * k + 1]
            if number < played:
                boxes.append(BracketMatch(a, b, k % 2, "done"))
                following.append((a, b)[k % 2])
            else:
                boxes.append(BracketMatch(a, b, None, "playing" if number == played else "waiting"))
                following.append(None)
        rounds.append(tuple(boxes))
        slots = following
    return BracketPicture("Cup", "Knockout", tuple(rounds), footer="ends soon")


def opened(png: bytes) -> Image.Image:
    assert png.startswith(b"\x89PNG")
    return Image.open(io.BytesIO(png))


@pytest.mark.parametrize("players, played", [(2, 0), (4, 1), (16, 2), (64, 3)])
def test_a_bracket_is_a_png_of_its_size(players: int, played: int) -> None:
    picture = knockout(players, played)
    image = opened(picture.draw())
    assert image.size == bracket_size(picture)
    assert image.mode == "P"  # indexed on the theme's palette
    assert image.size[0] >= 940  # at least as wide as a board: read like one on a phone
    if players == 64:
        assert image.size[0] <= 1800


def test_the_same_bracket_gives_the_same_bytes_and_pickles() -> None:
    picture = knockout(16, 2)
    assert picture.draw() == picture.draw()
    assert pickle.loads(pickle.dumps(picture)) == picture  # what the drawing workers receive


def test_the_bracket_uses_the_boards_colours() -> None:
    image = render_bracket_image(knockout(8, 1))
    counted = image.getcolors(1 << 20)
    assert counted is not None
    colours = {colour for _, colour in counted}
    for colour in (CLASSIC.background, CLASSIC.felt, CLASSIC.highlight, CLASSIC.text):
        assert colour in colours
    assert theme_palette(CLASSIC).getpalette() is not None


def test_round_names() -> None:
    assert default_round_names(1) == ("Final",)
    assert default_round_names(4) == ("Round 1", "Quarter-finals", "Semi-finals", "Final")


def test_byes_voids_and_hostile_names_draw() -> None:
    rounds = (
        (
            BracketMatch(Slot(HOSTILE[1], 1), None, 0, "bye"),
            BracketMatch(Slot(HOSTILE[3], 2), Slot(HOSTILE[2], 3), None, "void"),
            BracketMatch(Slot(HOSTILE[0], 4), Slot(HOSTILE[6], 5, withdrawn=True), 1, "done"),
            BracketMatch(None, None),
        ),
        (BracketMatch(Slot(HOSTILE[1], 1), None), BracketMatch(None, Slot(HOSTILE[6], 5))),
        (BracketMatch(None, None),),
    )
    for theme in (CLASSIC.name, HIGH_CONTRAST.name, "no such theme"):
        picture = BracketPicture(
            HOSTILE[5] * 20, HOSTILE[4], rounds, champion=HOSTILE[3], footer=HOSTILE[2], theme=theme
        )
        assert opened(picture.draw()).size == bracket_size(picture)


def test_standings_draw_with_and_without_tie_breaks() -> None:
    rows = tuple(
        StandingRow(n + 1, HOSTILE[n % len(HOSTILE)], 3 - n // 3, 3, n // 3, n, n // 2, withdrawn=n == 2)
        for n in range(9)
    )
    pairings = (PairingLine("Ann", "Bob", "1–0", 0), PairingLine("Cy", None, "", 0), PairingLine("Di", "Ed", "v"))
    for tie_breaks in (True, False):
        picture = StandingsPicture("Swiss", "round 3", rows, tie_breaks, "Round 3", pairings, champion="Ann")
        assert opened(picture.draw()).size == standings_size(picture)
    empty = StandingsPicture("Nobody", "", ())
    assert opened(empty.draw()).size == standings_size(empty)


async def test_the_drawing_workers_draw_a_bracket() -> None:
    workers = RenderWorkers(1)
    await workers.start()
    try:
        picture = knockout(8, 1)
        assert await workers.picture(picture) == picture.draw()
    finally:
        workers.close()
