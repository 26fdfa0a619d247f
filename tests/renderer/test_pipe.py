"""The drawing worker's protocol: framed pickled scenes in, framed PNGs out."""

from __future__ import annotations

import dataclasses
import io
import pickle

from engine.play import Move
from engine.position import Position
from renderer.board import render_board
from renderer.pipe import DRAWN, FAILED, REPLY, REQUEST, serve
from renderer.scene import BoardScene
from renderer.themes import CLASSIC, HIGH_CONTRAST


def _request(scene: BoardScene) -> bytes:
    body = pickle.dumps(scene)
    return REQUEST.pack(len(body)) + body


def _replies(data: bytes) -> list[tuple[int, bytes]]:
    replies, at = [], 0
    while at < len(data):
        status, length = REPLY.unpack_from(data, at)
        at += REPLY.size
        replies.append((status, data[at : at + length]))
        at += length
    return replies


def _unrenderable() -> BoardScene:
    scene = BoardScene(Position.start())
    object.__setattr__(scene, "dice", (7, 9))  # past the validation: no die has 7 pips
    return scene


def test_each_request_gets_its_board_and_a_bad_scene_does_not_end_the_worker() -> None:
    good = BoardScene(Position.start(), names=("Ann", "Bob"), dice=(6, 4))
    other = BoardScene(Position.from_counts({6: 15}, {1: 15}), names=("Cy", "Di"))
    requests = io.BytesIO(_request(good) + _request(_unrenderable()) + _request(other))
    replies = io.BytesIO()

    serve(requests, replies)  # returns at the end of the requests

    (s1, png1), (s2, reason), (s3, png3) = _replies(replies.getvalue())
    assert (s1, png1) == (DRAWN, render_board(good))
    assert s2 == FAILED and reason.decode().startswith("KeyError")
    assert (s3, png3) == (DRAWN, render_board(other))


def test_a_request_cut_short_ends_the_worker_quietly() -> None:
    whole = _request(BoardScene(Position.start()))
    for cut in (2, REQUEST.size, len(whole) - 1):
        replies = io.BytesIO()
        serve(io.BytesIO(whole[:cut]), replies)
        assert replies.getvalue() == b""


def test_a_worker_whose_replies_have_no_reader_ends_quietly() -> None:
    """The bot closed the pool (or died) with boards still held: the worker's
    replies have nowhere to go, and it ends without a traceback."""
    import subprocess

    from renderer.pool import _worker_command

    command, env = _worker_command()
    worker = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert worker.stdin is not None and worker.stdout is not None and worker.stderr is not None
    worker.stdout.close()  # nobody will read its replies
    worker.stdin.write(_request(BoardScene(Position.start())) * 3)
    worker.stdin.close()
    assert worker.wait(timeout=30) == 0
    assert worker.stderr.read() == b""


def test_scenes_cross_the_pipe_whole() -> None:
    """What the bot pickles is what the worker draws: every field; a known theme
    arrives as the worker's own object, any other whole."""
    odd = dataclasses.replace(CLASSIC, name="odd", felt=(1, 2, 3))
    scenes = [
        BoardScene(Position.start()),
        BoardScene(
            Position.from_counts({6: 5, 8: 3, 13: 4, 24: 1, 25: 2}, {24: 2, 13: 5, 8: 3, 6: 4, 0: 1}),
            viewpoint=1,
            names=("Ann 🎲", "Bob"),
            on_roll_colour=1,
            dice=(6, 4),
            cube_value=4,
            cube_owner=1,
            match_length=7,
            score=(2, 5),
            crawford=True,
            last_play=(Move(13, 7), Move(8, 4, True)),
            last_play_by=0,
            to_act_label="Ann to play",
            theme=HIGH_CONTRAST,
        ),
        BoardScene(Position.start(), names=("Cy", "Di"), dice=(3, 1), opening=True, stake=5, theme=odd),
    ]
    for scene in scenes:
        back = pickle.loads(pickle.dumps(scene, pickle.HIGHEST_PROTOCOL))
        assert back == scene and render_board(back) == render_board(scene)
        assert back.position == scene.position and back.position.off == scene.position.off
    assert pickle.loads(pickle.dumps(scenes[1])).theme is HIGH_CONTRAST
    assert pickle.loads(pickle.dumps(scenes[2])).theme == odd
