"""The patience picture: a PNG of the expected size, the cards, the serpent, the
marked squares and the hands where they belong, the same bytes every time."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

from engine.patience import AMERICAN, HOYLE_DEAL, Cell, Layout, deal_from_seed, parse_cards
from renderer import patience as P
from renderer.themes import CLASSIC, HIGH_CONTRAST, RGB

HOYLE_81 = [
    "H8 H5 C3 H6 C10",
    "HK HA HJ HQ H10",
    "SQ SJ S3 DQ CQ",
    "H4 H7 H3 D6 S5",
    "C2 D2 D3 S6 H2",
]


@pytest.fixture(scope="module")
def finished() -> Layout:
    return Layout.from_grid(HOYLE_DEAL, [parse_cards(row) for row in HOYLE_81])


@pytest.fixture(scope="module")
def partial() -> Layout:
    return Layout.parse(HOYLE_DEAL, "D4 E4 E3 D3 D2 E2 E1 D1 C1 C2 B2 B1 A1 A2 A3 A4 A5 B5")


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()  # the whole stream decodes
    return image.convert("RGB")


def close(actual: float | tuple[int, ...] | None, expected: RGB, tolerance: int = 12) -> bool:
    assert isinstance(actual, tuple), actual  # an RGB(A) pixel
    return all(abs(a - e) <= tolerance for a, e in zip(actual, expected))


def gutter(a: Cell, b: Cell) -> tuple[int, int]:
    """The middle of the felt between the cards on two neighbouring squares."""
    (ax, ay), (bx, by) = P.cell_center(a), P.cell_center(b)
    return (ax + bx) // 2, (ay + by) // 2


@pytest.mark.parametrize("theme", [CLASSIC, HIGH_CONTRAST], ids=lambda t: t.name)
def test_a_valid_png_of_the_expected_size(finished: Layout, partial: Layout, theme) -> None:
    for layout in (finished, partial, Layout.start(HOYLE_DEAL)):
        png = P.render_patience(layout, theme=theme)
        image = decode(png)
        assert image.size == P.SIZE_PX == (940, 972)
        assert len(png) < 400 * 1024


def test_cards_path_and_felt_where_they_belong(finished: Layout) -> None:
    image = decode(P.render_patience(finished, title="Hoyle's deal", best=81))
    # Every card's face shows near its corner, below the number tab.
    for cell in finished.path:
        left, top, _, _ = P.card_box(cell)
        assert close(image.getpixel((left + 8, top + 40)), P.face_colour(CLASSIC)), cell
    # The serpent joins each card to the next across the felt ...
    for a, b in zip(finished.path, finished.path[1:]):
        assert close(image.getpixel(gutter(a, b)), CLASSIC.highlight), (a, b)
    # ... and nowhere else: D4 (card 1) and D5 (card 24) are neighbours, not one after the other.
    assert close(image.getpixel(gutter(Cell(3, 3), Cell(4, 3))), CLASSIC.felt)


def test_a_partial_layout_marks_where_the_next_card_may_go(partial: Layout) -> None:
    image = decode(P.render_patience(partial))
    (legal,) = partial.legal_cells()
    assert legal == Cell(3, 1)
    left, top, right, bottom = P.card_box(legal)
    dashes = sum(close(image.getpixel((x, top + 1)), CLASSIC.highlight, 30) for x in range(left, right))
    assert dashes > (right - left) // 2  # the dashed outline
    free = Cell(4, 4)
    fl, ft, _, _ = P.card_box(free)
    assert close(image.getpixel((fl + 30, ft + 30)), P.slot_colour(CLASSIC))  # an empty square, unmarked
    # The card laid last is ringed.
    assert partial.last_cell is not None
    ll, lt, _, _ = P.card_box(partial.last_cell)
    assert close(image.getpixel((ll - 3, lt + 60)), CLASSIC.highlight, 30)
    plain = decode(P.render_patience(partial, show_legal=False))
    assert close(plain.getpixel((left + 30, top + 30)), P.slot_colour(CLASSIC))


def test_the_same_layout_gives_the_same_bytes_in_any_thread(finished: Layout, partial: Layout) -> None:
    expected = [P.render_patience(layout, AMERICAN) for layout in (finished, partial)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda n: P.render_patience((finished, partial)[n % 2], AMERICAN), range(8)))
    assert results == expected * 4


def test_any_title_is_drawn_safely(partial: Layout) -> None:
    for title in ("", "🎲🎲", "Serveur du café \u202e\u0000 " + "x" * 200, "שלום עולם"):
        assert decode(P.render_patience(partial, title=title)).size == P.SIZE_PX


def test_every_deal_draws() -> None:
    for n in range(3):
        layout = Layout.start(deal_from_seed(f"render {n}"))
        while not layout.is_complete:
            layout = layout.place(layout.legal_cells()[-1])
            if layout.placed % 8 == 0:
                assert decode(P.render_patience(layout, theme=HIGH_CONTRAST)).size == P.SIZE_PX
        assert decode(P.render_patience(layout, best=999)).size == P.SIZE_PX


def test_a_patience_picture_pickles_small_and_draws_the_same_bytes(partial: Layout) -> None:
    import pickle

    picture = P.PatiencePicture.of(partial, AMERICAN, title="Daily deal 2026-03-02")
    copy = pickle.loads(pickle.dumps(picture))
    assert copy == picture and len(pickle.dumps(picture)) < 500
    assert copy.layout() == partial
    assert copy.draw() == P.render_patience(partial, AMERICAN, title="Daily deal 2026-03-02")


async def test_a_patience_picture_is_drawn_by_a_worker(finished: Layout) -> None:
    from renderer.pool import RenderWorkers

    workers = RenderWorkers(1)
    try:
        png = await workers.picture(P.PatiencePicture.of(finished, best=81, show_legal=False))
    finally:
        workers.close()
    assert png == P.render_patience(finished, best=81, show_legal=False)
