"""Fonts and safe text for the board: player names can be anything.

The font is DejaVu Sans Bold (free, Bitstream Vera licence, see
``renderer/assets/DejaVu-LICENSE.txt``), shipped in ``renderer/assets`` so a
fresh machine draws the same picture. If the file is missing we try the
system's DejaVu, then Pillow's built-in font (``ImageFont.load_default``).

The font file is read once at import. Pillow font objects are created per
thread and per size, because a FreeType face must not be used by two threads
at once; the renderer runs in worker threads (``asyncio.to_thread``).
Rendered text masks, widths and fitted strings are cached across threads:
a board writes the same few strings again and again, and FreeType is the
slowest part of drawing one. Texts of plain characters are drawn word by word
from cached word masks, with exactly the pixels of drawing them whole (see
:func:`words`): a pip count or a last play is new on most boards, its words
are not.

Names are cleaned before drawing: control and format characters are removed,
characters the font has no glyph for (most emoji) are dropped rather than
drawn as boxes, and text too wide for its place is cut with an ellipsis.
Right-to-left names are laid out by Pillow's Raqm engine when it is
available, and otherwise by a simple reordering here, so they never crash and
read in the right direction.

Labels are in the language of the message a picture belongs to
(:func:`i18n.speaking` around the drawing). DejaVu Sans Bold has the glyphs of
every language the bot speaks: Latin, Greek, Cyrillic and Arabic (with its
joining forms), so one face serves them all. In a right-to-left language
(:data:`RTL_LANGUAGES`) every text is laid out as a right-to-left paragraph
by Raqm (``direction="rtl"`` and the language, for its shaping); a name in
Latin letters keeps its own order inside it. Where the layout cannot shape
(Pillow without Raqm, matplotlib before 3.11), Arabic letters are turned into
their joining forms here (:func:`shape_arabic`) and reordered (:func:`visual`).
"""

from __future__ import annotations

import functools
import io
import threading
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from PIL import ImageFont, features

import i18n

if TYPE_CHECKING:
    from PIL._imaging import ImagingCore

ASSETS = Path(__file__).resolve().parent / "assets"
FONT_CANDIDATES = (
    ASSETS / "DejaVuSans-Bold.ttf",
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),
    Path("/usr/share/fonts/TTF/DejaVuSans-Bold.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf"),
    Path("/Library/Fonts/DejaVuSans-Bold.ttf"),
    Path("C:/Windows/Fonts/DejaVuSans-Bold.ttf"),
)

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
Mask = tuple["ImagingCore", tuple[int, int]]
"""A text's coverage mask (mode L; 1 from a bitmap font) and its offset from the anchor point."""


def _read_font_file() -> tuple[bytes | None, str]:
    for path in FONT_CANDIDATES:
        try:
            return path.read_bytes(), str(path)
        except OSError:
            continue
    return None, "Pillow built-in font"


FONT_BYTES, FONT_SOURCE = _read_font_file()
"""The TrueType file's bytes (None: fall back to Pillow's own font) and where it came from."""

HAVE_RAQM = features.check_feature("raqm")
"""Pillow can shape and reorder complex and right-to-left text itself."""
LAYOUT = ImageFont.Layout.RAQM if HAVE_RAQM else ImageFont.Layout.BASIC
"""Raqm (HarfBuzz shaping, FriBiDi ordering) wherever Pillow has it."""
RTL_LANGUAGES = frozenset({"ar", "fa", "he", "ur"})
"""Languages written right to left: their pictures' texts are right-to-left paragraphs."""


def rtl_language() -> str | None:
    """The language in force when it is written right to left (the pictures mirror their
    headers and lay every text out right to left), else None."""
    language = i18n.current()
    return language if language.split("_")[0] in RTL_LANGUAGES else None


_local = threading.local()
_opening = threading.Lock()
"""FreeType shares one library handle among all faces: opening (and closing) a
face must not overlap another thread's (FreeType's documentation for
``FT_New_Face``); drawing with a face of one's own may."""


def font(size: int) -> Font:
    """This thread's font object at ``size`` pixels."""
    cache: dict[int, Font] | None = getattr(_local, "fonts", None)
    if cache is None:
        cache = _local.fonts = {}
    found = cache.get(size)
    if found is None:
        with _opening:
            if FONT_BYTES is not None:
                found = ImageFont.truetype(io.BytesIO(FONT_BYTES), size, layout_engine=LAYOUT)
            else:
                found = ImageFont.load_default(size=size)
        cache[size] = found
    return found


class LayoutOptions(TypedDict, total=False):
    """Keyword arguments of ``ImageDraw.text`` and ``FreeTypeFont.getmask2``."""

    direction: str
    language: str


