"""Replays as jobs: drawn within a number of frames and of bytes, in the drawing
workers, behind the boards waiting and on at most all but one worker."""

from __future__ import annotations

import asyncio
import io
import pickle
import random
from collections.abc import AsyncIterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import GifImagePlugin, Image

from engine import Game, Phase, SeededDice
from engine.position import Position
from renderer.board import render_board
from renderer.pipe import DRAWN, REPLY, REQUEST, serve
from renderer.pool import RenderError, RenderWorkers
from renderer.replay import ReplayGame, ReplayGif, ReplayJob, ReplayTooLargeError, draw_replay, spread
from renderer.scene import BoardScene


def played_game(seed: int, actions: int | None = 24) -> ReplayGame:
    """A money game of random legal plays, as logged (its first ``actions``: a
    replay of a game in progress is a replay too, and a short one is quick to draw)."""
    rng = random.Random(seed)
    game = Game(dice=SeededDice(seed))
    game.opening_roll()
    while not game.is_over:
        if game.phase is Phase.ROLL:
            game.roll(game.turn)
        else:
            game.play(game.turn, rng.choice(game.legal_plays()))
    return ReplayGame(tuple(a.to_dict() for a in game.log[:actions]), game.settings.to_dict())


GAME = played_game(1)


def test_every_position_is_a_frame_when_they_fit() -> None:
    drawn = draw_replay(ReplayJob((GAME,), ("Ann", "Bob")))
    assert drawn.frames == drawn.positions == GAME.frames
    with Image.open(io.BytesIO(drawn.gif)) as image:
        assert (
            isinstance(image, GifImagePlugin.GifImageFile) and 1 < image.n_frames <= drawn.frames
        )  # equal neighbours merge


def test_a_long_replay_is_sampled_down_to_the_frame_limit() -> None:
    games = (GAME, played_game(2))
    drawn = draw_replay(ReplayJob(games, max_frames=12))
    assert drawn.positions == sum(g.frames for g in games) > 12
    assert drawn.frames == 12
    with Image.open(io.BytesIO(drawn.gif)) as image:
        assert isinstance(image, GifImagePlugin.GifImageFile)
        assert image.n_frames <= 12


def test_a_replay_over_the_byte_limit_drops_frames_until_it_fits() -> None:
    whole = draw_replay(ReplayJob((GAME,)))
    limit = len(whole.gif) // 3
    smaller = draw_replay(ReplayJob((GAME,), max_bytes=limit))
    assert len(smaller.gif) <= limit and smaller.frames < whole.frames
    with pytest.raises(ReplayTooLargeError):
        draw_replay(ReplayJob((GAME,), max_bytes=1000))


@given(st.integers(0, 2000), st.integers(1, 400))
def test_spread_keeps_the_first_and_last_evenly(count: int, most: int) -> None:
    picked = spread(count, most)
    assert picked == sorted(set(picked)) and len(picked) == min(count, most)
    if count and most > 1:
        assert picked[0] == 0 and picked[-1] == count - 1


def test_the_worker_draws_a_replay_job_and_a_board_alike() -> None:
    job = ReplayJob((GAME,), ("Ann", "Bob"), max_frames=8)
    scene = BoardScene(Position.start())
    requests = b"".join(REQUEST.pack(len(body)) + body for body in (pickle.dumps(job), pickle.dumps(scene)))
    replies = io.BytesIO()
    serve(io.BytesIO(requests), replies)
    data = replies.getvalue()
    status, length = REPLY.unpack_from(data)
    assert status == DRAWN and pickle.loads(data[REPLY.size : REPLY.size + length]) == draw_replay(job)
    rest = data[REPLY.size + length :]
    assert REPLY.unpack_from(rest)[0] == DRAWN and rest[REPLY.size :] == render_board(scene)


# -- in the pool -------------------------------------------------------------------------


@pytest.fixture
async def workers() -> AsyncIterator[RenderWorkers]:
    pool = RenderWorkers(2)
    await pool.start()
    yield pool
    pool.close()


async def test_a_replay_from_the_workers_is_the_one_drawn_here(workers: RenderWorkers) -> None:
    job = ReplayJob((GAME,), ("Ann", "Bob"), max_frames=20)
    drawn = await workers.replay(job)
    assert isinstance(drawn, ReplayGif) and drawn == draw_replay(job)


async def test_a_broken_log_is_an_error_and_the_worker_goes_on(workers: RenderWorkers) -> None:
    broken = ReplayGame(({"kind": "play", "player": 0, "text": "24/1"},), GAME.settings)
    with pytest.raises(RenderError):
        await workers.replay(ReplayJob((broken,)))
    assert await workers.render(BoardScene(Position.start())) == render_board(BoardScene(Position.start()))


async def test_a_request_larger_than_the_pipe_holds_is_written_as_the_worker_reads(workers: RenderWorkers) -> None:
    games = tuple(played_game(seed, None) for seed in range(10, 30))
    job = ReplayJob(games, max_frames=4)
    assert len(pickle.dumps(job)) > 1 << 16  # more than a pipe's buffer on Linux
    drawn = await asyncio.wait_for(workers.replay(job), 60)
    assert (drawn.frames, drawn.positions) == (4, sum(g.frames for g in games))


async def test_replays_keep_a_worker_free_for_the_boards(workers: RenderWorkers) -> None:
    """Two long replays and then boards, all at once: one replay at a time (all but
    one worker), and the boards are drawn meanwhile by the other worker."""
    assert workers.replay_workers == 1
    long = ReplayJob((played_game(3, None), played_game(4, None)), max_frames=60)
    done: list[str] = []

    async def replay(name: str) -> None:
        await workers.replay(long)
        done.append(name)

    async def board(n: int) -> None:
        await workers.render(BoardScene(Position.start(), names=(f"p{n}", "q")))
        done.append(f"board {n}")

    replays = [asyncio.ensure_future(replay(name)) for name in ("first replay", "second replay")]
    await asyncio.sleep(0.05)
    assert workers._replaying == 1  # the second waits though a worker is idle: that one is for boards
    await asyncio.gather(*replays, *(board(n) for n in range(6)))
    assert done[:6] == [f"board {n}" for n in range(6)]
    assert done[6:] == ["first replay", "second replay"]
