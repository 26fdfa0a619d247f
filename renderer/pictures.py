"""Pictures other than boards and replays, drawn by the same worker processes.

A feature's picture (a chart, a bracket, a card grid) is a small frozen
dataclass that subclasses :class:`Picture`: everything needed to draw it,
picklable, and a :meth:`Picture.draw` that returns the image's bytes (PNG).
The bot hands it to :meth:`renderer.pool.RenderWorkers.picture`, so drawing
never runs on its event loop; tests and command-line tools call ``draw()``.

A picture's words are in its ``language`` field (by default the language in
force where the picture was described, see :mod:`i18n`): the worker that
draws it knows nothing of the message it belongs to, so the language travels
inside the pickled picture, and :func:`spoken` draws in it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from i18n import speaking

P = TypeVar("P", bound="Picture")


class Picture:
    """What a drawing worker can draw: subclass it with the picture's data."""

    def draw(self) -> bytes:
        """The picture's PNG (or other image) bytes."""
        raise NotImplementedError


def spoken(draw: Callable[[P], bytes]) -> Callable[[P], bytes]:
    """``draw`` inside :func:`i18n.speaking` of the picture's ``language``."""

    @functools.wraps(draw)
    def drawn(self: P) -> bytes:
        with speaking(getattr(self, "language", None)):
            return draw(self)

    return drawn
