"""The board picture: size, pixels at known places, determinism, viewpoints, extremes, text."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

from engine.gnubgid import MatchState, encode_match_id
from engine.play import Move, format_moves
from engine.position import Position
from renderer import layout as L
from renderer import text as T
from renderer.board import NAME_MAX_WIDTH, last_play_text, render_board, render_image
from renderer.scene import BoardScene
from renderer.themes import CLASSIC, HIGH_CONTRAST, RGB, Theme

THEMES = [CLASSIC, HIGH_CONTRAST]


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


def close(actual: float | tuple[int, ...] | None, expected: RGB, tolerance: int = 10) -> bool:
    """Palette quantisation may move a colour by a few levels."""
    assert isinstance(actual, tuple), actual  # an RGB(A) pixel
    return all(abs(a - e) <= tolerance for a, e in zip(actual, expected))


def empty_point_spot(point: int) -> tuple[int, int]:
    """A pixel inside the triangle of ``point``, near its base, where no checker is."""
    box = L.point_box(point)
    return box.center_x, box.base_y + (30 if box.top else -30)


def count_colour(image: Image.Image, center: tuple[int, int], colour: RGB, half: int = 14) -> int:
    """Pixels of ``colour`` (roughly) in a square around ``center``."""
    x, y = center
    return sum(
        close(image.getpixel((i, j)), colour, 40) for i in range(x - half, x + half) for j in range(y - half, y + half)
    )


@pytest.fixture(scope="module")
def start_png() -> bytes:
    return render_board(BoardScene(Position.start(), names=("Ann", "Bob"), dice=(6, 4)))


def test_png_is_wide_enough_and_small(start_png: bytes) -> None:
    image = decode(start_png)
    assert image.width >= 800
    assert image.size == L.SIZE
    assert len(start_png) <= 100 * 1024


@pytest.mark.parametrize("theme", THEMES, ids=lambda t: t.name)
def test_start_position_pixels(theme: Theme) -> None:
    image = decode(render_board(BoardScene(Position.start(), theme=theme)))
    # Five of ours on the six point, bottom right; the opponent's five on our 19 (their 6).
    for index in range(5):
        assert close(image.getpixel(L.checker_center(6, index)), theme.checker[0])
        assert close(image.getpixel(L.checker_center(19, index)), theme.checker[1])
    assert not close(image.getpixel(L.checker_center(6, 5 if L.STACK_LIMIT > 5 else 4)), theme.felt)
    # Point 3 is empty: its own triangle colour shows; point 4 has the other colour.
    assert close(image.getpixel(empty_point_spot(3)), theme.points[3 % 2])
    assert close(image.getpixel(empty_point_spot(4)), theme.points[4 % 2])
    # The centred cube sits in the middle of its strip; its ends of the strip are empty.
    cx, cy = L.cube_center(None)
    assert close(image.getpixel((cx - 18, cy - 18)), theme.cube)
    assert close(image.getpixel(L.cube_center(True)), theme.tray)


def test_checker_colour_follows_the_player() -> None:
    """on_roll_colour=1: the player on roll has the dark checkers."""
    image = decode(render_board(BoardScene(Position.start(), on_roll_colour=1)))
    assert close(image.getpixel(L.checker_center(6, 0)), CLASSIC.checker[1])
    assert close(image.getpixel(L.checker_center(19, 0)), CLASSIC.checker[0])


def test_cube_moves_to_its_owner() -> None:
    theme = CLASSIC
    mine = decode(render_board(BoardScene(Position.start(), cube_value=2, cube_owner=0)))
    theirs = decode(render_board(BoardScene(Position.start(), cube_value=2, cube_owner=1)))
    mx, my = L.cube_center(True)
    tx, ty = L.cube_center(False)
    assert close(mine.getpixel((mx - 18, my - 18)), theme.cube)
    assert close(mine.getpixel(L.cube_center(None)), theme.tray)
    assert close(theirs.getpixel((tx - 18, ty - 18)), theme.cube)
    assert close(theirs.getpixel((mx - 18, my - 18)), theme.tray)
    # Viewed from the opponent, the on-roll player's cube is at the top.
    flipped = decode(render_board(BoardScene(Position.start(), cube_value=2, cube_owner=0, viewpoint=1)))
    assert close(flipped.getpixel((tx - 18, ty - 18)), theme.cube)


def test_identical_input_gives_identical_bytes() -> None:
    scene = BoardScene(Position.start(), names=("Ann 🎲", "Bob"), dice=(3, 1), last_play=(Move(24, 21), Move(13, 12)))
    first = render_board(scene)
    assert render_board(scene) == first
    assert render_board(BoardScene(Position.start(), names=("Ann 🎲", "Bob"), dice=(3, 1))) != first


def test_threads_render_the_same_bytes() -> None:
    scenes = [
        BoardScene(Position.start(), names=("Ann", "Bob"), dice=(d, 7 - d), theme=THEMES[d % 2]) for d in range(1, 7)
    ]
    expected = [render_board(scene) for scene in scenes]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(render_board, scenes * 2))
    assert got == expected * 2


def test_viewpoint_flips_the_board() -> None:
    """All our checkers on our ace point: bottom right for us, top right for the opponent."""
    position = Position.from_counts({1: 15}, {1: 15})
    ours = CLASSIC.checker[0]
    near = decode(render_board(BoardScene(position, viewpoint=0)))
    far = decode(render_board(BoardScene(position, viewpoint=1)))
    assert close(near.getpixel(L.checker_center(1, 0)), ours)
    assert not close(near.getpixel(L.checker_center(24, 0)), ours)
    assert close(far.getpixel(L.checker_center(24, 0)), ours)
    assert not close(far.getpixel(L.checker_center(1, 0)), ours)


def test_tall_stack_shows_its_count() -> None:
    theme = CLASSIC
    tall = decode(render_board(BoardScene(Position.from_counts({6: 15}, {6: 15}))))
    short = decode(render_board(BoardScene(Position.start())))
    top = L.checker_center(6, L.STACK_LIMIT - 1)
    text = theme.checker_text[0]
    assert count_colour(tall, top, text) > 20  # the digits "15"
    assert count_colour(short, top, text) < 5
    # The opponent's 15 on their six point (our 19) is counted too.
    assert count_colour(tall, L.checker_center(19, L.STACK_LIMIT - 1), theme.checker_text[1]) > 20


def test_fifteen_on_the_bar_and_fifteen_off() -> None:
    theme = CLASSIC
    scene = BoardScene(Position(tuple([0] * 24), bar=(15, 0), off=(0, 15)))
    image = decode(render_board(scene))
    # Ours wait in the upper half of the bar, the outermost one carrying "15".
    assert close(image.getpixel(L.bar_center(True, 0)), theme.checker[0])
    assert count_colour(image, L.bar_center(True, L.BAR_LIMIT - 1), theme.checker_text[0]) > 20
    # The opponent's 15 borne off fill the top tray.
    for index in (0, 14):
        x0, y0, x1, y1 = L.tray_slab(False, index)
        assert close(image.getpixel(((x0 + x1) // 2, (y0 + y1) // 2)), theme.checker[1])
    # And the opponent's bar too: 15 of theirs.
    render_board(BoardScene(Position(tuple([0] * 24), bar=(0, 15), off=(15, 0))))


def test_last_play_is_marked_in_our_numbering() -> None:
    """The opponent's 13/9* lands on our 16 and their 24/23 on our 2."""
    theme = CLASSIC
    position = Position.from_counts(
        {25: 1, 24: 2, 13: 5, 8: 3, 6: 4},
        {23: 1, 22: 1, 13: 4, 9: 1, 8: 3, 6: 4, 5: 1},
    )
    play = (Move(13, 9, True), Move(24, 23))
    marked = decode(render_board(BoardScene(position, last_play=play, last_play_by=1)))
    plain = decode(render_board(BoardScene(position)))
    for point in (16, 12, 2, 1):  # where they arrived and where they left
        assert close(marked.getpixel((L.number_center(point)[0] - 17, L.number_center(point)[1])), theme.highlight)
        assert not close(plain.getpixel((L.number_center(point)[0] - 17, L.number_center(point)[1])), theme.highlight)
    for point in (9, 13, 24, 23):
        assert not close(marked.getpixel((L.number_center(point)[0] - 17, L.number_center(point)[1])), theme.highlight)
    # The hit checker on our bar wears the hit badge.
    x, y = L.bar_center(True, 0)
    assert count_colour(marked, (x + L.CHECKER_RADIUS - 6, y), theme.hit, 8) > 20
    assert count_colour(plain, (x + L.CHECKER_RADIUS - 6, y), theme.hit, 8) == 0


