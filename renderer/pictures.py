"""Pictures other than boards and replays, drawn by the same worker processes.

A feature's picture (a chart, a bracket, a card grid) is a small frozen
dataclass that subclasses :class:`Picture`: everything needed to draw it,
picklable, and a :meth:`Picture.draw` that returns the image's bytes (PNG).
The bot hands it to :meth:`renderer.pool.RenderWorkers.picture`, so drawing
never runs on its event loop; tests and command-line tools call ``draw()``.
"""

from __future__ import annotations


class Picture:
    """What a drawing worker can draw: subclass it with the picture's data."""

    def draw(self) -> bytes:
        """The picture's PNG (or other image) bytes."""
        raise NotImplementedError
