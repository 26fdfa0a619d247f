"""Replays: a sequence of scenes as an animated GIF, one frame per scene.

:func:`render_replay` draws given scenes; :func:`draw_replay` draws a whole
:class:`ReplayJob` (games as logged) within a number of frames and of bytes,
which is what the drawing workers do for the bot (``renderer.pool``): a replay
of a long match takes seconds of drawing, which must not hold the bot's loop.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from engine.game import GameSettings
from i18n import current
from renderer.board import render_image
from renderer.from_game import FRAME_ACTIONS, scenes_from_game
from renderer.scene import BoardScene

GIF_COLOURS = 64
"""Colours per frame; boards are flat, so 64 keeps them crisp and the file small."""
MAX_FRAMES = 300
"""Frames in one replay at most (a frame is about 25 KB and 8 ms of drawing)."""
MAX_BYTES = 9 * 1024 * 1024
"""A replay's size at most: under Discord's default upload limit of 10 MiB, with
room for the ``.mat`` and JSON files that go with it in an export."""
MIN_FRAMES = 2


class ReplayTooLargeError(ValueError):
    """Even a few frames of the replay would not fit in the bytes allowed."""


@dataclass(frozen=True, slots=True)
class ReplayGame:
    """One game as logged: its actions (the engine's dicts), settings
    (:meth:`GameSettings.to_dict`), the match score at its start and whether it
    is the Crawford game."""

    actions: tuple[Mapping[str, Any], ...]
    settings: Mapping[str, Any]
    score: tuple[int, int] = (0, 0)
    crawford: bool = False

    @property
    def frames(self) -> int:
        """Frames of this game in a replay: the start, then one per action worth a frame."""
        return 1 + sum(1 for a in self.actions if not a.get("auto") and a.get("kind") in FRAME_ACTIONS)


@dataclass(frozen=True, slots=True)
class ReplayJob:
    """Games to replay one after the other, and the limits of the GIF."""

    games: tuple[ReplayGame, ...]
    names: tuple[str, str] = ("", "")
    stake: int | None = None
    frame_ms: int = 1200
    max_frames: int = MAX_FRAMES
    max_bytes: int = MAX_BYTES
    language: str = field(default_factory=current)
    """The language of the boards' words: by default the one in force where the job
    is made, which the worker that draws it does not know otherwise."""


@dataclass(frozen=True, slots=True)
class ReplayGif:
    gif: bytes
    frames: int
    """Frames in the GIF."""
    positions: int
    """Frames the games have: more than :attr:`frames` when some were left out to fit."""


def draw_replay(job: ReplayJob) -> ReplayGif:
    """The GIF of ``job``: every frame when they fit in ``job.max_frames`` and
    ``job.max_bytes``, else frames evenly spread over the games (the first and
    the last always among them).

    :raises ReplayTooLargeError: if not even a handful of frames fit.
    :raises engine.game.GameError: if a log does not replay.
    """
    if not job.games:
        raise ValueError("a replay needs at least one game")
    scenes: list[BoardScene] = []
    for game in job.games:
        settings = GameSettings.from_dict(dict(game.settings))
        scenes.extend(
            scenes_from_game(
                game.actions,
                settings,
                job.names,
                score=game.score,
                crawford=game.crawford,
                stake=job.stake,
                language=job.language,
            )
        )
    keep = spread(len(scenes), job.max_frames)
    while True:
        gif = render_replay([scenes[i] for i in keep], frame_ms=job.frame_ms)
        if len(gif) <= job.max_bytes:
            return ReplayGif(gif, len(keep), len(scenes))
        if len(keep) <= MIN_FRAMES:
            raise ReplayTooLargeError(f"even {len(keep)} frames take {len(gif)} bytes, over {job.max_bytes}")
        # frames cost about the same: aim a tenth under the limit
        fewer = max(MIN_FRAMES, int(len(keep) * job.max_bytes / len(gif) * 0.9))
        keep = [keep[i] for i in spread(len(keep), fewer)]


def spread(count: int, most: int) -> list[int]:
    """``min(count, most)`` indexes of ``range(count)``, evenly spread, first and last included."""
    if count <= most:
        return list(range(count))
    if most <= 1:
        return [count - 1]
    step = (count - 1) / (most - 1)
    return sorted({round(i * step) for i in range(most)})


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