def layout(rtl: str | None) -> LayoutOptions:
    """``ImageDraw.text``'s and ``getmask2``'s layout options for a text in a
    right-to-left language ``rtl`` (None: Raqm finds the direction itself)."""
    return {"direction": "rtl", "language": rtl} if rtl and HAVE_RAQM else {}


@functools.lru_cache(maxsize=2048)  # names repeat on every board of a game: ~1,000 games at once, a few MB
def mask(text: str, size: int, anchor: str, rtl: str | None = None) -> Mask:
    """What ``ImageDraw.text(xy, text, font=font(size), anchor=anchor, **layout(rtl))``
    lays on an RGB image, as the mask it fills through and the mask's offset from ``xy``.

    Read-only once made: callers fill through it (``ImageDraw``'s ``draw_bitmap``,
    as Pillow does), which gives the very pixels ``ImageDraw.text`` gives. Keyed
    by the text itself and the paragraph's direction: a label in one language
    never stands in for another's.
    """
    face = font(size)
    if isinstance(face, ImageFont.FreeTypeFont):
        return face.getmask2(text, "L", anchor=anchor, **layout(rtl))
    return face.getmask(text, "L"), (0, 0)  # a bitmap font ignores anchors in ImageDraw too


@functools.lru_cache(maxsize=8192)  # words and whole texts: new texts must not push out the words
def length(text: str, size: int) -> float:
    """Advance width of ``text`` at ``size`` pixels (``getlength``), cached; summed
    from its words when it is drawn word by word (:func:`words`)."""
    placed = words(text, size)
    if placed is not None:
        return placed[1] / 64
    return font(size).getlength(text)


# -- drawing a text word by word ------------------------------------------------------
#
# Most text on a board is new (pip counts, the last play, whose turn with which
# dice) but made of words seen before, and FreeType rendering a mask is the
# slowest part of a board. So a text of plain characters is drawn as its words,
# each from a cached mask, where that gives exactly Pillow's pixels. Pillow lays
# out the whole text (Raqm/HarfBuzz, or its basic layout), puts each glyph at its
# pen position rounded to a whole pixel, ``(pen + 32) >> 6`` in 1/64 pixel, and
# places the whole mask by the text's advance for the anchor. A word drawn alone
# with its pen starting at the same fraction of a pixel (``getmask2``'s
# ``start``, as ``ImageDraw.text`` uses for fractional positions) puts every
# glyph where the whole text does, if nothing across the spaces changes the
# positions (checked: no kerning between a space and the characters next to
# it), and the words' pixels do not overlap (checked: their masks lie apart),
# so filling through each word's mask gives the pixels of filling through the
# text's. ``tests/renderer`` holds this to ``ImageDraw.text`` on many texts.

_PLAIN = frozenset(chr(code) for code in range(0x21, 0x7F)) | {"·", "▶", "…"}
"""Characters of texts drawn word by word: printable ASCII (no marks, no
right-to-left, no shaping across words) and the few symbols the board writes."""
_STEADY_ANCHORS = frozenset("amsd")
"""Vertical anchors that do not depend on the glyphs drawn (not top or bottom),
so every word of a text sits at the text's height."""

Placed = tuple[tuple[tuple[str, int], ...], int]
"""A text's words with the pen position (1/64 pixel) each starts at, and the text's advance (1/64 pixel)."""


@functools.lru_cache(maxsize=512)
def _spaces_apart(char: str, size: int) -> bool:
    """No kerning between ``char`` and a space before or after it (nor between two spaces)."""
    face = font(size)
    alone, space = length(char, size), length(" ", size)
    return face.getlength(char + " ") == alone + space and face.getlength(" " + char) == alone + space


@functools.lru_cache(maxsize=4096)
def words(text: str, size: int) -> Placed | None:
    """``text`` as its words and where each starts, when drawing and measuring it
    word by word gives what drawing and measuring it whole does; None when it
    has to be taken whole (one word, other characters, a bitmap font, kerning
    next to a space)."""
    if (
        " " not in text
        or text[0] == " "
        or text[-1] == " "
        or not isinstance(font(size), ImageFont.FreeTypeFont)
        or not all(char in _PLAIN for char in text.replace(" ", ""))
    ):
        return None
    space = round(length(" ", size) * 64)
    if "  " in text and not _spaces_apart(" ", size):
        return None
    placed: list[tuple[str, int]] = []
    pen = 0
    for index, word in enumerate(text.split(" ")):
        if index:
            pen += space
        if word:
            if not (_spaces_apart(word[0], size) and _spaces_apart(word[-1], size)):
                return None
            placed.append((word, pen))
            pen += round(length(word, size) * 64)
    return tuple(placed), pen