def test_the_picture_spells_a_play_as_the_message_does() -> None:
    """One notation: the band's "played" line is the engine's canonical spelling."""
    position = Position.start()
    for moves, expected in (
        ((Move(13, 7), Move(7, 4)), "13/4"),
        ((Move(24, 18), Move(18, 13, True)), "24/13*"),
        ((Move(24, 18, True), Move(18, 13)), "24/18*/13"),
        ((Move(6, 0), Move(25, 22), Move(6, 0), Move(13, 7, True)), "bar/22 13/7* 6/off(2)"),
    ):
        scene = BoardScene(position, names=("A", "B"), last_play=moves, last_play_by=0)
        assert last_play_text(scene) == "played " + format_moves(moves) == "played " + expected
    assert last_play_text(BoardScene(position, names=("A", "B"))) is None


NAMES = [
    "🎲🎲🎲",
    "Zoë 🎲 the 🐉 dragon\u200d",
    "עמית כהן",
    "محمد العربي",
    "Ann\nnewline\tand\x00control",
    "x" * 200,
    "长名字" * 30,
    "",
]


@pytest.mark.parametrize("name", NAMES)
def test_any_name_renders(name: str) -> None:
    png = render_board(BoardScene(Position.start(), names=(name, name[::-1]), dice=(2, 1)))
    assert decode(png).size == L.SIZE


