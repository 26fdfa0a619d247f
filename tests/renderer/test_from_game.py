"""Scenes built from the engine's Game and its action log."""

from __future__ import annotations

import io

from PIL import GifImagePlugin, Image

from engine.game import Game
from renderer.from_game import scene_from_game, scenes_from_game
from renderer.replay import render_replay


def played_game() -> Game:
    game = Game()
    game.opening_roll((3, 1))  # player 0 wins the opening and plays 3-1
    game.play(0, "8/5 6/5")
    game.roll(1, (6, 4))
    return game


def test_opening_scene_puts_one_die_on_each_side() -> None:
    game = Game()
    game.opening_roll((2, 5))  # player 1 starts
    scene = scene_from_game(game, ("Ann", "Bob"))
    assert scene.opening and scene.dice == (5, 2)
    assert scene.names == ("Bob", "Ann")
    assert scene.on_roll_colour == 1


def test_scene_after_a_play_marks_it_for_the_other_player() -> None:
    game = played_game()
    scene = scene_from_game(game, ("Ann", "Bob"), viewer=0)
    assert scene.names == ("Bob", "Ann")
    assert scene.viewpoint == 1  # Ann (player 0) is not on roll: the board turns to her side
    assert scene.last_play_by == 1
    assert scene.last_play is not None
    assert {(m.source, m.destination) for m in scene.last_play} == {(8, 5), (6, 5)}
    assert scene.dice == (6, 4) and not scene.opening


def test_replay_from_the_log() -> None:
    game = played_game()
    scenes = list(scenes_from_game([a.to_dict() for a in game.log], names=("Ann", "Bob")))
    assert len(scenes) == 1 + len([a for a in game.log if not a.auto])
    assert all(scene.viewpoint == (0 if scene.on_roll_colour == 0 else 1) for scene in scenes)
    with Image.open(io.BytesIO(render_replay(scenes))) as gif:
        assert isinstance(gif, GifImagePlugin.GifImageFile)
        assert gif.n_frames == len(scenes)
