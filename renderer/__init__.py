"""Board pictures for the Discord bot: a scene in, PNG (or an animated GIF replay) out.

    from renderer import BoardScene, render_board
    png = render_board(BoardScene(position, names=("Ann", "Bob"), dice=(6, 4)))

See :mod:`renderer.scene` for what a scene holds, :mod:`renderer.themes` for
the colour themes and :mod:`renderer.layout` for the geometry.
"""

from renderer.board import render_board, render_image
from renderer.from_game import scene_from_game, scenes_from_game
from renderer.replay import ReplayGame, ReplayGif, ReplayJob, ReplayTooLargeError, draw_replay, render_replay
from renderer.scene import BoardScene
from renderer.themes import CLASSIC, HIGH_CONTRAST, THEMES, Theme

__all__ = [
    "CLASSIC",
    "HIGH_CONTRAST",
    "THEMES",
    "BoardScene",
    "ReplayGame",
    "ReplayGif",
    "ReplayJob",
    "ReplayTooLargeError",
    "Theme",
    "draw_replay",
    "render_board",
    "render_image",
    "render_replay",
    "scene_from_game",
    "scenes_from_game",
]