def test_long_names_are_cut_with_an_ellipsis() -> None:
    cut = T.fit("W" * 200, 26, NAME_MAX_WIDTH)
    assert cut.endswith(T.ELLIPSIS) and len(cut) < 200
    assert T.font(26).getlength(cut) <= NAME_MAX_WIDTH
    assert T.fit("Ann", 26, NAME_MAX_WIDTH) == "Ann"


def _measured_fit(text: str, size: int, max_width: int) -> str:
    """:func:`renderer.text.fit` measuring every candidate, as it did before it looked at masks."""
    face = T.font(size)
    if face.getlength(T.for_drawing(text)) <= max_width:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if face.getlength(T.for_drawing(text[:middle].rstrip() + T.ELLIPSIS)) <= max_width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + T.ELLIPSIS


FIT_TEXTS = [
    *(T.clean(name, "Player") for name in NAMES),
    "W" * 40,
    "played 13/9* 24/23",
    "played bar/22 13/7* 6/off(2)",
    "▶ player17a to play 6-5",
    "Score 12  ·  167 pips",
    "ff fi fl AV To Ty",
    "iiiiiiiiiiiiiiii",
    "ＷＷＷＷ",
]


@pytest.mark.parametrize("size", [21, 26])
def test_fit_by_mask_cuts_exactly_where_measuring_cuts(size: int) -> None:
    """A text whose mask is narrow enough is taken as fitting without measuring it:
    that must never keep a text that measuring would cut."""
    for text in FIT_TEXTS:
        drawn = T.for_drawing(text)
        width = T.font(size).getlength(drawn)
        mask, _ = T.mask(drawn, size, "lm")
        assert width <= mask.size[0] + 0.5, text  # the bound fit relies on
        for max_width in {round(width) + d for d in range(-3, 4)} | {40, 120}:
            assert T.fit(text, size, max_width, "lm") == _measured_fit(text, size, max_width), (text, max_width)


def test_names_are_cleaned() -> None:
    assert T.clean("Ann\n\tBee\x00\u200d") == "Ann Bee"
    assert T.clean("   ", "Player") == "Player"
    if T.FONT_BYTES is not None:  # DejaVu has no glyph for the game die emoji: it is dropped
        assert T.clean("Bob 🎲", "Player") == "Bob"
        assert T.clean("🎲", "Player") == "Player"


def test_right_to_left_fallback_order() -> None:
    assert T.visual_order("abc") == "abc"
    assert T.visual_order("עמית") == "תימע"
    assert T.visual_order("Ann עמית") == "Ann תימע"
    assert T.visual_order("עמית כהן") == "ןהכ תימע"


def test_scene_from_ids_maps_seats_to_sides() -> None:
    """Player 1 on roll, cube owned by player 1: the player on roll owns it."""
    match_id = encode_match_id(
        MatchState(cube=4, cube_owner=1, player_on_roll=1, turn=1, dice=(5, 2), match_length=7, score=(2, 4))
    )
    scene = BoardScene.from_ids(Position.start().position_id(), match_id, names=("Ann", "Bob"))
    assert scene.cube_value == 4
    assert scene.cube_owner == 0
    assert scene.score == (4, 2)
    assert scene.on_roll_colour == 1
    assert scene.dice in ((5, 2), (2, 5))
    assert scene.match_length == 7
    centred = BoardScene.from_ids(Position.start().position_id(), encode_match_id(MatchState()))
    assert centred.cube_owner is None and centred.dice is None


def test_bad_scenes_are_refused() -> None:
    with pytest.raises(ValueError):
        BoardScene(Position.start(), viewpoint=2)
    with pytest.raises(ValueError):
        BoardScene(Position.start(), dice=(0, 7))
    with pytest.raises(ValueError):
        BoardScene(Position.start(), cube_value=3)


def test_render_image_is_rgb_of_layout_size() -> None:
    image = render_image(BoardScene(Position.start(), cube_offered=True, cube_value=2))
    assert image.mode == "RGB" and image.size == L.SIZE
    # The offered cube lies in the middle of the doubler's (our, right) half, showing 4.
    cx, cy = L.half_board_center(right=True)
    assert close(image.getpixel((cx - 18, cy - 18)), CLASSIC.cube)
