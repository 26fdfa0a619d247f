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
slowest part of drawing one.

Names are cleaned before drawing: control and format characters are removed,
characters the font has no glyph for (most emoji) are dropped rather than
drawn as boxes, and text too wide for its place is cut with an ellipsis.
Right-to-left names are laid out by Pillow's Raqm engine when it is
available, and otherwise by a simple reordering here, so they never crash and
read in the right direction.
"""

from __future__ import annotations

import functools
import io
import threading
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import ImageFont, features

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

_local = threading.local()


def font(size: int) -> Font:
    """This thread's font object at ``size`` pixels."""
    cache: dict[int, Font] | None = getattr(_local, "fonts", None)
    if cache is None:
        cache = _local.fonts = {}
    found = cache.get(size)
    if found is None:
        if FONT_BYTES is not None:
            found = ImageFont.truetype(io.BytesIO(FONT_BYTES), size)
        else:
            found = ImageFont.load_default(size=size)
        cache[size] = found
    return found


@functools.lru_cache(maxsize=2048)  # names repeat on every board of a game: ~1,000 games at once, a few MB
def mask(text: str, size: int, anchor: str) -> Mask:
    """What ``ImageDraw.text(xy, text, font=font(size), anchor=anchor)`` lays on an
    RGB image, as the mask it fills through and the mask's offset from ``xy``.

    Read-only once made: callers fill through it (``ImageDraw``'s ``draw_bitmap``,
    as Pillow does), which gives the very pixels ``ImageDraw.text`` gives.
    """
    face = font(size)
    if isinstance(face, ImageFont.FreeTypeFont):
        return face.getmask2(text, "L", anchor=anchor)
    return face.getmask(text, "L"), (0, 0)  # a bitmap font ignores anchors in ImageDraw too


@functools.lru_cache(maxsize=1024)
def length(text: str, size: int) -> float:
    """Advance width of ``text`` at ``size`` pixels (``getlength``), cached."""
    return font(size).getlength(text)


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
        if (
            unicodedata.category(char) in _DROP_CATEGORIES
            or _is_variation_selector(char)
            or not has_glyph(char)
        ):
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
    first_strong_rtl = next(
        (_is_rtl(c) for c in text if unicodedata.bidirectional(c) in ("L", "R", "AL")), False
    )
    if first_strong_rtl:
        pieces.reverse()
    return "".join(pieces)


def for_drawing(text: str) -> str:
    """The string to hand to Pillow: reordered here only if Pillow cannot do it."""
    return text if HAVE_RAQM else visual_order(text)


ELLIPSIS = "…"


@functools.lru_cache(maxsize=1024)
def fit(text: str, size: int, max_width: int, anchor: str | None = None) -> str:
    """``text`` cut at the end with an ellipsis so it is at most ``max_width`` pixels wide.

    ``anchor``: the text is about to be drawn with this anchor. Its mask is
    then made here (and cached for the drawing) and, when narrow enough,
    spares measuring the text: measuring costs about as much again as
    drawing. A FreeType mask spans at least the text's advance width rounded
    to the nearest pixel, so a mask at least one pixel narrower than
    ``max_width`` means the text fits.
    """
    drawn = for_drawing(text)
    if anchor is not None and isinstance(font(size), ImageFont.FreeTypeFont):
        image, _ = mask(drawn, size, anchor)
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
