"""The fast drawing path gives exactly the pixels of the straightforward one.

``render_board`` takes shortcuts: cached text masks and shapes, checkers
pasted as ready patches of checker and board, only the drawn boxes mapped to
the palette, and its own PNG writer. Here every scene is also drawn the plain
way (``ImageDraw.text``, ``ImageDraw.rounded_rectangle``, ``Image.paste`` of
each sprite), the whole picture mapped to the theme's palette and saved by
Pillow, and the decoded pixels must be identical.
"""

from __future__ import annotations

import dataclasses
import io

import pytest
from PIL import Image, ImageDraw, ImageFont

from engine.play import Move, format_moves
from engine.position import Position
from renderer import board as B
from renderer import text as T
from renderer.scene import BoardScene
from renderer.themes import CLASSIC, HIGH_CONTRAST, RGB

MIDGAME = Position.from_counts(
    {25: 2, 13: 3, 8: 3, 6: 5, 24: 2},
    {24: 1, 22: 1, 16: 1, 13: 4, 8: 3, 6: 4, 5: 1},
)
HITS = (Move(13, 9, True), Move(24, 23))


def _base_scenes() -> dict[str, BoardScene]:
    return {
        "start": BoardScene(Position.start(), names=("Alice", "Bob"), dice=(3, 1), opening=True),
        "midgame": BoardScene(
            MIDGAME,
            names=("Alice 🎲", "Bob"),
            dice=(5, 3),
            cube_value=2,
            cube_owner=1,
            match_length=7,
            score=(3, 5),
            last_play=HITS,
        ),
        "offered": BoardScene(
            Position.start(),
            names=("Ann", "Bob"),
            cube_offered=True,
            cube_value=4,
            cube_owner=0,
            match_length=9,
            score=(6, 2),
        ),
        "crawford": BoardScene(
            Position.start(),
            names=("Zoë 🎲 the 🐉 dragon", "محمد العربي"),
            match_length=5,
            score=(4, 2),
            crawford=True,
        ),
        "long names": BoardScene(Position.start(), names=("W" * 200, "עמית כהן"), dice=(4, 4), on_roll_colour=1),
        "hits by the player on roll": BoardScene(
            MIDGAME, names=("长名字" * 30, "Bob"), last_play=(*HITS, Move(9, 5, True)), last_play_by=0
        ),
        "hit on a top point, next to a stack": BoardScene(  # the badge reaches into the next point
            Position.from_counts({25: 1, 14: 2, 6: 12}, {12: 1, 24: 14}),
            names=("Ann", "Bob"),
            last_play=(Move(18, 12, True),),
            last_play_by=1,
        ),
        "ghosts": BoardScene(
            Position.from_counts({25: 3, 13: 7, 8: 3, 6: 2}, {25: 1, 24: 2, 13: 5, 8: 3, 6: 4}),
            names=("Ann", "Bob"),
            dice=(3, 6),
            last_play=(Move(25, 22), Move(22, 16), Move(13, 7, True), Move(13, 7)),
        ),
        "bear-off": BoardScene(
            Position.from_counts({1: 2, 2: 3}, {1: 4, 2: 2, 4: 1}),
            dice=(6, 5),
            stake=5,
            last_play=(Move(6, 0), Move(6, 0), Move(5, 0), Move(4, 0)),
            cube_value=8,
            cube_owner=0,
        ),
        "fifteen on the bar": BoardScene(Position((0,) * 24, bar=(15, 0), off=(0, 15)), cube_value=1024, cube_owner=1),
        "their fifteen on the bar": BoardScene(
            Position((0,) * 24, bar=(0, 15), off=(15, 0)), cube_value=128, to_act_label="Someone 🎲 to act"
        ),
        "stacks of fifteen": BoardScene(Position.from_counts({6: 15}, {6: 15}), names=("", "🎲🎲🎲"), dice=(2, 1)),
    }


def scenes() -> dict[str, BoardScene]:
    """Every base scene in both themes and from both sides."""
    return {
        f"{name}, {theme.name}, viewpoint {viewpoint}": dataclasses.replace(scene, theme=theme, viewpoint=viewpoint)
        for name, scene in _base_scenes().items()
        for theme in (CLASSIC, HIGH_CONTRAST)
        for viewpoint in (0, 1)
    }


class _PlainCanvas(B._Canvas):
    """Draws with Pillow's own calls, each sprite blended where it lands."""

    def paste(self, sprite: Image.Image, x: int, y: int) -> None:
        self.image.paste(sprite, (x, y), sprite)

    def checker(self, colour: int, center: tuple[int, int]) -> None:
        self.sprite(B.checker_sprite(self.theme, colour), center)

    def text(self, xy: tuple[int, int], text: str, size: int, fill: RGB, anchor: str) -> None:
        ImageDraw.Draw(self.image).text(xy, text, font=T.font(size), fill=fill, anchor=anchor)

    def rounded_rectangle(self, box: B.Box, radius: int, fill: RGB, outline: RGB | None = None, width: int = 1) -> None:
        ImageDraw.Draw(self.image).rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)


