"""Pictures in the language of the message they belong to: labels through the
catalogue, the language carried by the scene or picture to whichever worker
draws it, fonts with every glyph, and right-to-left text shaped and mirrored.

The catalogues are the sample ones of ``scripts/language_pictures.py`` (the
board's and the charts' labels in each language), over the real ones."""

from __future__ import annotations

import importlib.util
import io
import pickle
import sys
import unicodedata
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from fontTools.ttLib import TTFont  # type: ignore[import-untyped]  # matplotlib's dependency, locked
from PIL import Image, ImageChops, ImageDraw, ImageFont

import i18n
from engine.game import Game, GameSettings
from engine.patience.hands import Category
from engine.play import Move
from engine.position import Position
from i18n import _, speaking
from renderer import layout as L
from renderer import text as T
from renderer.board import _match_text, _status_text, last_play_text, render_board, render_image
from renderer.bracket import BracketMatch, BracketPicture, StandingRow, StandingsPicture, default_round_names
from renderer.charts import GameChart, RatingChart
from renderer.from_game import scene_from_game
from renderer.met import MetPicture
from renderer.patience import PatiencePicture, hand_name
from renderer.pipe import DRAWN, REPLY, REQUEST, serve
from renderer.replay import ReplayJob
from renderer.scene import BoardScene

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    path = ROOT / "scripts" / "language_pictures.py"
    spec = importlib.util.spec_from_file_location("language_pictures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


pictures = _script()


@pytest.fixture(scope="module")
def catalogues() -> Iterator[Path]:
    with pictures.sample_catalogues() as folder:
        yield folder


def _scene(language: str, **options: object) -> BoardScene:
    fields: dict[str, object] = {
        "names": ("Ann", "Bob"),
        "dice": (5, 3),
        "match_length": 7,
        "score": (6, 4),
        "crawford": True,
        "last_play": (Move(13, 9, True), Move(24, 23, False)),
        "language": language,
    }
    fields.update(options)
    return BoardScene(Position.from_position_id("jGfkATDgc/ABMA"), **fields)  # type: ignore[arg-type]


# -- the language travels with what is drawn -------------------------------------------------------


def test_scenes_and_pictures_take_the_language_in_force_where_they_are_made() -> None:
    made = [
        lambda: BoardScene(Position.start()),
        lambda: ReplayJob(()),
        lambda: GameChart("", ("", ""), (), (), (), (), ()),
        lambda: RatingChart("", (), (), (), ()),
        lambda: BracketPicture("", "", ()),
        lambda: StandingsPicture("", "", ()),
        lambda: MetPicture("", ("", ""), (), (0, 0)),
        lambda: PatiencePicture(""),
    ]
    for make in made:
        assert make().language == "en"  # type: ignore[attr-defined]
        with speaking("el"):
            job = make()
        assert job.language == "el"  # type: ignore[attr-defined]
        assert pickle.loads(pickle.dumps(job)).language == "el"


def test_scene_from_game_words_its_result_in_the_language_given(catalogues: Path) -> None:
    game = Game(GameSettings())
    scene = scene_from_game(game, ("Ann", "Bob"), language="el")
    assert scene.language == "el"
    with speaking("ru"):
        assert scene_from_game(game).language == "ru"


def test_the_worker_draws_a_scene_in_its_language(catalogues: Path) -> None:
    greek, english = _scene("el"), _scene("en")
    requests = b"".join(REQUEST.pack(len(body)) + body for body in (pickle.dumps(s) for s in (greek, english)))
    out = io.BytesIO()
    serve(io.BytesIO(requests), out)
    replies = out.getvalue()
    status, length = REPLY.unpack_from(replies)
    assert status == DRAWN
    drawn_greek = replies[REPLY.size : REPLY.size + length]
    assert drawn_greek == render_board(greek) != render_board(english)


def test_board_labels_come_from_the_catalogue(catalogues: Path) -> None:
    with speaking("el"):
        # the catalogue's words, whichever they are today (translators reword them)
        assert _status_text(_scene("el")) == _("{player} to play {dice}").format(player="Ann", dice="5-3")
        assert _status_text(_scene("el")) != "Ann to play 5-3"
        assert _match_text(_scene("el")).startswith(_("Match to {length}").format(length=7))
        assert last_play_text(_scene("el")) == _("played {play}").format(play="24/23 13/9*")
        assert last_play_text(_scene("el")) != "played 24/23 13/9*"
    with speaking("en"):
        assert _status_text(_scene("en")) == "Ann to play 5-3"
        assert _match_text(_scene("en")) == "Match to 7 · Crawford"


def test_cached_text_never_carries_one_language_into_another(catalogues: Path) -> None:
    english = render_board(_scene("en"))
    greek = render_board(_scene("el"))
    arabic = render_board(_scene("ar"))
    assert len({english, greek, arabic}) == 3
    assert render_board(_scene("en")) == english
    assert render_board(_scene("el")) == greek
    # Drawn afresh, with every text cache empty, each board is the same.
    for cache in (T.mask, T.masks, T.length, T.words, T.fit, T._word_mask):
        cache.cache_clear()
    assert (render_board(_scene("ar")), render_board(_scene("el"))) == (arabic, greek)


def test_the_palette_is_learnt_in_english_whatever_language_comes_first(catalogues: Path) -> None:
    from renderer import board

    english = render_board(_scene("en"))
    board.theme_palette.cache_clear()
    board._plte.cache_clear()
    board._indexed_board.cache_clear()
    board._bare_scanlines.cache_clear()
    board._this_thread.__dict__.clear()
    render_board(_scene("ar"))
    assert render_board(_scene("en")) == english


def test_other_pictures_say_their_own_words_in_their_language(monkeypatch: pytest.MonkeyPatch) -> None:
    russian = Catalog(locale="ru")
    for english, translated in {"Final": "Финал", "{count}-away": "{count} до победы"}.items():
        russian.add(english, translated)
    russian.add("pair", "пара", context="poker hand")
    monkeypatch.setattr(i18n, "catalogue", lambda language: russian if language == "ru" else None)
    with speaking("ru"):
        assert default_round_names(2) == ("Semi-finals", "Финал")  # untranslated: in English
        assert hand_name(Category.PAIR) == "пара"
    met = MetPicture("MET", ("Ann", "Bob"), ((0.5,),), (3, 3))
    assert met.draw() != MetPicture("MET", ("Ann", "Bob"), ((0.5,),), (3, 3), language="ru").draw()
    rows = (StandingRow(1, "Ann", 3, 3, 0), StandingRow(2, "Bob", 0, 0, 3))
    assert StandingsPicture("T", "", rows, language="ru").draw() == StandingsPicture("T", "", rows).draw()
    final = BracketPicture("T", "", ((BracketMatch(None, None),),))
    assert replace(final, language="ru").draw() != final.draw()


def test_charts_speak_their_language(catalogues: Path) -> None:
    english, greek = pictures.chart("en"), pictures.chart("el")
    assert greek.draw() != replace(greek, language="en").draw()
    assert english.language == "en"


# -- fonts --------------------------------------------------------------------------------------

ALPHABETS = {
    "Greek": "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩαβγδεζηθικλμνξοπρςστυφχψωάέήίόύώΆΈΉΊΌΎΏϊϋΐΰ",
    "Cyrillic": "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюяІіЇїЄєҐґ",
    # The Arabic alphabet's letters (hamza to yeh, without the tatweel and the Keheh
    # variants of other languages at U+063B-063F), Arabic-Indic digits, comma, question mark.
    "Arabic": "".join(chr(c) for c in (*range(0x0621, 0x063B), *range(0x0641, 0x064B))) + "٠١٢٣٤٥٦٧٨٩،؟",
    "Latin": "ÄÖÜäöüßÀÂÆÇÉÈÊËÎÏÔŒÙÛŸàâæçéèêëîïôœùûÿÑñ¿¡ÃÕãõÁÍÓÚáíóúĞğİıŞşÒÌò’",
}


def _cmap(data: bytes) -> set[int]:
    return set(TTFont(io.BytesIO(data)).getBestCmap())


def _catalogue_texts(folder: Path) -> dict[str, str]:
    """Every character of every translation in the catalogues under ``folder``, by language."""
    found: dict[str, str] = {}
    for path in sorted(folder.glob("*/LC_MESSAGES/messages.po")):
        with path.open("rb") as file:
            catalogue = read_po(file)
        flat: list[str] = []
        for message in catalogue:
            if message.id and message.string:
                flat.extend((message.string,) if isinstance(message.string, str) else message.string)
        found[path.parts[-3]] = "".join(flat)
    return found


def test_the_board_font_has_every_glyph_of_every_alphabet_and_catalogue(catalogues: Path) -> None:
    assert T.FONT_BYTES is not None, "the bundled font is missing"
    cmap = _cmap(T.FONT_BYTES)
    texts = {**ALPHABETS, **_catalogue_texts(catalogues), **_catalogue_texts(i18n.LOCALES)}
    assert set(pictures.SAMPLES) <= set(texts)
    letters, lam_alef = T._arabic_forms()
    texts["Arabic joining forms"] = "".join(
        f for table in (letters, lam_alef) for d in table.values() for f in d.values()
    )
    missing = {
        # Emoji ("So") are in the Discord messages of the catalogues only: no picture draws one.
        name: sorted(
            {c for c in text if ord(c) not in cmap and not c.isspace() and unicodedata.category(c) not in ("Cf", "So")}
        )
        for name, text in texts.items()
    }
    assert {name: chars for name, chars in missing.items() if chars} == {}


def test_the_chart_font_has_every_glyph_of_every_alphabet() -> None:
    from matplotlib import font_manager

    path = font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans"), fallback_to_default=False)
    cmap = _cmap(Path(path).read_bytes())
    text = "".join(ALPHABETS.values()) + "".join(s for t in pictures.SAMPLES.values() for s in t if isinstance(s, str))
    assert sorted({c for c in text if ord(c) not in cmap and not c.isspace()}) == []


def test_labels_lose_no_character_when_cleaned(catalogues: Path) -> None:
    for language, translations in pictures.SAMPLES.items():
        for translation in translations:
            for text in (translation,) if isinstance(translation, str) else translation:
                assert T.clean(text) == text, (language, text)


# -- right to left ---------------------------------------------------------------------------------

LABEL = "مباراة إلى 7 · كروفورد"


def test_arabic_is_drawn_shaped_right_to_left_by_raqm() -> None:
    if not T.HAVE_RAQM:
        pytest.skip("Pillow without Raqm")
    raqm = ImageFont.truetype(io.BytesIO(T.FONT_BYTES or b""), 21, layout_engine=ImageFont.Layout.RAQM)
    basic = ImageFont.truetype(io.BytesIO(T.FONT_BYTES or b""), 21, layout_engine=ImageFont.Layout.BASIC)

    def drawn(font: ImageFont.FreeTypeFont, text: str, **options: str) -> Image.Image:
        image = Image.new("L", (400, 40))
        ImageDraw.Draw(image).text((390, 20), text, font=font, fill=255, anchor="rm", **options)  # type: ignore[arg-type]
        return image

    def ours(text: str) -> Image.Image:
        image = Image.new("L", (400, 40))
        draw = ImageDraw.Draw(image)
        for mask, (dx, dy) in T.masks(text, 21, "rm", "ar"):
            draw.draw.draw_bitmap((390 + dx, 20 + dy), mask, draw.draw.draw_ink(255))
        return image

    def apart(a: Image.Image, b: Image.Image) -> int:
        """How much ink differs between two drawings."""
        return sum(n * level for level, n in enumerate(ImageChops.difference(a, b).histogram())) // 255

    explicit = drawn(raqm, LABEL, direction="rtl", language="ar")
    assert ours(LABEL).tobytes() == explicit.tobytes()
    # Glyph order: the letters joined and reversed here (the visual order), drawn one after
    # another left to right, land close to Raqm's drawing (the first letter rightmost); the
    # letters as stored, or joined but left to right, are far from it.
    near = apart(drawn(basic, T.visual(LABEL)), explicit)
    assert near * 3 < apart(drawn(basic, LABEL), explicit)
    assert near * 3 < apart(drawn(basic, T.shape_arabic(LABEL)), explicit)


def test_shaping_without_raqm_joins_letters_and_ligates_lam_alef() -> None:
    shaped = T.shape_arabic("سلام لا")
    names = [unicodedata.name(c) for c in shaped]
    assert names == [
        "ARABIC LETTER SEEN INITIAL FORM",
        "ARABIC LIGATURE LAM WITH ALEF FINAL FORM",
        "ARABIC LETTER MEEM ISOLATED FORM",
        "SPACE",
        "ARABIC LIGATURE LAM WITH ALEF ISOLATED FORM",
    ]
    assert T.visual("Ann لعب") == "Ann " + T.shape_arabic("لعب")[::-1]
    assert T.visual("plain text") == "plain text"


def _ink_columns(image: Image.Image, box: tuple[int, int, int, int], ink: tuple[int, int, int]) -> list[int]:
    """Columns of ``box`` holding ``ink``."""
    crop = image.crop(box)
    return [x + box[0] for x in range(crop.width) if any(crop.getpixel((x, y)) == ink for y in range(crop.height))]


def test_an_arabic_board_mirrors_its_header_and_keeps_the_points(catalogues: Path) -> None:
    english, arabic = render_image(_scene("en")), render_image(_scene("ar"))
    band = L.band_y(True)  # the player on roll's: chip, name, score and pips
    middle = band + L.BAND_HEIGHT // 2
    # The player's colour chip (a light checker) on the left in English, on the right in Arabic.
    light = english.getpixel((30, middle))
    assert arabic.getpixel((L.WIDTH - 30, middle)) == light != arabic.getpixel((30, middle))
    # The name by the chip, the score and pips at the other end.
    box = (0, band, L.WIDTH, band + L.BAND_HEIGHT)
    ink = _scene("en").theme.text
    left_to_right, right_to_left = _ink_columns(english, box, ink), _ink_columns(arabic, box, ink)
    assert 56 <= left_to_right[0] < 60 and right_to_left[0] < 30
    assert L.WIDTH - 60 < right_to_left[-1] <= L.WIDTH - 56 and left_to_right[-1] > L.WIDTH - 30
    # The points and their numbers are where they were.
    field = (0, L.BOARD_Y, L.WIDTH, L.BOARD_BOTTOM)
    assert english.crop(field).tobytes() == arabic.crop(field).tobytes()


def test_the_command_line_draws_in_the_language_asked(catalogues: Path) -> None:
    from renderer.__main__ import scene_from_request

    request = {"position_id": "4HPwATDgc/ABMA", "dice": [6, 4]}
    assert scene_from_request(request).language == "en"
    assert scene_from_request({**request, "language": "pt-BR"}).language == "pt_BR"
    assert scene_from_request({**request, "language": "ja"}).language == "en"
    with pytest.raises(ValueError, match="language"):
        scene_from_request({**request, "language": 7})
    greek = render_board(scene_from_request({**request, "language": "el"}))
    assert greek != render_board(scene_from_request(request))


def test_the_real_catalogue_wins_over_the_samples() -> None:
    real = Catalog(locale="el")
    real.add("Money game", "Παιχνίδι για χρήματα")
    real.add("Money game · {stake} per point", "")  # not translated yet: the sample stands in
    merged = pictures.sample_catalogue("el", real)
    assert merged.get("Money game").string == "Παιχνίδι για χρήματα"
    assert merged.get("Money game · {stake} per point").string == "Με χρήματα · {stake} ανά πόντο"
    assert merged.get("{count} pip").string == ("{count} πιπ", "{count} πιπ")
    assert len(pictures.SAMPLES["ar"]) == len(pictures.IDS) and pictures.sample_catalogue("ar").num_plurals == 6