@functools.lru_cache(maxsize=8192)  # words x the pen's fraction of a pixel: about 1 KB each
def _word_mask(word: str, size: int, vertical: str, phase: int) -> Mask:
    """The mask of ``word`` drawn with its pen ``phase``/64 pixel into a pixel."""
    face = font(size)
    assert isinstance(face, ImageFont.FreeTypeFont)
    return face.getmask2(word, "L", anchor="l" + vertical, start=(phase / 64, 0))


@functools.lru_cache(maxsize=2048)
def masks(text: str, size: int, anchor: str, rtl: str | None = None) -> tuple[Mask, ...]:
    """What ``ImageDraw.text(xy, text, font=font(size), anchor=anchor, **layout(rtl))``
    lays on an RGB image, as masks to fill through and their offsets from ``xy``: one
    per word where :func:`words` allows, else the text's own :func:`mask`. A
    right-to-left paragraph is taken whole: its neutral characters (a colon, a
    bracket) go where its direction puts them."""
    placed = words(text, size) if anchor[1] in _STEADY_ANCHORS and rtl is None else None
    if placed is None:
        return (mask(text, size, anchor, rtl),)
    positions, advance = placed
    # Where Pillow puts the pen's start relative to xy: the anchor's share of the advance.
    start = {"l": 0, "m": -((advance // 2 + 32) >> 6), "r": -((advance + 32) >> 6)}[anchor[0]]
    laid: list[Mask] = []
    reached = None
    for word, pen in positions:
        image, (dx, dy) = _word_mask(word, size, anchor[1], pen & 63)
        x = start + (pen >> 6) + dx
        if reached is not None and x < reached:  # the words' masks would overlap
            return (mask(text, size, anchor),)
        reached = x + image.size[0]
        laid.append((image, (x, dy)))
    return tuple(laid)


_PROBE_SIZE = 24
_MISSING = "\U0010fffd"  # a private-use code point no font draws: its mask is the "no glyph" box


@functools.lru_cache(maxsize=4096)
def has_glyph(char: str) -> bool:
    """True when the font draws ``char`` as itself rather than as the empty box."""
    probe = font(_PROBE_SIZE)
    try:
        mask = probe.getmask(char)
        missing = probe.getmask(_MISSING)
    except Exception:  # noqa: BLE001 - a font that cannot even try has no glyph for it
        return False
    return not (mask.size == missing.size and bytes(mask) == bytes(missing))


_DROP_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn"}


@functools.lru_cache(maxsize=4096)  # each board cleans its two names again
def clean(text: str, fallback: str = "") -> str:
    """``text`` made drawable: one line, no control characters, only glyphs the font has.

    Returns ``fallback`` when nothing drawable is left (a name made only of emoji).
    """
    kept: list[str] = []
    for char in unicodedata.normalize("NFC", text):
        if char.isspace():
            if kept and kept[-1] != " ":
                kept.append(" ")
            continue
        if unicodedata.category(char) in _DROP_CATEGORIES or _is_variation_selector(char) or not has_glyph(char):
            continue
        kept.append(char)
    result = "".join(kept).strip()
    return result or fallback


def _is_variation_selector(char: str) -> bool:
    # Emoji presentation selectors: invisible, and some shapers draw them as boxes.
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def _is_rtl(char: str) -> bool:
    return unicodedata.bidirectional(char) in ("R", "AL")


@functools.cache
def _arabic_forms() -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """Each Arabic letter's joining forms (``"ISOLATED"``, ``"FINAL"``, ``"INITIAL"``,
    ``"MEDIAL"``) and each alef's ligature with a lam before it, from the names
    of Unicode's presentation forms: no table to keep here."""
    letters: dict[str, dict[str, str]] = {}
    lam_alef: dict[str, dict[str, str]] = {}
    for code in range(0xFE70, 0xFF00):
        name = unicodedata.name(chr(code), "")
        for kind in ("ISOLATED", "FINAL", "INITIAL", "MEDIAL"):
            suffix = f" {kind} FORM"
            if not name.endswith(suffix):
                continue
            base = name[: -len(suffix)]
            if base.startswith("ARABIC LIGATURE LAM WITH "):
                alef = "ARABIC LETTER " + base.removeprefix("ARABIC LIGATURE LAM WITH ")
                table, key = lam_alef, alef
            elif base.startswith("ARABIC LETTER "):
                table, key = letters, base
            else:
                continue
            try:
                char = unicodedata.lookup(key)
            except KeyError:
                continue
            table.setdefault(char, {})[kind] = chr(code)
    return letters, lam_alef


_LAM = "\u0644"


def shape_arabic(text: str) -> str:
    """``text`` with its Arabic letters in the forms their neighbours join them in
    (Unicode's presentation forms, lam-alef as one ligature), still in logical
    order: shaping for a layout that does none (matplotlib, Pillow without Raqm).
    Marks (harakat) neither join nor break a join."""
    letters, lam_alef = _arabic_forms()
    if not any(char in letters for char in text):
        return text
    shaped: list[str] = []
    joins_on = False  # the letter before joins the next one
    index, count = 0, len(text)
    while index < count:
        char = text[index]
        forms = letters.get(char)
        if forms is None:
            shaped.append(char)
            if unicodedata.category(char) != "Mn":
                joins_on = False
            index += 1
            continue
        after = index + 1
        while after < count and unicodedata.category(text[after]) == "Mn":
            after += 1
        following = text[after] if after < count else ""
        if char == _LAM and following in lam_alef:
            ligature = lam_alef[following]
            shaped.append(ligature["FINAL" if joins_on and "FINAL" in ligature else "ISOLATED"])
            shaped.extend(text[index + 1 : after])
            joins_on = False  # an alef never joins what follows
            index = after + 1
            continue
        joins_back = joins_on and "FINAL" in forms
        joins_next = "INITIAL" in forms and "FINAL" in letters.get(following, {})
        kind = {(True, True): "MEDIAL", (True, False): "FINAL", (False, True): "INITIAL"}.get(
            (joins_back, joins_next), "ISOLATED"
        )
        shaped.append(forms.get(kind) or forms.get("ISOLATED", char))
        joins_on = "INITIAL" in forms
        index += 1
    return "".join(shaped)


def visual(text: str) -> str:
    """``text`` shaped and put in the order it is seen, for a layout that does
    neither: matplotlib's, or Pillow's without Raqm."""
    if not any(_is_rtl(c) for c in text):
        return text
    return visual_order(shape_arabic(text))


def visual_order(text: str) -> str:
    """A crude bidi reordering for when Raqm is missing: right-to-left runs are
    reversed, and the runs themselves when the text starts right-to-left.

    Neutral characters (spaces, punctuation) between two right-to-left letters
    belong to their run. Good enough for a name; not the full Unicode algorithm.
    """
    if not any(_is_rtl(c) for c in text):
        return text
    runs: list[tuple[bool, str]] = []
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            rtl = True
        elif kind == "L":
            rtl = False
        else:
            rtl = runs[-1][0] if runs else False
        if runs and runs[-1][0] == rtl:
            runs[-1] = (rtl, runs[-1][1] + char)
        else:
            runs.append((rtl, char))
    # A neutral tail of an RTL run that is followed by LTR belongs to neither; keep it outside.
    pieces = [run[::-1] if rtl else run for rtl, run in runs]
    first_strong_rtl = next((_is_rtl(c) for c in text if unicodedata.bidirectional(c) in ("L", "R", "AL")), False)
    if first_strong_rtl:
        pieces.reverse()
    return "".join(pieces)


def for_drawing(text: str) -> str:
    """The string to hand to Pillow: shaped and reordered here only if Pillow cannot do it."""
    return text if HAVE_RAQM else visual(text)


ELLIPSIS = "…"


@functools.lru_cache(maxsize=1024)
def fit(text: str, size: int, max_width: int, anchor: str | None = None, rtl: str | None = None) -> str:
    """``text`` cut at the end with an ellipsis so it is at most ``max_width`` pixels wide.

    ``anchor``: the text is about to be drawn with this anchor. Its mask is
    then made here (and cached for the drawing) and, when narrow enough,
    spares measuring the text: measuring costs about as much again as
    drawing. A FreeType mask spans at least the text's advance width rounded
    to the nearest pixel, so a mask at least one pixel narrower than
    ``max_width`` means the text fits. ``rtl``: the text is drawn as a
    right-to-left paragraph in that language (:func:`layout`).
    """
    drawn = for_drawing(text)
    whole = rtl is not None or words(drawn, size) is None  # drawn from its own mask (:func:`masks`)
    if anchor is not None and whole and isinstance(font(size), ImageFont.FreeTypeFont):
        image, _ = mask(drawn, size, anchor, rtl)
        if image.size[0] + 1 <= max_width:
            return text
    if length(drawn, size) <= max_width:
        return text
    face = font(size)
    low, high = 0, len(text)
    # Binary search the longest prefix that fits with the ellipsis.
    while low < high:
        middle = (low + high + 1) // 2
        candidate = text[:middle].rstrip() + ELLIPSIS
        if face.getlength(for_drawing(candidate)) <= max_width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + ELLIPSIS
