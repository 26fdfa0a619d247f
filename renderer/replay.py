"""Replays: a sequence of scenes as an animated GIF, one frame per scene."""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image

from renderer.board import render_image
from renderer.scene import BoardScene

GIF_COLOURS = 64
"""Colours per frame; boards are flat, so 64 keeps them crisp and the file small."""


def render_replay(scenes: Sequence[BoardScene], *, frame_ms: int = 1200, last_frame_ms: int | None = None) -> bytes:
    """An animated GIF showing ``scenes`` in order, ``frame_ms`` milliseconds each,
    looping forever. The last frame stays ``last_frame_ms`` (default: 3 x ``frame_ms``)
    so the final position can be read before the loop restarts. (Two identical
    scenes in a row become one longer frame: GIF writers merge equal frames.)

    :raises ValueError: if there are no scenes.
    """
    if not scenes:
        raise ValueError("a replay needs at least one scene")
    if frame_ms <= 0:
        raise ValueError(f"frame_ms must be positive, not {frame_ms}")
    frames = [
        render_image(scene).quantize(GIF_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        for scene in scenes
    ]
    durations = [frame_ms] * len(frames)
    durations[-1] = last_frame_ms if last_frame_ms is not None else 3 * frame_ms
    buffer = io.BytesIO()
    frames[0].save(
        buffer,
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
        disposal=1,
    )
    return buffer.getvalue()
