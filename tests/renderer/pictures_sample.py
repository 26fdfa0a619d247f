"""A picture for the pool's tests: importable by the worker processes (the repository is on their path)."""

from __future__ import annotations

import io
import os
from dataclasses import dataclass

from PIL import Image

from renderer.pictures import Picture


@dataclass(frozen=True)
class Swatch(Picture):
    """A one-colour square, drawn by whichever process calls draw(), which it names."""

    colour: tuple[int, int, int]
    size: int = 8

    def draw(self) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (self.size, self.size), self.colour).save(out, "PNG", pnginfo=_pid())
        return out.getvalue()


def _pid():  # the drawing process's id, in a text chunk
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    info.add_text("pid", str(os.getpid()))
    return info


@dataclass(frozen=True)
class Bytes(Picture):
    """``size`` bytes counting up from ``start`` (mod 256): a reply of any length, known in advance."""

    size: int
    start: int = 0

    def draw(self) -> bytes:
        return bytes((self.start + i) % 256 for i in range(self.size))