def _plain_png(scene: BoardScene, monkeypatch: pytest.MonkeyPatch) -> bytes:
    palette = B.theme_palette(scene.theme)
    with monkeypatch.context() as patch:
        patch.setattr(B, "_Canvas", _PlainCanvas)
        image = B.render_image(scene)
    buffer = io.BytesIO()
    image.quantize(palette=palette, dither=Image.Dither.NONE).save(buffer, "PNG")
    return buffer.getvalue()


def _pixels(png: bytes) -> bytes:
    return Image.open(io.BytesIO(png)).convert("RGB").tobytes()


@pytest.mark.parametrize("scene", scenes().values(), ids=scenes().keys())
def test_render_board_has_the_plain_pixels(scene: BoardScene, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = B.render_board(scene)
    assert _pixels(fast) == _pixels(_plain_png(scene, monkeypatch))
    image = Image.open(io.BytesIO(fast))
    assert image.size == (B.L.WIDTH, B.L.HEIGHT) and image.mode == "P"


def test_render_image_has_the_plain_pixels(monkeypatch: pytest.MonkeyPatch) -> None:
    scene = _base_scenes()["midgame"]
    fast = B.render_image(scene)
    with monkeypatch.context() as patch:
        patch.setattr(B, "_Canvas", _PlainCanvas)
        plain = B.render_image(scene)
    assert fast.mode == "RGB" and fast.tobytes() == plain.tobytes()


@pytest.mark.parametrize("deflate", ["isal", "zlib-ng", "zlib"])
def test_every_deflate_gives_the_same_pixels(deflate: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The PNG is deflated by ISA-L where it is installed, else zlib-ng, else zlib:
    each writes a valid stream of the same pixels (ISA-L's is the smallest)."""
    import zlib

    if B._isal is None:
        pytest.skip("ISA-L is not installed here")
    scene = _base_scenes()["midgame"]
    with_isal = B.render_board(scene)
    if deflate != "isal":
        monkeypatch.setattr(B, "_isal", None)
    if deflate == "zlib":
        monkeypatch.setattr(B, "_deflate", zlib)
    png = B.render_board(scene)
    assert _pixels(png) == _pixels(_plain_png(scene, monkeypatch))
    assert (png == with_isal) is (deflate == "isal")  # a different deflate was used
    if deflate != "isal":
        assert len(png) > len(with_isal)


@pytest.mark.parametrize("theme", [CLASSIC, HIGH_CONTRAST], ids=lambda theme: theme.name)
def test_ready_patches_give_the_pixels_of_drawing(theme: object) -> None:
    """Shapes and checkers go down as ready patches only where nothing was drawn
    yet; over other drawing they are blended, and drawing over a patch first puts
    the patch on the RGB picture."""
    images = []
    for canvas_class in (B._Canvas, _PlainCanvas):
        canvas = canvas_class(theme)  # type: ignore[arg-type]
        canvas.rounded_rectangle((100, 100, 300, 160), radius=10, fill=(200, 30, 30))  # a patch
        canvas.text((120, 130), "Ann", 26, (255, 255, 255), "lm")  # over the patch
        # Over the first patch, now on the RGB picture, and beside the text: blended.
        canvas.rounded_rectangle((250, 120, 400, 200), radius=8, fill=(20, 20, 200), outline=(0, 0, 0), width=3)
        canvas.checker(0, (380, 190))  # over drawing: blended
        canvas.checker(1, (600, 400))  # a patch nothing covers
        canvas.rounded_rectangle((-5, 840, 60, 870), radius=6, fill=(0, 200, 0))  # past the edges: blended
        canvas.paint_patches()
        images.append(canvas.image.tobytes())
    assert images[0] == images[1]


def _played_boards(games: int) -> list[BoardScene]:
    """Every board of ``games`` seeded games of random legal plays, with a double now and then."""
    import random

    from engine.dice import SeededDice
    from engine.game import Game, GameSettings, Phase
    from renderer.from_game import scene_from_game

    boards = []
    for number in range(games):
        choose = random.Random(number)
        game = Game(GameSettings(match_length=number % 2 * 7), dice=SeededDice(number))
        game.opening_roll()
        while not game.is_over:
            player = game.turn
            if game.phase is Phase.ROLL:
                if game.can_double(player) and choose.random() < 0.05:
                    game.double(player)
                else:
                    game.roll(player)
            elif game.phase is Phase.DOUBLED:
                game.take(player)
            else:
                game.play(player, choose.choice(game.legal_plays()))
            boards.append(scene_from_game(game, ("Ann", "Bob"), viewer=game.turn))
    return boards


def test_boards_of_played_games_one_after_another_have_the_plain_pixels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real boards in a row, as one bot thread draws them: each on what the last one left."""
    boards = _played_boards(games=4)[::5]
    for index, scene in enumerate(boards):
        if index % 2:
            scene = dataclasses.replace(scene, theme=HIGH_CONTRAST, names=("Zoë", "Ann"))
        assert _pixels(B.render_board(scene)) == _pixels(_plain_png(scene, monkeypatch)), index


def test_ready_patches_never_overlap() -> None:
    """A patch is the thing drawn on the *bare* board: one laid over another would
    wipe it out. The layout keeps them apart; this holds it to that on every test
    board and on boards from played games."""
    for scene in [*scenes().values(), *_played_boards(games=12)[::2]]:
        boxes = [box for _, box in B._draw(scene).patches]
        for k, (x0, y0, x1, y1) in enumerate(boxes):
            for a, b, c, d in boxes[k + 1 :]:
                assert not (x0 < c and a < x1 and y0 < d and b < y1), (scene, (x0, y0, x1, y1), (a, b, c, d))


def test_cached_text_masks_draw_what_imagedraw_draws() -> None:
    for text, size, anchor in [("15", 26, "mm"), ("Ann", 26, "lm"), ("Score 3  ·  167 pips", 21, "rm")]:
        plain = Image.new("RGB", (300, 60), (10, 20, 30))
        ImageDraw.Draw(plain).text((150, 30), text, font=T.font(size), fill=(250, 200, 100), anchor=anchor)
        cached = Image.new("RGB", (300, 60), (10, 20, 30))
        draw = ImageDraw.Draw(cached).draw
        mask, (dx, dy) = T.mask(text, size, anchor)
        draw.draw_bitmap((150 + dx, 30 + dy), mask, draw.draw_ink((250, 200, 100)))
        assert cached.tobytes() == plain.tobytes()


def _board_like_texts(count: int) -> list[str]:
    """Texts like the board's (pip counts, scores, last plays, whose turn) and random
    words of plain characters, with one to three spaces between words."""
    import random

    choose = random.Random(5)
    plain = sorted(T._PLAIN)

    def word() -> str:
        return "".join(choose.choice(plain) for _ in range(choose.randint(1, 12)))

    def move() -> Move:
        return Move(choose.choice([25, *range(1, 25)]), choose.choice([0, *range(1, 25)]), choose.random() < 0.3)

    makers = [
        lambda: f"Score {choose.randrange(30)}  ·  {choose.randrange(376)} pips",
        lambda: f"{choose.randrange(376)} pips",
        lambda: "played " + format_moves([move() for _ in range(choose.randint(1, 4))]),
        lambda: f"▶ {word()} to play {choose.randint(1, 6)}-{choose.randint(1, 6)}",
        lambda: f"▶ {word()} doubles to {2 ** choose.randint(1, 6)}: {word()} to take or pass",
        lambda: (" " * choose.randint(1, 3)).join(word() for _ in range(choose.randint(2, 5))),
    ]
    return [choose.choice(makers)() for _ in range(count)]


def test_texts_drawn_word_by_word_draw_what_imagedraw_draws() -> None:
    """Words from cached masks, each started at the pen's fraction of a pixel, give
    the pixels of the whole text (10,000s of texts were checked this way once; a
    few hundred here), and the words' advances add up to the text's."""
    import random

    choose = random.Random(8)
    drawn_by_words = 0
    for text in _board_like_texts(400):
        size = choose.choice([17, 18, 20, 21, 22, 26, 28])
        anchor = choose.choice(["lm", "rm", "mm", "la", "ls", "rd", "ms"])
        plain = Image.new("RGB", (1600, 90), (30, 60, 90))
        ImageDraw.Draw(plain).text((800, 45), text, font=T.font(size), fill=(250, 200, 100), anchor=anchor)
        cached = Image.new("RGB", (1600, 90), (30, 60, 90))
        draw = ImageDraw.Draw(cached).draw
        laid = T.masks(text, size, anchor)
        drawn_by_words += len(laid) > 1
        for mask, (dx, dy) in laid:
            draw.draw_bitmap((800 + dx, 45 + dy), mask, draw.draw_ink((250, 200, 100)))
        assert cached.tobytes() == plain.tobytes(), (text, size, anchor)
        assert T.length(text, size) == T.font(size).getlength(text), (text, size)
    assert drawn_by_words > 300


def test_texts_that_are_drawn_whole() -> None:
    for text in ["one", " lead", "trail ", "Zoë to play", "עמית כהן", ""]:
        assert T.words(text, 21) is None, text
        assert len(T.masks(text, 21, "lm")) == 1
    assert len(T.masks("Ann to play 6-5", 21, "lt")) == 1  # top: the height depends on the glyphs
    assert len(T.masks("Ann to play 6-5", 21, "lm")) == 4


def test_bitmap_font_masks_draw_what_imagedraw_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without FreeType, text falls back to Pillow's bitmap font, which ignores anchors."""
    bitmap = ImageFont.load_default_imagefont()
    monkeypatch.setattr(T, "font", lambda size: bitmap)
    plain = Image.new("RGB", (100, 40))
    ImageDraw.Draw(plain).text((50, 20), "12", font=bitmap, fill=(255, 0, 0), anchor="mm")
    cached = Image.new("RGB", (100, 40))
    draw = ImageDraw.Draw(cached).draw
    mask, (dx, dy) = T.mask.__wrapped__("12", 18, "mm")
    draw.draw_bitmap((50 + dx, 20 + dy), mask, draw.draw_ink((255, 0, 0)))
    assert cached.tobytes() == plain.tobytes()
    assert T.words.__wrapped__("12 pips", 18) is None  # no words drawn apart with a bitmap font


def _clear_render_caches() -> None:
    for module in (B, T):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()
    B._this_thread.__dict__.clear()


def test_threads_rendering_at_once_from_cold_caches_draw_the_same_boards() -> None:
    """The bot may draw in threads: cached images and palettes must stand concurrent use."""
    from concurrent.futures import ThreadPoolExecutor

    work = [scene for scene in scenes().values()] * 3
    expected = [_pixels(B.render_board(scene)) for scene in work]
    for _ in range(3):  # the races happen while the caches fill
        _clear_render_caches()
        with ThreadPoolExecutor(max_workers=4) as pool:
            drawn = list(pool.map(B.render_board, work))
        assert [_pixels(png) for png in drawn] == expected


# -- the pictures each thread keeps between boards ------------------------------------------


def _in_a_fresh_thread(scene: BoardScene) -> bytes:
    """``render_board`` in a thread that has drawn nothing yet (no kept pictures)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(B.render_board, scene).result()


def test_a_board_after_another_is_the_board_alone() -> None:
    """Each thread draws every board on the same two pictures and wipes what it drew:
    nothing of a board may stay behind for the next (checkers, marks, text, dice,
    borne-off checkers, the turn band, in either theme)."""
    boards = list(scenes().values())
    alone = {id(scene): _in_a_fresh_thread(scene) for scene in boards}
    for before, after in zip(boards, boards[7:] + boards[:7]):
        B.render_board(before)
        assert B.render_board(after) == alone[id(after)]


def test_many_threads_drawing_different_boards_at_once_each_get_their_own() -> None:
    import threading

    boards = list(scenes().values())
    alone = [_in_a_fresh_thread(scene) for scene in boards]
    start = threading.Barrier(8)
    failures: list[str] = []

    def draw(offset: int) -> None:
        start.wait()
        for round_ in range(3):
            for k in range(len(boards)):
                index = (k * 5 + offset + round_) % len(boards)
                if B.render_board(boards[index]) != alone[index]:
                    failures.append(f"thread {offset}, board {index}")

    threads = [threading.Thread(target=draw, args=(offset,)) for offset in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_a_board_that_fails_halfway_leaves_nothing_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    """A drawing error leaves the thread's pictures half drawn, and possibly with
    drawing nobody recorded: they are thrown away, not reused."""
    scene = _base_scenes()["midgame"]
    after = _base_scenes()["bear-off"]
    expected = _in_a_fresh_thread(after)
    B.render_board(after)  # this thread's pictures exist

    def fail(canvas: B._Canvas, scene: BoardScene) -> None:
        canvas.text((100, 20), "half drawn", 26, (255, 0, 0), "lm")
        canvas.image.im.paste(B.checker_sprite(scene.theme, 0).im, (500, 300, 556, 356))  # unrecorded
        raise RuntimeError("boom")

    with monkeypatch.context() as patch:
        patch.setattr(B, "_draw_status", fail)
        with pytest.raises(RuntimeError, match="boom"):
            B.render_board(scene)
    assert B.render_board(after) == expected


def test_render_image_gives_a_picture_of_its_own() -> None:
    """The RGB picture is the caller's: boards drawn later do not change it."""
    image = B.render_image(_base_scenes()["midgame"])
    kept = image.tobytes()
    B.render_board(_base_scenes()["ghosts"])
    B.render_image(_base_scenes()["bear-off"])
    assert image.tobytes() == kept
